"""Memory streams: ``state/memories/{agent}.jsonl``, read from the end, appended to.

The hot paths never parse a whole stream. The last lines come from a backwards
read; reflections older than the window come from a small derived index
(``state/.cache/{agent}.json``: size, mtime, line count, highest id number and
the byte offsets of reflection lines). The index is checked against the
stream's size and mtime and rebuilt whenever a hand edit changed the file.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from pydantic import ValidationError

from . import jsontext, parsed_lines
from .derived import make_way
from .bulk import no_cycle_collection
from .jsontext import without_bom
from .fsio import append_lines, atomic_write_json, iter_line_blocks_backwards, line_pieces, read_tail_lines
from .linesize import MAX_LINE_BYTES, line_too_long
from .models import Memory
from .problems import GamemasterError, Problem, describe_validation_error
from .stream_rules import Consistency, scan_stream

INDEX_VERSION = 2
_REFLECTION = re.compile(rb'"type"\s*:\s*"reflection"')
#: A blank line after a newline (up to the next one or the end), and a blank first line: searched
#: from each newline, not tried at every byte as ``(?m)^[ \t\r]*$`` is (some seven times slower).
_BLANK_AFTER_NEWLINE = re.compile(rb"\n[ \t\r]*(?=\n|\Z)")
_BLANK_FIRST = re.compile(rb"[ \t\r]*(?:\n|\Z)")


@dataclass(frozen=True)
class Located:
    """A memory and where it stands in its stream."""

    memory: Memory
    line: int
    offset: int


@dataclass
class StreamIndex:
    size: int = 0
    mtime_ns: int = 0
    lines: int = 0
    memories: int = 0
    max_number: int = 0
    reflections: list[list[int]] = field(default_factory=list)  # [offset, length]


def blank_lines(data: bytes) -> int:
    """How many of the lines of ``data`` (split at each newline) hold only spaces, tabs and CRs."""
    return (1 if _BLANK_FIRST.match(data) else 0) + len(_BLANK_AFTER_NEWLINE.findall(data))


class MemoryStream:
    def __init__(self, root: Path, agent: str):
        self.root = root
        self.agent = agent
        self.path = root / "state" / "memories" / f"{agent}.jsonl"
        self.index_path = root / "state" / ".cache" / f"{agent}.json"
        self._lines: parsed_lines.StreamLines | None = None

    @property
    def display(self) -> str:
        return f"state/memories/{self.agent}.jsonl"

    def exists(self) -> bool:
        return self.path.exists()

    # -- parsing -----------------------------------------------------------

    def parse_line(self, raw: bytes | str, line: int) -> Memory | Problem:
        """One line as a ``Memory``, or the problem that names file and line.

        A line longer than ``MAX_LINE_BYTES`` is refused before it is parsed; callers that
        read from the file read at most one byte more than that.
        """
        if len(raw) > MAX_LINE_BYTES and (isinstance(raw, bytes) or len(raw.encode("utf-8")) > MAX_LINE_BYTES):
            return Problem(self.display, line, line_too_long())
        raw = without_bom(raw)
        try:
            data = jsontext.loads(raw)
        except jsontext.JSONDecodeError as exc:
            return Problem(self.display, line, f"not valid JSON: {exc.msg} (column {exc.colno})")
        except UnicodeDecodeError as exc:
            return Problem(self.display, line, f"not UTF-8 (byte {exc.start})")
        if not isinstance(data, dict):
            return Problem(self.display, line, "expected a JSON object")
        try:
            memory = Memory.model_validate(data)
        except ValidationError as exc:
            return Problem(self.display, line, describe_validation_error(exc))
        if not memory.id.startswith(f"{self.agent}-"):
            return Problem(self.display, line, f"id: {memory.id!r} does not belong to agent {self.agent!r}")
        return memory

    def parse_at(self, raw: bytes, line: int | None, offset: int) -> Memory | Problem:
        """``parse_line`` for the line at byte ``offset``: parsed again only where its bytes changed
        since it was last read (``parsed_lines``)."""
        known = self._parsed().known(offset, raw)
        if known is not None:
            return known
        parsed = self.parse_line(raw, line)
        if isinstance(parsed, Memory):
            self._parsed().keep(offset, raw, parsed)
        return parsed

    def _parsed(self) -> parsed_lines.StreamLines:
        if self._lines is None:
            self._lines = parsed_lines.of(self.agent, self.path)
        return self._lines

    # -- the derived index -------------------------------------------------

    def index(self) -> StreamIndex:
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            return StreamIndex()
        cached = self._load_index()
        if cached and cached.size == stat.st_size and cached.mtime_ns == stat.st_mtime_ns:
            return cached
        return self.rebuild_index()

    def _load_index(self) -> StreamIndex | None:
        try:
            data = jsontext.loads(self.index_path.read_text(encoding="utf-8"))
        except (FileNotFoundError, IsADirectoryError, ValueError):  # rebuilt (and a folder moved aside)
            return None
        if data.pop("version", None) != INDEX_VERSION:
            return None
        try:
            return StreamIndex(**data)
        except TypeError:
            return None

    def _save_index(self, index: StreamIndex) -> None:
        # Derived and checked against the stream's size and mtime on every read, so
        # a crash that loses it costs a rebuild, not a wrong answer: no fsync needed.
        atomic_write_json(make_way(self.index_path), {"version": INDEX_VERSION, **index.__dict__}, durable=False)

    def rebuild_index(self) -> StreamIndex:
        """Scan the raw bytes once with a few regexes; no line is parsed as JSON.

        Inside a JSON string every quote is escaped, so ``"type": "reflection"``
        and ``"id": "emre-042"`` with bare quotes can only be keys and values.
        A stray match (say, in hand-written metadata) costs at most a skipped id
        number or one extra line looked at when reflections are read.
        """
        stat = self.path.stat()
        index = StreamIndex(mtime_ns=stat.st_mtime_ns)
        own_id = re.compile(rb'"id"\s*:\s*"' + re.escape(self.agent.encode()) + rb"-(\d{3,18})\"")
        blank, base, data = 0, 0, b""
        # Piece by piece (each ends with a newline but the last): a stream may be 400 MB.
        with open(self.path, "rb") as handle:
            for data in line_pieces(handle):
                index.lines += data.count(b"\n")
                # The empty piece after a piece's final newline also counts as a blank line.
                blank += blank_lines(data) - (1 if data.endswith(b"\n") else 0)
                index.max_number = max(index.max_number, *map(int, own_id.findall(data)), 0)
                previous = -1
                for match in _REFLECTION.finditer(data):
                    start = data.rfind(b"\n", 0, match.start()) + 1
                    if start != previous:
                        end = data.find(b"\n", start)
                        index.reflections.append([base + start, (end if end != -1 else len(data)) - start])
                        previous = start
                base += len(data)
        index.size = base
        index.lines += 1 if data and not data.endswith(b"\n") else 0
        index.memories = index.lines - blank
        if stat.st_size == base:
            self._save_index(index)
        return index

    # -- reading -----------------------------------------------------------

    def tail(self, count: int) -> tuple[list[Located], list[Problem]]:
        """The last ``count`` valid memories; bad lines among them are reported. Read again only
        where the file's stat changed since the last call for ``count`` (``parsed_lines``)."""
        stamp = parsed_lines.stamp(self.path)
        if stamp is None or count <= 0:
            return [], []
        return self._parsed().tail(count, stamp, lambda: self._read_tail(count))

    def _read_tail(self, count: int) -> tuple[list[Located], list[Problem]]:
        total = self.index().lines
        # A few extra lines so that a bad line does not shrink the window.
        pieces = read_tail_lines(self.path, count + 8, max_line=MAX_LINE_BYTES)
        found: list[Located] = []
        problems: list[Problem] = []
        first_line = total - len(pieces) + 1
        for position, (offset, raw) in enumerate(pieces):
            line = first_line + position
            if raw is None:  # longer than a line may be: not even read
                problems.append(Problem(self.display, line, line_too_long()))
                continue
            if not raw.strip():
                continue
            parsed = self.parse_at(raw, line, offset)
            if isinstance(parsed, Problem):
                problems.append(parsed)
            else:
                found.append(Located(parsed, line, offset))
        if len(found) > count:
            cut = found[-count]
            found = found[-count:]
            problems = [p for p in problems if p.line is None or p.line > cut.line]
        return found, problems

    def reflections(self, before_offset: int | None = None) -> tuple[list[Located], list[Problem]]:
        """All reflections (depth > 0), optionally only those before a byte offset."""
        index = self.index()
        wanted = [(o, n) for o, n in index.reflections if before_offset is None or o < before_offset]
        if not wanted:
            return [], []
        found, bad = [], []
        with open(self.path, "rb") as handle:
            for offset, length in wanted:
                handle.seek(offset)
                parsed = self.parse_at(handle.read(min(length, MAX_LINE_BYTES + 1)), None, offset)
                if isinstance(parsed, Problem):
                    bad.append((offset, parsed))
                elif parsed.depth > 0:
                    found.append(Located(parsed, 0, offset))
        # Line numbers cost a count of the bytes before; only bad lines need one, for the report.
        problems = [Problem(p.file, self._line_at(offset), p.reason) for offset, p in bad]
        return found, problems

    def _line_at(self, offset: int) -> int:
        with open(self.path, "rb") as handle:
            return handle.read(offset).count(b"\n") + 1

    def grep(self, terms: Iterable[str], limit: int | None = None, exclude: Iterable[str] = ()) -> list[Located]:
        """The most recent memories whose tags or description mention a term, oldest first.

        Reads the stream backwards in blocks, skips blocks that mention no term
        and stops once ``limit`` memories are found, so the cost follows the end
        of the stream, not its size.
        """
        terms = [t.lower() for t in terms if t]
        if not terms or not self.path.exists() or limit == 0:
            return []
        skip = set(exclude)
        total = self.index().lines
        found: list[Located] = []
        lines_after = 0
        for start, chunk in iter_line_blocks_backwards(self.path):
            pieces = chunk.split(b"\n")
            if pieces[-1] == b"":
                pieces.pop()
            if any(term in chunk.decode("utf-8", "replace").lower() for term in terms):
                offsets, cursor = [], start
                for piece in pieces:
                    offsets.append(cursor)
                    cursor += len(piece) + 1
                for position in range(len(pieces) - 1, -1, -1):
                    raw = pieces[position]
                    if len(raw) > MAX_LINE_BYTES or not any(term in raw.decode("utf-8", "replace").lower() for term in terms):
                        continue
                    parsed = self.parse_line(raw, None)
                    if isinstance(parsed, Problem) or parsed.id in skip:
                        continue  # bad lines are reported by the window, `memories` and `validate`
                    haystack = " ".join([parsed.description, *parsed.tags]).lower()
                    if any(term in haystack for term in terms):
                        line = total - lines_after - (len(pieces) - 1 - position)
                        found.append(Located(parsed, line, offsets[position]))
                        if limit is not None and len(found) >= limit:
                            found.reverse()
                            return found
            lines_after += len(pieces)
        found.reverse()
        return found

    def find(self, ids: Iterable[str]) -> dict[str, Memory]:
        """The memories with these ids: one regex pass, parsing only the lines that name them."""
        wanted = set(ids)
        if not wanted or not self.path.exists():
            return {}
        data = self.path.read_bytes()
        alternatives = b"|".join(re.escape(i.encode("utf-8")) for i in sorted(wanted))
        needle = re.compile(rb'"id"\s*:\s*"(' + alternatives + rb')"')
        found: dict[str, Memory] = {}
        for match in needle.finditer(data):
            mem_id = match.group(1).decode("utf-8")
            if mem_id in found:
                continue
            start = data.rfind(b"\n", 0, match.start()) + 1
            end = data.find(b"\n", match.end())
            parsed = self.parse_line(data[start : end if end != -1 else len(data)], None)
            if isinstance(parsed, Memory) and parsed.id == mem_id:
                found[mem_id] = parsed
        return found

    def scan(self) -> tuple[list[Located], list[Problem]]:
        """Every line, fully checked: the slow path for ``validate`` and ``memories``."""
        if not self.path.exists():
            return [], []
        found: list[Located] = []
        problems: list[Problem] = []
        with no_cycle_collection():  # every memory is kept: the collector's passes would find nothing
            for number, offset, parsed in scan_stream(self.path, self.display, self.parse_line):
                if isinstance(parsed, Problem):
                    problems.append(parsed)
                else:
                    found.append(Located(parsed, number, offset))
        return found, problems + stream_consistency(self.display, found, self.agent)

    def matching(
        self, tag: str | None = None, text: str | None = None, kind: str | None = None, last: int | None = None
    ) -> tuple[list[Located], list[Problem]]:
        """The memories with ``tag``, ``text`` in their description (in any case) and of type ``kind``,
        only the last ``last`` of them; and every problem of the full scan (``gamemaster memories``)."""
        if not self.exists():
            raise GamemasterError(f"{self.display}: no memory stream for agent {self.agent!r}")
        found, problems = self.scan()
        items = [
            item for item in found
            if (tag is None or tag in item.memory.tags)
            and (text is None or text.lower() in item.memory.description.lower())
            and (kind is None or item.memory.type == kind)
        ]
        return (items[-last:] if last else items), problems

    def memory_count(self) -> int:
        return self.index().memories

    def next_number(self) -> int:
        """The next id number: past every id in the stream and every id ever handed out,
        so a line deleted by hand never frees its id for a different memory."""
        return max(self.index().max_number, issued_numbers(self.root).get(self.agent, 0)) + 1

    # -- writing -----------------------------------------------------------

    def append(self, memories: list[Memory], dirs: set[Path] | None = None) -> None:
        """Append all lines in one write (one fsync) and bring the index along without a rescan.

        ``dirs`` collects the folder to sync if the stream is new (see ``append_lines``).
        """
        if not memories:
            return
        index = self.index() if self.path.exists() else StreamIndex()
        lines = [m.to_line() for m in memories]
        size_before = self.path.stat().st_size if self.path.exists() else 0
        start, size = append_lines(self.path, lines, dirs)
        offset = start
        for memory, text in zip(memories, lines):
            length = len(text.encode("utf-8"))
            index.memories += 1
            index.max_number = max(index.max_number, memory.number)
            if memory.depth > 0:
                index.reflections.append([offset, length])
            offset += length + 1
        index.lines += len(lines)
        index.size = size
        index.mtime_ns = os.stat(self.path).st_mtime_ns
        self._save_index(index)
        from .retrieval.index import index_appended

        index_appended(self.root, self.agent, start, lines, size_before, index.mtime_ns)


ISSUED_FILE = "memory_ids.json"


def issued_numbers(root: Path) -> dict[str, int]:
    """``state/memory_ids.json``: the highest id number handed out per agent (written with every scene)."""
    try:
        data = jsontext.loads((root / "state" / ISSUED_FILE).read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError, UnicodeDecodeError):
        return {}  # `validate` reports an unreadable one; the streams' own ids still count
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, int) and not isinstance(v, bool)}


def stream_consistency(display: str, found: list[Located], agent: str | None = None) -> list[Problem]:
    """Rules across lines (``stream_rules.Consistency``) over memories already read."""
    check = Consistency(display, agent)
    for item in found:
        check.add(item.memory, item.line)
    return check.problems()
