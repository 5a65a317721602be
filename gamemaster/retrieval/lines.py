"""What a remembered line is, for choosing: who says it, whom it asks, what it says.

A conversation memory reads ``Speaker: text``. Its speaker decides which line is a neighbour
(the same speaker's follow-up) and which is the answer to a question (the one asked by name);
its analysed terms and speaker decide which lines say most of the same (near-duplicates).
"""

from __future__ import annotations

import re
from typing import Callable

#: Near-duplicates: this share of two lines' terms in common …
NEAR_SHARE = 0.7
#: … in lines of more terms than this (a short line is never a near-duplicate).
NEAR_MIN_TERMS = 4

_SPEAKER = re.compile(r"^([^:\n]{1,40}):\s")


def speaker_of(description: str) -> str | None:
    """``Melanie`` for a conversation line ``Melanie: …``."""
    match = _SPEAKER.match(description)
    return match.group(1) if match else None


def addressed(description: str, name: str) -> bool:
    """Does the line ask ``name`` something: a question that names them („Ines, did you …?“)?"""
    speaker = speaker_of(description)
    said = description[len(speaker) + 1:] if speaker else description
    first = name.split()[0] if name.split() else name
    return "?" in said and re.search(rf"(?<!\w){re.escape(first)}(?!\w)", said, re.IGNORECASE) is not None


def term_bag(analyzer, description: str, speaker: str | None = None) -> frozenset[str]:
    """What a line says, for near-duplicates: its analysed terms and who says it (``speaker``:
    a conversation line's, None for anything else, whose „Title: …“ is no speaker)."""
    return frozenset(analyzer.terms(description)) | {f"\0{speaker}"}


def says_most_of(bag: frozenset[str], other: frozenset[str]) -> bool:
    """``NEAR_SHARE`` of the two lines' terms shared, by the same speaker; a line of few terms is
    never a near-duplicate. Two people saying the same are two facts — and two asking each other
    the same question („Caroline, did …?“, „Melanie, did …?“) share all their words but who asks."""
    if len(bag) <= NEAR_MIN_TERMS:
        return False
    shared = bag & other
    # The share first (|A ∪ B| = |A| + |B| − |A ∩ B|), counted in C; the speaker, a term of each bag, only then.
    if len(shared) < NEAR_SHARE * (len(bag) + len(other) - len(shared)):
        return False
    return any(term[:1] == "\0" for term in shared)


class Said:
    """What the lines chosen so far say: each one's words, and the term bags of the longer ones, kept
    by speaker: only a bag of the same speaker can say most of another (``says_most_of``), so a
    line is compared with those alone, not with every line chosen."""

    def __init__(self) -> None:
        self.texts: set[str] = set()
        self.bags: dict[str, list[frozenset[str]]] = {}

    def add(self, description: str, bag: frozenset[str], speaker: str | None) -> None:
        self.texts.add(" ".join(description.split()).casefold())
        if len(bag) > NEAR_MIN_TERMS:
            self.bags.setdefault(f"\0{speaker}", []).append(bag)

    def repeats(self, description: str, bag: Callable[[], frozenset[str]], speaker: str | None,
                asked: frozenset[str]) -> bool:
        """The same words as a line chosen, or most of them while answering no more of ``asked``;
        ``bag`` is the line's (``term_bag`` with ``speaker``), worked out only when the words differ."""
        if " ".join(description.split()).casefold() in self.texts:
            return True
        terms = bag()
        if len(terms) <= NEAR_MIN_TERMS:
            return False
        wanted = terms & asked
        return any(says_most_of(terms, other) and wanted <= other for other in self.bags.get(f"\0{speaker}", ()))
