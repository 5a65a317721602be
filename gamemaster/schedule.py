"""What is scheduled in the world: events from outside and gatherings characters organise.

Both are lists in ``state/world.json``; the kinds EVENT and GATHERING hold them when
their day and time of day (``slots.py``) come.
"""

from __future__ import annotations

from collections import Counter
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from .defaults import empty_dict, empty_list
from .ids import agent_id, parse_scene_ref
from .slots import Slot

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
Weekday = Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"]


class Event(BaseModel):
    """Something from outside that changes a day: once on ``day``, or every ``weekday``."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    id: Annotated[str, Field(pattern=r"^event-\d{3,}$")]
    text: Annotated[str, Field(min_length=1)]
    day: Annotated[int, Field(ge=1, le=1_000_000)] | None = None
    weekday: Weekday | None = None
    #: Who it concerns (everyone when empty).
    to: list[str] | None = None
    #: Those it concerns meet about it right after.
    meeting: bool = False
    #: The time of day it happens (``slots.py``); morning: right after ARRIVAL.
    slot: Slot = "morning"
    #: The days on which it has taken place.
    held: list[int] = Field(default_factory=empty_list)

    @field_validator("to")
    @classmethod
    def _addressees(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else [agent_id(v) for v in value]

    @model_validator(mode="after")
    def _when(self) -> "Event":
        if (self.day is None) == (self.weekday is None):
            raise ValueError("give exactly one of day (a day number) and weekday (mon … sun)")
        return self

    def due_on(self, day: int, weekday: str) -> bool:
        return day not in self.held and (self.day == day or self.weekday == weekday)


#: Bounds on what one reply may propose: a gathering is for the coming weeks, with a name and a
#: place of a sentence or two (a model names a gathering by its agenda: 219 characters were seen),
#: and invites at most everyone of a large studio. The contract names the bounds.
GATHERING_DAYS_AHEAD = 28
GATHERING_TEXT_MAX = 600
GATHERING_PLACE_MAX = 200
#: Why an invitee answered as it did, in its own words: a sentence.
ANSWER_REASON_MAX = 300
GATHERING_INVITED_MAX = 500
#: Gatherings ``world.json`` holds at most, planned and held: each is read and written with every
#: scene (a day of the bundled studio takes about 2.2 s more per thousand, offline).
GATHERINGS_MAX = 2000
RSVP = Literal["accepted", "declined"]


class Gathering(BaseModel):
    """Something a character organises: what, when (day and slot), where, and whom it invites.

    ``answers`` holds each invitee's accept or decline (the latest, when it changed its mind),
    ``reasons`` why, as the invitee said it; the host counts as accepted. ``heard`` are those not
    invited who heard of it from someone (``word_of_mouth.py``): they may answer too, and come.
    ``held`` is the scene it took place in."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    id: Annotated[str, Field(pattern=r"^gathering-\d{3,}$")]
    host: str
    what: Annotated[str, Field(min_length=1, max_length=GATHERING_TEXT_MAX)]
    day: Annotated[int, Field(strict=True, ge=1)]
    slot: Slot
    place: Annotated[str, Field(min_length=1, max_length=GATHERING_PLACE_MAX)]
    invited: Annotated[list[str], Field(max_length=GATHERING_INVITED_MAX)]
    heard: Annotated[list[str], Field(max_length=GATHERING_INVITED_MAX)] = Field(default_factory=empty_list)
    answers: dict[str, RSVP] = Field(default_factory=empty_dict)
    reasons: dict[str, Annotated[str, Field(max_length=ANSWER_REASON_MAX)]] = Field(default_factory=empty_dict)
    #: The scene it was proposed in.
    created: str
    held: str | None = None

    @field_validator("host")
    @classmethod
    def _host(cls, value: str) -> str:
        return agent_id(value)

    @field_validator("invited", "heard")
    @classmethod
    def _invited(cls, value: list[str]) -> list[str]:
        return [agent_id(v) for v in value]

    @field_validator("created", "held")
    @classmethod
    def _scene(cls, value: str | None) -> str | None:
        if value is not None:
            parse_scene_ref(value)
        return value

    @model_validator(mode="after")
    def _answers_from_invitees(self) -> "Gathering":
        # Answer keys need no id check of their own: each must be one of the checked invitees.
        may_answer = self.asked()
        for field, given in (("answers", self.answers), ("reasons", self.reasons)):
            strangers = [a for a in given if a not in may_answer]
            if strangers:
                raise ValueError(f"{field}: {', '.join(strangers)} not invited (invited: {', '.join(self.invited) or 'nobody'}"
                                 f"; heard of it: {', '.join(self.heard) or 'nobody'})")
        if self.host in self.invited:
            raise ValueError(f"invited: the host {self.host} is not their own guest")
        both = [a for a in self.heard if a in self.invited or a == self.host]
        if both:
            raise ValueError(f"heard: {', '.join(both)} invited or hosting already (heard lists those not invited)")
        return self

    def asked(self) -> list[str]:
        """Who may answer: the invitees, then those who heard of it."""
        return [*self.invited, *self.heard]

    def accepted(self) -> list[str]:
        """The host, then the invitees who accepted, in the order invited, then those who heard of it and said they come."""
        return [self.host, *(a for a in self.asked() if self.answers.get(a) == "accepted")]

    def open_for(self, agent: str, day: int) -> bool:
        """Whether ``agent`` is invited or heard of it, has not answered and the gathering still lies ahead."""
        return agent in self.asked() and agent not in self.answers and self.held is None and self.day >= day


def checked_gatherings(value: list[Gathering]) -> list[Gathering]:
    """``world.json``'s gatherings: at most ``GATHERINGS_MAX``, and each id once (answers and
    write-back find a gathering by its id: two of one id would stall the day)."""
    if len(value) > GATHERINGS_MAX:
        raise PydanticCustomError(
            "too_many", "{count} gatherings, more than the {most} the studio keeps (each is read and written with "
            "every scene): remove gatherings already held (with \"held\") that you no longer need",
            {"count": len(value), "most": GATHERINGS_MAX})
    doubled = sorted(i for i, n in Counter(g.id for g in value).items() if n > 1)
    if doubled:
        raise PydanticCustomError("duplicate_id", "{ids} appears more than once", {"ids": ", ".join(doubled)})
    return value
