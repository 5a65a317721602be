"""What everyone in a studio knows of everyone else, and what they were all told together.

A colleague's public side is their role, their team and what they work on (their interests'
topics): the roster every prompt shows says it, and whom a piece of news concerns is judged
from it (``backends/offline/news.py``). What the whole studio was told — a brief or an event
addressed to everyone — is common ground: a change to it concerns everyone. Neither reads a
colleague's memories: a character reads only its own mind.
"""

from __future__ import annotations

from .lang import phrase
from .models import Agent, Memory


def profile(agent: Agent, language: str) -> str:
    """Role, team and what the character works on, as one line of the roster."""
    parts = [agent.role]
    if agent.team:
        parts.append(phrase(language, "roster_team", team=agent.team))
    topics = [i.topic for i in agent.interests if i.topic]
    if topics:
        parts.append(phrase(language, "roster_works_on", topics=", ".join(topics)))
    return "; ".join(parts)


def profiles(agents: dict[str, Agent], language: str) -> dict[str, str]:
    return {a: profile(agents[a], language) for a in sorted(agents)}


def render_roster(agents: dict[str, Agent], language: str) -> str:
    """Everyone in the studio, one line each in id order: the same text in every prompt."""
    return "\n".join(f"- {agents[a].name} (`{a}`): {text}" for a, text in profiles(agents, language).items())


def common_ground(memories: list[Memory]) -> tuple[str, ...]:
    """What the character knows the whole studio was told: its memories of briefs and events
    said to everyone (``metadata.everyone``, written when they were given)."""
    return tuple(m.description for m in memories if m.metadata.get("everyone") is True)
