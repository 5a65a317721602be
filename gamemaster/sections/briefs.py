"""The Creative Director's briefs a character has not seen yet: shown until it saw them."""

from __future__ import annotations

from ..models import Brief, parse_scene_ref
from .base import PromptSection, TurnFacts


def brief_reaches(brief: Brief, agent: str, spec) -> bool:
    """A brief is in an agent's prompt from the scene it was received in until they saw it."""
    addressed = brief.to is None or agent in brief.to
    received = parse_scene_ref(brief.created) <= (spec.day, spec.scene)
    return addressed and received and agent not in brief.seen_by


class Briefs(PromptSection):
    name = "briefs"
    order = 10

    def gather(self, turn: TurnFacts) -> list[Brief]:
        return [b for b in turn.world.briefs if brief_reaches(b, turn.agent.id, turn.spec)]

    def values(self, briefs: list[Brief], turn: TurnFacts) -> dict[str, str]:
        from ..calendar import annotate, brief_day
        from ..prompts import bullet_list

        # Each as given, and beside it what its days mean, read on the day it was given.
        world = turn.world
        return {"briefs": bullet_list([f"- {b.id}: {b.text}{annotate(b.text, world.language, world, brief_day(b, turn.spec.day))}"
                                       for b in briefs])}

    def request(self, briefs: list[Brief], turn: TurnFacts, prompt: str) -> dict:
        return {"briefs": briefs}


SECTION = Briefs()
