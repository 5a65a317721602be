"""The scene as a value: ``SceneSpec`` (who, what about, why) and ``Force`` (what the Creative
Director pins down). Nothing here reads files or decides anything; ``scenes.py`` decides.

``type`` is read as a kind's name (capitals) without asking the registry which kinds there are:
a scene record reads without importing any kind. The kind is looked up where it is used
(``SceneSpec.kind``, opening a pending scene, forcing one), and the kind modules import this
module, never the other way round.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .defaults import empty_dict, empty_list
from .ids import agent_id
from .models import scene_ref
from .slots import Slot


#: What a kind's name looks like; which names are kinds is the registry's (``kinds/``).
KIND_NAME_RE = re.compile(r"[A-Z][A-Z0-9_]*")


def kind_name(value: str) -> str:
    """A kind's name as written in any case (``meeting``), in capitals; its shape only."""
    name = str(value).upper()
    if not KIND_NAME_RE.fullmatch(name):
        raise ValueError(f"{value!r}: not a scene kind's name (letters, digits and _, from a letter)")
    return name


class SceneType:
    """The names of the built-in kinds, for code that names one; ``kinds.all_kinds()`` is the truth."""

    ARRIVAL = "ARRIVAL"
    WORK = "WORK"
    MEETING = "MEETING"
    REFLECTION = "REFLECTION"


class SceneSpec(BaseModel):
    """A typed scene: who is in it, what it is about and why it was chosen."""

    model_config = ConfigDict(defer_build=True)

    type: str
    day: int
    scene: int
    participants: list[str] = Field(min_length=1)
    topic: str | None = None
    topic_tags: list[str] = Field(default_factory=empty_list)
    reason: str
    rounds: int = 1
    brief_ids: list[str] = Field(default_factory=empty_list)
    #: The scheduled event this scene is (an EVENT) or answers (the MEETING it opens).
    event_id: str | None = None
    #: A WORK scene in a large studio seats people in several rooms side by side: each sees
    #: and observes only the others in their room. Empty: everyone is in one room.
    rooms: list[list[str]] = Field(default_factory=empty_list)
    #: The time of day (``slots.py``); None in a scene opened before the day had slots.
    slot: Slot | None = None
    #: The gathering this scene is (a GATHERING), and who was invited, came and stayed away.
    gathering_id: str | None = None
    attendance: dict[str, list[str]] = Field(default_factory=empty_dict)

    @field_validator("type")
    @classmethod
    def _type(cls, value: str) -> str:
        return kind_name(value)

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
        from .kinds import get_kind  # the registry above this value: a record reads without it

        return get_kind(self.type)

    @property
    def turns(self) -> list[str]:
        """Speaking order: once each side by side, or every participant once per round in sequence."""
        return self.kind.turns(self)


class Force(BaseModel):
    """What the Creative Director pins down; the rest is decided as usual."""

    model_config = ConfigDict(defer_build=True)

    type: str | None = None
    participants: list[str] = Field(default_factory=empty_list)
    topic: str | None = None

    @property
    def pins(self) -> bool:
        """Whether anything is pinned down at all (an empty Force leaves the choice to the Game Master)."""
        return bool(self.type or self.participants or self.topic)

    @field_validator("type")
    @classmethod
    def _type(cls, value: str | None) -> str | None:
        return None if value is None else kind_name(value)
