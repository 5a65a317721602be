"""How an index build reads a stream and where it writes: in pieces, into a side file.

A stream of a million memories is some 400 MB; a build reads a piece at a time so that
its memory does not grow with the stream. It writes a side file of ``state/.cache/``
that is renamed over the index when complete. It commits what it has indexed every
``CHECKPOINT_BYTES`` of stream: a build that is killed leaves its side file, and the next
build takes it over and goes on from its last checkpoint if the stream still begins with the
lines it indexed (otherwise it removes it).
"""

from __future__ import annotations

import os
import sqlite3
import zlib
from pathlib import Path
from typing import Callable, Iterable, Iterator

from ..fsio import line_pieces
from ..derived import make_way
from ..ids import confined
from ..notices import said
from ..progress import progress
from ..problems import StateError

#: How much of a stream is read, analysed and inserted at a time.
PIECE_BYTES = 4 << 20
#: A side file an index is built in: ``{agent}.search.sqlite.building-{pid}``.
BUILDING = ".building-"
#: A build of a stream this large (some 20,000 memories, half a second or more) says so on stderr.
NOTICE_BYTES = 8 << 20
#: How much of a stream a build indexes between two commits: what a killed build leaves to
#: the next one (a million memories are some 400 MB and a minute or more of building).
CHECKPOINT_BYTES = 8 << 20


def pieces(handle) -> Iterable[bytes]:
    """The rest of an open stream in pieces of about ``PIECE_BYTES`` that end with a newline."""
    return line_pieces(handle, PIECE_BYTES)


def crc_of_start(handle, size: int) -> int:
    """CRC of the first ``size`` bytes of an open stream, read in pieces; the handle is left there."""
    crc, left = 0, size
    while left > 0:
        block = handle.read(min(left, PIECE_BYTES))
        if not block:
            return -1  # shorter than that now: no match
        crc = zlib.crc32(block, crc)
        left -= len(block)
    return crc


def run_script(db, script: str) -> None:
    """Each statement of ``script`` inside the open transaction (``executescript`` would commit it)."""
    for statement in filter(str.strip, script.split(";")):
        db.execute(statement)


def write_meta(db, meta: dict, rows, size: int, mtime_ns: int, crc: int, ends_nl: bool) -> None:
    meta.update(size=size, mtime_ns=mtime_ns, crc=crc, ends_nl=1 if ends_nl else 0,
                seq=rows.seq, lines=rows.line, day=rows.day, scene=rows.scene, dated=rows.dated)
    db.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", meta.items())


def announce_build(stream: Path, size: int, resumed: dict | None) -> Callable[[int], None]:
    """``update(position)`` for a build the user will wait for (the stream's byte it has
    indexed up to): said on stderr with its progress (``gamemaster.progress``); nothing for a
    small stream, or one whose build was announced with others (``parallel``)."""
    if size < NOTICE_BYTES or said(str(stream)):
        return lambda position: None
    went = f", going on from {resumed['size'] / 1e6:,.0f} MB where a build that was cut off stopped" if resumed else ""
    update = progress(f"building the search index of {stream.stem} ({size / 1e6:,.0f} MB of memories{went})",
                      f"indexing {stream.stem} (MB)", f"built the search index of {stream.stem}",
                      max(1, round(size / 1e6)), key=str(stream))
    return lambda position: update(round(position / 1e6) if position < size else max(1, round(size / 1e6)))


def reported(feed: Iterable[bytes], start: int, update: Callable[[int], None]) -> Iterator[bytes]:
    """``feed``'s pieces, telling ``update`` the stream's byte reached after each (from ``start``)."""
    position = start
    for piece in feed:
        yield piece
        position += len(piece)
        update(position)


def swap_in(path: Path, building: Path) -> None:
    """Rename ``building`` over the index ``path`` while holding the old file's write lock: no other
    process is then in the middle of writing it, and a journal a crashed one left behind
    has been rolled back (a journal found beside the new file would be played into it)."""
    old = sqlite3.connect(confined(path), timeout=30, isolation_level=None)
    try:
        try:
            old.execute("BEGIN IMMEDIATE")
        except sqlite3.DatabaseError as exc:
            if is_full(exc) or (isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc)):
                raise
            old.close()  # not a database (a damaged cache): nothing to wait for
            remove_files(path)
        os.replace(building, confined(path))
    finally:
        old.close()


def sweep_builds(path: Path, keep: Path) -> None:
    """Remove the side files of builds of ``path`` whose process is gone (killed mid-build), but ``keep``."""
    for side in _killed_builds(path):
        if side != keep:
            remove_files(side)


def take_over_build(path: Path, building: Path, handle, usable: Callable[[dict], bool]) -> dict | None:
    """The checkpoint of a killed build of ``path`` to go on from: its side file renamed to
    ``building`` and its ``meta``, with ``handle`` (the stream, open) left after the last line it
    indexed. None if no killed build indexed a beginning of the stream as it is now, in a way
    ``usable`` accepts."""
    for side in sorted(_killed_builds(path)):
        meta = _checkpoint(side) if side.is_file() else None
        # A checkpoint, or a build complete but killed before its rename: either ends with a newline.
        if not meta or not usable(meta) or not isinstance(meta.get("size"), int) or not meta.get("ends_nl"):
            continue
        handle.seek(0)
        if crc_of_start(handle, meta["size"]) != meta.get("crc"):
            continue  # the stream changed before the checkpoint: nothing in it can be kept
        if side != building:  # this process's own, interrupted: already in place
            remove_files(building)  # and its journal, which must not be played into another file
            try:
                # One rename: of two builds taking over the same side file, one gets it.
                os.rename(confined(side), confined(building))
            except FileNotFoundError:
                continue
            remove_files(side)  # its journal: rolled back by the read above, so no longer needed
        return meta
    handle.seek(0)
    return None


def _killed_builds(path: Path) -> list[Path]:
    """The side files of ``path`` whose build is not running: its process is gone, or it is this one's."""
    found = []
    for side in path.parent.glob(f"{path.name}{BUILDING}*"):
        pid = side.name.rpartition(BUILDING)[2]
        if pid.endswith(("-journal", "-wal", "-shm")):
            side = side.with_name(side.name.rsplit("-", 1)[0])
            if side.exists() or side in found:
                continue  # goes with its side file
            pid = side.name.rpartition(BUILDING)[2]  # left alone: removed as its side file would be
        if pid.isdigit() and int(pid) != os.getpid() and _alive(int(pid)):
            continue
        found.append(side)
    return found


def _checkpoint(side: Path) -> dict | None:
    """The ``meta`` of a side file as of its last commit (reading it rolls back a transaction the
    killed build left open), or None if it holds none or is no database."""
    try:
        # Its writer is gone: a lock on it is another build rolling it back or taking it over.
        db = sqlite3.connect(confined(side), timeout=10, isolation_level=None)
        try:
            return dict(db.execute("SELECT key, value FROM meta"))
        finally:
            db.close()
    except (sqlite3.Error, StateError):  # StateError: a link out of the workspace, not to be read
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process
    return True


def remove_files(path: Path) -> None:
    for suffix in ("", "-journal", "-wal", "-shm"):
        try:
            os.unlink(make_way(Path(f"{path}{suffix}")))
        except FileNotFoundError:
            pass


def is_full(exc: Exception) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and "full" in str(exc)


def rollback(db: sqlite3.Connection) -> None:
    # SQLite has already rolled back by itself after some errors (a full disk); a second
    # ROLLBACK would raise and hide the error that matters.
    if db.in_transaction:
        db.execute("ROLLBACK")
