"""The offline player's answers to invitations: by its plans and its ties to the host.

A character declines when the gathering clashes with what it has already said yes to
(another gathering of the same day and slot, hosted or accepted) or with its stated
plan (today's plan names that time of day: „mittags“, „am Abend“ …). Otherwise it
accepts with a chance that grows with how well it knows the host: 75 % for a stranger,
5 points more for every memory of its prompt that came from the host or names them
(a conversation, something heard, an artifact watched; not the invitation), at most 95 %. The draw is
seeded by world seed, gathering and character, so neither the scene nor the turn in
which the invitation is answered changes the answer, and the rest of the reply's draws
are untouched.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...slots import slot_words
from .text import WORD_RE

if TYPE_CHECKING:
    from .player import Player

BASE_ACCEPT = 0.75
PER_TIE = 0.05
MOST_ACCEPT = 0.95


def answers(player: Player) -> list[dict]:
    """One answer per open invitation, in the order given."""
    taken = {(g.day, g.slot) for g in player.req.engagements}
    out = []
    for gathering in player.req.invitations:
        accept = _accepts(player, gathering, taken)
        if accept:
            taken.add((gathering.day, gathering.slot))
        out.append({"gathering": gathering.id, "answer": "accept" if accept else "decline"})
    return out


def _accepts(player: Player, gathering, taken: set) -> bool:
    if (gathering.day, gathering.slot) in taken or _plan_clashes(player, gathering):
        return False
    chance = min(MOST_ACCEPT, BASE_ACCEPT + PER_TIE * ties(player, gathering.host))
    return player.rng_for(gathering.id).random() < chance


def _plan_clashes(player: Player, gathering) -> bool:
    plan = player.agent.today_plan
    if plan is None or gathering.day != player.spec.day:
        return False
    words = {w.lower() for w in WORD_RE.findall(plan.text)}
    return bool(words & set(slot_words(gathering.slot)))


def ties(player: Player, host: str) -> int:
    """Memories in the character's prompt that came from the host or name them."""
    count = 0
    for memory in [*player.req.memories, *player.req.since]:
        meta = memory.metadata
        heard = meta.get("heard") if isinstance(meta.get("heard"), list) else []
        if (meta.get("author") == host or host in (meta.get("with") or []) or host in memory.tags
                or any(isinstance(h, dict) and h.get("speaker") == host for h in heard)):
            count += 1
    return count
