"""The memories of earlier days a character keeps in view all day (``day_memories.py``): shown
above the scene's own, chosen when the day's first plan is written back."""

from __future__ import annotations

from dataclasses import dataclass, field

from typing import Any

from .base import PromptSection, TurnFacts
from .briefs import brief_reaches


@dataclass
class Kept:
    #: Whether the day's memories were chosen and are shown (else each scene chooses from the whole budget).
    chosen: bool = False
    #: Each as (memory, the heard lines shown with it): ``day_memories.Shown``.
    reflections: list[Any] = field(default_factory=list)
    days: list[Any] = field(default_factory=list)

    @property
    def ids(self) -> set[str]:
        return {memory.id for memory, _ in self.reflections + self.days}


class DayMemories(PromptSection):
    name = "day_memories"
    order = 30

    def gather(self, turn: TurnFacts) -> Kept:
        from .. import day_memories
        from ..prompts import uses_placeholder

        # Only where the template shows them: a workspace's own older character.md may not.
        if not uses_placeholder(turn.find, "character.md", day_memories.PLACEHOLDER):
            return Kept()
        chosen = day_memories.shown(turn.stream, turn.world, turn.agent)
        return Kept(True, *chosen) if chosen else Kept()

    def values(self, kept: Kept, turn: TurnFacts) -> dict[str, str]:
        from .. import day_memories
        from ..prompts import EMPTY

        return {"earlier": day_memories.render(kept.days, turn.language, kept.ids) or EMPTY}

    def after_replies(self, scene) -> None:
        from .. import day_memories

        # The day's first plan chooses the memories of earlier days its prompts show all day,
        # from the stream as it stands before this scene is written.
        world, spec = scene.found, scene.spec
        for agent_id, reply in scene.turns:
            chosen = scene.updated[agent_id].day_memories
            if reply.plan is not None and world.day_memory_share and (chosen is None or chosen.day != spec.day):
                briefs = [b for b in world.briefs if brief_reaches(b, agent_id, spec)]
                scene.updated[agent_id].day_memories = day_memories.choose(
                    scene.stream_of(agent_id), world, scene.updated[agent_id], spec.day, briefs, scene.names, scene.name_of)


SECTION = DayMemories()
