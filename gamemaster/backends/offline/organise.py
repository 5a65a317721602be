"""A brief asks the character to organise something: the offline player proposes the gathering.

„Organisiere am Donnerstag mittags eine Party und lade alle ein“ given to one character makes
its next reply carry a ``gathering`` (what, day, slot, place, whom) and say it aloud. Read
from the brief's words only, deterministically:

- it is a request to organise when it has one of the language's organising verbs;
- *what*: the words after the first article that follows the verb (``eine Party`` → „Party“),
  up to a preposition, a day or time word, ``und`` or the end of the clause;
- *day*: a weekday (the next such day after today), ``heute``, ``morgen`` (tomorrow, unless it
  follows ``am``: then the morning), ``übermorgen`` or „Tag 3“; none: tomorrow;
- *slot*: a time-of-day word (``slots.parse_slot``); none: the evening;
- *place*: a noun after ``im``/``in der``/``auf dem`` …; none: one of the studio's usual places,
  drawn by the world seed and the brief;
- *whom*: ``alle`` or the names of characters the brief mentions; none: everyone.

A proposal is made once: in the character's first turn of the first scene the brief reaches it
in (``sections.briefs.brief_reaches``), and not when it already hosts a gathering of that day and slot.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...gatherings import proposal_problems
from ...lang import phrase, short_name
from ...reply_models import GatheringDraft
from ...schedule import WEEKDAYS
from ...slots import parse_slot, slot_index, slot_label
from .text import WORD_RE

if TYPE_CHECKING:
    from ...models import Brief
    from .player import Player

#: What a brief's words mean, per language. Not in the phrase bank: these are read, not said.
WORDS = {
    "de": {
        "verbs": {"organisiere", "organisier", "organisieren", "organisiert", "plane", "plan", "planen", "plant",
                  "veranstalte", "veranstalten", "richte", "schmeiß", "schmeiss", "lade", "ladet", "feiere", "feiert"},
        "everyone": {"alle", "allen", "jeden", "jede", "team", "studio"},
        "articles": {"ein", "eine", "einen", "einem", "einer"},
        "stops": {"und", "oder", "im", "in", "am", "an", "auf", "beim", "bei", "für", "fuer", "mit", "zum", "zur",
                  "um", "ab", "lade", "ladet", "dazu", "ein", "eine", "einen", "alle", "nächste", "nächsten",
                  "diese", "diesen", "kommenden"},
        "weekdays": {"montag": "mon", "dienstag": "tue", "mittwoch": "wed", "donnerstag": "thu", "freitag": "fri",
                     "samstag": "sat", "sonnabend": "sat", "sonntag": "sun"},
        "today": {"heute"}, "tomorrow": {"morgen"}, "after_tomorrow": {"übermorgen"},
        "day": {"tag"}, "slot_before": {"am", "jeden", "guten"},
        "place": re.compile(r"\b(im|in der|in die|in den|auf der|auf dem|an der|beim)\s+"
                            r"((?:[A-ZÄÖÜ][\wäöüß-]*\s?){1,3})"),
        "places": (("Küche", "in der Küche"), ("Innenhof", "im Innenhof"), ("Dachterrasse", "auf der Dachterrasse"),
                   ("Besprechungsraum", "im großen Besprechungsraum")),
        "default_what": "Treffen",
    },
    "en": {
        "verbs": {"organise", "organize", "organising", "organizing", "plan", "host", "throw", "hold", "invite"},
        "everyone": {"everyone", "everybody", "all", "team", "studio"},
        "articles": {"a", "an"},
        "stops": {"and", "or", "in", "at", "on", "for", "with", "to", "by", "invite", "everyone", "all", "next",
                  "this", "the", "around", "from"},
        "weekdays": {"monday": "mon", "tuesday": "tue", "wednesday": "wed", "thursday": "thu", "friday": "fri",
                     "saturday": "sat", "sunday": "sun"},
        "today": {"today", "tonight"}, "tomorrow": {"tomorrow"}, "after_tomorrow": set(),
        "day": {"day"}, "slot_before": {"good"},
        "place": re.compile(r"\b(in the|at the|on the)\s+((?:[a-zA-Z][\w-]*\s?){1,3}?)(?=[,.;!?]|\s+(?:and|on|at|for)\b|$)"),
        "places": (("kitchen", "in the kitchen"), ("courtyard", "in the courtyard"), ("roof terrace", "on the roof terrace"),
                   ("meeting room", "in the big meeting room")),
        "default_what": "get-together",
    },
}


def proposal(player: Player) -> tuple[dict, str] | None:
    """The reply's ``gathering`` and the line announcing it, for the first organising brief; or None."""
    if any(t.speaker == player.agent.id for t in player.req.transcript):
        return None  # proposed in the character's first turn of the scene, if at all
    words = WORDS.get(player.code, WORDS["en"])
    for brief in player.req.briefs:
        found = _read(player, brief, words)
        if found is None:
            continue
        draft, place_said = found
        if proposal_problems(GatheringDraft.model_construct(**draft), player.agent.id, player.spec, player.req.roster):
            continue  # e.g. further ahead than a reply may plan: the reply would be refused
        if any(g.host == player.agent.id and (g.day, g.slot) == (draft["day"], draft["slot"])
               for g in player.req.engagements):
            return None
        ctx = {"what": draft["what"], "weekday": phrase(player.req.language, "weekday_" + weekday(player, draft["day"])),
               "slot": slot_label(player.req.language, draft["slot"]), "place": place_said}
        return draft, player.fill(player.rng_for(brief.id).choice(_announcements(player, draft["invite"], ctx)), ctx)
    return None


def _announcements(player: Player, invite: list[str], ctx: dict) -> list[str]:
    """How to say it aloud: to everyone who hears it when everyone is invited; else to the guests
    by name, so that those at the table who are not invited do not hear „ihr seid eingeladen“."""
    bank = player.lines["organise"]
    if invite == ["alle"]:
        return bank["says"]
    ctx["guests"] = player.join([player.name_of(a) for a in invite])
    return bank["says_one" if len(invite) == 1 else "says_named"]


def _read(player: Player, brief: Brief, words: dict) -> tuple[dict, str] | None:
    text = brief.text
    tokens = [w for w in WORD_RE.findall(text)]
    lower = [w.lower() for w in tokens]
    verb = next((i for i, w in enumerate(lower) if w in words["verbs"]), None)
    if verb is None:
        return None
    day, morning = _day(player, lower, words)
    slot = next((parse_slot(w) for i, w in enumerate(lower)
                 if parse_slot(w) and (w not in words["tomorrow"] or (i and lower[i - 1] in words["slot_before"]))), None)
    slot = slot or ("morning" if morning else "evening")
    if day == player.spec.day and player.spec.slot and slot_index(slot) <= slot_index(player.spec.slot):
        day += 1  # that time of today is here or over: the same time tomorrow
    place = words["place"].search(text)
    if place:
        name = place.group(2).strip()
        place_said = f"{place.group(1)} {name}"
    else:
        name, place_said = player.rng_for(brief.id + "/place").choice(words["places"])
    invite = _invitees(player, text, lower, words)
    return {"what": _what(tokens, lower, verb, words), "day": day, "slot": slot, "place": name, "invite": invite}, place_said


def _what(tokens: list[str], lower: list[str], verb: int, words: dict) -> str:
    start = next((i + 1 for i in range(verb + 1, len(lower)) if lower[i] in words["articles"]), None)
    if start is None:
        return words["default_what"]
    taken = []
    for token, word in zip(tokens[start:], lower[start:]):
        if word in words["stops"] or word in words["weekdays"] or parse_slot(word) or word in words["tomorrow"] \
                or word in words["today"] or len(taken) == 4:
            break
        taken.append(token)
    what = " ".join(taken) or words["default_what"]
    return what[:1].upper() + what[1:]


def _day(player: Player, lower: list[str], words: dict) -> tuple[int, bool]:
    """The day the brief names, and whether its ``morgen`` meant the morning."""
    today = player.spec.day
    for i, word in enumerate(lower):
        if word in words["day"] and i + 1 < len(lower) and lower[i + 1].isdigit():
            return max(int(lower[i + 1]), today), False
        if word in words["weekdays"] and player.req.weekday in WEEKDAYS:
            ahead = (WEEKDAYS.index(words["weekdays"][word]) - WEEKDAYS.index(player.req.weekday)) % 7
            return today + (ahead or 7), False
        if word in words["after_tomorrow"]:
            return today + 2, False
        if word in words["today"]:
            return today, False
        if word in words["tomorrow"]:
            if i and lower[i - 1] in words["slot_before"]:
                return today + 1, True  # „am Morgen“: the morning (of tomorrow: today's may be over)
            return today + 1, False
    return today + 1, False


def _invitees(player: Player, text: str, lower: list[str], words: dict) -> list[str]:
    if set(lower) & words["everyone"]:
        return ["alle"]
    found = []
    # Longer names first, so „Nami 3“ is not taken for „Nami“.
    names = sorted(((short_name(name) or agent_id, agent_id) for agent_id, name in player.req.roster.items()),
                   key=lambda item: -len(item[0]))
    rest = text
    for name, agent_id in names:
        pattern = re.compile(rf"(?<![\w]){re.escape(name)}(?![\w]| \d)")
        if agent_id != player.agent.id and pattern.search(rest):
            found.append(agent_id)
            rest = pattern.sub(" ", rest)
    return sorted(found) or ["alle"]


def weekday(player: Player, day: int) -> str:
    """The weekday id (``mon`` …) of ``day``, counted from today's."""
    if player.req.weekday not in WEEKDAYS:
        return "mon"
    return WEEKDAYS[(WEEKDAYS.index(player.req.weekday) + day - player.spec.day) % 7]
