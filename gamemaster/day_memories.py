"""The memories of earlier days a character keeps in view for a whole day.

A scene's memories are chosen for that scene, so no two prompts share them and an API's
prompt cache can never reuse them. Part of ``memory_budget`` (``day_memory_share``) therefore goes
to memories chosen once a day: when the character declares the day's plan (its ARRIVAL),
from the memories of the days before, for what the day is about (the plan and its tags, the
briefs it has, its interests and talk wishes). Its newest reflections then are kept
with them, and shown with the persona all day; one written during the day stands with the
scene's memories, so nothing above them changes until the next day. They are stored with the
character (``state/agents/<id>.json``, ``day_memories``) in the same transaction as the plan,
so every later prompt shows exactly the same lines, after a crash and resume as well; each
scene's own selection fills the rest of the budget and leaves them out.

The ARRIVAL itself still shows the day before's: the new ones are chosen from its plan.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Callable

from .models import Agent, Brief, DayMemories, Memory, World
from .retrieval import Query, get_strategy, settings_for
from .retrieval.render import memory_text

if TYPE_CHECKING:
    from .streams import MemoryStream

#: The placeholder of ``character.md`` that shows them; a template without it shows none,
#: and then every scene chooses from the whole budget as before.
PLACEHOLDER = "earlier"


def day_query(agent: Agent, briefs: list[Brief], names: dict[str, str]) -> Query:
    """What a day is about for ``agent``: what a WORK scene without a topic asks, and its interests."""
    plan = agent.today_plan
    context = [plan.text] if plan else []
    context += [b.text for b in briefs]
    for interest in agent.interests:
        context += [interest.topic, *interest.tags]
    context += [w.topic for w in agent.talk_wishes]
    tags = list(plan.tags) if plan else []
    return Query(context=" ".join(context), tags=tuple(dict.fromkeys(tags)), names=(agent.id, names.get(agent.id, agent.name)))


def choose(stream: "MemoryStream", world: World, agent: Agent, day: int, briefs: list[Brief],
           names: dict[str, str], name_of: Callable[[str], str]) -> DayMemories:
    """The memories ``agent``'s prompts show on ``day``, chosen from its stream as it is now
    (call it before that day's memories are written), and its newest reflections then, which
    its prompts show with the persona: a reflection written during the day is shown with the
    scene's memories, so the part above stays the same all day."""
    settings = settings_for(world, budget=int(world.memory_budget * world.day_memory_share), now=(day, 0),
                            name_of=name_of)
    settings = replace(settings, whole=world.memory_budget)
    selection = get_strategy(world.selection).select(stream, day_query(agent, briefs, names), settings)
    # Of the days before only: a first plan made later in the day finds the day's own memories too.
    before = [p for p in selection.picked if p.memory.scene_key is None or p.memory.scene_key[0] < day]
    picked = sorted((p for p in before if p.section != "reflections"), key=lambda p: p.offset)
    return DayMemories(day=day, ids=[p.memory.id for p in picked],
                       heard={p.memory.id: list(p.heard) for p in picked if p.heard},
                       reflections=[p.memory.id for p in before if p.section == "reflections"])


Shown = list[tuple[Memory, tuple[str, ...]]]


def shown(stream: "MemoryStream", world: World, agent: Agent) -> tuple[Shown, Shown] | None:
    """The stored day's reflections and memories, each with its heard lines, as many as the
    day's share of ``memory_budget`` holds (a budget or share lowered since they were chosen
    cuts them short); None where none were chosen yet."""
    block = agent.day_memories
    if block is None or not world.day_memory_share:
        return None
    found = _find(stream, world, [*block.reflections, *block.ids])
    budget, used = int(world.memory_budget * world.day_memory_share), 0
    parts: tuple[Shown, Shown] = ([], [])
    for part, ids in zip(parts, (block.reflections, block.ids)):
        for memory_id in ids:
            memory = found.get(memory_id)
            if memory is None:  # its line was removed or broken by hand: no selection shows it now
                continue
            heard = tuple(block.heard.get(memory_id, ()))
            used += len(memory_text(memory, world.language, heard)) + 1
            if used > budget:
                return parts
            part.append((memory, heard))
    return parts


def _find(stream: "MemoryStream", world: World, ids: list[str]) -> dict[str, Memory]:
    """The memories with these ids, found through the search index (every prompt of the day
    asks; the stream is read only at their lines): a line moved or changed by hand since the
    index saw it is not taken for the memory."""
    from .retrieval.index import open_index  # SQLite: only where a prompt is built, not for the hook

    if not stream.exists():
        return {}
    index = open_index(stream.root, stream.agent, world.language).refresh()
    try:
        docs = index.docs(ids, by="mem_id")
    finally:
        index.close()
    found: dict[str, Memory] = {}
    with open(stream.path, "rb") as handle:
        for memory_id, doc in docs.items():
            handle.seek(doc.offset)
            parsed = stream.parse_at(handle.read(doc.length), doc.line, doc.offset)
            if isinstance(parsed, Memory) and parsed.id == memory_id:
                found[memory_id] = parsed
    return found


def in_stream_order(memories: list[Memory]) -> list[Memory]:
    """Memories of one stream in the order they were written: by scene, then by id number
    (numbers are handed out in the order a scene's memories are appended)."""
    return sorted(memories, key=lambda memory: (memory.scene_key or (0, 0), memory.number))


def render(items: Shown, language: str, visible=None) -> str:
    """The lines; evidence is named only where ``visible`` (ids shown in the same cached part of
    the prompt or above it) holds the memory cited."""
    return "\n".join(memory_text(memory, language, heard, visible) for memory, heard in items)


def chars(items: Shown, language: str) -> int:
    """What they take of ``memory_budget``, counted as a selection counts its lines."""
    return sum(len(memory_text(memory, language, heard)) + 1 for memory, heard in items)
