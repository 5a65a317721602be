"""Scene choice: which scene comes next, as a pure function of the state.

Nothing here reads or writes files. ``decide_next`` gets the world and the
agents and returns a ``SceneSpec`` with a one-line reason; the kinds in
``gamemaster/kinds/`` decide in turn, in the order of their ``decides``. The scene itself is a
value of ``scene_spec.py`` (and ``topic_terms`` lives in ``topics.py``); both are named here too,
where the rest of the toolkit has always imported them from.
"""

from __future__ import annotations

from .ids import no_agent
from .kinds import decision_order, get_kind
from .kinds.crowd import most_concerned
from .kinds.settings import settings_of
from .lang import REASONS
from .models import Agent, World
from .scene_spec import Force, SceneSpec, SceneType
from .slots import slot_at, slot_index
from .topics import STOPWORDS, topic_terms

__all__ = ["Force", "SceneSpec", "SceneType", "STOPWORDS", "decide_next", "topic_terms"]

_NUMBERS = {1: "one", 2: "two", 3: "three"}

#: Where the Creative Director's unseen briefs are asked in the day's order (``SceneKind.decides``).
BRIEFS_DECIDE = 50


def counted_scenes(world: World) -> int:
    """Scenes that use up the day (REFLECTIONs, for one, come on top of ``scenes_per_day``)."""
    return sum(1 for entry in world.today if get_kind(entry.type, strict=False).counts_toward_day)


def current_slot(world: World) -> str:
    """The slot the studio is in now: that of its next counted scene (``slots.slot_at``)."""
    return slot_at(counted_scenes(world), world.scenes_per_day)


def slot_has_come(world: World, slot: str) -> bool:
    """Whether ``slot`` has come today: ARRIVAL is over and the day is at or past it."""
    return bool(world.today) and slot_index(current_slot(world)) >= slot_index(slot)


def scenes_left(world: World, under_way: "SceneSpec | None" = None) -> int:
    """Counted scenes still to come today (after ``under_way``, a scene being played): an event
    or gathering set for today is held before one of them, so with none left it never is."""
    # A scene that opens a new day (ARRIVAL) is played while the log still holds the day before:
    # it is judged against its own day, on which nothing else has been played yet.
    done = 0 if under_way is not None and under_way.day > world.day else counted_scenes(world)
    done += 1 if under_way is not None and under_way.kind.counts_toward_day else 0
    return max(world.scenes_per_day - done, 0)


def day_is_over(world: World) -> bool:
    return world.day == 0 or counted_scenes(world) >= world.scenes_per_day


def due_for_reflection(world: World, agents: dict[str, Agent]) -> list[Agent]:
    """Agents whose accumulator exceeds the threshold, highest first."""
    due = [a for a in agents.values() if a.importance_accumulator > world.reflection_threshold]
    return sorted(due, key=lambda a: (-a.importance_accumulator, a.id))


def reflection_scenes_per_day(world: World) -> int:
    """REFLECTION scenes a day holds: a third of its counted scenes, so that they are a quarter
    of the day at most (they come on top of the counted ones)."""
    return max(world.scenes_per_day // 3, 1)


def reflections_left_today(world: World) -> int:
    """REFLECTION scenes the day still has room for."""
    held = sum(1 for entry in world.today if entry.type == "REFLECTION")
    return max(reflection_scenes_per_day(world) - held, 0)


def deferred_reflections(world: World, agents: dict[str, Agent]) -> str:
    """Why those over the threshold do not reflect now, for a scene's reason (empty: none waits)."""
    if world.day == 0 or reflections_left_today(world):
        return ""
    due = due_for_reflection(world, agents)
    if not due:
        return ""
    note = dict(REASONS)["deferred"]["en"]
    return "; " + note.format(count=reflection_scenes_per_day(world), who=", ".join(a.id for a in due))


def unseen_by(brief, roster: list[str]) -> list[str]:
    """The brief's addressees on the roster who have not seen it yet."""
    addressees = brief.to or roster
    return [a for a in addressees if a in roster and a not in brief.seen_by]


def decide_next(world: World, agents: dict[str, Agent], force: Force | None = None) -> SceneSpec:
    """The next scene for this state, with the reason it was chosen (see ``kinds``)."""
    force = force or Force()
    roster = sorted(agents)
    if not roster:
        raise ValueError("the studio has no agents")
    unknown = [a for a in force.participants if a not in agents]
    if unknown:
        raise ValueError(f"participants: {no_agent(unknown, roster)}")
    if force.type or force.participants:
        spec = _forced(world, agents, force)
    else:
        spec = _chosen(world, agents, roster)
        note = "" if spec.kind.starts_day() else deferred_reflections(world, agents)
        if note:
            spec = spec.model_copy(update={"reason": spec.reason + note})
    if force.topic:
        spec = spec.model_copy(update={"topic": force.topic, "topic_tags": []})
    return spec.kind.settle(world, agents, spec.model_copy(
        update={"slot": "morning" if spec.kind.starts_day() else current_slot(world)}))


def _chosen(world, agents, roster) -> SceneSpec:
    for step in decision_order(BRIEFS_DECIDE):
        spec = _brief_scene(world, agents, roster) if step is None else step.choose(world, agents, roster)
        if spec is not None:
            return spec
    raise ValueError("no scene kind chose a scene")  # WORK always does


def _brief_scene(world, agents, roster) -> SceneSpec | None:
    """A brief not yet seen: its addressees work on it alone, or meet about it together.

    A brief to more people than a meeting holds is an announcement: everyone already has it
    as a memory, so only the ``kinds.meeting.max`` it concerns most meet about it, and applying
    that scene marks the brief seen by all its addressees (``writeback._advance_world``)."""
    brief = next((b for b in world.briefs if unseen_by(b, roster)), None)
    if brief is None:
        return None
    waiting = unseen_by(brief, roster)
    kind = get_kind("WORK") if len(waiting) == 1 else get_kind("MEETING")
    people = most_concerned(world, agents, waiting, brief.text)
    reason = f"brief {brief.id} from the Creative Director awaits {', '.join(people)}"
    if len(people) < len(waiting):
        reason += f" (announced to {len(waiting) - len(people)} more)"
    return SceneSpec(type=kind.name, day=world.day, scene=world.scene + 1, participants=people, topic=brief.text,
                     rounds=kind.rounds(world), brief_ids=[brief.id], reason=reason)


def _forced(world, agents, force) -> SceneSpec:
    kind = get_kind(force.type) if force.type else get_kind("MEETING" if len(force.participants) > 1 else "WORK")
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
    if kind.name == "MEETING" and len(participants) > (size := settings_of(world, "meeting").max):
        raise ValueError(f"a {kind.name} has at most {_NUMBERS.get(size, size)} participants "
                         f"(kinds.meeting.max); brief the others with `gamemaster brief`")
    return SceneSpec(type=kind.name, day=world.day, scene=world.scene + 1, participants=participants,
                     rounds=kind.rounds(world),
                     reason=f"forced by the Creative Director: {kind.name} with {', '.join(participants)}",
                     **kind.forced_fields(world))
