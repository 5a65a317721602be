"""Text helpers the offline player shares across scene kinds: clipping, slugs, whole-word matches."""

from __future__ import annotations

import re
from typing import Iterable

# Tags that describe bookkeeping rather than content; useless as a topic.
PLAIN_TAGS = frozenset({
    "own-work", "brief", "artifact", "meeting", "reflection", "plan", "conversation",
    "kickoff", "creative-director", "event", "news", "heard",
})
QUOTE_MARKS = "„“”\"»«"

WORD_RE = re.compile(r"\w[\w-]*")


def dedupe(items: Iterable[str], limit: int | None = None) -> list[str]:
    seen: list[str] = []
    for item in items:
        item = (item or "").strip()
        if item and item not in seen:
            seen.append(item)
    return seen[:limit] if limit is not None else seen


def slug(word: str) -> str:
    return re.sub(r"[^\w-]+", "-", word.strip().lower()).strip("-")


def first_sentence(text: str) -> str:
    text = " ".join(text.split())
    # A day of the month („am 12. Dezember“) is a number with a stop, not the end of a sentence.
    match = re.match(r"(.+?(?:[!?]|(?<!\b\d)(?<!\b\d\d)\.))(\s|$)", text)
    return match.group(1) if match else text


def clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:–-") + "…"


#: Where a sentence may end early and still be said whole: after a clause.
_CLAUSE_END = re.compile(r"(?:[,;:]| [–-])\s")


def whole(text: str, limit: int) -> str:
    """As much as a person would say of ``text`` within about ``limit`` characters, never cut
    mid-clause: the text when it fits; else its first sentence when that fits; else the longest
    run of its first clauses that fits (from a third of the limit on); else the first sentence
    up to twice the limit. Only a sentence longer still is clipped („…“)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    sentence = first_sentence(text)
    if len(sentence) <= limit:
        return sentence
    ends = [m.start() for m in _CLAUSE_END.finditer(sentence) if limit // 3 <= m.start() <= limit]
    if ends:
        return sentence[: ends[-1]].rstrip(" –-")
    return sentence if len(sentence) <= 2 * limit else clip(sentence, limit)


def bare(text: str, limit: int) -> str:
    """A remembered sentence ready to be embedded: first sentence, said whole, no final stop.

    Quotation marks go: the excerpt is usually quoted again, and quotes inside
    quotes pile up when characters cite each other's remarks day after day.
    """
    plain = "".join(ch for ch in text if ch not in QUOTE_MARKS)
    return whole(first_sentence(plain), limit).rstrip(".!?;: ")


def mention(text: str, tag: str) -> str | None:
    """How ``text`` spells ``tag`` (as a whole word, hyphens optional), if it does."""
    for form in (tag, tag.replace("-", " ")):
        if form.strip():
            # Whole words only: "Design" inside "Design-Dokument" is not the tag "design".
            match = re.search(rf"(?<![\w-]){re.escape(form)}(?![\w-])", text, re.IGNORECASE)
            if match:
                return match.group(0)
    return None


def sentence_like(text: str) -> bool:
    stripped = text.strip()
    return bool(stripped) and (stripped[-1] in ".!?" or len(WORD_RE.findall(stripped)) > 9)
