"""Scene choice: which scene comes next, as a pure function of the state.

Nothing here reads or writes files. ``decide_next`` gets the world and the
agents and returns a ``SceneSpec`` with a one-line reason.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Iterable

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .ids import agent_id
from .models import Agent, World, scene_ref


class SceneType(str, Enum):
    ARRIVAL = "ARRIVAL"
    WORK = "WORK"
    MEETING = "MEETING"
    REFLECTION = "REFLECTION"


class SceneSpec(BaseModel):
    """A typed scene: who is in it, what it is about and why it was chosen."""

    model_config = ConfigDict(defer_build=True)

    type: SceneType
    day: int
    scene: int
    participants: list[str] = Field(min_length=1)
    topic: str | None = None
    topic_tags: list[str] = Field(default_factory=list)
    reason: str
    rounds: int = 1
    brief_ids: list[str] = Field(default_factory=list)

    @field_validator("participants")
    @classmethod
    def _participants(cls, value: list[str]) -> list[str]:
        return [agent_id(v) for v in value]

    @property
    def ref(self) -> str:
        return scene_ref(self.day, self.scene)

    @property
    def turns(self) -> list[str]:
        """Speaking order: every participant once per round, in participant order."""
        if self.type != SceneType.MEETING:
            return list(self.participants)
        return [agent for _ in range(self.rounds) for agent in self.participants]


class Force(BaseModel):
    """What the Creative Director pins down; the rest is decided as usual."""

    model_config = ConfigDict(defer_build=True)

    type: SceneType | None = None
    participants: list[str] = Field(default_factory=list)
    topic: str | None = None


def counted_scenes(world: World) -> int:
    """Scenes that use up the day: REFLECTIONs come on top of ``scenes_per_day``."""
    return sum(1 for entry in world.today if entry.type != SceneType.REFLECTION.value)


def day_is_over(world: World) -> bool:
    return world.day == 0 or counted_scenes(world) >= world.scenes_per_day


def due_for_reflection(world: World, agents: dict[str, Agent]) -> list[Agent]:
    """Agents whose accumulator exceeds the threshold, highest first."""
    due = [a for a in agents.values() if a.importance_accumulator > world.reflection_threshold]
    return sorted(due, key=lambda a: (-a.importance_accumulator, a.id))


def topic_terms(topic: str | None, tags: Iterable[str] = ()) -> list[str]:
    """Search terms for focused memory selection: the tags plus the topic's longer words."""
    terms: list[str] = []
    for tag in tags:
        tag = tag.strip().lower()
        if tag and tag not in terms:
            terms.append(tag)
    for word in re.findall(r"[\w-]+", (topic or "").lower()):
        word = word.strip("-")
        if len(word) >= 4 and word not in STOPWORDS and word not in terms:
            terms.append(word)
    return terms


# Words that would match nearly every memory; kept short on purpose.
STOPWORDS = frozenset(
    """aber alle auch dass denn dies diese dieser dieses doch eine einem einen einer
    eines für habe haben heute hier immer mehr mich mein meine nach nicht noch oder
    sehr sein seine sich sind über unsere unser viel wenn werden wird wieder will
    with that this from have about what when will their them they then there into
    some more over also just""".split()
)


def decide_next(world: World, agents: dict[str, Agent], force: Force | None = None) -> SceneSpec:
    """The next scene for this state, with the reason it was chosen."""
    force = force or Force()
    roster = sorted(agents)
    if not roster:
        raise ValueError("the studio has no agents")
    unknown = [a for a in force.participants if a not in agents]
    if unknown:
        raise ValueError(f"unknown agent(s): {', '.join(unknown)}")
    spec = _forced(world, agents, force) if (force.type or force.participants) else None
    if spec is None:
        spec = _chosen(world, agents, roster)
    if force.topic:
        spec = spec.model_copy(update={"topic": force.topic, "topic_tags": []})
    return spec


def _new_day(world: World, roster: list[str], reason: str) -> SceneSpec:
    return SceneSpec(
        type=SceneType.ARRIVAL, day=world.day + 1, scene=1, participants=roster, reason=reason
    )


def _next_in_day(world: World, **fields) -> SceneSpec:
    return SceneSpec(day=world.day, scene=world.scene + 1, **fields)


def _chosen(world: World, agents: dict[str, Agent], roster: list[str]) -> SceneSpec:
    if world.day == 0:
        return _new_day(world, roster, "the studio opens: day 001 begins with ARRIVAL")

    due = due_for_reflection(world, agents)
    if due:
        agent = due[0]
        return _next_in_day(
            world,
            type=SceneType.REFLECTION,
            participants=[agent.id],
            reason=f"{agent.id}: accumulator {agent.importance_accumulator} > {world.reflection_threshold}",
        )

    if day_is_over(world):
        return _new_day(
            world,
            roster,
            f"day {world.day:03d} is over after {counted_scenes(world)} scenes; "
            f"day {world.day + 1:03d} begins with ARRIVAL",
        )

    brief = next((b for b in world.briefs if _unseen(b, roster)), None)
    if brief is not None:
        waiting = _unseen(brief, roster)
        kind = SceneType.WORK if len(waiting) == 1 else SceneType.MEETING
        return _next_in_day(
            world,
            type=kind,
            participants=waiting,
            topic=brief.text,
            rounds=world.meeting_rounds if kind == SceneType.MEETING else 1,
            brief_ids=[brief.id],
            reason=f"brief {brief.id} from the Creative Director awaits {', '.join(waiting)}",
        )

    # Mornings are for work; meetings come once work is under way, never two in a row
    # (a reflection in between does not break the row).
    counted = [entry.type for entry in world.today if entry.type != SceneType.REFLECTION.value]
    last_type = counted[-1] if counted else None
    worked = any(entry.type == SceneType.WORK.value for entry in world.today)
    if worked and last_type != SceneType.MEETING.value:
        meeting = _meeting_from_wishes(world, agents, roster)
        if meeting is not None:
            return meeting

    return _work(world, agents, roster)


def _unseen(brief, roster: list[str]) -> list[str]:
    addressees = brief.to or roster
    return [a for a in addressees if a in roster and a not in brief.seen_by]


def _meeting_from_wishes(world: World, agents: dict[str, Agent], roster: list[str]) -> SceneSpec | None:
    for agent_id in roster:
        for wish in agents[agent_id].talk_wishes:
            partners = [p for p in wish.with_ if p in agents and p != agent_id]
            if not partners:
                continue
            participants = [agent_id] + [p for p in partners]
            return _next_in_day(
                world,
                type=SceneType.MEETING,
                participants=participants,
                topic=wish.topic,
                topic_tags=list(wish.tags),
                rounds=world.meeting_rounds,
                reason=f"{agent_id} wants to talk with {', '.join(partners)} about {wish.topic}",
            )
    return None


def _work(world: World, agents: dict[str, Agent], roster: list[str]) -> SceneSpec:
    """Those who have been in the fewest scenes today work side by side."""
    in_scenes = {a: 0 for a in roster}
    last_seen = {a: -1 for a in roster}
    for position, entry in enumerate(world.today):
        for participant in entry.participants:
            if participant in in_scenes and entry.type != SceneType.ARRIVAL.value:
                in_scenes[participant] += 1
                last_seen[participant] = position
    order = sorted(roster, key=lambda a: (in_scenes[a], last_seen[a], roster.index(a)))
    workers = order[: world.work_group_size]
    return _next_in_day(
        world,
        type=SceneType.WORK,
        participants=workers,
        reason=f"{', '.join(workers)}: fewest scenes today ({in_scenes[workers[0]]}); work side by side",
    )


def _forced(world: World, agents: dict[str, Agent], force: Force) -> SceneSpec:
    kind = force.type or (SceneType.MEETING if len(force.participants) > 1 else SceneType.WORK)
    roster = sorted(agents)
    if kind == SceneType.ARRIVAL:
        return _new_day(world, roster, "forced by the Creative Director: a new day begins")
    if world.day == 0:
        raise ValueError("the studio has not opened yet: the first scene is an ARRIVAL")
    participants = list(dict.fromkeys(force.participants))
    if not participants:
        if kind == SceneType.REFLECTION:
            due = due_for_reflection(world, agents)
            participants = [due[0].id] if due else [
                max(roster, key=lambda a: (agents[a].importance_accumulator, a))
            ]
        elif kind == SceneType.MEETING:
            participants = roster
        else:
            participants = _work(world, agents, roster).participants
    if kind == SceneType.REFLECTION and len(participants) != 1:
        raise ValueError("a REFLECTION has exactly one participant")
    if kind == SceneType.MEETING and len(participants) < 2:
        raise ValueError("a MEETING needs at least two participants")
    return _next_in_day(
        world,
        type=kind,
        participants=participants,
        rounds=world.meeting_rounds if kind == SceneType.MEETING else 1,
        reason=f"forced by the Creative Director: {kind.value} with {', '.join(participants)}",
    )
