"""EVENT: the character hears of something that changes the day and may change its plan."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import news
from .focus import own_focus, plan_focus

if TYPE_CHECKING:
    from .player import Player


def play(player: Player) -> dict[str, Any]:
    lines = player.lines["event"]
    focus = plan_focus(player) or own_focus(player)
    ctx = player.base_ctx(focus)
    ctx["event"] = player.quote(player.spec.topic or "", 90)
    reply: dict[str, Any] = {"action": player.pick(lines["actions"], ctx), "says": player.pick_fresh(lines["says"], ctx, spoken=True)}
    replans = player.rng.random() < 0.5
    memory = player.pick_fresh(lines["memories_replan" if replans else "memories_keep"], ctx)
    reply["memories"] = [player.note(memory, player.rng.randint(4, 6), ["event", *focus.tags])]
    if replans:
        reply["plan"] = {"text": player.pick_fresh(lines["replan_texts"], ctx), "tags": ["event", *focus.tags][:5],
                         "importance": player.rng.randint(5, 6)}
    told = news.tell(player)  # last in drawing order: without news the reply is as before
    if told:
        reply["says"] = f"{reply['says']} {told}".strip()
    return reply
