"""What a character works on or talks about in a scene: its interests, plan, a brief or the scene's topic."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Sequence

from ...models import Memory
from .text import dedupe, sentence_like, slug

if TYPE_CHECKING:
    from .player import Player


@dataclass
class Interest:
    topic: str
    tags: list[str]


@dataclass
class Focus:
    """What the character works on or talks about in this scene."""

    phrase: str
    tags: list[str]
    brief: str | None = None
    facts: list[Memory] = field(default_factory=list)


def known_topics(player: Player) -> list[tuple[str, list[str]]]:
    """Topic phrases the character has met: own interests, then recent meeting topics."""
    topics = [(i.topic, list(i.tags)) for i in player.interests]
    for memory in reversed(player.req.memories):
        topic = memory.metadata.get("topic")
        if isinstance(topic, str) and topic.strip() and memory.type == "conversation":
            topics.append((topic.strip(), player.content_tags(memory.tags)))
    return topics


def topic_for(player: Player, tags: Sequence[str], text: str = "") -> tuple[str, list[str]] | None:
    """The best known topic phrase for some tags or text, ``None`` when nothing fits."""
    interest = player.interest_for(tags, text)
    if interest:
        return interest.topic, list(interest.tags)
    wanted = set(player.content_tags(tags))
    best, best_score = None, 0
    for topic, topic_tags in known_topics(player):
        score = len(wanted & set(topic_tags))
        if score > best_score:
            best, best_score = (topic, topic_tags), score
    return best


def weighted_interest(player: Player, tags: Iterable[str] = ()) -> Interest:
    wanted = set(tags)
    weights = [1 + 2 * len(wanted & set(i.tags)) for i in player.interests]
    return player.rng.choices(player.interests, weights=weights)[0]


def plan_focus(player: Player) -> Focus | None:
    plan = player.agent.today_plan
    if plan is None:
        return None
    tags = [t.lower() for t in plan.tags]
    lowered = plan.text.lower()
    for topic, topic_tags in known_topics(player):
        if topic.lower() in lowered:
            return Focus(topic, dedupe(tags or topic_tags, 5))
    if not sentence_like(plan.text):
        return Focus(plan.text.strip(), tags or player.terms(plan.text))
    found = topic_for(player, tags, plan.text)
    if found:
        return Focus(found[0], dedupe(tags + found[1], 5))
    if player.interests:
        interest = weighted_interest(player, tags)
        return Focus(interest.topic, dedupe(tags[:2] + interest.tags, 5))
    if player.content_tags(tags):
        return Focus(player.display_tag(tags), tags)
    return None


def own_focus(player: Player) -> Focus:
    """A topic from the character's interests or recent memories (ARRIVAL, idle WORK)."""
    recent = [m for m in player.req.memories[-8:] if player.content_tags(m.tags) and m.importance >= 3]
    recent_tags = {t for m in recent for t in m.tags}
    use_memory = bool(recent) and (not player.interests or player.rng.random() < 0.35)
    if player.interests and not use_memory:
        interest = weighted_interest(player, recent_tags)
        return Focus(interest.topic, dedupe(interest.tags, 5))
    if recent:
        memory = player.rng.choice(recent[-4:])
        tags = player.content_tags(memory.tags)
        found = topic_for(player, tags)
        if found:
            return Focus(found[0], dedupe(tags + found[1], 5))
        if player.interests:
            interest = weighted_interest(player, tags)
            return Focus(interest.topic, dedupe(interest.tags + tags[:1], 5))
        return Focus(player.display_tag(tags), dedupe(tags, 5))
    phrase = player.rng.choice(player.lines["fallback_topics"])
    return Focus(phrase, player.terms(phrase)[:2] or [slug(player.agent.artifact_kind)])


def brief_focus(player: Player, brief_text: str, base: Focus | None) -> Focus:
    """A CD brief as the reason, with the character's own closest topic as the handle."""
    brief_tags = player.terms(brief_text)
    interest = player.interest_for(brief_tags, brief_text)
    if interest:
        focus = Focus(interest.topic, dedupe(brief_tags[:2] + interest.tags, 5))
    elif base is not None:
        focus = Focus(base.phrase, dedupe(brief_tags[:2] + base.tags, 5))
    else:
        return Focus(player.as_topic(brief_text), brief_tags or [slug(player.agent.artifact_kind)])
    focus.brief = player.quote(brief_text, 80)
    return focus


def scene_focus(player: Player) -> Focus:
    """WORK and MEETING: the scene's topic if it has one, else today's plan."""
    spec = player.spec
    if spec.topic:
        briefs = player.scene_briefs()
        if spec.brief_ids or briefs:
            text = briefs[0].text if briefs else spec.topic
            focus = brief_focus(player, text, plan_focus(player))
            if spec.topic_tags:
                focus.tags = dedupe(list(spec.topic_tags) + focus.tags, 5)
            return focus
        terms = player.terms(spec.topic)
        interest = None if spec.topic_tags else player.interest_for(terms, spec.topic)
        tags = list(spec.topic_tags) or (interest.tags if interest else []) + terms
        return Focus(player.as_topic(spec.topic), dedupe(tags, 5) or [slug(player.agent.artifact_kind)])
    return plan_focus(player) or own_focus(player)
