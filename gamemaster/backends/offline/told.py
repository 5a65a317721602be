"""Recognising news in a line: what a line someone said passes on, and whether it asks to be kept.

The offline player says news with its phrase bank's templates (``news.line``); a Claude or human
character in its own words, with a cue („Habt ihr schon gehört?“, „X hat erzählt“). Both are
read here; what a character holds and whom it tells is ``news.py``.
"""

from __future__ import annotations

import functools
import re

from .phrase_banks import phrase_bank

#: Characters of a news item's text when it is said.
NEWS_CHARS = 160


#: The phrase bank's ways of passing news on (``line``).
TOLD = ("first_hand", "first_hand_one", "first_hand_self", "relayed", "relayed_one", "corrected", "corrected_relayed",
        "about_you", "about_you_relayed")


@functools.cache
def _patterns(code: str) -> tuple[re.Pattern, ...]:
    """A pattern per news template of a language, capturing the item (and its source)."""
    bank = phrase_bank(code)["news"]
    found = []
    for template in [t for key in TOLD for t in bank[key]]:
        pattern = re.escape(template)
        # Bounded: an unbounded lazy group makes a long line without a match take quadratic time.
        pattern = pattern.replace(re.escape("{source}"), r"(?P<source>[^.!?]{1,80}?)")
        pattern = pattern.replace(re.escape("{news}"), r"(?P<news>[^„“”\"»«]{1,1000})")
        found.append(re.compile(pattern))
    return tuple(found)


#: How people pass news on in their own words (a Claude character, a human's reply): a line
#: with one of these, lower-cased, passes on what follows it. Read, never said: not in the phrase bank.
CUES = {
    "de": ("hast du schon gehört", "habt ihr schon gehört", "schon gehört", "stell dir vor", "stellt euch vor",
           "wusstest du", "wusstet ihr", "weißt du schon", "wisst ihr schon", "hat erzählt", "hat mir erzählt",
           "hat gesagt", "meinte", "ich habe gehört", "hab gehört", "habe ich gehört", "eine neuigkeit",
           "neuigkeiten"),
    "en": ("did you hear", "have you heard", "heard that", "guess what", "told me", "said that", "apparently",
           "did you know", "some news"),
}
#: How people ask to keep something to oneself: a sentence with one of these, lower-cased, makes
#: what it and the next sentence say a confidence its holder keeps. Requests only: „unter uns
#: Artists“ or „der Vertrag ist vertraulich“ say nothing about passing on. Read, never said.
SECRET = {
    "de": ("erzähl es niemandem", "erzählt es niemandem", "sag es niemandem", "sagt es niemandem",
           "erzähl das niemandem", "sag das niemandem", "erzähl das keinem", "sag das keinem", "nicht weitersagen",
           "nicht weiter sagen", "bleibt unter uns", "unter uns gesagt", "behalte es für dich", "behalt es für dich",
           "behaltet es für euch", "behalte das für dich", "im vertrauen gesagt", "ganz im vertrauen"),
    "en": ("don't tell anyone", "do not tell anyone", "don't tell anybody", "keep it to yourself",
           "keep this to yourself", "between you and me", "just between us", "keep it quiet", "keep this quiet"),
}
#: What a cue must be followed by to be news: a few words, not a greeting.
CUED_WORDS = 4
_QUOTED = re.compile(r"[„“\"»«”]([^„“\"»«”]{20,1000})[“”\"«»]")
_SENTENCES = re.compile(r"[^.!?]+[.!?]*")
_THAT = {"de": re.compile(r"\bdass\s+"), "en": re.compile(r"\bthat\s+")}


def told_in(code: str, says: str) -> list[str]:
    """The news items a line passes on: by the phrase bank's templates (how the offline player
    says it), else by the language's ``CUES`` (how anyone else might): a quoted passage after the
    cue, or the rest of its sentence (after „dass“), or, when the cue is a question of its own
    („Habt ihr schon gehört?“), the next sentence."""
    return list(_told_in(code, says))


@functools.lru_cache(maxsize=16384)  # the same lines are read again for every listener and scene
def _told_in(code: str, says: str) -> tuple[str, ...]:
    items = []
    for pattern in _patterns(code):
        items += [m.group("news").strip() for m in pattern.finditer(says)]
    return tuple(dict.fromkeys(items or _cued(code, says[:4000])))


@functools.cache
def _words_pattern(phrases: tuple[str, ...]) -> re.Pattern:
    """Any of ``phrases`` as whole words (as ``text.mention``): „Neuigkeiten“ and
    „Neuigkeiten-Seite“ are not the cue „neuigkeit“ and a rest."""
    return re.compile("|".join(rf"(?<![\w-]){re.escape(p)}(?![\w-])" for p in phrases))


def confided(code: str, text: str, item: str | None = None) -> bool:
    """Whether ``text`` asks that ``item`` (by default all it says) be kept to oneself: a request
    to keep it in the sentence that holds the item or in the one before it."""
    where = text.find(item[:40]) if item else -1
    sentences = [m.group(0) for m in _SENTENCES.finditer(text[:where] if where > 0 else text)]
    scope = " ".join(sentences[-2:] + ([item] if where > 0 and item else []))
    return bool(_words_pattern(SECRET.get(code, SECRET["en"])).search(scope.lower()))


def _cued(code: str, says: str) -> list[str]:
    cues = _words_pattern(CUES.get(code, CUES["en"]))
    sentences = [m.group(0).strip() for m in _SENTENCES.finditer(says) if m.group(0).strip()]
    for index, sentence in enumerate(sentences):
        lower = sentence.lower()
        ends = [m.end() for m in cues.finditer(lower)]
        if not ends:
            continue
        rest = sentence[max(ends):]
        quoted = _QUOTED.search(" ".join([rest, *sentences[index + 1:index + 2]]))
        if quoted:
            return [quoted.group(1).strip().rstrip(".!?")]
        that = _THAT.get(code, _THAT["en"]).search(rest)
        rest = (rest[that.end():] if that else rest).strip(" ,:;-–.!?")
        if len(rest.split()) < CUED_WORDS and index + 1 < len(sentences):
            rest = sentences[index + 1].strip(" ,:;-–.!?")
        if len(rest.split()) >= CUED_WORDS:
            return [rest[:NEWS_CHARS * 2]]
    return []
