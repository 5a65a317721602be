"""One's own news in one's own voice: an observation that names its holder in the third person
(„Darius wird Lead Designer.“, as a hand-planted line or a notice says it) is told in the first
(„Ich werde Lead Designer.“).

Only where the change is sure: each sentence that names the holder starts with the name, followed
by the finite verb (lower case: German and English put it second), which is put in the first
person by the language's rules and its strong forms; in that sentence a reflexive and a possessive
follow (sich → mich, seine → meine) — a possessive only where no one else is named in it, whose it
could be. A sentence that names the holder elsewhere, or speaks of them again as „er“/„sie“ (whose
verb would need changing too), leaves the whole item as written: the caller then says plainly
that it is about itself.
"""

from __future__ import annotations

import re

from .text import WORD_RE

#: Third person singular → first, for forms the endings do not give (strong verbs change their
#: vowel: „gibt“ → „gebe“). Matched as the end of the verb, so prefixed verbs follow („vergibt“).
STRONG = {
    "de": {"ist": "bin", "hat": "habe", "wird": "werde", "tut": "tue", "weiß": "weiß", "gibt": "gebe",
           "nimmt": "nehme", "spricht": "spreche", "hilft": "helfe", "trifft": "treffe", "sieht": "sehe",
           "liest": "lese", "fährt": "fahre", "läuft": "laufe", "lässt": "lasse", "hält": "halte", "fällt": "falle",
           "fängt": "fange", "trägt": "trage", "schlägt": "schlage", "wächst": "wachse", "schläft": "schlafe",
           "rät": "rate", "fiehlt": "fehle", "stiehlt": "stehle", "stirbt": "sterbe", "wirft": "werfe",
           "wirbt": "werbe", "bricht": "breche", "isst": "esse", "misst": "messe", "gisst": "gesse", "tritt": "trete",
           "gilt": "gelte", "lädt": "lade", "gräbt": "grabe", "stößt": "stoße", "schieht": "schehe", "sticht": "steche",
           "dirbt": "derbe", "birgt": "berge", "bläst": "blase", "brät": "brate", "wäscht": "wasche"},
    "en": {"is": "am", "has": "have", "does": "do", "goes": "go", "was": "was"},
}
#: ``STRONG``'s endings, longest first: „vergisst“ is „gisst“, not „isst“.
_LONGEST_FIRST = {code: sorted(forms.items(), key=lambda e: -len(e[0])) for code, forms in STRONG.items()}
#: Of ``STRONG``, the forms that are whole verbs only: „reist“ is not „re“ + „ist“, „vermisst“ is regular.
EXACT = {"ist", "hat", "tut", "isst", "misst", "is", "has", "was", "does", "goes"}
#: Words whose form is the same in both persons (modal verbs, the past).
SAME = {"de": {"kann", "muss", "will", "darf", "soll", "mag", "möchte"}, "en": set()}
#: Words after the name that make it one of several subjects, not the verb.
JOINING = {"de": {"und", "oder", "sowie", "samt", "mit"}, "en": {"and", "or", "with"}}
#: The holder's pronoun in another clause: its verb would need changing as well.
PRONOUNS = {"de": {"er", "sie"}, "en": {"he", "she", "her", "him"}}
#: What follows the verb in the holder's sentence, as the holder says it.
OWN = {"de": {"sich": "mich", "sein": "mein", "seine": "meine", "seinen": "meinen", "seinem": "meinem",
              "seiner": "meiner", "seines": "meines", "ihre": "meine", "ihren": "meinen", "ihrem": "meinem",
              "ihrer": "meiner", "ihres": "meines"},
       "en": {"himself": "myself", "herself": "myself", "his": "my"}}
#: Of ``OWN``, the reflexives: always the subject's.
REFLEXIVE = {"sich", "himself", "herself"}
_SENTENCES = re.compile(r"[^.!?]+[.!?]*")


def first_person(code: str, text: str, names: list[str], others: list[str] = ()) -> str | None:
    """``text`` in the holder's first person, or None where that is not sure (see the module);
    ``others`` are the names of everyone else, whose a possessive might be."""
    if code not in STRONG:
        return None
    names = sorted({n for n in names if n.strip()}, key=len, reverse=True)
    out, changed = [], False
    for sentence in _SENTENCES.findall(text):
        stripped = sentence.lstrip()
        name = next((n for n in names if stripped.startswith(n + " ")), None)
        if name is None:
            if any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", sentence) for n in names):
                return None
            out.append(sentence)
            continue
        mine = _sentence(code, stripped[len(name) + 1:], names, others)
        if mine is None:
            return None
        out.append(sentence[:len(sentence) - len(stripped)] + mine)
        changed = True
    return "".join(out) if changed else None


def _sentence(code: str, rest: str, names: list[str], others: list[str]) -> str | None:
    words = WORD_RE.findall(rest)
    if not words or not words[0][0].islower() or not rest.startswith(words[0]) or words[0] in JOINING[code]:
        return None  # no verb second: „Darius und Leo …“, „Darius, unser …“
    lower = [w.lower() for w in words[1:]]
    if PRONOUNS[code] & set(lower) or any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", rest) for n in names):
        return None
    verb = _verb(code, words[0])
    if verb is None:
        return None
    owned = [w for w in lower if w in OWN[code] and w not in REFLEXIVE]
    if owned and any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", rest) for n in others if n.strip()):
        return None  # „… zeigt Vera ihre Skizzen“: whose they are is not sure
    tail = re.sub(r"\b(\w+)\b", lambda m: OWN[code].get(m.group(1), m.group(1)), rest[len(words[0]):])
    return ("Ich " if code == "de" else "I ") + verb + tail


def _verb(code: str, verb: str) -> str | None:
    if verb in SAME[code]:
        return verb
    for ending, mine in _LONGEST_FIRST[code]:
        if verb == ending or (verb.endswith(ending) and ending not in EXACT):
            return verb[: len(verb) - len(ending)] + mine
    return _de_verb(verb) if code == "de" else _en_verb(verb)


def _de_verb(verb: str) -> str:
    if verb.endswith("et") and len(verb) > 3:
        return verb[:-1]  # arbeitet → arbeite
    if verb.endswith("t"):
        return verb[:-1] + "e"  # kandidiert → kandidiere, bekommt → bekomme
    return verb  # the past („wurde“, „bekam“) is the same in the first person


def _en_verb(verb: str) -> str:
    if verb.endswith("ed"):
        return verb
    if verb.endswith("ies") and len(verb) > 4:
        return verb[:-3] + "y"
    if verb.endswith(("ches", "shes", "sses", "xes", "zes", "oes")):
        return verb[:-2]
    return verb[:-1] if verb.endswith("s") else verb
