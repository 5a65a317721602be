"""What a character heard others say, as its memories keep it: one rule for reading,
matching and showing those lines.

A MEETING's or ENCOUNTER's conversation memory keeps every turn in
``metadata.transcript``; a heard memory (ARRIVAL, WORK, EVENT: ``kinds/heard.py``)
keeps the lines of the others at the table in ``metadata.heard``; what a participant
took away from a speaker (a reply's ``takeaways``) is in ``metadata.takeaways``. All are
``[{"speaker": id, "says": text}]``. The lines *others* said are indexed with the
memory (``analyse._body``), so the listener finds them by their words; a memory
shown in a prompt brings the at most ``HEARD_LINES`` of them that share most
words with the scene's query, each cut to ``HEARD_CHARS`` characters.

Kept free of models and pydantic: the index worker process reads raw dicts.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable

from ..lang import phrase

#: Lines of others shown under one memory in a prompt.
HEARD_LINES = 2
#: Characters of one shown line; a longer one is cut at a word boundary.
HEARD_CHARS = 300
#: The metadata keys that hold what was said, in the order they are read.
LINE_KEYS = ("heard", "transcript", "takeaways")

_AUTHOR = re.compile(r"^([a-z][a-z0-9_]*)-\d{3,}$")


def author_of(memory_id: object) -> str | None:
    match = _AUTHOR.match(memory_id) if type(memory_id) is str else None
    return match.group(1) if match else None


#: Memories whose description is someone else's words, and the metadata key naming them: an
#: artifact's summary is its author's, an invitation says what its host wrote.
WRITTEN_BY = {"artifact": "author", "invitation": "host"}


def written_by(metadata: object, memory_id: object) -> str | None:
    """Whose words the description of a memory is, where they are not its own character's."""
    key = WRITTEN_BY.get(metadata.get("source")) if type(metadata) is dict else None
    writer = metadata.get(key) if key else None
    return writer if type(writer) is str and writer != author_of(memory_id) else None


def heard_lines(metadata: object, memory_id: object) -> list[tuple[str, str]]:
    """(speaker, says) of every line others said, in the order said; the memory's
    author's own lines are theirs, not heard."""
    if type(metadata) is not dict:
        return []
    author = author_of(memory_id)
    found: list[tuple[str, str]] = []
    for key in LINE_KEYS:
        entries = metadata.get(key)
        if type(entries) is not list:
            continue
        for entry in entries:
            if type(entry) is not dict:
                continue
            speaker, says = entry.get("speaker"), entry.get("says")
            if type(speaker) is str and type(says) is str and says.strip() and speaker != author:
                found.append((speaker, says))
    return found


def matching_lines(
    lines: list[tuple[str, str]], query_terms: Iterable[str], terms: Callable[[str], list[str]], limit: int = HEARD_LINES
) -> list[tuple[str, str]]:
    """The at most ``limit`` lines sharing most query terms (at least one), in the order said."""
    wanted = set(query_terms)
    if not wanted:
        return []
    scored = []
    for position, (speaker, says) in enumerate(lines):
        shared = len(wanted & set(terms(says)))
        if shared:
            scored.append((-shared, position))
    chosen = sorted(position for _, position in sorted(scored)[:limit])
    return [lines[p] for p in chosen]


def cut(text: str, limit: int = HEARD_CHARS) -> str:
    """One line of at most ``limit`` characters, cut at a word boundary with an ellipsis."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    head = flat[: limit - 1]
    space = head.rfind(" ")
    return (head[:space] if space > limit // 2 else head).rstrip(" ,;:") + "…"


def render_heard(name: str, says: str, language: str) -> str:
    """How a heard line is shown under its memory in a prompt: whole, or visibly shortened (a
    line that just stops reads as finished, and a model fills in the rest)."""
    return "  " + phrase(language, "heard_line", name=name, says=marked_cut(says, HEARD_CHARS, language))


def marked_cut(text: str, limit: int, language: str) -> str:
    """``cut`` with a marker a reader cannot take for the speaker's own ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else cut(flat, limit) + " " + phrase(language, "cut_mark")


def shown_lines(
    metadata: object,
    memory_id: object,
    query_terms: Iterable[str],
    terms: Callable[[str], list[str]],
    name_of: Callable[[str], str],
    language: str,
    description: str = "",
) -> tuple[str, ...]:
    """The rendered heard lines a memory brings into a prompt for a query (often none); a line its
    ``description`` quotes whole already is not shown again."""
    lines = heard_lines(metadata, memory_id)
    if not lines:
        return ()
    # A heard memory's description quotes each line only in part: its lines come whole with it
    # (a table's few). A conversation's transcript is long: the lines that match the query.
    side_by_side = type(metadata) is dict and type(metadata.get("heard")) is list
    chosen = [(s, says) for s, says in lines if " ".join(says.split()) not in description] if side_by_side \
        else matching_lines(lines, query_terms, terms)
    return tuple(render_heard(name_of(s), says, language) for s, says in chosen)
