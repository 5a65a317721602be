"""The reference library: Markdown documents in ``library/`` that characters consult at work.

A document is split into sections at its ``##`` headings. A character whose
plan says it wants to consult the library, or whose WORK topic matches a
section well enough, gets the best-matching sections in its WORK prompt, within
``library_budget`` characters. Matching uses the same text analysis as memory
recall (folding, stemming, stopwords in both languages) and ranks sections by
BM25. What a character was shown is kept with the scene and becomes a memory
with ``metadata.source`` set to the document's path when the scene is written.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

from .ids import reads_inside
from .lang import phrase
from .printable import printable
from .problems import Problem
from .retrieval.text import analyzer

FOLDER = "library"
#: Words in a plan that mean "I want to look something up" (German and English).
WANTS_LIBRARY = re.compile(r"bibliothek|nachschlag|nachles|referenz|library|look(?:ing)? up|reference", re.IGNORECASE)
#: Without asking for the library, a section must share this many distinct terms with the topic.
MATCHING_TERMS = 3
#: A document larger than this is skipped with a warning: every prompt reads the library, and a
#: 50 MB document of 200,000 sections took seconds per prompt (a long book is about 1 MB).
DOCUMENT_MAX = 4_000_000
#: Headings a document too long for the bible is named with, at most.
BIBLE_HEADINGS = 40
_HEADING = re.compile(r"^(#{1,2})\s+(.+?)\s*#*\s*$")


@dataclass(frozen=True)
class Section:
    path: str  # "library/lore-bibel.md"
    title: str  # the document's "# " title
    heading: str  # the section's "## " heading ("" before the first one)
    text: str


@dataclass(frozen=True)
class Excerpt:
    path: str
    title: str
    heading: str
    text: str

    def as_dict(self) -> dict:
        return asdict(self)


Warn = Callable[[Problem], None]


def shelf(root: Path, warn: Warn | None = None) -> list[tuple[Path, str]]:
    """Each readable document with its text, in name order.

    ``library/`` may be a symbolic link the user made to shared lore: it is the one link
    the tool follows out of the workspace, and only to read excerpts into prompts. Inside
    it, a link that leads out of both the workspace and the linked folder is not read.
    A document that is not text (NUL bytes, not UTF-8), or whose name is not UTF-8, is skipped
    with a warning; the text
    of the others has its control characters shown as escapes (``printable``), so an
    escape sequence in a heading reaches no prompt, memory or terminal as such.
    """
    folder = root / FOLDER
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.rglob("*.md")):
        relative = path.relative_to(root).as_posix()
        if not _utf8(relative):
            # A name from a Latin-1 zip or a Windows share: no prompt, memory or JSON file can hold
            # it (it would say where an excerpt came from), so the document is not read.
            shown = os.fsencode(relative).decode("utf-8", "backslashreplace")
            _warn(warn, shown, "skipped: its name is not UTF-8; rename it")
        elif not (reads_inside(root, path) or reads_inside(folder, path)):
            _warn(warn, relative, "not read: it leads outside the workspace and library/")
        elif path.is_file():
            text, why = _text(path)
            if text is None:
                _warn(warn, relative, f"skipped: {why}")
            else:
                found.append((path, text))
    return found


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _text(path: Path) -> tuple[str | None, str]:
    try:
        info = path.stat()
    except OSError as exc:
        return None, f"not readable: {exc.strerror or exc}"
    if info.st_size > DOCUMENT_MAX:
        return None, (f"{info.st_size / 1e6:,.1f} MB, more than the {DOCUMENT_MAX / 1e6:,.0f} MB a document may be "
                      "(every prompt reads the library): split it into smaller documents")
    # Every prompt of a day reads the library: read and parsed once per process while unchanged.
    return _read_text(str(path), info.st_size, info.st_mtime_ns)


@lru_cache(maxsize=64)
def _read_text(path: str, size: int, mtime_ns: int) -> tuple[str | None, str]:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        return None, f"not readable: {exc.strerror or exc}"
    if b"\0" in data:
        return None, "not text (it contains NUL bytes)"
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return None, f"not text (not UTF-8 at byte {exc.start})"
    return printable(text.replace("\r\n", "\n").replace("\r", "\n")), ""


def _warn(warn: Warn | None, relative: str, reason: str) -> None:
    if warn is not None:
        warn(Problem(relative, None, reason, warning=True))


def documents(root: Path, warn: Warn | None = None) -> list[Path]:
    """The library's readable Markdown files, in name order (see ``shelf``)."""
    return [path for path, _ in shelf(root, warn)]


def sections(root: Path, path: Path, text: str | None = None) -> list[Section]:
    """The document's sections; ``text``: as ``shelf`` read it (else read here the same way)."""
    if text is None:
        text = _text(path)[0] or ""
    return list(_sections(path.relative_to(root).as_posix(), path.stem, text))


@lru_cache(maxsize=64)  # the text ``_text`` keeps is the same object each time: its hash is cached
def _sections(relative: str, stem: str, text: str) -> tuple[Section, ...]:
    title, heading, lines, found = printable(stem), "", [], []

    def flush():
        body = "\n".join(lines).strip()
        if body:
            found.append(Section(relative, title, heading, body))

    for line in text.splitlines():
        match = _HEADING.match(line)
        if match and len(match.group(1)) == 1 and not found and not lines:
            title = match.group(2)
        elif match and len(match.group(1)) == 2:
            flush()
            heading, lines = match.group(2), []
        else:
            lines.append(line)
    flush()
    return tuple(found)


def wants_library(plan_text: str | None) -> bool:
    return bool(plan_text and WANTS_LIBRARY.search(plan_text))


def consult(root: Path, query: str, language: str, budget: int, asked: bool, warn: Warn | None = None) -> list[Excerpt]:
    """The sections that best match ``query``, as many as fit in ``budget`` characters.

    ``asked``: the character wants the library, so the best sections come even when they
    match only a little; otherwise only a section that shares ``MATCHING_TERMS`` terms.
    """
    if budget <= 0 or not query.strip():
        return []
    found = [tuple(sections(root, path, text)) for path, text in shelf(root, warn)]
    every = [s for document in found for s in document]
    if not every:
        return []
    wanted = set(analyzer(language).terms(query))
    if not wanted:
        return []
    bags = [bag for document in found for bag in _bags(language, document)]
    average = sum(sum(b.values()) for b in bags) / len(bags)
    frequency = Counter(t for bag in bags for t in set(bag) if t in wanted)
    scored = []
    for section, bag in zip(every, bags):
        shared = wanted & set(bag)
        if not shared or (not asked and len(shared) < MATCHING_TERMS):
            continue
        length = sum(bag.values()) or 1
        score = sum(
            math.log(1 + (len(bags) - frequency[t] + 0.5) / (frequency[t] + 0.5))
            * bag[t] * 2.2 / (bag[t] + 1.2 * (0.25 + 0.75 * length / average))
            for t in shared
        )
        scored.append((score, section))
    scored.sort(key=lambda item: (-item[0], item[1].path, item[1].heading))
    chosen, used = [], 0
    for _, section in scored:
        room = budget - used
        if room < 200:
            break
        text = section.text if len(section.text) <= room else section.text[: room - 1].rsplit(" ", 1)[0] + " …"
        chosen.append(Excerpt(section.path, section.title, section.heading, text))
        used += len(text)
    return chosen


@lru_cache(maxsize=64)  # the terms of a document's sections: the same for every query of a run
def _bags(language: str, found: tuple[Section, ...]) -> tuple[Counter, ...]:
    words = analyzer(language)
    return tuple(Counter(words.terms(f"{s.heading}\n{s.text}")) for s in found)


def render(excerpts: list[Excerpt], language: str = "en", whole: frozenset[str] = frozenset()) -> str:
    """The excerpts for a prompt; one from a document ``whole`` in the prompt's studio bible
    only points there, as its text is already in the prompt."""
    return "\n\n".join(
        f"**{e.title} – {e.heading or e.title}** (`{e.path}`): {phrase(language, 'library_above')}" if e.path in whole
        else f"**{e.title} – {e.heading or e.title}** (`{e.path}`)\n\n{e.text}"
        for e in excerpts
    )


#: Characters of the library every prompt carries whole, in its shared start (see ``bible``).
BIBLE_BUDGET = 12_000


def bible(root: Path, language: str, warn: Warn | None = None, budget: int = BIBLE_BUDGET,
          left_out: str = "bible_sections") -> tuple[str, frozenset[str]]:
    """The studio bible for the start every prompt shares, and the paths it holds whole.

    The library is what everyone in the studio works from, and the same text for every
    character and scene, so it belongs in the prompt's shared start, the part Anthropic's
    prompt cache serves to every call. Documents come whole, in name order, while they fit in
    ``budget`` characters; one that does not fit is named with its sections only (WORK
    excerpts still bring the matching parts of it), in the words of phrase ``left_out``. Headings move two levels down, under
    the prompt's own.
    """
    parts, whole, used = [], set(), 0
    for path, text in shelf(root, warn):
        relative = path.relative_to(root).as_posix()
        found = sections(root, path, text)
        title = found[0].title if found else printable(path.stem)
        body = _body(text)
        if used + len(body) <= budget:
            parts.append(f"### {title} (`{relative}`)\n\n{body}")
            whole.add(relative)
            used += len(body)
        else:
            named = [s.heading for s in found if s.heading]
            headings = " · ".join(named[:BIBLE_HEADINGS] + (["…"] if len(named) > BIBLE_HEADINGS else [])) or title
            parts.append(f"### {title} (`{relative}`)\n\n{phrase(language, left_out, headings=headings)}")
    return "\n\n".join(parts) or phrase(language, "bible_empty"), frozenset(whole)


@lru_cache(maxsize=64)  # every prompt carries the bible: made once per document and run
def _body(text: str) -> str:
    """A document's text for the bible: without its title, headings two levels down."""
    lines = text.strip().splitlines()
    first = _HEADING.match(lines[0]) if lines else None
    if first and len(first.group(1)) == 1:
        lines = lines[1:]  # the title, which the bible's own heading for the document shows
    return "\n".join(_demoted(line) for line in lines).strip()


def _demoted(line: str) -> str:
    match = _HEADING.match(line)
    return "##" + line if match and len(match.group(1)) <= 2 else line


LIBRARY_MEMORY_IMPORTANCE = 3


def remember_readings(scene) -> None:
    """One memory per document a character was shown, with the document's path as its source;
    none where the character's newest memories hold the same reading (same document, same sections)."""
    for agent_id in scene.spec.participants:
        by_document: dict[str, list[dict]] = {}
        for excerpt in scene.readings.get(agent_id, []):
            by_document.setdefault(excerpt["path"], []).append(excerpt)
        for path, excerpts in by_document.items():
            headings = [e["heading"] for e in excerpts if e["heading"]]
            description = phrase(scene.language, "library_read", title=excerpts[0]["title"],
                                 sections=", ".join(headings) or excerpts[0]["title"])
            if scene.remembers(agent_id, description):
                continue  # the same sections read again: the character remembers reading them already
            scene.remember(
                agent_id,
                type="observation",
                description=description,
                importance=LIBRARY_MEMORY_IMPORTANCE,
                tags=["library"],
                metadata={"source": path, "sections": headings},
            )


def report(workspace) -> list[dict]:
    """Every document with its sections and who read what, from the memory streams."""
    root = workspace.root
    readers: dict[str, dict[str, set[str]]] = {}
    for agent_id in workspace.agent_ids():
        located, _ = workspace.stream(agent_id).scan()
        for item in located:
            source = item.memory.metadata.get("source")
            if isinstance(source, str) and source.startswith(FOLDER + "/"):
                sections_read = item.memory.metadata.get("sections") or []
                readers.setdefault(source, {}).setdefault(agent_id, set()).update(
                    s for s in sections_read if isinstance(s, str))
    found = []
    for path, text in shelf(root, workspace.warn):
        parts = sections(root, path, text)
        relative = path.relative_to(root).as_posix()
        found.append({
            "path": relative,
            "title": parts[0].title if parts else path.stem,
            "sections": [s.heading for s in parts if s.heading],
            "read_by": {a: sorted(h) for a, h in sorted(readers.pop(relative, {}).items())},
        })
    for relative, by_agent in sorted(readers.items()):  # read once, since removed or renamed
        found.append({"path": relative, "title": None, "sections": [], "missing": True,
                      "read_by": {a: sorted(h) for a, h in sorted(by_agent.items())}})
    return found
