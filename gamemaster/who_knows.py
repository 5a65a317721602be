"""Who would recall something, since when and from whom: how a piece of news travelled.

For every character the query goes through ``retrieval.recall`` at the default
budget, exactly the selection a scene on that query would show them. A selected
memory *holds* the query when one text of it contains at least ``HOLD_SHARE`` of
the query's analysed terms (the index's words: stemmed, stopwords left out): a
line someone else said that the memory keeps (``retrieval/heard.py``), checked
first, or else its description. The character knows it since the earliest such
memory's scene, and heard it from that line's speaker; their own memory says
``self`` (an artifact observation names the artifact's author). Where a later memory recall
selects replaces what they heard — a correction of the rumour (``updates.py``) — that is the
version they hold now (``newer``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import ceil
from typing import TYPE_CHECKING

from .models import parse_scene_ref
from .problems import GamemasterError, Problem
from .retrieval import recall
from .retrieval.heard import heard_lines, written_by
from .retrieval.text import analyzer
from .retrieval.versions import replaced_in

if TYPE_CHECKING:
    from .models import Memory
    from .workspace import Workspace

#: How much of the query a memory's text must contain to hold it: most words, not every one,
#: so "Quittenfest am Donnerstag" is found in a line that says "das Quittenfest … Donnerstag".
HOLD_SHARE = 2 / 3
SELF = "self"


@dataclass
class Knowing:
    agent: str
    name: str
    knows: bool
    since: str | None = None
    source: str | None = None
    memory: str | None = None
    #: The text that holds the query (a heard line or a description).
    text: str | None = None
    #: The memory and text of a later version that replaces it, if the character holds one.
    newer: tuple[str, str] | None = None

    def as_json(self) -> dict:
        newer = {"memory": self.newer[0], "text": self.newer[1]} if self.newer else None
        return {"agent": self.agent, "name": self.name, "knows": self.knows, "since": self.since,
                "from": self.source, "memory": self.memory, "text": self.text, "newer": newer}


@dataclass
class Diffusion:
    query: str
    terms: list[str]
    rows: list[Knowing]
    problems: list[Problem] = field(default_factory=list)

    @property
    def knowing(self) -> list[Knowing]:
        return [row for row in self.rows if row.knows]

    def as_json(self) -> dict:
        return {"query": self.query, "terms": self.terms, "know": len(self.knowing), "of": len(self.rows),
                "characters": [row.as_json() for row in self.rows]}


def holds(text_terms: set[str], wanted: set[str]) -> bool:
    """Does a text with these terms hold a query with ``wanted`` terms (``HOLD_SHARE``)?"""
    return bool(wanted) and len(wanted & text_terms) >= ceil(len(wanted) * HOLD_SHARE - 1e-9)


def evidence(memory: "Memory", wanted: set[str], language: str) -> tuple[str, str] | None:
    """(from whom, the text) if ``memory`` holds the query, else None."""
    words = analyzer(language)
    for speaker, says in heard_lines(memory.metadata, memory.id):
        if holds(set(words.terms(says)), wanted):
            return speaker, says
    if holds(set(words.terms(memory.description)), wanted):
        return written_by(memory.metadata, memory.id) or SELF, memory.description
    return None


def who_knows(workspace: "Workspace", query: str) -> Diffusion:
    world = workspace.load_world()
    wanted = set(analyzer(world.language).terms(query))
    if not wanted:
        raise GamemasterError(f"who-knows: {query!r} has no word to search for (only stopwords or single letters)")
    result = Diffusion(query, sorted(wanted), [])
    for agent_id in workspace.agent_ids():
        agent = workspace.load_agent(agent_id)
        selection = recall(workspace, agent_id, query, world=world)
        result.problems += [p for p in selection.problems if p not in result.problems]
        found = []
        for picked in selection.picked:
            held = evidence(picked.memory, wanted, world.language)
            if held is not None:
                created = picked.memory.created
                found.append(((parse_scene_ref(created) if created else (0, 0)), picked.offset, picked.memory, held))
        if not found:
            result.rows.append(Knowing(agent_id, agent.name, False))
            continue
        _, _, memory, (source, text) = min(found, key=lambda item: item[:2])
        newer = replaced_in(selection).get(memory.id)
        result.rows.append(Knowing(agent_id, agent.name, True, memory.created, source, memory.id, text, newer))
    return result
