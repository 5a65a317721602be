"""The derived search index of one memory stream: ``state/.cache/{agent}.search.sqlite``.

An inverted index (SQLite FTS5 over the analysed words of each memory's
description, artifact title and summary, and tags) plus one row per memory with
what ranking needs without parsing the line: byte offset, line, scene, type,
importance. Everything in it can be rebuilt from the stream at any time.

Freshness: the index keeps the stream's size, mtime and a CRC of the bytes it
covers. The tool's own appends update it in place. A stream that changed
outside the tool is caught by size and mtime: if the old bytes are unchanged
(the CRC matches) only the new lines are indexed, otherwise it is rebuilt.
"""

from __future__ import annotations

import os
import sqlite3
import zlib
from pathlib import Path
from typing import Iterable, Iterator, NamedTuple

from ..derived import make_way
from ..ids import confined
from ..problems import GamemasterError
from .analyse import Rows, analyse
from ..bulk import no_cycle_collection
from .pieces import (BUILDING, CHECKPOINT_BYTES, announce_build, crc_of_start, is_full, pieces, remove_files, reported,
                     rollback, run_script, swap_in, sweep_builds, take_over_build, write_meta)
from .schema import INDEXES, SCHEMA, SCHEMA_VERSION, can_migrate, migrate, tag_of, tag_token, tags_matching
from .text import PIPELINE_VERSION

#: SQLite's page cache during a build (KiB): FTS5 and the b-trees stay in memory until the commit.
_BUILD_CACHE_KB = 64 << 10


class IndexUnavailable(GamemasterError):
    """The derived index could not be read or written (a full disk, a read-only folder)."""


class Doc(NamedTuple):
    """One indexed memory line (a tuple: a selection makes a few hundred of them)."""

    seq: int
    line: int
    offset: int
    length: int
    mem_id: str
    day: int
    scene: int
    dated: bool
    type: str
    importance: int
    depth: int

    @property
    def scene_key(self) -> tuple[int, int]:
        return (self.day, self.scene)


_DOC_COLUMNS = "seq, line, offset, length, mem_id, day, scene, dated, type, importance, depth"


def _row_doc(row) -> Doc:
    return Doc(*row[:7], bool(row[7]), *row[8:])


class SearchIndex:
    def __init__(self, stream_path: Path, index_path: Path, language: str | None):
        self.stream_path = stream_path
        self.path = index_path
        self.language = language
        self._db: sqlite3.Connection | None = None

    # -- connection and freshness -------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            make_way(self.path).parent.mkdir(parents=True, exist_ok=True)
            # SQLite writes where a link points: the same check as every other write.
            self._db = sqlite3.connect(confined(self.path), timeout=30, isolation_level=None)
            # A derived file: a crash may leave it damaged, and then it is rebuilt.
            self._db.execute("PRAGMA synchronous=OFF")
        return self._db

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _meta(self, db: sqlite3.Connection) -> dict:
        try:
            return dict(db.execute("SELECT key, value FROM meta"))
        except sqlite3.DatabaseError:
            return {}

    def _current(self, meta: dict) -> bool:
        """Made by this version for the studio's language: what a build or an append writes into."""
        return meta.get("schema") == SCHEMA_VERSION and self._compatible(meta)

    def _compatible(self, meta: dict) -> bool:
        """The same words for the same memories: current, or of a schema ``_refresh`` migrates in place."""
        return (
            (meta.get("schema") == SCHEMA_VERSION or can_migrate(meta.get("schema")))
            and meta.get("pipeline") == PIPELINE_VERSION
            and meta.get("language") == self.language
        )

    def _covers(self, meta: dict, stat: os.stat_result) -> bool:
        return self._compatible(meta) and meta.get("size") == stat.st_size and meta.get("mtime_ns") == stat.st_mtime_ns

    def to_index(self) -> int:
        """Bytes of the stream a ``refresh`` would analyse: none, what was appended where the index
        still covers the stream's start (a copied studio: only the times changed), or all of it."""
        try:
            stat = self.stream_path.stat()
            meta = self._meta(self._connect()) if self.path.exists() else {}
            if self._covers(meta, stat):
                return 0
            with open(self.stream_path, "rb") as handle:
                return stat.st_size - meta["size"] if self._goes_on(meta, stat.st_size, handle) else stat.st_size
        except (OSError, sqlite3.Error):
            return 0  # what is wrong is left to ``refresh``, which reports it
        finally:
            self.close()

    def refresh(self) -> "SearchIndex":
        """Bring the index up to the stream as it is on disk now."""
        try:
            try:
                return self._refresh()
            except sqlite3.DatabaseError as exc:
                if is_full(exc):
                    raise
                # A damaged cache file is only a cache: start it again.
                self.close()
                remove_files(self.path)
                return self._refresh()
        except sqlite3.Error as exc:
            self.close()
            raise IndexUnavailable(
                f"state/.cache/{self.path.name}: {exc}; nothing was lost (this file is only derived "
                "from the memory stream): free disk space, or delete state/.cache/, and run the command again"
            ) from None

    def _refresh(self) -> "SearchIndex":
        try:
            stat = self.stream_path.stat()
        except FileNotFoundError:
            stat = None
        db = self._connect()
        meta = self._meta(db)
        if meta.get("schema") != SCHEMA_VERSION and self._compatible(meta):
            meta = self._migrate(db)
        if stat is None:
            if meta.get("size", 0) != 0 or not self._compatible(meta):
                self._rebuild(None, 0)
            return self
        if self._covers(meta, stat):
            return self
        # The stream is read in pieces, never whole: a 1M-memory stream is some 400 MB.
        with open(self.stream_path, "rb") as handle:
            if self._goes_on(meta, stat.st_size, handle):
                self._extend(pieces(handle), meta["size"], meta, stat.st_mtime_ns)
            else:
                self._rebuild(handle, stat.st_mtime_ns)
        return self

    def _migrate(self, db: sqlite3.Connection) -> dict:
        """Bring an index of an earlier schema up to this one in place, in one transaction."""
        db.execute("BEGIN IMMEDIATE")
        try:
            meta = self._meta(db)  # another process may have migrated it meanwhile
            if meta.get("schema") != SCHEMA_VERSION and self._compatible(meta):
                migrate(db, meta["schema"])
            db.execute("COMMIT")
        except BaseException:
            rollback(db)
            raise
        return self._meta(db)

    def _goes_on(self, meta: dict, size: int, handle) -> bool:
        """Whether the stream open in ``handle`` still begins with the bytes the index analysed
        (their CRC), so only what follows needs analysing; ``handle`` is left after them."""
        old = meta.get("size", -1)
        return (self._compatible(meta) and isinstance(old, int) and 0 <= old <= size and bool(meta.get("ends_nl"))
                and crc_of_start(handle, old) == meta.get("crc"))

    def _rebuild(self, handle, mtime_ns: int) -> None:
        """Build the index afresh from the open stream ``handle`` (None: no stream) in a side file
        of ``state/.cache/`` and put it in place in one rename; the index in place is never
        half-built. The build commits every ``CHECKPOINT_BYTES``: one that is killed leaves its side
        file, and this build goes on from its last commit if the stream still begins as it did."""
        self.close()
        building = self.path.with_name(f"{self.path.name}{BUILDING}{os.getpid()}")
        resumed = take_over_build(self.path, building, handle, self._current) if handle else None
        if resumed is None:
            remove_files(building)
        sweep_builds(self.path, keep=building)
        update = announce_build(self.stream_path, os.fstat(handle.fileno()).st_size if handle else 0, resumed)
        db = sqlite3.connect(confined(building), isolation_level=None)
        try:
            # A rollback journal (not none): a build killed between two checkpoints leaves the
            # last one intact. Its pages are new ones, so the journal stays small.
            db.execute("PRAGMA synchronous=OFF")
            db.execute(f"PRAGMA cache_size=-{_BUILD_CACHE_KB}")
            db.execute("BEGIN")
            if resumed is None:
                run_script(db, SCHEMA)
            state = resumed or {"seq": 0, "lines": 0, "crc": 0, "day": 0, "scene": 0, "dated": 0}
            meta = {"schema": SCHEMA_VERSION, "pipeline": PIPELINE_VERSION, "language": self.language, "partial": 1}
            feed = reported(pieces(handle), state.get("size", 0), update) if handle else ()
            self._index_pieces(db, feed, state.get("size", 0), state, meta, mtime_ns, checkpoint=True)
            run_script(db, INDEXES)
            db.execute("DELETE FROM meta WHERE key = 'partial'")
            db.execute("COMMIT")
            db.close()
            swap_in(self.path, building)
        except KeyboardInterrupt:
            db.close()  # rolls back to the last checkpoint, which the next build goes on from
            raise
        except BaseException:
            db.close()
            remove_files(building)
            raise

    def _extend(self, pieces: Iterable[bytes], start: int, meta: dict, mtime_ns: int) -> None:
        db = self._connect()
        db.execute("BEGIN IMMEDIATE")
        try:
            current = self._meta(db)
            if current.get("size") != meta.get("size"):
                db.execute("ROLLBACK")  # another process got here first
                self.refresh()
                return
            self._index_pieces(db, pieces, start, current, current, mtime_ns)
            db.execute("COMMIT")
        except BaseException:
            rollback(db)
            raise

    def append(self, start: int, lines: list[str], size_before: int, mtime_ns: int) -> bool:
        """Index lines the tool just appended at ``start``; False if the index was not in step."""
        db = self._connect()
        meta = self._meta(db)
        if self.language is None:  # the writer does not know the studio's language; the index does
            self.language = meta.get("language")
        if not self._current(meta) or meta.get("size") != size_before or not meta.get("ends_nl"):
            return False
        payload = "".join(line + "\n" for line in lines).encode("utf-8")
        gap = start - size_before  # a newline the append put before a hand-cut last line
        if gap:
            return False
        db.execute("BEGIN IMMEDIATE")
        try:
            current = self._meta(db)
            if current.get("size") != size_before:
                db.execute("ROLLBACK")
                return False
            self._index_pieces(db, [payload], start, current, current, mtime_ns)
            db.execute("COMMIT")
        except BaseException:
            rollback(db)
            raise
        return True

    def _index_pieces(self, db, pieces: Iterable[bytes], base: int, state: dict, meta: dict, mtime_ns: int,
                      checkpoint: bool = False) -> None:
        """Index the lines in ``pieces`` (consecutive bytes of the stream from byte ``base``, each
        piece but the last ending with a newline), one piece in memory at a time; with
        ``checkpoint``, commit every ``CHECKPOINT_BYTES`` with ``meta`` saying how far it got."""
        rows = Rows(state.get("seq", 0), state.get("lines", 0), state.get("day", 0), state.get("scene", 0),
                    state.get("dated", 0))
        crc, size, ends_nl = state.get("crc", 0), base, state.get("ends_nl", True)
        committed = base
        with no_cycle_collection():
            for data in pieces:
                if not data:
                    continue
                rows.start_piece()
                analyse(data, size, meta["language"], rows)
                db.executemany(f"INSERT INTO doc({_DOC_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?)", rows.docs)
                db.executemany("INSERT INTO tags(rowid, tag) VALUES (?, ?)", rows.tags)
                db.executemany("INSERT INTO fts(rowid, body) VALUES (?, ?)", rows.texts)
                crc = zlib.crc32(data, crc)
                size += len(data)
                ends_nl = data.endswith(b"\n")
                # Only after a newline: a build that goes on must start at the beginning of a line.
                if checkpoint and ends_nl and size - committed >= CHECKPOINT_BYTES:
                    write_meta(db, meta, rows, size, mtime_ns, crc, ends_nl)
                    db.execute("COMMIT")
                    db.execute("BEGIN")
                    committed = size
        write_meta(db, meta, rows, size, mtime_ns, crc, ends_nl)

    # -- queries -------------------------------------------------------------

    def count(self) -> int:
        return self._meta(self._connect()).get("seq", 0)

    def doc_freqs(self, terms: Iterable[str]) -> dict[str, int]:
        terms = list(dict.fromkeys(terms))
        if not terms:
            return {}
        marks = ",".join("?" * len(terms))
        return dict(self._connect().execute(f"SELECT term, doc FROM vocab WHERE term IN ({marks})", terms))

    def search(self, terms: Iterable[str], limit: int) -> dict[int, float]:
        """BM25 (higher is better) of the best ``limit`` memories sharing a term."""
        terms = list(dict.fromkeys(terms))
        if not terms:
            return {}
        expression = " OR ".join(f'"{t}"' for t in terms)
        rows = self._connect().execute(
            "SELECT rowid, bm25(fts) FROM fts WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT ?", (expression, limit)
        )
        return {seq: -score for seq, score in rows}

    def tagged(self, keys: Iterable[str], limit: int) -> list[int]:
        keys = list(dict.fromkeys(k for k in keys if k))
        if not keys:
            return []
        rows = self._connect().execute(
            "SELECT rowid FROM tags WHERE tags MATCH ? ORDER BY rowid DESC LIMIT ?", (tags_matching(keys), limit))
        return [seq for (seq,) in rows]

    def tag_freqs(self, keys: Iterable[str]) -> dict[str, int]:
        """How many memories carry each tag."""
        keys = list(dict.fromkeys(k for k in keys if k))
        if not keys:
            return {}
        marks = ",".join("?" * len(keys))
        return {tag_of(term): count for term, count in self._connect().execute(
            f"SELECT term, doc FROM tag_vocab WHERE term IN ({marks})", [tag_token(key) for key in keys])}

    def docs(self, keys: Iterable, by: str = "seq") -> dict:
        """The indexed memories with these ``seq`` numbers, or with these ids (``by="mem_id"``; an
        id on several lines: its first), keyed as asked."""
        keys, column = sorted(set(keys)), {"seq": "seq", "mem_id": "mem_id"}[by]
        found: dict = {}
        db = self._connect()
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for row in db.execute(f"SELECT {_DOC_COLUMNS} FROM doc WHERE {column} IN ({marks}) ORDER BY seq", chunk):
                found.setdefault(row[0] if by == "seq" else row[4], _row_doc(row))
        return found

    def filtered(self, tag_key: str | None = None, kind: str | None = None) -> list[Doc]:
        """Memories in stream order with a tag of key ``tag_key`` and of type ``kind`` (``memories --tag --type``)."""
        where, args = [], []
        if tag_key is not None:
            where.append("seq IN (SELECT rowid FROM tags WHERE tags MATCH ?)")
            args.append(tags_matching([tag_key]))
        if kind is not None:
            where.append("type = ?")
            args.append(kind)
        condition = f"WHERE {' AND '.join(where)}" if where else ""
        rows = self._connect().execute(f"SELECT {_DOC_COLUMNS} FROM doc {condition} ORDER BY seq", args)
        return [_row_doc(row) for row in rows]

    def spans(self) -> Iterator[tuple[int, int, int]]:
        """(line, offset, length) of every indexed line, in stream order: read from the cursor as
        they are used (one per memory: a list of them grows with the stream); before ``close()``."""
        yield from self._connect().execute("SELECT line, offset, length FROM doc ORDER BY seq")

    def newest(self, count: int, reflections: bool = False, seqs: bool = False) -> list:
        """The ``count`` newest memories (``reflections``: of those), newest first; ``seqs``: only
        their numbers (a selection's fillers, looked up with the other candidates)."""
        columns, where = "seq" if seqs else _DOC_COLUMNS, "WHERE depth > 0" if reflections else ""
        rows = self._connect().execute(f"SELECT {columns} FROM doc {where} ORDER BY seq DESC LIMIT ?", (count,))
        return [row[0] for row in rows] if seqs else [_row_doc(row) for row in rows]


def index_path_for(root: Path, agent: str) -> Path:
    return root / "state" / ".cache" / f"{agent}.search.sqlite"


def open_index(root: Path, agent: str, language: str) -> SearchIndex:
    return SearchIndex(root / "state" / "memories" / f"{agent}.jsonl", index_path_for(root, agent), language)


def index_appended(root: Path, agent: str, start: int, lines: list[str], size_before: int, mtime_ns: int) -> None:
    """Bring an existing search index along after the tool appended ``lines`` at ``start``.

    An index that is missing or not in step is left alone: the next query rebuilds or extends it.
    """
    path = index_path_for(root, agent)
    if not path.exists():
        return
    index = SearchIndex(root / "state" / "memories" / f"{agent}.jsonl", path, None)
    try:
        index.append(start, lines, size_before, mtime_ns)
    except sqlite3.Error:
        pass  # a derived file; the next query rebuilds it
    finally:
        index.close()
