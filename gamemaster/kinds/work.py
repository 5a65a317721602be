"""WORK: characters work side by side on their plans; the only kind that produces artifacts.

A large studio works in several rooms at once: a WORK scene seats as many rooms of
``kinds.work.group_size`` as the day needs for everyone to act (``kinds.work.rooms`` fixes the
number), and each worker sees and observes only the others in their room.
"""

from __future__ import annotations

from math import ceil
from typing import Annotated

from pydantic import Field

from ..library import remember_readings
from ..models import at_most
from ..scenes import SceneSpec, counted_scenes
from .base import KindSettings, SceneKind
from .settings import settings_of
from .fairness import acted_today, waited_longest
from .heard import remember_heard


class WorkSettings(KindSettings):
    """``kinds.work`` in world.json."""

    group_size: Annotated[int, Field(ge=1, description="people in one WORK room: they see each other's artifacts"),
                          at_most(100, "everyone in a room sees everyone's artifacts")] = 3
    rooms: Annotated[int, Field(ge=1), at_most(100, "each room is one more set of prompts in the same scene")] | None = Field(
        None, description="rooms a WORK scene fills side by side; unset: as many as it takes for everyone to act "
                          "each day (one in a small studio)")

    former_names = {"group_size": "work_group_size", "rooms": "work_rooms"}


class Work(SceneKind):
    name = "WORK"
    order = 20
    decides = 80
    colour = "#4f7a4a"
    settings = WorkSettings
    contract_rules = {"de": {"artifacts": "WORK"}, "en": {"artifacts": "WORK"}}
    acting = True
    allows = frozenset({"artifacts"})
    replans_on_news = True
    recalls_by_plan = True
    consults_library = True
    reasons = {
        "rooms": {"en": "{who}: waited longest to act ({count} scene(s) today); work side by side in {rooms} rooms",
                  "de": "{who}: am längsten nicht dran ({count} Szene(n) heute); arbeiten nebeneinander in {rooms} Räumen"},
        "work": {"en": "{who}: waited longest to act ({count} scene(s) today); work side by side",
                 "de": "{who}: am längsten nicht dran ({count} Szene(n) heute); arbeiten nebeneinander"},
    }

    def choose(self, world, agents, roster):
        """Those who waited longest to act work side by side (see ``fairness``)."""

        rooms = self.seating(world, agents, roster)
        workers = [a for room in rooms for a in room]
        fewest = min(acted_today(world, roster)[a] for a in workers)
        reason = (self.reason("rooms", who=", ".join(workers), count=fewest, rooms=len(rooms)) if len(rooms) > 1
                  else self.reason("work", who=", ".join(workers), count=fewest))
        return SceneSpec(type=self.name, day=world.day, scene=world.scene + 1, participants=workers,
                         rooms=rooms if len(rooms) > 1 else [], reason=reason)

    @staticmethod
    def seats(world, roster: list[str]) -> int:
        """How many work in this WORK scene: ``kinds.work.rooms`` full rooms if set; else those who have
        not acted today, as many as must be seated now so that all of them get a seat in the WORK
        scenes left should every other scene be a MEETING - never fewer than one full room."""

        settings = settings_of(world, "work")
        group = settings.group_size
        if settings.rooms is not None:
            return min(len(roster), settings.rooms * group)
        waiting = sum(1 for n in acted_today(world, roster).values() if n == 0)
        slots = max(1, world.scenes_per_day - counted_scenes(world))
        work_slots = 1 + (slots - 1) // 2  # no two MEETINGs in a row
        rooms = max(1, ceil(waiting / (group * work_slots)))
        return min(len(roster), max(group, min(waiting, rooms * group)))

    def seating(self, world, agents, roster: list[str]) -> list[list[str]]:
        """The rooms, filled by who waited longest; people of one ``team`` share a room where they can."""

        group = settings_of(world, "work").group_size
        workers = waited_longest(world, agents, roster)[: self.seats(world, roster)]
        rooms = ceil(len(workers) / group)
        if rooms > 1:
            workers = sorted(workers, key=lambda a: agents[a].team or "")  # stable: fairness order within a team
        size, extra = divmod(len(workers), rooms)
        seated, start = [], 0
        for number in range(rooms):
            end = start + size + (number < extra)
            seated.append(workers[start:end])
            start = end
        return seated

    def forced(self, world, agents, participants):
        return participants or self.seating(world, agents, sorted(agents))[0]

    def write_back(self, scene) -> None:
        remember_readings(scene)
        remember_heard(scene)


KIND = Work()
