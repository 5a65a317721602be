"""What a prompt tells a character about its scene that has to be true of the state.

A model takes every sentence of its prompt at its word: told that whoever is not at its table
can be asked later, it believes the others it sees listed heard it. So the sentences that
depend on the scene are made here from the scene itself, each from the one rule that decides
it: who hears the character (``kinds/heard.listeners``, the rule that writes the heard
memories), whether the others answer at the same time (``SceneKind.in_sequence``), which
reply fields the scene expects, allows and refuses (the kind's reply model and sections, the
rule ``kinds.check_kind`` applies) and why the scene was chosen, as far as it concerns the
character (no colleague's accumulator).
"""

from __future__ import annotations

import re

from .calendar import day_text
from .ids import parse_scene_ref
from .kinds.base import SECTIONS
from .reasons import reason
from .sections import reply_model_for

PHRASES: dict[str, dict[str, str]] = {
    "de": {
        "alone": "niemand – du bist in dieser Szene allein, was du sagst, hört keiner.",
        "alone_table": "niemand – du sitzt allein an deinem Tisch.",
        "last_turn": " `conversation` gehört in deinen letzten Beitrag.",
        "table": "{people} – sie sitzen an deinem Tisch.",
        "room": "{people} – sie sind in deinem Raum.",
        "not_table": " Nicht an deinem Tisch, hören dich also nicht: {people}.",
        "side_by_side": (" Alle hier antworten gleichzeitig: Was du sagst, hören die anderen erst nach dieser "
                         "Szene, und was sie sagen, erfährst du frühestens in deiner nächsten – eine Frage an sie "
                         "beantwortet hier niemand."),
        "in_sequence": ("alle hier, {people}. Ihr sprecht nacheinander: Du kennst, was vor dir gesagt wurde, "
                        "und wer nach dir dran ist, hört deine Worte."),
        "fields": "Antwortfelder in dieser Szene ({kind}): Pflicht: {required}. Erlaubt: {allowed}. "
                  "Nicht erlaubt: {forbidden}.",
        "none": "keine",
        "plan_today": "Dein Plan für heute ({date})",
        "plan_of": "Dein Plan von Tag {day:03d} ({date}), nicht von heute",
        "plan_earlier": "Dein bisheriger Plan, nicht von heute",
        "library_whole": "Die Referenzbibliothek steht oben ganz in der Studio-Bibel: Lies dort nach, was du brauchst.",
        "library_ask": ("Die Studio-Bibel oben hält die Referenzbibliothek nicht ganz: Schreib in deinen Plan, dass "
                        "du in der Bibliothek nachschlagen willst, dann zeigt dir deine nächste Arbeitsszene Auszüge."),
    },
    "en": {
        "alone": "nobody – you are alone in this scene; nobody hears what you say.",
        "alone_table": "nobody – you sit alone at your table.",
        "last_turn": " `conversation` belongs in your last turn.",
        "table": "{people} – they sit at your table.",
        "room": "{people} – they are in your room.",
        "not_table": " Not at your table, so they do not hear you: {people}.",
        "side_by_side": (" Everyone here answers at the same time: the others hear what you say only after this "
                         "scene, and you learn what they said in your next scene at the earliest – nobody here "
                         "can answer a question of yours."),
        "in_sequence": ("everyone here, {people}. You speak one after another: you know what was said before "
                        "you, and whoever comes after you hears your words."),
        "fields": "Reply fields in this scene ({kind}): required: {required}. Allowed: {allowed}. "
                  "Not allowed: {forbidden}.",
        "none": "none",
        "plan_today": "Your plan for today ({date})",
        "plan_of": "Your plan of day {day:03d} ({date}), not of today",
        "plan_earlier": "Your earlier plan, not of today",
        "library_whole": "The reference library is in the studio bible above, whole: look up there what you need.",
        "library_ask": ("The studio bible above does not hold the whole reference library: say in your plan that "
                        "you want to look something up in the library, and your next work scene shows excerpts."),
    },
}


def _say(language: str, name: str, **values) -> str:
    return PHRASES.get(language, PHRASES["en"])[name].format(**values)


def people(ids: list[str], names: dict[str, str]) -> str:
    """Names as the scene header writes them: ``Darius Engel (darius)``."""
    return ", ".join(f"{names.get(p, p)} ({p})" for p in ids)


def hearing(spec, agent_id: str, table: list[str], names: dict[str, str], language: str) -> str:
    """Who hears what ``agent_id`` says here (``table``: ``kinds.heard.listeners``), who does not,
    and when the others learn of it."""
    others = [p for p in spec.participants if p != agent_id]
    if spec.kind.in_sequence and others:
        return _say(language, "in_sequence", people=people(others, names))
    # A WORK room's prompt names only its own room as present; a scene of tables names everyone.
    away = [] if spec.rooms or spec.kind.in_sequence else [p for p in others if p not in table]
    if not table and not away:
        return _say(language, "alone")
    line = _say(language, "room" if spec.rooms else "table", people=people(table, names)) if table \
        else _say(language, "alone_table")
    if away:
        line += _say(language, "not_table", people=people(away, names))
    return line + _say(language, "side_by_side")


def reply_fields(kind, final_turn: bool, language: str) -> str:
    """Which reply fields this scene requires, allows and refuses: the kind's reply model and its
    sections (``kinds.check_kind`` refuses a section the kind does not allow)."""
    model = reply_model_for(kind)
    fields = [info.alias or name for name, info in model.model_fields.items()]
    required = [name for name, info in model.model_fields.items() if info.is_required()]
    required = [f for f in fields if f in required or f in kind.required(final_turn)]
    refused = [s for s in SECTIONS if s not in kind.allows]
    # Asked for in the speaker's last turn; an earlier turn's is not refused, only not kept.
    later = "conversation" in kind.allows and not final_turn
    allowed = [f for f in fields if f not in required and f not in refused and not (later and f == "conversation")]

    def listed(names: list[str]) -> str:
        return ", ".join(f"`{n}`" for n in names) or _say(language, "none")

    return _say(language, "fields", kind=kind.name, required=listed(required), allowed=listed(allowed),
                forbidden=listed([f for f in fields if f in refused])) + (_say(language, "last_turn") if later else "")


_ABOUT = re.compile(r"^([a-z][a-z0-9_]*): ")


def reason_for(language: str, text: str, names: dict[str, str], agent_id: str) -> str:
    """The scene's reason as far as it concerns ``agent_id``: the parts about a colleague (a
    REFLECTION's ``tobi: accumulator 118 > 100``) are theirs, not the character's to know."""
    parts = [part for part in text.split("; ")
             if not ((match := _ABOUT.match(part)) and match.group(1) in names and match.group(1) != agent_id)]
    return reason(language, "; ".join(parts), names) if parts else ""


def library_note(language: str, documents: int, whole: int, excerpts: bool) -> str:
    """How the reference library reaches the character: whole in the bible, or as excerpts in a
    kind that ``consults_library`` when the plan asks for them (``library.wants_library``);
    nothing when the studio has no library or no kind consults it."""
    if not documents:
        return ""
    if whole >= documents:
        return _say(language, "library_whole")
    return _say(language, "library_ask") if excerpts else ""


def plan_label(language: str, world, plan, spec) -> str:
    """What the prompt calls the character's plan: today's only if it was made today (at a new
    day's ARRIVAL the plan it has is yesterday's)."""
    made = None
    if plan is not None and plan.created:
        try:
            made = parse_scene_ref(plan.created)[0]
        except ValueError:
            made = None
    if made is None and (plan is None or not spec.kind.starts_day()):
        made = spec.day
    if made == spec.day:
        return _say(language, "plan_today", date=day_text(language, world, spec.day))
    if made is None:
        return _say(language, "plan_earlier")
    return _say(language, "plan_of", day=made, date=day_text(language, world, made))
