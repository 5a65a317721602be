"""WORK: the character works on its focus, notes what it learned and usually produces an artifact."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...models import Memory
from . import news
from .focus import Focus, scene_focus
from .text import bare, clip, dedupe, slug

if TYPE_CHECKING:
    from .player import Player


def play(player: Player) -> dict[str, Any]:
    lines = player.lines["work"]
    focus = scene_focus(player)
    since = player.since_highlight() if player.req.replan else None
    if since is not None:
        focus.tags = dedupe(focus.tags[:3] + player.content_tags(since.tags)[:2], 5)
    focus.facts = player.facts(focus.tags, 2, focus.phrase)
    ctx = player.base_ctx(focus)

    bank = lines["actions_brief"] if "brief" in ctx and player.rng.random() < 0.7 else lines["actions"]
    reply: dict[str, Any] = {"action": player.pick(bank, ctx), "says": ""}
    if player.rng.random() < 0.4:
        reply["says"] = player.pick_fresh(lines["says"], ctx, spoken=True)

    memory_count = 1 if player.rng.random() < 0.5 else 2
    notes = []
    for index, text in enumerate(player.pick_many(lines["memories"], with_second_fact(player, ctx, focus), memory_count)):
        # A routine note is at most "notable" (6): 7 and up is news worth passing on (``news.HELD_IMPORTANCE``).
        importance = min(6, player.rng.randint(3, 6) + (1 if "brief" in ctx or (index == 0 and focus.facts) else 0))
        notes.append(player.note(text, importance, focus.tags))
    reply["memories"] = notes

    if player.req.replan:
        reply["plan"] = replan(player, focus, since, ctx)
    if player.spec.brief_ids or player.rng.random() < 0.8:
        reply["artifacts"] = [artifact(player, focus, ctx)]
    told = news.tell(player)  # last in drawing order: without news the reply is as before
    if told:
        reply["says"] = f"{reply['says']} {told}".strip()
    return reply


def with_second_fact(player: Player, ctx: dict[str, Any], focus: Focus) -> dict[str, Any]:
    if len(focus.facts) > 1 and player.rng.random() < 0.5:
        return dict(ctx, fact=bare(focus.facts[1].description, 110))
    return ctx


def replan(player: Player, focus: Focus, since: Memory | None, ctx: dict[str, Any]) -> dict[str, Any]:
    """A new plan for the rest of the day, naming what changed it (also used in MEETING)."""
    lines = player.lines["work"]
    plan_ctx = dict(ctx)
    importance = player.rng.randint(4, 6)
    if since is not None:
        source = since.metadata.get("source")
        if source == "brief":
            plan_ctx["source"] = lines["source_brief"]
            importance = player.rng.randint(6, 7)
        elif source == "artifact":
            author = since.metadata.get("author")
            owner = player.possessive(player.name_of(author)) if isinstance(author, str) else player.me
            plan_ctx["source"] = lines["source_artifact"].format(owner=owner)
        else:
            plan_ctx["source"] = lines["source_other"]
        plan_ctx["since_fact"] = bare(since.description, 90)
    elif player.req.briefs:
        plan_ctx["source"] = lines["source_brief"]
    else:
        plan_ctx["source"] = lines["source_other"]
    return {"text": player.pick_fresh(lines["replan_texts"], plan_ctx), "tags": focus.tags[:5], "importance": importance}


# -- artifacts ---------------------------------------------------------------


def artifact(player: Player, focus: Focus, ctx: dict[str, Any]) -> dict[str, Any]:
    family = player.family
    title = clip(player.pick(family["titles"], ctx), 80)
    content = artifact_content(player, title, focus, ctx)
    summary_ctx = dict(ctx, quality=player.rng.choice(family["qualities"]))
    summary = player.pick_fresh(family["summaries"], summary_ctx)
    importance = player.rng.randint(5, 7) + (1 if focus.brief or len(focus.facts) > 1 else 0)
    tags = dedupe(focus.tags[:4] + [slug(player.agent.artifact_kind)], 6)
    return {
        "title": title,
        "kind": player.agent.artifact_kind,
        "content": content,
        "summary": summary,
        "importance": min(8, importance),
        "tags": tags,
    }


def artifact_content(player: Player, title: str, focus: Focus, ctx: dict[str, Any]) -> str:
    family = player.family
    art = player.lines["artifact"]
    names = list(player.colleagues.values())
    if not names:
        names = dedupe(player.name_of(a) for a in (player.author_of(m) for m in focus.facts) if a)
    team_ctx = dict(ctx, colleagues=player.join(names) or player.grammar["team"])

    blocks: dict[str, list[str]] = {}
    overview = [player.pick(family["overviews"], ctx)]
    if focus.brief:
        overview.append(player.fill(art["brief_line"], ctx))
    blocks["overview"] = overview
    if focus.facts:
        blocks["facts"] = [
            player.fill(art["fact_line"], {"fact": bare(m.description, 160), "id": m.id})
            for m in focus.facts
        ]
    else:
        blocks["facts"] = [art["no_facts"]]
    blocks["points"] = ["- " + p for p in player.pick_many(family["points"], ctx, player.rng.randint(3, 4))]
    blocks["open"] = ["- " + q for q in player.pick_many(art["open_questions"], ctx, 2)]
    blocks["extra"] = extra_block(player, family["extra"], ctx)

    byline = player.fill(art["byline"], {"label": family["label"], "author": player.agent.name, "day": player.spec.day})
    out = [f"# {title}", "", byline, ""]
    for heading, key in family["sections"]:
        out += [f"## {heading}", *blocks[key], ""]
    out.append(player.pick(art["team_lines"], team_ctx))
    return "\n".join(out) + "\n"


def extra_block(player: Player, extra: dict, ctx: dict[str, Any]) -> list[str]:
    """The family's own section: a short scene, image prompts, a list, a checklist or a table."""
    rng = player.rng
    style = extra["style"]
    if style == "scene":
        speaker_a, speaker_b = rng.choice(extra["speakers"])
        return [
            rng.choice(extra["settings"]),
            "",
            f"**{speaker_a}:** {rng.choice(extra['lines_a'])}",
            f"**{speaker_b}:** {rng.choice(extra['lines_b'])}",
            f"**{speaker_a}:** {rng.choice(extra['lines_c'])}",
            "",
            rng.choice(extra["closers"]),
        ]
    low, high = extra["count"]
    count = rng.randint(low, high)
    if style == "prompts":
        views = rng.sample(extra["view"], min(count, len(extra["view"])))
        return [
            player.fill(extra["template"], {
                "n": n,
                "view": view,
                "topic": ctx["topic"],
                "palette": rng.choice(extra["palette"]),
                "light": rng.choice(extra["light"]),
                "look": rng.choice(extra["look"]),
            })
            for n, view in enumerate(views, 1)
        ]
    items = player.pick_many(extra["pool"], ctx, count)
    if style == "numbered":
        return [f"{n}. {item}" for n, item in enumerate(items, 1)]
    if style == "checklist":
        return [f"- [ ] {item}" for item in items]
    if style == "table":
        people = [player.me] + list(player.colleagues.values())
        rows = [
            player.fill(extra["row"], {"task": item, "who": people[n % len(people)], "due": player.spec.day + 1 + n // 2})
            for n, item in enumerate(items)
        ]
        return list(extra["header"]) + rows
    return ["- " + item for item in items]
