"""Whom a news item names: a colleague by the name the studio uses or the full one, and not
another whose name holds theirs („Darius 2“ is not Darius).

What is looked up here is the same for every item and for every character who sees the same
colleagues, so it is worked out once for them: at an ARRIVAL of a hundred, a hundred players
ask it of ninety-nine listeners each.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from .text import mention

if TYPE_CHECKING:
    from .news import Item
    from .player import Player


def about(player: Player, item: Item, person: str) -> bool:
    """Whether ``item`` names ``person`` (by the name colleagues use, or the full one), and not
    another whose name holds theirs („Darius 2“ is not Darius)."""
    names, holding = _names_holding(player, person)
    lowered = item.text.lower()
    # Neither name in the text at all (the common case): no pattern needs trying.
    if not any(form in lowered for name in names for form in (name.lower(), name.lower().replace("-", " "))):
        return False
    longer = {n for n in holding if mention(item.text, n)}
    text = item.text
    for name in sorted(longer, key=len, reverse=True):
        text = text.replace(name, "")
    return any(mention(text, name) for name in names)


def _names_holding(player: Player, person: str) -> tuple[set[str], set[str]]:
    """``person``'s names, and the other colleagues' names that hold one of them."""
    if "names_holding" not in player.memo:
        roster = tuple((other, player.name_of(other), full) for other, full in player.req.colleagues.items())
        player.memo["names_holding"] = _holding_table(roster)
    table = player.memo["names_holding"]
    if person in table:
        return table[person]
    names = {n for n in (player.name_of(person), player.req.colleagues.get(person, "")) if len(n) > 2}
    found = names, {n for other, short, full in table.roster if other != person
                    for n in (short, full) if any(name in n and name != n for name in names)}
    if person in player.req.colleagues:  # a row of the roster: its names are the table's, whoever asks
        table[person] = found
    return found


class _Holding(dict):
    """person → (names, the others' names holding one), for one roster of names."""

    def __init__(self, roster: tuple[tuple[str, str, str], ...]):
        super().__init__()
        self.roster = roster


@functools.lru_cache(maxsize=8)
def _holding_table(roster: tuple[tuple[str, str, str], ...]) -> _Holding:
    return _Holding(roster)
