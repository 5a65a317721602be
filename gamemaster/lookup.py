"""A character looks into its own memory mid-scene: seed 001's „Claude itself is the retrieval
engine“, beside the selection the Game Master makes before the scene.

A backend that can offer a model a tool (the Anthropic API's tool use, an in-process MCP tool
in Claude Code's run, the ``gamemaster lookup`` command for a Claude Code subagent) gives the character
``recall``: a query in its own words, answered from its own stream only, with whole memories
its prompt did not show, the most relevant first (the world's strategy, ``LOOKUP_CHARS`` of
memory lines). A few lookups a turn at most (``MAX_LOOKUPS``); each is kept with the scene
(``lookups/<turn>.json``) and shown in the report beside what the prompt showed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Collection

from .fsio import atomic_write_json
from .lang import phrase
from .problems import GamemasterError

if TYPE_CHECKING:
    from .pending import Pending
    from .workspace import Workspace

#: Characters of memory lines one lookup returns: a handful of whole memories.
LOOKUP_CHARS = 3000
#: Lookups a turn at most: looking pays for what the prompt lacks, not as a second selection.
MAX_LOOKUPS = 3
#: A query is a question or a few words, not a text.
QUERY_CHARS = 300


@dataclass(frozen=True)
class Found:
    """One lookup: the query as the character wrote it, the ids it found, the text it was given."""

    query: str
    ids: tuple[str, ...]
    text: str

    def as_dict(self) -> dict:
        return {"query": self.query, "memories": list(self.ids)}


Lookup = Callable[[str], Found]


class TurnLookups:
    """One turn's lookups, bounded: after ``MAX_LOOKUPS`` the answer tells the character to reply
    (what every backend's tool answers, whichever way the model calls it)."""

    def __init__(self, lookup: Lookup, language: str):
        self.lookup, self.language = lookup, language
        self.found: list[Found] = []

    def answer(self, query: object) -> str:
        if len(self.found) >= MAX_LOOKUPS:
            return phrase(self.language, "lookup_spent")
        self.found.append(self.lookup(str(query)))
        return self.found[-1].text


def lookup_for(workspace: Workspace, agent_id: str, shown: Collection[str]) -> Lookup:
    """``lookup(query)`` over ``agent_id``'s own stream, leaving out what its prompt showed."""
    from .retrieval import recall  # the retrieval stack loads with the first lookup, not with the backend

    def lookup(query: str) -> Found:
        query = " ".join(str(query).split())[:QUERY_CHARS]
        world = workspace.load_world()
        if not query:
            return Found(query, (), phrase(world.language, "lookup_empty"))
        # What the prompt shows is left out of the selection, not of its result: the lookup's budget
        # goes to memories the character has not seen (a query near the prompt's found nothing else).
        selection = recall(workspace, agent_id, query, budget=LOOKUP_CHARS, world=world, shown=shown)
        relevant = selection.section("relevant", exclude=shown)
        rest = [p for p in selection.in_prompt_order() if p not in relevant and p.memory.id not in shown]
        memories, used = [], 0
        for picked in relevant + rest:
            line = f"- [{picked.memory.id} · {picked.memory.created}] {picked.memory.description}"
            if used + len(line) > LOOKUP_CHARS and memories:
                break
            memories.append((picked.memory.id, line))
            used += len(line)
        if not memories:
            return Found(query, (), phrase(world.language, "lookup_nothing"))
        return Found(query, tuple(i for i, _ in memories), "\n".join(line for _, line in memories))

    return lookup


def record_lookups(pending: Pending, turn: int, found: list[Found]) -> None:
    """What ``turn``'s character looked up for its latest answer, kept with the scene beside what
    its prompt showed (an answer asked again replaces what the one before looked up)."""
    path = pending.folder.inside(lookups_path(pending.dir, pending.label(turn)))
    if found:
        atomic_write_json(path, {"lookups": [f.as_dict() for f in found]})
    elif path.exists():
        path.unlink()


def lookups_path(scene_dir: Path, label: str) -> Path:
    return scene_dir / "lookups" / f"{label}.json"


def _recorded(pending: Pending, turn: int) -> list[dict]:
    """What ``turn``'s character looked up so far, as kept with the scene (``record_lookups``)."""
    path = lookups_path(pending.dir, pending.label(turn))
    data = pending.folder.read_json(path) if path.exists() else {}
    entries = data.get("lookups") if isinstance(data, dict) else None
    return [entry for entry in entries if isinstance(entry, dict)] if isinstance(entries, list) else []


def looked_up(pending: Pending, turn: int) -> set[str]:
    """The memory ids ``turn``'s lookups gave the character: it has read them, so its reply may
    cite them as evidence, as it may what its prompt showed."""
    return {str(i) for entry in _recorded(pending, turn)
            if isinstance(entry.get("memories"), list) for i in entry["memories"]}


def look_up_in_turn(workspace: Workspace, pending: Pending, agent_id: str, query: str) -> str:
    """A character's lookup from inside its turn (``gamemaster lookup``, Claude Code's way to the
    ``recall`` tool): over its own stream, leaving out what its prompt of the pending scene showed,
    kept with the scene beside the turn's prompt; after ``MAX_LOOKUPS`` the answer says to reply."""
    from .pending import shown_in_prompt  # the scene's files: only a Claude Code lookup reads them

    turn = pending.turn_of(agent_id)
    shown = shown_in_prompt(pending, turn)
    if shown is None:
        raise GamemasterError(f"{agent_id} has no prompt in scene {pending.spec.ref} yet: read it first "
                              f"({workspace.rel(pending.prompt_path(turn))})")
    earlier = _recorded(pending, turn)
    language = workspace.load_world().language
    if len(earlier) >= MAX_LOOKUPS:
        return phrase(language, "lookup_spent")
    found = lookup_for(workspace, agent_id, shown)(query)
    atomic_write_json(pending.folder.inside(lookups_path(pending.dir, pending.label(turn))),
                      {"lookups": [*earlier, found.as_dict()]})
    return found.text
