"""The one interface every retrieval strategy implements.

A strategy gets a memory stream, a query and a budget (characters of rendered
memory lines) and returns labelled sections of memories with their scores:

- ``reflections`` — the character's newest reflections (stable across scenes),
- ``relevant`` — what the query asks for, best first when chosen, shown in stream order,
- ``recent`` — the newest memories, for continuity.

Each memory appears once. Sections are shown in that order; inside a section
memories keep stream order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Collection, Mapping, Protocol

from ..models import Memory
from ..problems import Problem
from ..streams import MemoryStream
from .render import memory_text

SECTIONS = ("reflections", "relevant", "recent")
#: Why a memory is in its section when no word of the query and no similarity brought it there.
SECTION_REASONS = {
    "reflections": "a reflection",
    "recent": "said or done lately",
    "relevant": "ranked in without a word of the query",
}


@dataclass(frozen=True)
class Query:
    """What a scene (or a user) asks the memory for."""

    text: str = ""
    #: What the scene is about when it has no topic (plan, briefs, interests); ranked strategies use it.
    context: str = ""
    #: Topic tags: a memory carrying one of them ranks above one that only shares words.
    tags: tuple[str, ...] = ()
    #: Words that add nothing on their own: the character's and the participants' names.
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class Settings:
    """What ``state/world.json`` says about selection, plus where the story stands."""

    language: str = "de"
    budget: int = 10_000
    memory_window: int = 50
    focus_limit: int = 20
    weights: dict[str, float] = field(default_factory=lambda: {"relevance": 3.0, "importance": 0.5, "recency": 0.5})
    recency_half_life: float = 3.0
    #: The scene the selection is for, as (day, scene); recency is measured from it.
    now: tuple[int, int] | None = None
    #: An agent id → how colleagues call them, for heard lines (``heard.py``); None: the id.
    name_of: Callable[[str], str] | None = None
    #: Memories the prompt shows elsewhere (``day_memories.py``): never picked again, and
    #: what one of them says is not said again by a near-duplicate.
    elsewhere: tuple[Memory, ...] = ()
    #: ``memory_budget`` when ``budget`` is what other sections left of it: the newest reflections'
    #: share is of this, so it does not move with them (they stand where a prompt stays the same
    #: from scene to scene). None: ``budget``.
    whole: int | None = None

    @property
    def excluded(self) -> frozenset[str]:
        return frozenset(m.id for m in self.elsewhere)

    def speaker(self, agent_id: str) -> str:
        return self.name_of(agent_id) if self.name_of else agent_id


@dataclass(frozen=True)
class Picked:
    memory: Memory
    section: str
    offset: int
    line: int = 0
    score: float | None = None
    matched: tuple[str, ...] = ()
    #: For a memory brought in as the neighbour of a hit: that hit's id.
    neighbour_of: str | None = None
    #: What others said that the memory keeps and the query asks for, rendered (``heard.py``).
    heard: tuple[str, ...] = ()
    #: For a memory close in meaning to the query (``hybrid``): how close, the cosine similarity.
    similarity: float | None = None

    @property
    def reason(self) -> str:
        """Why it was picked, in a few words: what ``recall`` shows for every line."""
        if self.matched:
            return ", ".join(self.matched)
        if self.similarity is not None:
            return f"close in meaning ({self.similarity:.2f})"
        if self.neighbour_of:
            return f"next to {self.neighbour_of}"
        return SECTION_REASONS.get(self.section, self.section)

    def chars(self, language: str) -> int:
        return len(memory_text(self.memory, language, self.heard)) + 1


@dataclass
class Selection:
    strategy: str
    budget: int
    language: str
    #: In the order they were chosen: a section at a time, the relevant ones best first.
    picked: list[Picked] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def section(self, name: str, exclude: Collection[str] = ()) -> list[Picked]:
        """What was picked for section ``name``, without the memory ids in ``exclude``. A prompt has
        places for SECTIONS only; what a strategy labels otherwise is still what it chose, so it
        stands with the relevant memories, never dropped."""
        return [p for p in self.picked
                if (p.section == name or (name == "relevant" and p.section not in SECTIONS)) and p.memory.id not in exclude]

    def in_prompt_order(self) -> list[Picked]:
        order = {name: index for index, name in enumerate(SECTIONS)}
        return sorted(self.picked, key=lambda p: (order.get(p.section, len(order)), p.offset))

    @property
    def memories(self) -> list[Memory]:
        """All selected memories once each, in stream order."""
        return [p.memory for p in sorted(self.picked, key=lambda p: p.offset)]

    @property
    def ids(self) -> list[str]:
        return [memory.id for memory in self.memories]

    @property
    def chars(self) -> int:
        return sum(p.chars(self.language) for p in self.picked)

    def to_json(self, agent: str, query: str, replaced: Mapping[str, tuple[str, str]] | None = None) -> dict:
        """What `gamemaster recall --json` and the MCP tool `recall` return; ``replaced``: the memories
        shown that a later one shown replaces (``versions.replacements``)."""
        replaced = replaced or {}
        return {
            "agent": agent,
            "query": query,
            "strategy": self.strategy,
            "budget": self.budget,
            "chars": self.chars,
            "memories": [
                {
                    "id": p.memory.id,
                    "type": p.memory.type,
                    "created": p.memory.created,
                    "description": p.memory.description,
                    "importance": p.memory.importance,
                    "tags": p.memory.tags,
                    "section": p.section,
                    "score": p.score,
                    "matched": list(p.matched),
                    "similarity": p.similarity,
                    "neighbour_of": p.neighbour_of,
                    "reason": p.reason,
                    "heard": list(p.heard),
                    "replaced_by": replaced[p.memory.id][0] if p.memory.id in replaced else None,
                }
                for p in self.in_prompt_order()
            ],
        }


class Strategy(Protocol):
    name: str

    def select(self, stream: MemoryStream, query: Query, settings: Settings) -> Selection: ...


class Budget:
    """Characters left; a memory goes in only if its rendered line (and heard lines) fit."""

    def __init__(self, total: int, language: str):
        self.left = total
        self.language = language

    def take(self, memory: Memory, heard: tuple[str, ...] = ()) -> bool:
        cost = len(memory_text(memory, self.language, heard)) + 1
        if cost > self.left:
            return False
        self.left -= cost
        return True
