"""Scene choice: which scene comes next, as a pure function of the state.

Nothing here reads or writes files. ``decide_next`` gets the world and the
agents and returns a ``SceneSpec`` with a one-line reason; the kinds in
``gamemaster/kinds/`` decide in turn.
"""

from __future__ import annotations

import re
from typing import Iterable

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .ids import agent_id
from .models import Agent, World, scene_ref
from .slots import Slot


class SceneType:
    """The names of the built-in kinds, for code that names one; ``kinds.KINDS`` is the truth."""

    ARRIVAL = "ARRIVAL"
    WORK = "WORK"
    MEETING = "MEETING"
    REFLECTION = "REFLECTION"


def _kind_name(value: str) -> str:
    from .kinds import get_kind

    return get_kind(value).name


class SceneSpec(BaseModel):
    """A typed scene: who is in it, what it is about and why it was chosen."""

    model_config = ConfigDict(defer_build=True)

    type: str
    day: int
    scene: int
    participants: list[str] = Field(min_length=1)
    topic: str | None = None
    topic_tags: list[str] = Field(default_factory=list)
    reason: str
    rounds: int = 1
    brief_ids: list[str] = Field(default_factory=list)
    #: The scheduled event this scene is (an EVENT) or answers (the MEETING it opens).
    event_id: str | None = None
    #: A WORK scene in a large studio seats people in several rooms side by side: each sees
    #: and observes only the others in their room. Empty: everyone is in one room.
    rooms: list[list[str]] = Field(default_factory=list)
    #: The time of day (``slots.py``); None in a scene opened before the day had slots.
    slot: Slot | None = None
    #: The gathering this scene is (a GATHERING), and who was invited, came and stayed away.
    gathering_id: str | None = None
    attendance: dict[str, list[str]] = Field(default_factory=dict)

    @field_validator("type")
    @classmethod
    def _type(cls, value: str) -> str:
        return _kind_name(value)

    @field_validator("participants")
    @classmethod
    def _participants(cls, value: list[str]) -> list[str]:
        return [agent_id(v) for v in value]

    @field_validator("rooms")
    @classmethod
    def _rooms(cls, value: list[list[str]]) -> list[list[str]]:
        return [[agent_id(v) for v in room] for room in value]

    @model_validator(mode="after")
    def _rooms_hold_everyone_once(self) -> "SceneSpec":
        if self.rooms:
            seated = [a for room in self.rooms for a in room]
            if sorted(seated) != sorted(self.participants) or any(not room for room in self.rooms):
                raise ValueError("rooms: every participant sits in exactly one room, and no room is empty")
        return self

    @property
    def ref(self) -> str:
        return scene_ref(self.day, self.scene)

    def room_of(self, agent: str) -> list[str]:
        """Who is in the same room as ``agent`` (``agent`` included): the people they see at work."""
        return next((room for room in self.rooms if agent in room), self.participants)

    def dump(self) -> dict:
        """The scene as JSON holds it; what a scene does not have (rooms, a gathering) is left out."""
        absent = {"rooms"} if not self.rooms else set()
        absent |= {"gathering_id", "attendance"} if self.gathering_id is None else set()
        absent |= {"slot"} if self.slot is None else set()
        return self.model_dump(mode="json", exclude=absent or None)

    @property
    def kind(self):
        from .kinds import get_kind

        return get_kind(self.type)

    @property
    def turns(self) -> list[str]:
        """Speaking order: once each side by side, or every participant once per round in sequence."""
        return self.kind.turns(self)


class Force(BaseModel):
    """What the Creative Director pins down; the rest is decided as usual."""

    model_config = ConfigDict(defer_build=True)

    type: str | None = None
    participants: list[str] = Field(default_factory=list)
    topic: str | None = None

    @field_validator("type")
    @classmethod
    def _type(cls, value: str | None) -> str | None:
        return None if value is None else _kind_name(value)


def counted_scenes(world: World) -> int:
    """Scenes that use up the day (REFLECTIONs, for one, come on top of ``scenes_per_day``)."""
    from .kinds import get_kind

    return sum(1 for entry in world.today if get_kind(entry.type, strict=False).counts_toward_day)


def current_slot(world: World) -> str:
    """The slot the studio is in now: that of its next counted scene (``slots.slot_at``)."""
    from .slots import slot_at

    return slot_at(counted_scenes(world), world.scenes_per_day)


def slot_has_come(world: World, slot: str) -> bool:
    """Whether ``slot`` has come today: ARRIVAL is over and the day is at or past it."""
    from .slots import slot_index

    return bool(world.today) and slot_index(current_slot(world)) >= slot_index(slot)


def scenes_left(world: World, under_way: "SceneSpec | None" = None) -> int:
    """Counted scenes still to come today (after ``under_way``, a scene being played): an event
    or gathering set for today is held before one of them, so with none left it never is."""
    done = counted_scenes(world) + (1 if under_way is not None and under_way.kind.counts_toward_day else 0)
    return max(world.scenes_per_day - done, 0)


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


def unseen_by(brief, roster: list[str]) -> list[str]:
    """The brief's addressees on the roster who have not seen it yet."""
    addressees = brief.to or roster
    return [a for a in addressees if a in roster and a not in brief.seen_by]


def decide_next(world: World, agents: dict[str, Agent], force: Force | None = None) -> SceneSpec:
    """The next scene for this state, with the reason it was chosen (see ``kinds``)."""
    from .kinds import decide_next as decide

    return decide(world, agents, force)
