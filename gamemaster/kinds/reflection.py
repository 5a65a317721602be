"""REFLECTION: characters whose accumulators ran over the threshold draw 3 to 5 insights each.

Those due at once reflect in one scene, each alone in a room of its own (no one sees another's
reflection; the scene is a batch, asked in parallel where the backend can), at most
``batch_size`` of them (a quarter of the studio, at least 12), and a day holds a quarter of its
scenes as REFLECTIONs at most (``scenes.reflections_left_today``): in a large studio everyone
who hears the same events crosses the threshold together, and a day of REFLECTIONs one by one
would crowd out the day. Whoever is left waits, accumulator still over the threshold,
and reflects in a later REFLECTION, highest accumulator first."""

from __future__ import annotations

import re

from ..models import memory_author
from ..scenes import SceneSpec, due_for_reflection, reflections_left_today
from .base import ReplyCheck, SceneKind


def trigger_reason(agent_id: str, value: int, threshold: int) -> str:
    """The reason a REFLECTION was chosen; ``triggered_value`` reads the count back."""
    return KIND.reason("trigger", who=agent_id, value=value, threshold=threshold)


def triggered_value(reason: str, agent_id: str) -> int | None:
    """The accumulator that triggered ``agent_id``'s REFLECTION, from its reason (a batch joins
    one reason per character with "; "; None: forced, or another form)."""
    for part in (reason or "").split("; "):
        match = re.match(re.escape(agent_id) + r": accumulator (\d+) > \d+$", part)
        if match:
            return int(match.group(1))
    return None


class Reflection(SceneKind):
    name = "REFLECTION"
    requires = frozenset({"insights"})
    order = 40
    decides = 10
    colour = "#2f6f73"
    contract_rules = {"de": {"insights": "REFLECTION, 3–5"}, "en": {"insights": "REFLECTION, 3–5"}}
    counts_toward_day = False  # reflections come on top of the day's scenes
    allows = frozenset({"insights"})
    cites_evidence = True
    recalls_by_interests = True
    min_participants = 1
    #: The fewest characters one REFLECTION may take when more are due (see ``batch_size``).
    batch_floor = 12
    reasons = {
        "trigger": {"en": "{who}: accumulator {value} > {threshold}",
                    "de": "{who}: Wichtigkeits-Akkumulator {value} > Schwelle {threshold}"},
    }
    #: How many insights a reflection draws.
    insights_range = (3, 5)

    def check(self, reply, ctx: ReplyCheck) -> list[str]:
        problems = []
        fewest, most = self.insights_range
        if not fewest <= len(reply.insights) <= most:
            problems.append(f"insights: a REFLECTION needs {fewest} to {most} insights, got {len(reply.insights)}")
        for index, insight in enumerate(reply.insights):
            missing = ctx.evidence_exists(insight.evidence)
            for author in dict.fromkeys(memory_author(m) or ctx.agent for m in missing):
                ids = [m for m in missing if (memory_author(m) or ctx.agent) == author]
                problems.append(f"insights.{index}.evidence: {', '.join(ids)} not in {author}'s memory stream")
            # „nur IDs aus der Liste oben“: a memory that exists but was never in the prompt is
            # one the character cannot know, whoever's stream it is in.
            unseen = [e for e in insight.evidence if ctx.shown is not None and e not in ctx.shown and e not in missing]
            if unseen:
                were = "was" if len(unseen) == 1 else "were"
                problems.append(f"insights.{index}.evidence: {', '.join(unseen)} {were} not in your prompt")
        return problems

    def settle_accumulators(self, updated, spec) -> None:
        for agent_id in spec.participants:
            updated[agent_id].importance_accumulator = 0  # reflected: the count starts again

    def batch_size(self, studio_size: int) -> int:
        """The most characters one REFLECTION takes: a quarter of the studio, at least ``batch_floor``.

        Everyone who hears the same events crosses the threshold together, more of them the
        larger the studio: with a fixed twelve, a 100-character studio reflected 24 a day while
        some 40 a day crossed, and the queue grew day by day. The rest reflect in the next one."""
        return max(self.batch_floor, -(-studio_size // 4))

    def choose(self, world, agents, roster):
        due = due_for_reflection(world, agents)[:self.batch_size(len(agents))]
        if not due or world.day == 0 or not reflections_left_today(world):
            return None
        ids = [a.id for a in due]
        reason = "; ".join(trigger_reason(a.id, a.importance_accumulator, world.reflection_threshold) for a in due)
        return SceneSpec(type=self.name, day=world.day, scene=world.scene + 1, participants=ids, reason=reason)

    def forced(self, world, agents, participants):
        if len(participants) > (most := self.batch_size(len(agents))):
            raise ValueError(f"a REFLECTION has at most {most} participants (a quarter of the studio, at least "
                             f"{self.batch_floor}); force the others in the next one")
        if participants:
            return participants
        due = due_for_reflection(world, agents)[:self.batch_size(len(agents))]
        return [a.id for a in due] or [max(sorted(agents), key=lambda a: (agents[a].importance_accumulator, a))]

    def settle(self, world, agents, spec):
        # Each reflects alone: a room of one sees no one else and observes no one's insights.
        if len(spec.participants) > 1 and not spec.rooms:
            return spec.model_copy(update={"rooms": [[a] for a in spec.participants]})
        return spec


KIND = Reflection()
