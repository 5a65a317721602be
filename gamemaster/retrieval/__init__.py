"""Which memories a character sees: strategies behind one interface, and the query a scene asks.

``recall(workspace, agent, query)`` is exactly the selection a scene on that
query gives the agent; the Game Master, ``gamemaster recall``, ``gamemaster ask``
and the benchmarks all go through it.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Collection

from ..lang import short_name
from ..models import World, field_value
from ..problems import GamemasterError, StateError
from .base import SECTIONS, Picked, Query, Selection, Settings, Strategy

if TYPE_CHECKING:
    from pathlib import Path

    from ..models import Agent, Brief
    from ..scenes import SceneSpec
    from ..workspace import Workspace

__all__ = ["SECTIONS", "Picked", "Query", "Selection", "Settings", "Strategy", "available", "get_strategy", "settings_for",
           "scene_query", "recall", "speaker_names", "prepare"]

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def available() -> list[str]:
    """The strategies' names: the modules of ``strategies/``, found where they are."""
    return _scanned()


def _scanned() -> list[str]:
    from . import strategies

    return sorted(m.name for m in pkgutil.iter_modules(strategies.__path__) if _NAME.match(m.name))


def get_strategy(name: str) -> Strategy:
    if not _NAME.match(name or "") or name not in available():
        raise StateError(f"state/world.json: selection: unknown strategy {name!r} (known: {', '.join(available())})")
    return importlib.import_module(f"{__name__}.strategies.{name}").STRATEGY


def settings_for(
    world: "World", budget: int | None = None, now: tuple[int, int] | None = None, name_of: "Callable[[str], str] | None" = None
) -> Settings:
    return Settings(
        language=world.language,
        budget=world.memory_budget if budget is None else budget,
        memory_window=world.memory_window,
        focus_limit=world.focus_limit,
        weights=world.retrieval_weights.model_dump(),
        recency_half_life=world.recency_half_life,
        now=now,
        name_of=name_of,
    )


def speaker_names(load_agent: "Callable[[str], Agent]", known: "dict[str, str] | None" = None) -> "Callable[[str], str]":
    """An agent id → how colleagues call them (``lang.short_name``), from ``known`` (id → name) or
    read only when asked (``load_agent``, ``Workspace.load_agent``): a selection names just the few
    speakers whose lines it shows. An agent that is gone or does not load is shown by its id."""
    cache: dict[str, str] = {}

    def name_of(agent_id: str) -> str:
        if agent_id not in cache:
            display = (known or {}).get(agent_id)
            if display is None:
                try:
                    display = load_agent(agent_id).name
                except GamemasterError:  # gone or broken (other commands report it): shown by id
                    display = ""
            cache[agent_id] = short_name(display) or agent_id
        return cache[agent_id]

    return name_of


def scene_query(agent: "Agent", spec: "SceneSpec", briefs: "list[Brief]", names: dict[str, str]) -> Query:
    """What a scene asks of a character's memory.

    A topic (a meeting's, a brief's, one forced by the Creative Director) is the
    query. A scene without one ranks against what it is about anyway: the plan
    and its tags in WORK, the briefs the character has, its interests at ARRIVAL
    and REFLECTION.
    """
    kind = spec.kind
    tags = list(spec.topic_tags)
    if kind.recalls_by_plan and agent.today_plan and not spec.topic:
        tags += agent.today_plan.tags
    context: list[str] = []
    if not spec.topic:
        if agent.today_plan:
            context.append(agent.today_plan.text)
        context += [b.text for b in briefs]
        if kind.recalls_by_interests or not agent.today_plan:
            for interest in agent.interests:
                context.append(interest.topic)
                context += interest.tags
        context += [w.topic for w in agent.talk_wishes]
    people = [agent.id, agent.name] + [p for pid in spec.participants for p in (pid, names.get(pid, pid))]
    return Query(text=spec.topic or "", context=" ".join(context), tags=tuple(tags), names=tuple(dict.fromkeys(people)))


def recall(
    workspace: "Workspace",
    agent_id: str,
    query: "str | Query",
    *,
    strategy: str | None = None,
    budget: int | None = None,
    world: "World | None" = None,
    shown: Collection[str] = (),
) -> Selection:
    """The selection a scene on ``query`` would give ``agent_id``, now.

    A ``budget`` given instead of the world's ``memory_budget`` keeps that setting's bounds.
    ``shown``: ids of memories the character already has before it (a lookup's prompt): never
    picked again, so the budget goes to others, and nothing they say is said again."""
    world = world or workspace.load_world()
    if budget is not None:
        try:
            budget = field_value(World, "memory_budget", budget)
        except ValueError as exc:
            raise GamemasterError(f"--budget: {exc} (the bounds of memory_budget)") from None
    agent = workspace.load_agent(agent_id)
    if isinstance(query, str):
        query = Query(text=query, names=(agent.id, agent.name))
    now = (world.day, world.scene + 1) if world.day else None
    settings = settings_for(world, budget, now, speaker_names(workspace.load_agent))
    stream = workspace.stream(agent_id)
    if shown:
        settings = replace(settings, elsewhere=tuple(stream.find(shown).values()))
    return get_strategy(strategy or world.selection).select(stream, query, settings)


def prepare(root: "Path", world: "World", agents: list[str]) -> None:
    """Let the world's strategy get ready to select for ``agents`` (all of a scene's speakers) in the
    workspace at ``root``: the ranked one builds their missing search indexes side by side (``parallel.py``)."""
    strategy = get_strategy(world.selection)
    if hasattr(strategy, "prepare"):
        strategy.prepare(root, agents, settings_for(world))
