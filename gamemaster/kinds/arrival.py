"""ARRIVAL: the morning. Everyone comes in and says what they will work on today."""

from __future__ import annotations

from ..scenes import SceneSpec, counted_scenes, day_is_over
from .base import ReplyCheck, SceneKind
from .heard import remember_heard


class Arrival(SceneKind):
    name = "ARRIVAL"
    requires = frozenset({"plan"})
    order = 10
    decides = 20
    colour = "#5b7c99"
    contract_rules = {"de": {"plan": "ARRIVAL"}, "en": {"plan": "ARRIVAL"}}
    recalls_by_interests = True
    reasons = {
        "opens": {"en": "the studio opens: day {day} begins with ARRIVAL",
                  "de": "Das Studio öffnet: Tag {day} beginnt mit der Ankunft"},
        "day_over": {"en": "day {day} is over after {count} scenes; day {next} begins with ARRIVAL",
                     "de": "Tag {day} ist nach {count} Szenen vorbei; Tag {next} beginnt mit der Ankunft"},
    }

    def check(self, reply, ctx: ReplyCheck) -> list[str]:
        return [] if reply.plan is not None else ["plan: an ARRIVAL reply must declare today's plan"]

    def merge_talk_wishes(self, current, new):
        """A new day's wishes replace yesterday's; one made again (the same people, the same topic)
        keeps its age, as its maker has waited since then: wishes are served oldest first, and one
        renewed every morning would otherwise never be old enough to be served in a busy studio."""
        made = {(tuple(w.with_), w.topic): w.created for w in current}
        return [w.model_copy(update={"created": made.get((tuple(w.with_), w.topic)) or w.created}) for w in new]

    def starts_day(self) -> bool:
        return True

    def choose(self, world, agents, roster):
        if world.day == 0:
            reason = self.reason("opens", day="001")
        elif day_is_over(world):
            reason = self.reason("day_over", day=f"{world.day:03d}", count=counted_scenes(world),
                                 next=f"{world.day + 1:03d}")
        else:
            return None
        return SceneSpec(type=self.name, day=world.day + 1, scene=1, participants=roster, reason=reason)

    def forced(self, world, agents, participants):
        return sorted(agents)

    def write_back(self, scene) -> None:
        remember_heard(scene)


KIND = Arrival()
