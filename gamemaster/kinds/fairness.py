"""Who goes first when several could: whoever waited longest, then the world's seed.

Never the order of names: in a studio of 25 or 100 the alphabetically first would
act every day and the rest never. Everything here is a pure function of the state.
"""

from __future__ import annotations

import hashlib

from ..models import parse_scene_ref
from . import get_kind


def seeded(seed: int, *parts: object) -> int:
    """A tie-breaker that is the same for the same world on every machine, and differs by seed."""
    text = ":".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def acted_today(world, roster: list[str]) -> dict[str, int]:
    """How many scenes that count as acting each agent had today."""
    counts = {a: 0 for a in roster}
    for entry in world.today:
        if get_kind(entry.type, strict=False).acting:
            for agent in entry.participants:
                if agent in counts:
                    counts[agent] += 1
    return counts


def waited_longest(world, agents, roster: list[str]) -> list[str]:
    """The roster, the agent who should act next first: fewest acting scenes today, then the
    longest since they last acted (on any day), then the seed."""
    today = acted_today(world, roster)

    def key(agent: str):
        last = agents[agent].last_acted
        return today[agent], parse_scene_ref(last) if last else (0, 0), seeded(world.seed, world.day, agent)

    return sorted(roster, key=key)


def oldest_wishes_first(world, agents, roster: list[str]):
    """(agent, wish) for every talk wish, the oldest first; among equally old ones the wisher
    who waited longest to act, then the seed."""
    order = {a: i for i, a in enumerate(waited_longest(world, agents, roster))}
    found = [(agent, wish) for agent in roster for wish in agents[agent].talk_wishes]

    def key(item):
        agent, wish = item
        made = parse_scene_ref(wish.created) if wish.created else (0, 0)
        return made, order[agent], seeded(world.seed, world.day, agent, wish.topic)

    return sorted(found, key=key)
