"""Who a crowd's MEETING is for: the ``kinds.meeting.max`` people a text concerns most.

A brief or event can reach more people than a meeting holds (``kinds.meeting.max``); they
all get it as a memory anyway, so the meeting goes to those whose plan and interests share
the most terms with its text. Ties fall by the world's seed, never by name order, so that the
same studio with another seed does not always seat the same alphabetically early people.
"""

from __future__ import annotations

import hashlib

from ..topics import topic_terms
from .settings import settings_of


def agent_terms(agent) -> set[str]:
    """The terms an agent's day is about: today's plan (text and tags) and their interests."""
    plan = agent.today_plan
    terms = set(topic_terms(plan.text, plan.tags)) if plan else set()
    for interest in agent.interests:
        terms |= set(topic_terms(interest.topic, interest.tags))
    return terms


def _tiebreak(seed: int, agent_id: str) -> str:
    return hashlib.sha256(f"{seed}:{agent_id}".encode()).hexdigest()


def most_concerned(world, agents, people: list[str], text: str | None, tags=()) -> list[str]:
    """At most ``kinds.meeting.max`` of ``people`` (all of them when they fit), in their given order."""
    size = settings_of(world, "meeting").max
    if len(people) <= size:
        return list(people)
    wanted = set(topic_terms(text, tags))
    ranked = sorted(people, key=lambda a: (-len(wanted & agent_terms(agents[a])), _tiebreak(world.seed, a)))
    chosen = set(ranked[:size])
    return [p for p in people if p in chosen]
