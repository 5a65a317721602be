"""Which of two items on the same matter holds: a rumour and the correction that replaces it.

Two items are on the same matter when what they are about — in German the nouns they name (the
capitalised words), elsewhere every term, each without the words that say when (weekdays,
months, numbers, „heute“, „morgen“) — is mostly the same (``same_matter``); of a line
that quotes someone, what each quote is about, else each sentence. The later one replaces the earlier when it changes something: it says it corrects („doch
nicht“, „nicht mehr“, „verschoben“, „abgesagt“) and the earlier does not, or it names another
day or time in place of the earlier's („bis Montag“ after „bis Freitag“). An item that says it corrects wins over
one that does not whichever was heard last: who knows the correction is not talked back into the
rumour by someone who did not hear it. Two items on one matter that change nothing are two
pieces of news; the same correction heard twice is one.

Pure: texts in, a decision out. The offline player passes on what holds and tells the correction
to whom it told the rumour (``backends/offline/news.py``), answers with it (``interview.py``);
``who-knows`` shows which version a character holds.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from .calendar import time_words
from .retrieval.text import analyzer

#: Share of the terms of both items' matters they must have in common (Jaccard): „Termin“ and
#: „Termin“ are one matter, „Leo, Geburtstag“ and „Leo, Betriebsrat“ are two.
SAME_MATTER = 0.5
#: Words by which an item says it corrects an earlier one (lower case, whole words). Not „doch“
#: or „actually“ alone, which conversation is full of: „ist doch Montag“ after „ist Freitag“
#: replaces it by the changed day.
CORRECTS = {
    "de": ("doch nicht", "doch erst", "doch schon", "doch noch", "nicht mehr", "stattdessen", "verschoben",
           "verlegt", "abgesagt", "korrigiert", "korrektur", "richtiggestellt", "richtigstellen", "berichtigt",
           "berichtigung", "geändert"),
    "en": ("instead", "no longer", "not anymore", "postponed", "moved to", "cancelled", "canceled", "correction",
           "changed to"),
}
#: Words that say when besides weekdays and months (lower case, whole words).
WHEN = {
    "de": ("heute", "morgen", "übermorgen", "gestern", "uhr", "woche", "wochen", "monat", "frühjahr", "sommer",
           "herbst", "winter", "vormittag", "mittag", "nachmittag", "abend"),
    "en": ("today", "tomorrow", "yesterday", "week", "weeks", "month", "spring", "summer", "autumn",
           "fall", "winter", "morning", "noon", "afternoon", "evening"),
}
#: Words a label before a colon has at most („Von Leonie Fischer mitgenommen“).
FRAME_WORDS = 5
_WORD = re.compile(r"[\w-]+")
#: Where a sentence ends: not after a number („am 12. Dezember“).
_SENTENCE_END = re.compile(r"(?<=[^\d\s][.!?])\s+")
_QUOTED = re.compile(r"[„“\"»«”]([^„“\"»«”]{20,})[“”\"«»]")


def _code(language: str) -> str:
    return language if language in CORRECTS else "en"


def _is_when(code: str, word: str) -> bool:
    weekdays, months = time_words(code)
    lower = word.lower()
    return (any(ch.isdigit() for ch in lower) or lower in months or lower in WHEN[code]
            or any(lower.startswith(day) for day in weekdays))


def _when_words(code: str, text: str) -> str:
    return " ".join(w for w in _WORD.findall(text) if _is_when(code, w))


@functools.lru_cache(maxsize=16384)
def when_terms(language: str, text: str) -> frozenset[str]:
    """The terms of the words in ``text`` that say when."""
    return frozenset(analyzer(language).terms(_when_words(_code(language), text)))


def _nouns(language: str, text: str) -> str:
    words = _WORD.findall(text)
    return " ".join(w for w in words if w[:1].isupper()) if _code(language) == "de" else " ".join(words)


@functools.cache
def subject_terms(language: str, text: str) -> frozenset[str]:
    """The terms of what ``text`` is about, as a query finds them: in German its nouns (capitalised
    words), so that a verb („fällen“) does not stand for a noun with the same stem („Fall“);
    elsewhere every term."""
    return frozenset(analyzer(language).query_terms(_nouns(language, text)))


def parts(text: str) -> list[str]:
    """The items ``text`` says: each quote („… hat erzählt: „…““), and each sentence of what is
    said around them (without a label before a colon) and each two sentences in a row. A line
    that quotes something (a line of dialogue one wrote) may say a correction in its own words."""
    found = quotes(text)
    # What is left of a quoting frame („Korrektur, von Vera:“) says where a quote comes from, not what.
    said = sentences(_QUOTED.sub(" ", text) if found else text)
    if not found and not said:
        said = [text]
    # Said in one's own words a correction often takes two sentences: „Ich hatte dir erzählt, es sei
    # Freitag. Vera hat das korrigiert – es ist Montag.“
    return found + said + [" ".join(pair) for pair in zip(said, said[1:])]


def quotes(text: str) -> list[str]:
    """The passages ``text`` quotes (20 characters or more)."""
    return [m.group(1) for m in _QUOTED.finditer(text)]


def sentences(text: str) -> list[str]:
    """The sentences of ``text``, each without a short label before a colon; not a label that only
    introduces what follows („Korrektur, von Vera:“). A short one counts: „Abgesagt.“"""
    return [_unframed(part.strip()) for part in _SENTENCE_END.split(text)
            if part.strip() and not part.strip().endswith(":")]


def _unframed(sentence: str) -> str:
    """A sentence without a short label before a colon („Von Leo mitgenommen: …“, „Wichtig: …“):
    the label says where it comes from, not what it is about."""
    label, colon, rest = sentence.partition(":")
    return rest.strip() if colon and len(label.split()) <= FRAME_WORDS and len(rest.split()) >= 3 else sentence


@functools.lru_cache(maxsize=16384)
def matter(language: str, text: str) -> frozenset[str]:
    """What ``text`` (one item, not a line quoting several) is about, without when and without the
    words by which it says it corrects („moved“, „actually“)."""
    words = analyzer(language)
    code = _code(language)
    said = frozenset(words.terms(_nouns(language, text)))
    return said - frozenset(words.terms(_when_words(code, text))) - _cue_terms(language)


@functools.cache
def _cue_terms(language: str) -> frozenset[str]:
    return frozenset(analyzer(language).terms(" ".join(CORRECTS[_code(language)])))


@functools.lru_cache(maxsize=16384)
def corrects(language: str, text: str) -> bool:
    """Does ``text`` say it corrects something („doch“, „verschoben“)?"""
    code = _code(language)
    lower = " ".join(text.lower().split())
    return any(re.search(rf"(?<![\w-]){re.escape(cue)}(?![\w-])", lower) for cue in CORRECTS[code])


@dataclass(frozen=True)
class _Item:
    """What the rule reads of one item: its words, what it is about, when, and whether it corrects."""

    plain: str
    matter: frozenset[str]
    when: frozenset[str]
    corrects: bool


@functools.lru_cache(maxsize=4096)
def _items(language: str, text: str) -> tuple[tuple[_Item, ...], dict[str, tuple[int, ...]]]:
    """The items of ``text`` (``parts``), and for each word they are about the items about it: two
    items on one matter share a word, so only those are compared."""
    items = tuple(_Item(" ".join(part.lower().split()), matter(language, part), when_terms(language, part),
                        corrects(language, part)) for part in parts(text))
    by_word: dict[str, list[int]] = {}
    for index, item in enumerate(items):
        for word in item.matter:
            by_word.setdefault(word, []).append(index)
    return items, {word: tuple(found) for word, found in by_word.items()}


def same_matter(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two matters (``matter``) are one: mostly the same terms (``SAME_MATTER`` of both), at least
    two of them, or the one term each is about („der Termin“): one shared name or noun in passing
    makes no matter."""
    shared = len(a & b)
    return shared >= SAME_MATTER * len(a | b) and (shared >= 2 or len(a) == len(b) == shared == 1)


def replaces(language: str, later: str, earlier: str) -> bool:
    """Does ``later`` (heard or noted after ``earlier``) replace it? See the module's rule; of a line
    that quotes several items, any of them."""
    (new_items, new_words), (old_items, old_words) = _items(language, later), _items(language, earlier)
    pairs = {(n, o) for word in new_words.keys() & old_words.keys() for n in new_words[word] for o in old_words[word]}
    return any(_replaces(new_items[n], old_items[o]) for n, o in pairs)


def _replaces(later: _Item, earlier: _Item) -> bool:
    if later.plain == earlier.plain or not same_matter(later.matter, earlier.matter):
        return False
    if later.corrects != earlier.corrects:  # a correction replaces what it corrects, and is not undone by it
        return later.corrects
    # A changed day or time: each names one the other does not („bis Montag“, „bis Freitag“); one
    # that only adds a time („um 10 Uhr“) or names one where the other named none is more news.
    return bool(later.when - earlier.when) and bool(earlier.when - later.when)


def _corrects_any(language: str, text: str) -> bool:
    return any(item.corrects for item in _items(language, text)[0])


def stale(language: str, texts: list[str]) -> dict[int, int]:
    """Of ``texts`` (in the order they were heard or noted), which are replaced and by which: the
    index of each replaced text to that of the text that holds (the last that replaces it, or what
    replaces that in turn)."""
    found: dict[int, int] = {}
    for earlier, old in enumerate(texts):
        for later in range(len(texts) - 1, -1, -1):
            if later != earlier and replaces(language, texts[later], old) \
                    and (later > earlier or (_corrects_any(language, texts[later]) and not _corrects_any(language, old))):
                found[earlier] = later
                break
    for index in list(found):
        seen = {index}
        while found[index] in found and found[index] not in seen:
            seen.add(found[index])
            found[index] = found[found[index]]
    return found
