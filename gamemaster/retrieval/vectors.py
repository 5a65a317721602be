"""The derived embedding store of one memory stream: ``state/.cache/{agent}.dense.sqlite``.

One row per memory of the search index (``index.py``): its index ``seq``, id, byte offset,
a CRC of its line and its vector (float16, L2-normalised). Like the index, everything in it
can be rebuilt from the stream; deleting it costs only the time to embed again.

- Incremental: only memories the index lists beyond the last one embedded are embedded,
  a batch per transaction, so a build that is killed keeps what it committed and the next
  query goes on from there (SQLite rolls back the unfinished batch).
- Keyed: the model's name and ``STORE_VERSION`` are kept in the file; another model or a
  change to what is embedded starts the file again.
- In step with the index: an index that was rebuilt (its file is new: another inode, or the
  newest vector's line is not where it was) may number its memories differently, so each row
  is checked against the index and the stream (same id, offset and line CRC); the rows that
  no longer match are embedded again.
- A file that is not a readable database (truncated, overwritten) is removed and built again;
  ``sync`` says so in one line, since that costs a full embedding run.
"""

from __future__ import annotations

import os
import sqlite3
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Protocol, Sequence

from ..derived import make_way
from ..ids import confined
from ..progress import progress
from ..problems import Problem
from .index import Doc, SearchIndex
from .pieces import remove_files

try:  # numpy comes with the optional dense model (the `dense` extra); without it this module is not used
    import numpy as np
except ImportError:  # pragma: no cover - exercised by the no-extra fault test in a subprocess
    np = None

#: 1: the description of a memory, as the model's "passage".
STORE_VERSION = 1
#: Memories embedded per transaction: a killed build loses at most one batch of work.
BATCH = 32
#: An embedding run of this many memories or more (at some 25–60 ms a memory: ten seconds and
#: more; minutes for an imported chat) says so on stderr, and how far it is each tenth of the way.
NOTICE_MEMORIES = 200

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value);
CREATE TABLE IF NOT EXISTS vec(seq INTEGER PRIMARY KEY, mem_id TEXT, offset INTEGER, crc INTEGER, v BLOB);
"""


class Embedder(Protocol):
    """What the store needs of a model: its identity and passage vectors (rows L2-normalised)."""

    key: str
    dim: int

    def passages(self, texts: Sequence[str]): ...


@dataclass
class Vectors:
    """The store's vectors in index order, for one query."""

    seqs: "np.ndarray"
    matrix: "np.ndarray"

    def nearest(self, query, count: int) -> list[tuple[int, float]]:
        """The ``count`` memories most similar to ``query`` (a normalised vector): (seq, cosine)."""
        if not len(self.seqs) or count <= 0:
            return []
        scores = self.matrix @ query.astype(self.matrix.dtype)
        count = min(count, len(scores))
        best = np.argpartition(-scores, count - 1)[:count]
        best = best[np.argsort(-scores[best], kind="stable")]
        return [(int(self.seqs[i]), float(scores[i])) for i in best]


#: Vectors read once per process while the file's generation stays the same (a scene asks for
#: several characters' selections, a bench for hundreds): {path: (inode, generation, Vectors)}.
_LOADED: dict[str, tuple[int, int, Vectors]] = {}


class VectorStore:
    def __init__(self, path: Path, embedder: Embedder):
        self.path = path
        self.embedder = embedder

    def sync(self, index: SearchIndex, read_line: Callable[[Doc], str | None]) -> tuple[Vectors, list[Problem]]:
        """Embed what the (refreshed) index lists and the store lacks; then all vectors.
        ``read_line(doc)`` gives the text to embed for a memory, None for a line that does not parse."""
        problems: list[Problem] = []
        try:
            return self._sync(index, read_line), problems
        except sqlite3.DatabaseError as exc:
            if "full" in str(exc):
                raise
            # Only derived from the stream: start it again, and say so (a full embedding run follows).
            remove_files(self.path)
            _LOADED.pop(str(self.path), None)
            problems.append(Problem(f"state/.cache/{self.path.name}", None,
                                    f"could not be read ({exc}); rebuilt from the memory stream", warning=True))
            return self._sync(index, read_line), problems

    def _connect(self) -> sqlite3.Connection:
        make_way(self.path).parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(confined(self.path), timeout=30, isolation_level=None)
        db.execute("PRAGMA synchronous=OFF")  # a derived file: a crash may damage it, then it is rebuilt
        return db

    def _sync(self, index: SearchIndex, read_line) -> Vectors:
        db = self._connect()
        try:
            db.executescript(_SCHEMA)
            meta = dict(db.execute("SELECT key, value FROM meta"))
            key = f"{self.embedder.key}/{STORE_VERSION}"
            index_ino = os.stat(index.path).st_ino
            if meta.get("model") != key:
                db.execute("BEGIN IMMEDIATE")
                db.execute("DELETE FROM vec")
                self._set(db, model=key, dim=self.embedder.dim, index_ino=index_ino, done=0, generation=_next(meta))
                db.execute("COMMIT")
                meta = dict(db.execute("SELECT key, value FROM meta"))
            if meta.get("index_ino") != index_ino or not self._last_row_holds(db, index):
                self._recheck(db, index, index_ino)
            self._embed_missing(db, index, read_line)
            return self._load(db)
        finally:
            db.close()

    def _last_row_holds(self, db, index: SearchIndex) -> bool:
        """The newest vector is still of its line: an index rebuilt into a file that got the old one's
        inode number (deleted, then built again) is caught here, one line read per query."""
        row = db.execute("SELECT seq, mem_id, offset, crc FROM vec ORDER BY seq DESC LIMIT 1").fetchone()
        if row is None:
            return True
        doc = index.docs([row[0]]).get(row[0])
        if doc is None:
            return False
        with open(index.stream_path, "rb") as handle:
            return _same_line(handle, doc, *row[1:])

    def _recheck(self, db, index: SearchIndex, index_ino: int) -> None:
        """The index was rebuilt: keep the rows whose memory is still where it was, the same line."""
        stored = {seq: (mem_id, offset, crc) for seq, mem_id, offset, crc in
                  db.execute("SELECT seq, mem_id, offset, crc FROM vec")}
        docs = index.docs(stored)  # an index of a stream that is gone lists nothing: every row is stale
        stale = [seq for seq in stored if seq not in docs]
        if docs:
            with open(index.stream_path, "rb") as handle:
                stale += [seq for seq, doc in docs.items() if not _same_line(handle, doc, *stored[seq])]
        db.execute("BEGIN IMMEDIATE")
        db.executemany("DELETE FROM vec WHERE seq = ?", [(s,) for s in stale])
        meta = dict(db.execute("SELECT key, value FROM meta"))
        self._set(db, index_ino=index_ino, done=0, generation=_next(meta))
        db.execute("COMMIT")

    def _embed_missing(self, db, index: SearchIndex, read_line) -> None:
        done = dict(db.execute("SELECT key, value FROM meta")).get("done", 0)
        total = index.count()
        if done >= total:
            return
        have = {seq for (seq,) in db.execute("SELECT seq FROM vec WHERE seq > ?", (done,))}
        wanted = [seq for seq in range(done + 1, total + 1) if seq not in have]
        progress = _progress(self.path, len(wanted), wanted[0] if wanted else 0)
        with open(index.stream_path, "rb") as handle:
            for start in range(0, len(wanted), BATCH):
                progress(start)
                docs = index.docs(wanted[start:start + BATCH])
                rows, texts = [], []
                for seq in sorted(docs):
                    doc = docs[seq]
                    handle.seek(doc.offset)
                    raw = handle.read(doc.length)
                    text = read_line(doc)
                    rows.append((seq, doc.mem_id, doc.offset, zlib.crc32(raw)))
                    texts.append(text or "")
                vectors = self._embed(texts)
                db.execute("BEGIN IMMEDIATE")
                db.executemany("INSERT OR REPLACE INTO vec(seq, mem_id, offset, crc, v) VALUES (?,?,?,?,?)",
                               [(*row, vector.tobytes()) for row, vector in zip(rows, vectors)])
                meta = dict(db.execute("SELECT key, value FROM meta"))
                self._set(db, generation=_next(meta))
                db.execute("COMMIT")
        progress(len(wanted))
        db.execute("BEGIN IMMEDIATE")
        meta = dict(db.execute("SELECT key, value FROM meta"))
        self._set(db, done=total, generation=_next(meta))
        db.execute("COMMIT")

    def _embed(self, texts: list[str]):
        """float16 rows; a line that does not parse (empty text) gets a zero vector: it is never
        near a query, and is not embedded again on every query."""
        present = [i for i, text in enumerate(texts) if text.strip()]
        out = np.zeros((len(texts), self.embedder.dim), dtype=np.float16)
        if present:
            out[present] = np.asarray(self.embedder.passages([texts[i] for i in present]), dtype=np.float16)
        return out

    def _load(self, db) -> Vectors:
        meta = dict(db.execute("SELECT key, value FROM meta"))
        ino, generation = os.stat(self.path).st_ino, meta.get("generation", 0)
        cached = _LOADED.get(str(self.path))
        if cached and cached[:2] == (ino, generation):
            return cached[2]
        seqs, blobs = [], []
        for seq, blob in db.execute("SELECT seq, v FROM vec ORDER BY seq"):
            seqs.append(seq)
            blobs.append(blob)
        dim = int(meta.get("dim") or self.embedder.dim)
        matrix = np.frombuffer(b"".join(blobs), dtype=np.float16).reshape(len(seqs), dim) if seqs else \
            np.zeros((0, dim), dtype=np.float16)
        vectors = Vectors(np.asarray(seqs, dtype=np.int64), matrix.astype(np.float32))
        _LOADED[str(self.path)] = (ino, generation, vectors)
        return vectors

    @staticmethod
    def _set(db, **values) -> None:
        db.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", values.items())


def _progress(path: Path, wanted: int, first: int) -> Callable[[int], None]:
    """``progress(done)`` for an embedding run of ``wanted`` memories into the store ``path``
    (``gamemaster.progress``); nothing for a short run. The key names the run (its first memory),
    so a later run in the same process says so again."""
    if wanted < NOTICE_MEMORIES:
        return lambda done: None
    agent = path.name.split(".")[0]
    return progress(f"embedding {wanted:,} memories of {agent} for hybrid recall (some 25–60 ms each)",
                    f"embedding {agent}", f"embedded {wanted:,} memories of {agent}", wanted, key=f"{path}:{first}")


def _same_line(handle, doc: Doc, mem_id: str, offset: int, crc: int) -> bool:
    if doc.mem_id != mem_id or doc.offset != offset:
        return False
    handle.seek(doc.offset)
    return zlib.crc32(handle.read(doc.length)) == crc


def _next(meta: dict) -> int:
    return int(meta.get("generation", 0)) + 1


def store_path_for(root: Path, agent: str) -> Path:
    return root / "state" / ".cache" / f"{agent}.dense.sqlite"
