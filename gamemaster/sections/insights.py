"""A reflection's insights: each a memory one deeper than the deepest it cites."""

from __future__ import annotations

from .base import PromptSection


class Insights(PromptSection):
    name = "insights"
    order = 160

    def write_back(self, scene, agent_id: str, reply) -> None:
        for insight in reply.insights:
            scene.remember(agent_id, type="reflection", depth=scene.depth_of(insight.evidence) + 1,
                           description=insight.description, importance=insight.importance, tags=insight.tags,
                           evidence=insight.evidence)


SECTION = Insights()
