"""The scene kinds, and the decision which scene comes next.

Each kind lives in one module of this package (plus its task template in
``prompts/``) and is listed in ``KINDS``. ``decide_next`` asks them in the
order of the studio's day, as a pure function of the state, and returns a
``SceneSpec`` with a one-line reason. To add a kind: write the module with a
``SceneKind`` subclass and its ``KIND`` instance, add its template, list it in
``KINDS`` and, if the studio should choose it by itself, in ``DECISION_ORDER``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import arrival, encounter, event, gathering, meeting, reflection, work
from .crowd import most_concerned
from .base import SECTIONS, ReplyCheck, SceneKind, SceneWrite

if TYPE_CHECKING:
    from ..models import Agent, World
    from ..scenes import Force, SceneSpec

KINDS: dict[str, SceneKind] = {
    k.name: k for k in (arrival.KIND, work.KIND, meeting.KIND, reflection.KIND, encounter.KIND, event.KIND, gathering.KIND)
}

#: Who is asked first whether their scene is due: reflections before anything else, a new
#: day once the day is over, the day's scheduled events and the gatherings characters set up
#: (each once its time of day has come), then the Creative Director's briefs, people crossing
#: paths, meetings, and work.
DECISION_ORDER = ("REFLECTION", "ARRIVAL", "EVENT", "GATHERING", "briefs", "ENCOUNTER", "MEETING", "WORK")

_SECTION_ERRORS = {
    "artifacts": "only {kinds} scenes produce artifacts, this is {kind}",
    "insights": "only {kinds} scenes produce insights, this is {kind}",
    "conversation": "only {kinds} replies carry one, this is {kind}",
    "takeaways": "only {kinds} turns carry them, this is {kind}",
}
_NUMBERS = {1: "one", 2: "two", 3: "three"}

__all__ = ["KINDS", "ReplyCheck", "SceneKind", "SceneWrite", "check_kind", "decide_next", "get_kind", "kind_names"]


def kind_names() -> list[str]:
    return list(KINDS)


def get_kind(name: str, strict: bool = True) -> SceneKind:
    """The kind called ``name``; with ``strict=False`` an unknown name (an old or hand-written
    log entry) is treated as a plain side-by-side scene instead of failing."""
    kind = KINDS.get(str(name).upper())
    if kind is None:
        if not strict:
            return _UNKNOWN
        raise ValueError(f"{name!r}: not a scene kind (choose {', '.join(KINDS)})")
    return kind


class _Unknown(SceneKind):
    name = "UNKNOWN"


_UNKNOWN = _Unknown()


def _joined(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def check_kind(reply, ctx: ReplyCheck) -> list[str]:
    """The kind's own rules, then the sections it does not allow."""
    kind = get_kind(ctx.spec.type)
    problems = kind.check(reply, ctx)
    for section in SECTIONS:
        if getattr(reply, section) and section not in kind.allows:
            allowed = [k.name for k in KINDS.values() if section in k.allows]
            problems.append(f"{section}: " + _SECTION_ERRORS[section].format(kinds=_joined(allowed), kind=kind.name))
    return problems


def decide_next(world: "World", agents: dict[str, "Agent"], force: "Force | None" = None) -> "SceneSpec":
    """The next scene for this state, with the reason it was chosen."""
    from ..scenes import Force

    force = force or Force()
    roster = sorted(agents)
    if not roster:
        raise ValueError("the studio has no agents")
    unknown = [a for a in force.participants if a not in agents]
    if unknown:
        from ..ids import no_agent

        raise ValueError(f"participants: {no_agent(unknown, roster)}")
    if force.type or force.participants:
        spec = _forced(world, agents, force)
    else:
        spec = _chosen(world, agents, roster)
    if force.topic:
        spec = spec.model_copy(update={"topic": force.topic, "topic_tags": []})
    from ..scenes import current_slot

    return spec.kind.settle(world, agents, spec.model_copy(
        update={"slot": "morning" if spec.kind.starts_day() else current_slot(world)}))


def _chosen(world, agents, roster) -> "SceneSpec":
    for step in DECISION_ORDER:
        spec = _brief_scene(world, agents, roster) if step == "briefs" else KINDS[step].choose(world, agents, roster)
        if spec is not None:
            return spec
    raise ValueError("no scene kind chose a scene")  # WORK always does


def _brief_scene(world, agents, roster) -> "SceneSpec | None":
    """A brief not yet seen: its addressees work on it alone, or meet about it together.

    A brief to more people than a meeting holds is an announcement: everyone already has it
    as a memory, so only the ``meeting_max`` it concerns most meet about it, and applying
    that scene marks the brief seen by all its addressees (``writeback._advance_world``)."""
    from ..scenes import SceneSpec, unseen_by

    brief = next((b for b in world.briefs if unseen_by(b, roster)), None)
    if brief is None:
        return None
    waiting = unseen_by(brief, roster)
    kind = KINDS["WORK"] if len(waiting) == 1 else KINDS["MEETING"]
    people = most_concerned(world, agents, waiting, brief.text)
    reason = f"brief {brief.id} from the Creative Director awaits {', '.join(people)}"
    if len(people) < len(waiting):
        reason += f" (announced to {len(waiting) - len(people)} more)"
    return SceneSpec(type=kind.name, day=world.day, scene=world.scene + 1, participants=people, topic=brief.text,
                     rounds=kind.rounds(world), brief_ids=[brief.id], reason=reason)


def _forced(world, agents, force) -> "SceneSpec":
    from ..scenes import SceneSpec

    kind = get_kind(force.type) if force.type else KINDS["MEETING" if len(force.participants) > 1 else "WORK"]
    if kind.starts_day():
        return SceneSpec(type=kind.name, day=world.day + 1, scene=1, participants=kind.forced(world, agents, []),
                         reason="forced by the Creative Director: a new day begins")
    if world.day == 0:
        raise ValueError("the studio has not opened yet: the first scene is an ARRIVAL")
    participants = kind.forced(world, agents, list(dict.fromkeys(force.participants)))
    low, high = kind.min_participants, kind.max_participants
    if high is not None and low == high and len(participants) != low:
        raise ValueError(f"a {kind.name} has exactly {_NUMBERS.get(low, low)} participant{'s' * (low != 1)}")
    if len(participants) < low:
        raise ValueError(f"a {kind.name} needs at least {_NUMBERS.get(low, low)} participants")
    if high is not None and len(participants) > high:
        raise ValueError(f"a {kind.name} has at most {_NUMBERS.get(high, high)} participants")
    if kind.name == "MEETING" and len(participants) > world.meeting_max:
        raise ValueError(f"a {kind.name} has at most {_NUMBERS.get(world.meeting_max, world.meeting_max)} participants "
                         f"(meeting_max); brief the others with `gamemaster brief`")
    return SceneSpec(type=kind.name, day=world.day, scene=world.scene + 1, participants=participants,
                     rounds=kind.rounds(world),
                     reason=f"forced by the Creative Director: {kind.name} with {', '.join(participants)}",
                     **kind.forced_fields(world))
