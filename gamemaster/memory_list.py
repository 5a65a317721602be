"""``gamemaster memories --tag/--type``: the matching memories found through the search index.

A full scan parses and validates every line (26 s at 100,000 memories); the index
knows each line's tags and type, so only the matching lines are read. Problems
reported are those of the lines listed and of every line the index could not read
(not JSON, not a memory); ``gamemaster validate`` checks every rule on every line.
"""

from __future__ import annotations

from collections import deque
from itertools import chain
from typing import Callable, Iterable, TypeVar

from .bulk import no_cycle_collection
from .linesize import line_too_long
from .problems import GamemasterError, Problem
from .retrieval.index import open_index
from .retrieval.text import tag_key
from .stream_rules import stream_lines
from .streams import Located, MemoryStream

T = TypeVar("T")


def _as_found(item: Located) -> Located:
    return item



def indexed_matching(stream: MemoryStream, language: str, tag: str | None, text: str | None, kind: str | None,
                     last: int | None, shown: Callable[[Located], T] = _as_found) -> tuple[list[T], list[Problem]]:
    """The matching memories, each as ``shown`` turns it (kept in that form only: a listing of
    a third of a 100,000-memory stream keeps its JSON text, not 34,000 models), and the problems."""
    if not stream.exists():
        raise GamemasterError(f"{stream.display}: no memory stream for agent {stream.agent!r}")
    index = open_index(stream.root, stream.agent, language).refresh()
    found: deque[T] = deque(maxlen=last)  # only the last ``last`` are kept
    problems: list[Problem] = []
    try:
        docs = index.filtered(tag_key(tag) if tag is not None else None, kind)
        with open(stream.path, "rb") as handle, no_cycle_collection():
            for doc in docs:
                handle.seek(doc.offset)
                parsed = stream.parse_line(handle.read(doc.length), doc.line)
                if isinstance(parsed, Problem):
                    problems.append(parsed)
                elif ((tag is None or tag in parsed.tags) and (kind is None or parsed.type == kind)
                      and (text is None or text.lower() in parsed.description.lower())):
                    found.append(shown(Located(parsed, doc.line, doc.offset)))
            problems += _unindexed(stream, handle, index.spans())
    finally:
        index.close()
    problems.sort(key=lambda p: p.line or 0)
    return list(found), problems


def _unindexed(stream: MemoryStream, handle, spans: Iterable[tuple[int, int, int]]) -> list[Problem]:
    """The problems of the lines between indexed ones that are not blank (the index skipped them)."""
    problems = []
    end, line = 0, 0
    for next_line, offset, length in chain(spans, [(None, None, None)]):
        if next_line is None or next_line > line + 1:  # lines line+1 .. next_line-1 were not indexed
            handle.seek(end)
            gap = handle.read(offset - end) if offset is not None else None
            if gap is None or gap.strip():
                problems += _gap_problems(stream, end, line, next_line)
        if next_line is not None:
            end, line = offset + length + 1, next_line
    return problems


def _gap_problems(stream: MemoryStream, start: int, line: int, stop: int | None) -> list[Problem]:
    """Parse the lines after ``line`` (from byte ``start``) up to line ``stop``: each gives its problem."""
    problems = []
    for number, _, raw in stream_lines(stream.path, start):
        number += line
        if stop is not None and number >= stop:
            break
        if raw is None or raw.strip():
            parsed = Problem(stream.display, number, line_too_long()) if raw is None else stream.parse_line(raw, number)
            if isinstance(parsed, Problem):
                problems.append(parsed)
    return problems
