"""Prompt building: the Markdown templates in ``prompts/`` filled from state.

``character.md`` is the frame every character prompt uses; the kind's template
(``<kind>.md``, for example ``work.md``) holds the task for the scene and ``contract.md`` the
reply contract. Templates use ``$name`` placeholders; a misspelt one is an
error naming the file.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable
from string import Template

from . import claims
from .calendar import annotate, day_text
from .contract import contract_values
from .lang import phrase
from .models import Agent, World
from .problems import StateError
from .scene_spec import SceneSpec
from .turns import Turn

EMPTY = "—"
#: Lines in character.md that cut the prompt where API backends set cache breakpoints:
#: after what is the same for every character and scene (reply contract, roster, studio
#: bible), after what stays the same for one character from scene to scene (persona,
#: reflections), after what stays the same for it all day (the memories of earlier days
#: chosen for the day, ``day_memories.py``), and after what stays the same for every turn
#: and retry of one scene (this scene's memories). Longest shared first, so one cache entry
#: serves every call. A template without some of them is cut only where it has them.
CACHE_MARKERS = (
    "<!-- shared above: the same for every character -->",
    "<!-- stable above, scene below -->",
    "<!-- the day's memories above, this scene's below -->",
    "<!-- this scene's memories above, this turn below -->",
)


@dataclass
class PromptContext:
    """What fills the frame of a prompt (who, where, when, the transcript), and what the turn's
    sections filled (``values``) and the fragments of the sections that bring their own (``fragments``)."""

    world: World
    agent: Agent
    spec: SceneSpec
    names: dict[str, str]
    transcript: list[Turn] = field(default_factory=list)
    turn: int = 0
    final_turn: bool = True
    #: Everyone in the studio with their role, rendered (the same for every character).
    roster: str = ""
    #: The placeholders the sections filled (``sections/``).
    values: dict[str, str] = field(default_factory=dict)
    #: The template fragments of the sections without a place in ``character.md``: shown in
    #: order where it has ``$sections``, each filled in like any template.
    fragments: list[str] = field(default_factory=list)


TemplateFinder = Callable[[str], Path]


#: What a template's cache marker becomes while it is filled in: no text of a file or a reply
#: holds it, so the prompt is cut where the template says, whatever the memories quote.
_CUT = f"\x00cut-{os.urandom(8).hex()}-"


def render_template(find: TemplateFinder, name: str, values: dict[str, str], cuts: tuple[str, ...] = ()) -> str:
    """Template ``name`` filled in; the first of each of ``cuts`` in it becomes ``_CUT`` and its number."""
    path = find(name)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise StateError(f"{path}: prompt template missing") from None
    for number, marker in enumerate(cuts):
        text = text.replace(marker, f"{_CUT}{number}\x00", 1)
    try:
        return Template(text).substitute(values)
    except KeyError as exc:
        raise StateError(f"{path}: unknown placeholder ${exc.args[0]}") from None
    except ValueError as exc:
        raise StateError(f"{path}: {exc} (write $$ for a literal dollar sign)") from None


def uses_placeholder(find: TemplateFinder, name: str, placeholder: str) -> bool:
    """Whether template ``name`` shows ``$placeholder`` (a workspace's own older copy may not)."""
    try:
        text = find(name).read_text(encoding="utf-8")
    except FileNotFoundError:
        return False
    return re.search(rf"\$(?:{placeholder}\b|\{{{placeholder}\}})", text) is not None


def bullet_list(lines: list[str]) -> str:
    return "\n".join(lines) if lines else EMPTY


#: Characters of an earlier turn's first sentence when the transcript is shortened.
SHORT_TURN = 160


def render_transcript(transcript: list[Turn], participants: int, language: str, budget: int | None = None) -> str:
    """Every turn so far; past ``budget`` characters only the newest turns stay verbatim.

    Each turn of a meeting carries the transcript, so without a bound a big meeting's
    last prompt grows with every turn before it. Shortened, the newest turns that fit in
    three quarters of the budget are kept whole and the earlier ones become one line each
    (speaker and first sentence); turns too old for the rest of the budget are only counted."""
    lines = [_turn_line(turn, index, participants, language, turn.says) for index, turn in enumerate(transcript)]
    whole = "\n\n".join(lines)
    if budget is None or len(whole) <= budget:
        return whole or EMPTY
    verbatim: list[str] = []
    used = 0
    for line in reversed(lines):
        if verbatim and used + len(line) + 2 > budget * 3 // 4:
            break
        # Only the newest turn can be longer than the share; it is clipped, visibly.
        verbatim.insert(0, line if len(line) <= budget * 3 // 4 else line[: budget * 3 // 4 - 1] + "…")
        used += len(verbatim[0]) + 2
    earlier = transcript[: len(lines) - len(verbatim)]
    short: list[str] = []
    for index in range(len(earlier) - 1, -1, -1):
        line = _turn_line(earlier[index], index, participants, language, _first_sentence(earlier[index].says))
        if used + len(line) + 1 > budget:
            break
        short.insert(0, line)
        used += len(line) + 1
    head = [phrase(language, "transcript_shortened")]
    if len(short) < len(earlier):
        head.append(phrase(language, "transcript_omitted", count=len(earlier) - len(short)))
    return "\n\n".join([" ".join(head), "\n".join(short), *verbatim] if short else [" ".join(head), *verbatim])


def _turn_line(turn: Turn, index: int, participants: int, language: str, says: str) -> str:
    round_number = index // max(participants, 1) + 1
    return f"**{turn.name}** ({phrase(language, 'round')} {round_number}): {says}"


def _first_sentence(says: str) -> str:
    text = " ".join(says.split())
    # A day of the month („am 12. Dezember“) is a number with a stop, not the end of a sentence.
    match = re.match(r"(.+?(?:[!?…]|(?<!\b\d)(?<!\b\d\d)\.))(\s|$)", text)
    sentence = match.group(1) if match else text
    return sentence if len(sentence) <= SHORT_TURN else sentence[: SHORT_TURN - 1].rstrip() + "…"


def scene_values(ctx: PromptContext) -> dict[str, str]:
    """Every placeholder a template may use: the frame's, then the sections'."""
    spec, agent = ctx.spec, ctx.agent
    others = [p for p in spec.room_of(agent.id) if p != agent.id]
    language = ctx.world.language
    return {
        "studio": ctx.world.studio,
        "name": agent.name,
        "agent_id": agent.id,
        "role": agent.role,
        "persona": agent.persona,
        "artifact_kind": agent.artifact_kind,
        "interests": bullet_list(
            [f"- {i.topic} ({', '.join(i.tags)})" if i.tags else f"- {i.topic}" for i in agent.interests]
        ),
        "plan": agent.today_plan.text if agent.today_plan else EMPTY,
        "plan_label": claims.plan_label(language, ctx.world, agent.today_plan, spec),
        "scene_type": spec.type,
        "scene_ref": spec.ref,
        "day": f"{spec.day:03d}",
        "weekday": phrase(language, f"weekday_{ctx.world.weekday(spec.day)}"),
        "date": day_text(language, ctx.world, spec.day),
        "present": ", ".join(f"{ctx.names.get(p, p)} ({p})" for p in others) or EMPTY,
        "colleagues": ", ".join(f"{name} ({aid})" for aid, name in ctx.names.items() if aid != agent.id),
        "topic": _topic(ctx),
        "reason": claims.reason_for(language, spec.reason, ctx.names, agent.id) or EMPTY,
        "reply_fields": claims.reply_fields(spec.kind, ctx.final_turn, language),
        "slot": phrase(language, f"slot_{spec.slot}") if spec.slot else EMPTY,
        "transcript": render_transcript(ctx.transcript, len(spec.participants), language, ctx.world.transcript_budget),
        "turn": str(ctx.turn + 1),
        "turns": str(len(spec.turns)),
        "round": str(ctx.turn // max(len(spec.participants), 1) + 1),
        "rounds": str(spec.rounds),
        "roster": ctx.roster or EMPTY,
        "final_turn": spec.kind.final_turn_request(language) if ctx.final_turn else "",
        **contract_values(language),
        **ctx.values,
    }


def _topic(ctx: PromptContext) -> str:
    # An event's words are the topic of its scenes (the EVENT and the meeting it calls): what
    # they say about days is read on the day it happens, each time for a weekly one.
    spec = ctx.spec
    if not spec.topic:
        return EMPTY
    return spec.topic + (annotate(spec.topic, ctx.world.language, ctx.world, spec.day) if spec.event_id else "")


def build_prompt(find: TemplateFinder, ctx: PromptContext) -> tuple[str, list[str]]:
    """The whole prompt and its cacheable leading segments, one per ``CACHE_MARKERS`` entry
    (empty where the template lacks that marker): exact slices of the prompt, in order."""
    values = scene_values(ctx)
    shown = (render_template(find, name, values).strip() for name in ctx.fragments)
    values["sections"] = "".join("\n\n" + text for text in shown if text)
    values["task"] = render_template(find, ctx.spec.kind.template, values).strip()
    values["contract"] = render_template(find, "contract.md", values).strip()
    rest = render_template(find, "character.md", values, cuts=CACHE_MARKERS).strip() + "\n"
    segments = []
    for number in range(len(CACHE_MARKERS)):
        head, found, tail = rest.partition(f"{_CUT}{number}\x00")
        if found:
            segments.append(head.strip() + "\n\n")
            rest = tail.lstrip()
        else:
            segments.append("")
    return "".join(segments) + rest, segments
