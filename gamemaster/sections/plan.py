"""The character's plan for the day: shown as its plan, remembered as a plan memory."""

from __future__ import annotations

from ..models import Plan as PlanModel
from .base import PromptSection


class Plan(PromptSection):
    name = "plan"
    order = 110

    def write_back(self, scene, agent_id: str, reply) -> None:
        if reply.plan is None:
            return
        created = scene.spec.ref
        scene.updated[agent_id].today_plan = PlanModel(text=reply.plan.text, tags=reply.plan.tags, created=created)
        scene.remember(agent_id, type="plan", description=reply.plan.text, importance=reply.plan.importance,
                       tags=reply.plan.tags)


SECTION = Plan()
