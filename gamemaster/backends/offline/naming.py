"""Whom a news item names: a colleague by the name the studio uses or the full one, and not
another whose name holds theirs („Darius 2“ is not Darius).

What is looked up here is the same for every item and for every character who sees the same
colleagues, so it is worked out once for them: at an ARRIVAL of a hundred, a hundred players
ask it of ninety-nine listeners each.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from ...lang import short_name
from .text import mention

if TYPE_CHECKING:
    from .news import Item
    from .player import Player


def about(player: Player, item: Item, person: str) -> bool:
    """Whether ``item`` names ``person`` (by the name colleagues use, or the full one), and not
    another whose name holds theirs („Darius 2“ is not Darius)."""
    names, holding, forms = _names_holding(player, person)
    lowered = item.text.lower()
    # Neither name in the text at all (the common case): no pattern needs trying.
    if not any(form in lowered for form in forms):
        return False
    longer = {n for n in holding if mention(item.text, n)}
    text = item.text
    for name in sorted(longer, key=len, reverse=True):
        text = text.replace(name, "")
    return any(mention(text, name) for name in names)


def _names_holding(player: Player, person: str) -> tuple[set[str], set[str], tuple[str, ...]]:
    """``person``'s names, the other colleagues' names that hold one of them, and the names in lower
    case, with spaces for hyphens too (how a text may write them)."""
    if "names_holding" not in player.memo:
        # Everyone's names, the colleagues' as the request gives them: one table for every player of
        # the scene (each leaves out only itself), and the next scenes' while the names stay.
        roster = {**player.req.roster, **player.req.colleagues}
        player.memo["names_holding"] = (_holding_table(tuple((other, _short(other, full), full)
                                                              for other, full in roster.items())), {})
    table, found = player.memo["names_holding"]
    if person not in found:
        colleagues = player.req.colleagues
        names = {n for n in (player.name_of(person), colleagues.get(person, "")) if len(n) > 2}
        holding = {n for other, n in table.holding(frozenset(names)) if other != person and other in colleagues}
        forms = tuple(form for name in names for form in (name.lower(), name.lower().replace("-", " ")))
        found[person] = names, holding, forms
    return found[person]


def _short(agent_id: str, name: str) -> str:
    """How colleagues call someone (``Player.name_of`` of a colleague)."""
    return short_name(name) or agent_id.capitalize()


class _Holding(dict):
    """names → every (colleague, one of their names) holding one of them, for one roster of names."""

    def __init__(self, roster: tuple[tuple[str, str, str], ...]):
        super().__init__()
        self.roster = roster

    def holding(self, names: frozenset[str]) -> list[tuple[str, str]]:
        if names not in self:
            self[names] = [(other, n) for other, short, full in self.roster for n in (short, full)
                           if any(name in n and name != n for name in names)]
        return self[names]


@functools.lru_cache(maxsize=8)
def _holding_table(roster: tuple[tuple[str, str, str], ...]) -> _Holding:
    return _Holding(roster)
