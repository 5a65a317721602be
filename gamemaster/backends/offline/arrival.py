"""ARRIVAL: the character comes in, greets, plans the day and may ask to talk to someone."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from . import news
from .focus import Focus, brief_focus, own_focus
from .text import dedupe

if TYPE_CHECKING:
    from .player import Player


def play(player: Player) -> dict[str, Any]:
    lines = player.lines["arrival"]
    focus = own_focus(player)
    brief_text = unseen_brief_text(player)
    if brief_text:
        focus = brief_focus(player, brief_text, focus)
    focus.facts = player.facts(focus.tags, 1, focus.phrase)
    ctx = player.base_ctx(focus)
    ctx["way"] = player.rng.choice(lines["ways"])
    ctx["mood"] = player.rng.choice(lines["moods"])

    action = player.pick(lines["actions"], ctx)
    greeting_bank = lines["greetings_named"] if "colleague" in ctx and player.rng.random() < 0.4 else lines["greetings"]
    says = [player.pick(greeting_bank, ctx)]
    says.append(player.pick(lines["plan_says_brief"] if "brief" in ctx else lines["plan_says"], ctx))
    plan_text = player.pick_fresh(lines["plan_texts_brief"] if "brief" in ctx else lines["plan_texts"], ctx)
    importance = player.rng.randint(5, 6) if "brief" in ctx else player.rng.randint(3, 5)
    plan = {"text": plan_text, "tags": focus.tags[:5], "importance": importance}

    reply: dict[str, Any] = {"action": action}
    wishes = []
    wish = talk_wish(player, focus, lines)
    if wish is not None:
        wishes.append(wish)
        wish_ctx = dict(ctx, colleague=player.colleagues[wish["with"][0]], wish=player.display_topic(wish["topic"]))
        says.append(player.pick(lines["wish_says"], wish_ctx))
    reply["plan"] = plan
    if player.rng.random() < 0.5:
        reply["memories"] = [player.note(player.pick_fresh(lines["memories"], ctx), player.rng.randint(2, 4), focus.tags)]
    # News comes last in drawing order, so a character without any plays as before.
    told, told_now = news.telling(player)
    if told:
        says.insert(1, told)
    wished = news.news_wishes(player, [c for c in sorted(player.colleagues) if c not in told_now])
    for wish, _ in reversed(wished):
        wishes.insert(0, wish)
    if wished:
        says.append(wished[0][1])
    reply["says"] = " ".join(says)
    if wishes:
        reply["talk_wishes"] = wishes
    return reply


def unseen_brief_text(player: Player) -> str | None:
    if player.req.briefs:  # already only the briefs that reach this agent now
        return player.req.briefs[0].text
    for memory in reversed(player.req.since):
        if memory.metadata.get("source") == "brief":
            quoted = re.search(r"[„“\"»]([^„“”\"»«]{10,})[“”\"«]", memory.description)
            return quoted.group(1) if quoted else memory.description
    return None


def talk_wish(player: Player, focus: Focus, lines: dict) -> dict[str, Any] | None:
    """Someone to talk with about today's work: a colleague whose work one remembers shares its
    tags and with whom one has not talked since yesterday; two of them when the matter is as
    much the second one's (two or more tags shared). None when today's work concerns nobody."""
    # Two topics in one wish only while the pair stays short enough to be a meeting title.
    others = [i for i in player.interests if i.topic != focus.phrase and len(i.topic) + len(focus.phrase) <= 60]
    ctx = {"topic": focus.phrase}
    tags = list(focus.tags[:3])
    if others and player.rng.random() < 0.4:
        other = player.rng.choice(others)
        ctx["other_topic"] = other.topic
        tags = dedupe(tags + other.tags[:2], 5)
    shared = player.shared_work(tags)
    lately = talked_lately(player)
    concerned = [c for c in player.colleagues_by_affinity(tags) if shared[c] and c not in lately]
    if not concerned:
        return None
    topic = player.pick(lines["wish_topics"], ctx)
    count = 2 if len(concerned) >= 2 and shared[concerned[1]] >= 2 else 1
    return {"with": concerned[:count], "topic": topic, "tags": tags}


def talked_lately(player: Player) -> set[str]:
    """Colleagues one had a conversation with today or yesterday (as far as one remembers; on
    day 1 the backstory's day 0 is yesterday)."""
    since = f"day-{max(player.spec.day - 1, 0):03d}"
    found: set[str] = set()
    for memory in list(player.req.memories) + list(player.req.since):
        if memory.type == "conversation" and memory.created >= since:
            found.update(w for w in memory.metadata.get("with") or () if isinstance(w, str))
    return found
