"""Which memories a character sees in a scene (seed 001's selection).

Default: the last ``memory_window`` memories in order plus every reflection
(depth > 0), no duplicates. A scene with a topic adds focused memories: those
whose tags or description mention a topic term, most recent first, up to
``focus_limit``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .models import Memory
from .problems import Problem
from .streams import Located, MemoryStream


@dataclass
class Selection:
    reflections: list[Located] = field(default_factory=list)
    focused: list[Located] = field(default_factory=list)
    recent: list[Located] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def memories(self) -> list[Memory]:
        """All selected memories once each, in stream order."""
        items = sorted(self.reflections + self.focused + self.recent, key=lambda item: item.offset)
        return [item.memory for item in items]

    @property
    def ids(self) -> list[str]:
        return [memory.id for memory in self.memories]


def select_memories(
    stream: MemoryStream, window: int, terms: list[str] | None = None, focus_limit: int = 20
) -> Selection:
    recent, problems = stream.tail(window)
    cutoff = recent[0].offset if recent else None
    older_reflections, reflection_problems = stream.reflections(before_offset=cutoff)
    selection = Selection(
        reflections=older_reflections, recent=recent, problems=problems + reflection_problems
    )
    if terms and focus_limit > 0:
        shown = {item.memory.id for item in recent + older_reflections}
        selection.focused = stream.grep(terms, limit=focus_limit, exclude=shown)
    return selection
