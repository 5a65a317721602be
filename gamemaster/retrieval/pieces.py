"""How an index build reads a stream and where it writes: in pieces, into a side file.

A stream of a million memories is some 400 MB; a build reads a piece at a time so that
its memory does not grow with the stream. It writes a side file of ``state/.cache/``
that is renamed over the index when complete; a build that is killed leaves only that
file, and the next build removes it.
"""

from __future__ import annotations

import os
import sqlite3
import zlib
from pathlib import Path
from typing import Iterable

from ..fsio import line_pieces

#: How much of a stream is read, analysed and inserted at a time.
PIECE_BYTES = 4 << 20
#: A side file an index is built in: ``{agent}.search.sqlite.building-{pid}``.
BUILDING = ".building-"


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


def sweep_builds(path: Path) -> None:
    """Remove the side files of builds of ``path`` whose process is gone (killed mid-build)."""
    for side in path.parent.glob(f"{path.name}{BUILDING}*"):
        pid = side.name.rpartition(BUILDING)[2].split("-")[0]
        if pid.isdigit() and int(pid) != os.getpid() and _alive(int(pid)):
            continue
        remove_files(side)


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
            os.unlink(f"{path}{suffix}")
        except FileNotFoundError:
            pass


def is_full(exc: Exception) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and "full" in str(exc)


def rollback(db: sqlite3.Connection) -> None:
    # SQLite has already rolled back by itself after some errors (a full disk); a second
    # ROLLBACK would raise and hide the error that matters.
    if db.in_transaction:
        db.execute("ROLLBACK")
