"""Rules across the lines of a memory stream, checked while the stream is read line by line.

``validate`` reads streams of any length: it holds no memory it has checked, only
which ids it has seen (a compact table, see ``IdLines``) and the evidence it still
has to look up.
"""

from __future__ import annotations

from array import array
from pathlib import Path
from typing import Callable, Iterator

from .linesize import MAX_LINE_BYTES, line_too_long
from .models import MEMORY_ID_RE, Memory, memory_author
from .problems import Problem


class IdLines:
    """Memory id → the line it was first seen on, for one stream.

    Ids as the tool writes them (``vera-042``: the agent, a number of at least three
    digits without extra zeros) cost four bytes each in an array indexed by number;
    any other id goes into a dict."""

    def __init__(self, agent: str | None):
        self.agent = agent
        self._lines = array("l")
        self._other: dict[str, int] = {}
        self.count = 0

    def _number(self, memory_id: str) -> int | None:
        match = MEMORY_ID_RE.match(memory_id)
        if match is None or match.group(1) != self.agent:
            return None
        digits = match.group(2)
        number = int(digits)
        # A number far past the ids seen so far would make the array huge: a dict entry then.
        if f"{number:03d}" != digits or number > 4 * self.count + (1 << 16):
            return None
        return number

    def get(self, memory_id: str) -> int | None:
        number = self._number(memory_id)
        if number is not None:
            line = self._lines[number] if number < len(self._lines) else 0
            if line:
                return line
        return self._other.get(memory_id)

    def __contains__(self, memory_id: str) -> bool:
        return self.get(memory_id) is not None

    def add(self, memory_id: str, line: int) -> None:
        self.count += 1
        number = self._number(memory_id)
        if number is None:
            self._other.setdefault(memory_id, line)
            return
        if number >= len(self._lines):
            self._lines.extend([0] * (max(number + 1, 2 * len(self._lines)) - len(self._lines)))
        if not self._lines[number]:
            self._lines[number] = line


class Consistency:
    """Unique ids, and evidence from this stream that exists in it; fed one memory at a time.

    Evidence from another character's stream is checked by ``validate`` (``foreign``)."""

    def __init__(self, display: str, agent: str | None):
        self.display, self.agent = display, agent
        self.ids = IdLines(agent)
        self._duplicates: list[Problem] = []
        self._unresolved: list[tuple[int, list[str]]] = []  # evidence not (yet) seen: cited before it stands

    def add(self, memory: Memory, line: int) -> None:
        first = self.ids.get(memory.id)
        if first is not None:
            self._duplicates.append(Problem(self.display, line, f"id: duplicate {memory.id!r} (first on line {first})"))
        else:
            self.ids.add(memory.id, line)
        own = [e for e in memory.evidence if memory_author(e) in (None, self.agent) and e not in self.ids]
        if own:
            self._unresolved.append((line, own))

    def problems(self) -> list[Problem]:
        missing = []
        for line, evidence in self._unresolved:
            absent = [e for e in evidence if e not in self.ids]
            if absent:
                missing.append(Problem(self.display, line, f"evidence: {', '.join(absent)} not in this stream"))
        return self._duplicates + missing


def stream_lines(path: Path, start: int = 0) -> Iterator[tuple[int, int, bytes | None]]:
    """(line number, byte offset, raw line) of every line of a stream from byte ``start`` (a line's
    first byte; numbers count from there), read one at a time; the raw line is None for a line
    longer than ``MAX_LINE_BYTES`` (not held, only skipped)."""
    with open(path, "rb") as handle:
        handle.seek(start)
        number, offset = 0, start
        while True:
            raw = handle.readline(MAX_LINE_BYTES + 2)
            if not raw:
                return
            number += 1
            length = len(raw)
            if not raw.endswith(b"\n") and length == MAX_LINE_BYTES + 2:
                while (rest := handle.readline(1 << 20)):
                    length += len(rest)
                    if rest.endswith(b"\n"):
                        break
                raw = None
            elif raw.endswith(b"\n"):
                raw = raw[:-1]
            yield number, offset, raw
            offset += length


def scan_stream(path: Path, display: str, parse_line: Callable[[bytes, int], "Memory | Problem"]
                ) -> Iterator[tuple[int, int, "Memory | Problem"]]:
    """Every line of a stream fully checked, in order: (line, offset, the memory or the problem of
    that line); blank lines are left out. ``parse_line`` is ``MemoryStream.parse_line``."""
    if not path.exists():
        return
    for number, offset, raw in stream_lines(path):
        if raw is None:
            yield number, offset, Problem(display, number, line_too_long())
        elif raw.strip():
            yield number, offset, parse_line(raw, number)
