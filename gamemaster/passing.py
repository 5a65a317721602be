"""What a line passes on: the parts of what someone said that carry something they held as news.

Who said it decides what is news in a line, not cue words in it: a sentence of the line passes
something on when it is on the same matter (``updates``) as something its speaker held when it
spoke — its own important observations of the last days (``news.held``), what it took away from
others (its takeaways) and what it heard passed on. The write-back marks those sentences on the
lines the listeners keep (``passes`` beside ``says``), so a listener that reads news from the
words of a line (the offline player, ``backends/offline/told.py``) finds what a Claude or human
character passed on in its own words — „Leo kandidiert für den Betriebsrat.“ too. The mark says
which of the words the listener heard carried news; the listener keeps nothing else of the
speaker's mind.

Pure: memories and texts in, sentences out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .models import Memory
from .news import held, recent_memories
from .updates import matter, parts, quotes, same_matter, sentences

#: Terms a sentence must share with what its speaker held to carry it: one word in common
#: („Ilka“, „Vera“) is a name in passing, two are the matter.
SHARED_TERMS = 2
#: Sentences one line passes on at most, and their length: a line of news is a sentence or two.
PER_LINE = 2
PASS_CHARS = 300


def held_texts(memories: list[Memory], day: int) -> list[str]:
    """What a character held as news on ``day``: its own important observations of the last days,
    what it took away from others then, and what it heard passed on then (the ``passes`` of the
    lines its memories keep), each once."""
    recent = recent_memories(memories, day)
    texts = [m.description for m in held(recent)]
    for memory in recent:
        meta = memory.metadata
        if meta.get("source") == "takeaway":
            texts.append(memory.description)
        for entry in _entries(meta.get("takeaways")):
            texts.append(entry.get("says"))
        for key in ("heard", "transcript"):
            for entry in _entries(meta.get(key)):
                passes = entry.get("passes")
                texts += passes if isinstance(passes, list) else []
    return list(dict.fromkeys(t for t in texts if isinstance(t, str) and t.strip()))


def passes_on(language: str, says: str, held_by_speaker: list[str], names: Iterable[str] = ()) -> list[str]:
    """The sentences of ``says`` that carry something of ``held_by_speaker`` (``PER_LINE`` at
    most, a single sentence before two in a row that hold it), without whom they address
    („Emre, …“: ``names`` are the studio's): what is passed on is the news, not to whom it was said."""
    if not says.strip() or not held_by_speaker:
        return []
    names = list(names)
    # A name alone is no matter: two sentences naming Darius are not therefore on one thing.
    named = matter(language, " ".join(names))
    known = [matter(language, part) for text in held_by_speaker for part in parts(text)]
    # Whom a sentence addresses is not part of it, for matching as for what is kept.
    said = [_unaddressed(s, names) for s in quotes(says) + sentences(says) if not s.rstrip().endswith("?")]
    found: list[str] = []
    for sentence in said + [" ".join(pair) for pair in zip(said, said[1:])]:
        kept = sentence[:PASS_CHARS].strip().rstrip(".!;,")
        if len(found) == PER_LINE or not kept or any(f in kept for f in found):
            continue
        terms = matter(language, sentence)
        if any(len(terms & held) >= SHARED_TERMS and terms & held - named and same_matter(terms, held)
               for held in known):
            found.append(kept)
    return found


#: „Leo, unser Producer, kandidiert …“: after a name, a description of it set off by commas (an
#: article or possessive and a noun, no verb) — the name is the sentence's subject, not whom it
#: addresses. German nouns are capitalised: „das betrifft dich,“ is no description.
_APPOSITION = re.compile(r"^(?:(?:[Uu]nser|[Uu]nsere|[Dd]er|[Dd]ie|[Mm]ein|[Mm]eine|[Ee]in|[Ee]ine)\s+(?:[a-zäöüß-]+\s+)?"
                         r"[A-ZÄÖÜ][\w-]*|(?:[Oo]ur|[Tt]he|[Mm]y)\s+(?:\w+\s+)?\w+),\s+\w")


def _unaddressed(sentence: str, names: Iterable[str]) -> str:
    """``sentence`` without the names it opens with to address someone („Emre, Tobi, …“); a name
    followed by a description of it („Leo, unser Producer, kandidiert …“) stays."""
    pattern = "|".join(re.escape(n) for n in sorted(set(names), key=len, reverse=True) if n)
    if not pattern:
        return sentence
    name = f"(?:{pattern})"
    rest = re.sub(rf"^(?:{name}(?:\s*,\s*|\s+(?:und|and)\s+))*{name}\s*,\s*", "", sentence.strip())
    if _APPOSITION.match(rest):
        return sentence.strip()
    return rest[:1].upper() + rest[1:] if rest and rest != sentence.strip() else sentence.strip()


def _entries(value) -> list[dict]:
    return [e for e in value if isinstance(e, dict)] if isinstance(value, list) else []

