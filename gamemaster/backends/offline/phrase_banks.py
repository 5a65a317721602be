"""The offline player's phrase banks: ``phrases/<language>.json``, one file per language.

Plain data only: the scene modules fill the ``{placeholders}`` and pick among
the templates whose placeholders they can fill, so a template that needs a
colleague or a remembered fact is simply skipped when there is none. Every
language carries exactly the same keys, and every template the same
placeholders as its counterpart (``tests/test_offline_backend.py`` checks).

Topics arrive as bare noun phrases without an article, so German templates
put them after "Thema" (or behind a colon) where no case ending is needed.
Third-person lines about a character avoid gendered pronouns.

Keys whose purpose the text does not show:

- ``grammar.quote_topics_starting_with``: topics starting with one of these
  words go in quotes, because "das Thema Die Fährfrau" reads wrong.
- ``grammar.function_words``: never worth a tag or a quoted term, on top of
  the stopwords of ``gamemaster.scenes``.
- ``reflection.cite_memory``, ``cite_insight``, ``cite_artifact``: how an
  insight refers to what it cites: a remark is quoted, an earlier insight or
  an own artifact is named instead.

Every string in a bank counts as template wording (``template_words``), so a
note for readers belongs here, not in the JSON.
"""

from __future__ import annotations

import functools
import json
import string
from pathlib import Path
from typing import Any, Iterable

from .text import WORD_RE

PHRASES = Path(__file__).resolve().parent / "phrases"
LANGUAGES = tuple(sorted(path.stem for path in PHRASES.glob("*.json")))

DEFAULT_LANGUAGE = "en"

#: Which phrase bank an artifact kind (or, failing that, a role) draws on.
#: Checked in order: "technical artist" must land on technical before "art"
#: sends it to concept, "narrative designer" on narrative before design.
FAMILY_KEYWORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("qa", ("qa", "quality", "qualität", "test", "bug", "community")),
    ("technical", ("tech", "shader", "pipeline", "engine", "tool")),
    ("narrative", ("narrat", "story", "writer", "script", "dialog", "quest", "erzähl", "autor")),
    ("lore", ("lore", "world", "welt", "chronic", "chronik")),
    ("concept", ("concept", "konzept", "art", "image", "illustr", "environment")),
    ("production", ("produc", "produz", "produktion", "schedule", "roadmap", "project", "projekt", "manag")),
    ("design", ("design", "director", "mechanic", "gdd", "regel")),
)
FAMILIES = tuple(name for name, _ in FAMILY_KEYWORDS) + ("notes",)

_FORMATTER = string.Formatter()


@functools.cache
def phrase_bank(code: str) -> dict[str, Any]:
    """The phrase bank of one language code (``de``, ``en``), read once."""
    return json.loads((PHRASES / f"{code}.json").read_text(encoding="utf-8"))


def language_code(language: str | None) -> str:
    """``de-DE`` → ``de``; a language without phrase banks plays in English."""
    code = (language or "").strip().lower().replace("_", "-").split("-")[0]
    return code if code in LANGUAGES else DEFAULT_LANGUAGE


def language_lines(language: str | None) -> dict[str, Any]:
    return phrase_bank(language_code(language))


def artifact_family(kind: str, role: str = "") -> str:
    """The phrase-bank family for an artifact kind; the role decides when the kind says nothing."""
    for text in (kind if kind != "notes" else "", role):
        lowered = (text or "").lower()
        for family, keywords in FAMILY_KEYWORDS:
            if any(word in lowered for word in keywords):
                return family
    return "notes"


def template_fields(template: str) -> set[str]:
    return {name for _, name, _, _ in _FORMATTER.parse(template) if name}


@functools.cache
def template_words(code: str) -> frozenset[str]:
    """Every word of a language's phrase bank, lower-cased."""
    return frozenset(word.lower() for text in bank_strings(phrase_bank(code)) for word in WORD_RE.findall(text))


def bank_strings(node: Any) -> Iterable[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from bank_strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from bank_strings(value)
