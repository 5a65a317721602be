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
from .calendar import annotate, brief_day, day_text
from .contract import contract_values
from .lang import phrase
from .models import Agent, Brief, Memory, World
from .problems import StateError
from .scene_spec import SceneSpec
from .retrieval.base import Selection
from .retrieval.render import memory_text
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
    world: World
    agent: Agent
    spec: SceneSpec
    selection: Selection
    names: dict[str, str]
    since: list[Memory] = field(default_factory=list)
    briefs: list[Brief] = field(default_factory=list)
    transcript: list[Turn] = field(default_factory=list)
    turn: int = 0
    final_turn: bool = True
    replan: bool = False
    #: Excerpts from the reference library, rendered (empty: none).
    library: str = ""
    #: What was said lately, the paragraph rendered (``news.recent_section``; empty: nothing).
    heard_recently: str = ""
    #: Who hears the character here and when (``claims.hearing``; empty: not known).
    hearing: str = ""
    #: How the reference library reaches the character (``claims.library_note``).
    library_note: str = ""
    #: Open invitations to answer, rendered (empty: none).
    invitations: str = ""
    #: Everyone in the studio with their role, rendered (the same for every character).
    roster: str = ""
    #: The studio bible (``library.bible``), rendered.
    bible: str = ""
    #: The memories of earlier days chosen for the day (``day_memories.py``), rendered (empty: none).
    earlier: str = ""
    #: Every memory id the prompt shows as a memory of its own (evidence named in a line is one of them).
    visible: frozenset[str] = frozenset()
    #: The newest reflections when they were chosen, rendered; None: the selection's own. A
    #: reflection the selection adds then stands with this scene's memories.
    day_reflections: str | None = None


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


def memory_sections(ctx: PromptContext, language: str) -> dict[str, str]:
    """The memory sections of a prompt, rendered: ``since``, ``reflections``, ``relevant``, ``recent``."""
    # A memory shown out of its section brings the heard lines the selection chose with it.
    heard = {p.memory.id: p.heard for p in ctx.selection.picked}
    # Each memory once per prompt: one that happened since the character's last scene is shown
    # there, not again in the section of the selection it came from.
    since = {m.id for m in ctx.since}
    # Evidence is named where the prompt shows the memory cited: anywhere for this scene's
    # memories; for the reflections, which stay the same from scene to scene, among themselves.
    visible = ctx.visible | since

    def section(*names: str, stable: bool = False) -> str:
        picked = sorted((p for name in names for p in ctx.selection.section(name, exclude=since)), key=lambda p: p.offset)
        shown = {p.memory.id for p in picked} if stable else visible
        return bullet_list([memory_text(p.memory, language, p.heard, shown) for p in picked])

    # With the day's reflections above, one written since stands with this scene's memories.
    day_reflections = ctx.day_reflections is not None
    return {
        "since": bullet_list([memory_text(m, language, heard.get(m.id, ()), visible) for m in ctx.since]),
        "reflections": (ctx.day_reflections or EMPTY) if day_reflections else section("reflections", stable=True),
        "relevant": section("relevant", "reflections") if day_reflections else section("relevant"),
        "recent": section("recent"),
    }


def scene_values(ctx: PromptContext) -> dict[str, str]:
    spec, agent = ctx.spec, ctx.agent
    others = [p for p in spec.room_of(agent.id) if p != agent.id]
    total_turns = len(spec.turns)
    language = ctx.world.language

    memories = memory_sections(ctx, language)

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
        "hearing": ctx.hearing or EMPTY,
        "reply_fields": claims.reply_fields(spec.kind, ctx.final_turn, language),
        "library_note": ctx.library_note,
        "briefs": _briefs(ctx),
        "invitations": ctx.invitations,
        "slot": phrase(language, f"slot_{spec.slot}") if spec.slot else EMPTY,
        "since": memories["since"],
        "replan": phrase(language, "replan") if ctx.replan else "",
        "reflections": memories["reflections"],
        "relevant": memories["relevant"],
        # The name of the relevant section before strategies existed; older workspaces' templates use it.
        "focused": memories["relevant"],
        "recent": memories["recent"],
        "earlier": ctx.earlier or EMPTY,
        "transcript": render_transcript(ctx.transcript, len(spec.participants), language, ctx.world.transcript_budget),
        "turn": str(ctx.turn + 1),
        "turns": str(total_turns),
        "round": str(ctx.turn // max(len(spec.participants), 1) + 1),
        "rounds": str(spec.rounds),
        "library": phrase(language, "library", excerpts=ctx.library) if ctx.library else "",
        "roster": ctx.roster or EMPTY,
        "bible": ctx.bible or EMPTY,
        "heard_recently": ctx.heard_recently,
        "final_turn": spec.kind.phrase(spec.kind.final_turn, language) if ctx.final_turn else "",
        **contract_values(language),
    }


def _briefs(ctx: PromptContext) -> str:
    # Each as given, and beside it what its days mean, read on the day it was given.
    world = ctx.world
    return bullet_list([f"- {b.id}: {b.text}{annotate(b.text, world.language, world, brief_day(b, ctx.spec.day))}"
                        for b in ctx.briefs])


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
