"""REFLECTION: one character whose accumulator ran over the threshold draws 3 to 5 insights."""

from __future__ import annotations

from ..models import memory_author
from ..scenes import SceneSpec, due_for_reflection
from .base import ReplyCheck, SceneKind


def trigger_reason(agent_id: str, value: int, threshold: int) -> str:
    """The reason a REFLECTION was chosen; ``triggered_value`` reads the count back."""
    return KIND.reason("trigger", who=agent_id, value=value, threshold=threshold)


def triggered_value(reason: str, agent_id: str) -> int | None:
    """The accumulator that triggered a REFLECTION, from its reason (None: forced, or another form)."""
    import re

    match = re.match(re.escape(agent_id) + r": accumulator (\d+) > \d+$", reason or "")
    return int(match.group(1)) if match else None


class Reflection(SceneKind):
    name = "REFLECTION"
    order = 40
    decides = 10
    colour = "#2f6f73"
    contract_rules = {"de": {"insights": "REFLECTION, 3–5"}, "en": {"insights": "REFLECTION, 3–5"}}
    counts_toward_day = False  # reflections come on top of the day's scenes
    allows = frozenset({"insights"})
    cites_evidence = True
    recalls_by_interests = True
    min_participants = max_participants = 1
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

    def choose(self, world, agents, roster):
        due = due_for_reflection(world, agents)
        if not due or world.day == 0:
            return None
        agent = due[0]
        return SceneSpec(type=self.name, day=world.day, scene=world.scene + 1, participants=[agent.id],
                         reason=trigger_reason(agent.id, agent.importance_accumulator, world.reflection_threshold))

    def forced(self, world, agents, participants):
        if participants:
            return participants
        due = due_for_reflection(world, agents)
        return [due[0].id] if due else [max(sorted(agents), key=lambda a: (agents[a].importance_accumulator, a))]


KIND = Reflection()
