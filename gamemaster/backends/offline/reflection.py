"""REFLECTION: three to five insights, each citing the memories it rests on as evidence."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from ...models import Memory
from .text import PLAIN_TAGS, bare, dedupe

if TYPE_CHECKING:
    from .player import Player


def play(player: Player) -> dict[str, Any]:
    lines = player.lines["reflection"]
    pool = [m for m in player.req.memories if m.description.strip()] or list(player.req.since)
    reply: dict[str, Any] = {"action": player.pick(lines["actions"], {"name": player.me}), "says": ""}
    murmurs = player.rng.random() < 0.5
    reply["insights"] = insights(player, pool, lines)
    tags = [tag for insight in reply["insights"] for tag in insight["tags"] if tag not in player.plain_tags]
    # What one murmurs is what one is thinking about: the first insight's topic, said one's own way.
    if murmurs and tags:
        reply["says"] = player.pick_fresh(lines["says"], {"name": player.me, "tag": player.tag_word(tags[0])}, spoken=True)
    return reply


def insights(player: Player, pool: list[Memory], lines: dict) -> list[dict[str, Any]]:
    if not pool:
        # Nothing to cite: the reply then fails validation with a clear
        # message instead of citing ids that do not exist.
        return [{"description": player.me, "importance": 6, "tags": [], "evidence": []}] * 3
    total = len(pool)
    scores = {
        # Fresh experience first; earlier insights join in, they do not take over.
        m.id: m.importance + 3 * (index + 1) / total - (1.5 if m.type == "reflection" else 0) + player.rng.random() * 0.8
        for index, m in enumerate(pool)
    }
    ranked = sorted(distinct(pool), key=lambda m: -scores[m.id])
    fewest, most = player.spec.kind.insights_range
    count = min(player.rng.randint(fewest, most), max(fewest, len(ranked)))
    used = {m.id: 0 for m in ranked}
    frames_used: set[str] = set()
    found = []
    for k in range(count):
        anchor = ranked[k % len(ranked)]
        anchor_tags = set(player.content_tags(anchor.tags))
        anchor_cite = cite(player, anchor, lines)
        others = [m for m in ranked if m.id != anchor.id and cite(player, m, lines) != anchor_cite]
        # Related first, but a different kind of memory beats a second
        # copy of the same work: an insight joins different experiences.
        others.sort(key=lambda m: (
            -min(2, len(anchor_tags & set(m.tags))),
            m.type == anchor.type and m.type in ("artifact", "reflection"),
            used[m.id],
            -scores[m.id],
        ))
        size = player.rng.choice([1, 1, 2])
        cited = [anchor]
        for other in others:
            if len(cited) > size:
                break
            if other.type == "reflection" and any(m.type == "reflection" for m in cited):
                continue
            cited.append(other)
        for memory in cited:
            used[memory.id] += 1
        found.append(insight(player, cited, lines, frames_used))
    return found


def cite(player: Player, memory: Memory, lines: dict) -> str:
    """How an insight refers to a memory it builds on."""
    if memory.type == "reflection":
        return lines["cite_insight"].format(tag=player.display_tag(memory.tags))
    title = memory.metadata.get("title")
    if memory.type == "artifact" and isinstance(title, str) and title.strip():
        return lines["cite_artifact"].format(title=bare(title, 60))
    return lines["cite_memory"].format(text=bare(memory.description, 60))


def insight(player: Player, cited: list[Memory], lines: dict, frames_used: set[str]) -> dict[str, Any]:
    counts: dict[str, int] = {}
    for memory in cited:
        for tag in memory.tags:
            counts[tag] = counts.get(tag, 0) + 1
    order = sorted(counts, key=lambda t: (-counts[t], list(counts).index(t)))
    content = player.content_tags(order)
    ctx: dict[str, Any] = {"a": cite(player, cited[0], lines)}
    ctx["tag_a"] = player.tag_word(content[0]) if content else player.display_tag([t for i in player.interests for t in i.tags])
    # A second topic only where it is another one: two tags said with the same word
    # (``bone-towers`` and ``towers``: „Knochentürme“) would make a tautology of the insight.
    second = next((word for word in map(player.tag_word, content[1:]) if _other_topic(word, ctx["tag_a"])), None)
    if second:
        ctx["tag_b"] = second
    if len(cited) > 1:
        ctx["b"] = cite(player, cited[1], lines)
    authors = [a for a in (player.author_of(m) for m in cited) if a]
    if authors:
        who = player.name_of(authors[0])
        ctx["who"] = who
        ctx["who_possessive"] = player.possessive(who)
    if len(cited) > 1:
        bank = lines["frames"] + (lines["frames_people"] if authors else [])
    else:
        bank = lines["frames_single"] + (lines["frames_people"] if authors else [])
    candidates = player.usable(bank, ctx)
    fresh = [t for t in candidates if t not in frames_used] or candidates
    # An insight the character has already had, word for word, is no new insight.
    fresh = [t for t in fresh if not player.known(player.fill(t, ctx))] or fresh
    template = player.rng.choice(fresh)
    frames_used.add(template)
    depth_bonus = 1 if any(m.type == "reflection" for m in cited) and player.rng.random() < 0.6 else 0
    importance = min(9, player.rng.randint(6, 8) + depth_bonus)
    tags = dedupe([t for t in order if t not in PLAIN_TAGS], 5)
    return {
        "description": player.fill(template, ctx),
        "importance": importance,
        "tags": tags,
        "evidence": [m.id for m in cited],
    }


def distinct(memories: Iterable[Memory]) -> list[Memory]:
    """One memory per id and per wording; a repeated notice is one experience, not two."""
    by_id: dict[str, Memory] = {}
    by_text: dict[str, str] = {}
    for memory in memories:
        text = " ".join(memory.description.split()).lower()
        if memory.id in by_id:
            continue
        if text in by_text:
            del by_id[by_text[text]]
        by_id[memory.id] = memory
        by_text[text] = memory.id
    return list(by_id.values())


def _other_topic(word: str, than: str) -> bool:
    """Whether ``word`` names a topic other than ``than`` (neither holds the other)."""
    a, b = word.lower(), than.lower()
    return a not in b and b not in a
