"""Memory lines parsed once while their bytes stay the same, and a stream's end read once while
the file stays the same.

Every prompt reads the newest lines of its character's stream (what was said lately) and a few
hundred candidates for its memories, and a stream changes only by the lines a scene appends: at
a hundred characters most of a day's parsing was the same lines parsed again, scene after scene,
and more of them as the streams filled. Here a parsed line is kept under its stream and byte
offset together with its bytes; it is handed out again only for exactly those bytes at that
offset, so a line changed by hand is parsed anew (its bytes differ). Only valid memories are kept:
a bad line is parsed and reported each time, with the line number its reader gives. The last
lines of a stream (``MemoryStream.tail``) are kept with the file's stat stamp, as a snapshot keeps
the agent files (``snapshot.py``): the write-back of a scene, a later turn and the day's memories
read the end the prompt read, and any write or hand edit gives the file a new stamp. Each stream
has its own lines: a character reads only its own.

The memories handed out are shared, as a ranked selection shares them between its sections:
readers never change a memory. A stream keeps only the lines of its end (``StreamLines``), and at
most ``STREAMS`` streams are kept, so a long-running server stays bounded.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from pathlib import Path
from typing import Callable

from .models import Memory

#: Lines kept of one stream at most: a safety net, as only its end is kept (``StreamLines``).
LINES = 512
#: Streams kept: a studio of a few hundred characters.
STREAMS = 512


class StreamLines:
    """One stream's parsed lines, byte offset → (the line's bytes, its memory): those of the end the
    widest ``tail`` read (a prompt reads the newest ``news.TAIL``), and what was appended since.
    An older line a selection reads is parsed again each time: every memory kept is a dozen objects
    more for the garbage collector to walk at each full collection, so no more is kept than the
    next prompt reads again."""

    def __init__(self) -> None:
        self.lines: dict[int, tuple[bytes, Memory]] = {}
        #: The first byte of the end kept, and the count of the widest ``tail`` that set it.
        self.floor, self.widest = 0, 0
        #: count → (the file's stamp, the last ``count`` memories, the problems among them)
        self.tails: dict[int, tuple[tuple, tuple, tuple]] = {}

    def known(self, offset: int, raw: bytes) -> Memory | None:
        """The memory parsed from exactly ``raw`` at ``offset``, if kept."""
        found = self.lines.get(offset)
        return found[1] if found is not None and found[0] == raw else None

    def keep(self, offset: int, raw: bytes, memory: Memory) -> None:
        if offset < self.floor:
            return
        if len(self.lines) >= LINES:
            self.lines = {o: line for o, line in self.lines.items() if o >= self.floor}
            if len(self.lines) >= LINES:  # no tail read to say where the end begins: start again
                self.lines = {}
        self.lines[offset] = (raw, memory)

    def tail(self, count: int, stamp: tuple, read: Callable[[], tuple[list, list]]) -> tuple[list, list]:
        """``read()`` (a stream's last ``count`` memories and problems), read again only when the
        stream's ``stamp`` changed: a prompt and the write-back of its scene read the same end."""
        kept = self.tails.get(count)
        if kept is None or kept[0] != stamp:
            found, problems = read()
            kept = self.tails[count] = (stamp, tuple(found), tuple(problems))
            if count >= self.widest:  # the end a prompt reads: what lies before it is let go
                self.widest, self.floor = count, found[0].offset if found else 0
                self.lines = {o: line for o, line in self.lines.items() if o >= self.floor}
        return list(kept[1]), list(kept[2])


def stamp(path: Path) -> tuple[int, int, int, int] | None:
    """What tells a file changed from the one read (the snapshot's state files, a stream's end): an
    append or an edit in place gives a new size or mtime, an atomic rewrite a new inode; None: no such file."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_size)


_streams: OrderedDict[tuple[str, str], StreamLines] = OrderedDict()


def of(agent: str, path: Path) -> StreamLines:
    """The parsed lines of ``agent``'s stream at ``path``."""
    key = (agent, str(path))
    lines = _streams.get(key)
    if lines is None:
        lines = _streams[key] = StreamLines()
        if len(_streams) > STREAMS:
            _streams.popitem(last=False)
    else:
        _streams.move_to_end(key)
    return lines
