"""What a character wants to remember from a scene: a reply's ``memories``, each a memory of its own."""

from __future__ import annotations

from .base import PromptSection


class Notes(PromptSection):
    name = "notes"
    order = 100

    def write_back(self, scene, agent_id: str, reply) -> None:
        for note in reply.memories:
            scene.remember(agent_id, type=note.type, description=note.description, importance=note.importance,
                           tags=note.tags)


SECTION = Notes()
