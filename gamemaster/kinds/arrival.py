"""ARRIVAL: the morning. Everyone comes in and says what they will work on today."""

from __future__ import annotations

from ..scenes import SceneSpec, counted_scenes, day_is_over
from .base import ReplyCheck, SceneKind
from .heard import remember_heard


class Arrival(SceneKind):
    name = "ARRIVAL"
    order = 10
    decides = 20
    colour = "#5b7c99"
    contract_rules = {"de": {"plan": "ARRIVAL"}, "en": {"plan": "ARRIVAL"}}
    recalls_by_interests = True

    def check(self, reply, ctx: ReplyCheck) -> list[str]:
        return [] if reply.plan is not None else ["plan: an ARRIVAL reply must declare today's plan"]

    def merge_talk_wishes(self, current, new):
        return list(new)  # a new day's wishes replace yesterday's

    def starts_day(self) -> bool:
        return True

    def choose(self, world, agents, roster):
        if world.day == 0:
            reason = "the studio opens: day 001 begins with ARRIVAL"
        elif day_is_over(world):
            reason = (f"day {world.day:03d} is over after {counted_scenes(world)} scenes; "
                      f"day {world.day + 1:03d} begins with ARRIVAL")
        else:
            return None
        return SceneSpec(type=self.name, day=world.day + 1, scene=1, participants=roster, reason=reason)

    def forced(self, world, agents, participants):
        return sorted(agents)

    def write_back(self, scene) -> None:
        remember_heard(scene)


KIND = Arrival()
