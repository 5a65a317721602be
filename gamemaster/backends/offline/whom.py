"""Whom an item is for: who knows it already, as far as the character can tell, and why it would
tell someone who does not.

Whether a listener knows an item is decided from the character's own exchanges only: it told them,
heard it from them, or they were there when someone said it. Whom it tells is a choice
(``reason_to_tell``). At an ARRIVAL of a hundred each player asks both of ninety-nine listeners for
every item it holds, so what depends on the item alone (who was there when it was said, whether it
concerns everyone, what it is about) is worked out once an item and request, and only what depends
on the listener once for each.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from ...lang import phrase
from ...retrieval.text import analyzer
from ...updates import subject_terms
from .naming import about

if TYPE_CHECKING:
    from .news import Item
    from .player import Player


@functools.lru_cache(maxsize=16384)
def plain(text: str) -> str:
    """``text`` as compared with what was said: spaces collapsed, lower case."""
    return " ".join(text.split()).lower()


def knows(player: Player, item: Item, person: str) -> bool:
    """Does ``person`` know ``item``, as far as the character can tell: they said it, were told it
    or were there when it was said. What is said about someone they need not know yet."""
    return person == item.source or person in _knowers(player, item)


def _knowers(player: Player, item: Item) -> frozenset[str]:
    """Who said ``item`` or was there when it was said: found once an item, not again for each
    listener (an ARRIVAL asks about ninety-nine)."""
    memo = player.memo.setdefault("knowers", {})
    key = (item.text, item.words)
    if key not in memo:
        wanted = {plain(item.text), plain(item.words)}
        # What they said in this very talk they know (it is not in the memories yet).
        found = {turn.speaker for turn in player.req.transcript if _in(wanted, turn.says)}
        for line in player.req.exchanges:
            if _in(wanted, line.says):
                found.add(line.speaker)
                found.update(line.present)
        memo[key] = frozenset(found)
    return memo[key]


def _in(wanted: set[str], says: str) -> bool:
    said = plain(says)
    return any(words in said for words in wanted)


#: Of the colleagues a character talked with lately (``news.partners``, most often first), the
#: ones it tells what it holds whatever it is about: a handful, as people have a few they tell
#: everything. Not tuned on a bench: the number of people one confides in.
CLOSE = 3
#: An own observation this important ("einschneidend" on seed 001's scale) is told to anyone who
#: will listen; a heard one is judged by whom it concerns, as the holder did not live it.
EVERYONE_IMPORTANCE = 9
#: Terms an item must share with what the whole studio was told to concern everyone: one shared
#: word („Studio“) is chance, two are the same matter.
COMMON_TERMS = 2


def reason_to_tell(player: Player, item: Item, person: str) -> str | None:
    """Why the character would tell ``person`` the item, or None: it changes what the whole studio
    was told (``common``), it touches what ``person`` works on (their role, team and topics, as the
    roster shows them), ``person`` is one of the few the character is close to, or the character
    lived it and it is einschneidend. What one lived one tells the few one is close to; what one
    heard one passes on to whom it concerns. Whom it names is told it (``about them``), addressed
    (``line``). Who knows an earlier version of it is told the correction (``correction``),
    whoever they are, and whom the earlier version concerned the correction concerns."""
    if any(knows(player, old, person) for old in item.replaces):
        return "correction"
    if about(player, item, person):
        return "about them"
    # Whom the old version concerned, the correction concerns too, whatever words it uses.
    old_reasons = (reason_to_tell(player, old, person) for old in item.replaces)
    return next((r for r in old_reasons if r), None) or _reason(player, item, person)


def _reason(player: Player, item: Item, person: str) -> str | None:
    everyone, subject = _item_terms(player, item)
    if everyone:
        return "everyone"
    if subject & _profile_terms(player.code, player.req.profiles.get(person, "")):
        return "concerned"
    if item.source is None and person in player.req.partners[:CLOSE]:
        return "close"
    if item.source is None and item.importance >= EVERYONE_IMPORTANCE:
        return "einschneidend"
    return None


def _item_terms(player: Player, item: Item) -> tuple[bool, frozenset[str]]:
    """Whether ``item`` changes what the whole studio was told (``COMMON_TERMS`` shared with it),
    and the terms of what it is about; names left out of both. The same for every listener."""
    memo = player.memo.setdefault("item_terms", {})
    if item.text not in memo:
        terms = _terms(player.code, item.text) - _names(player)
        memo[item.text] = (len(terms & _common_terms(player)) >= COMMON_TERMS,
                           subject_terms(player.code, item.text) - _names(player))
    return memo[item.text]


@functools.lru_cache(maxsize=65536)  # bounded: a server plays for days in one process
def _terms(code: str, text: str) -> frozenset[str]:
    return frozenset(analyzer(code).query_terms(text))


@functools.cache
def _profile_terms(code: str, profile: str) -> frozenset[str]:
    """A roster line's terms without the words the roster itself adds („Team“, „arbeitet an“)."""
    frame = phrase(code, "roster_team", team="") + " " + phrase(code, "roster_works_on", topics="")
    return _terms(code, profile) - _terms(code, frame)


def _common_terms(player: Player) -> frozenset[str]:
    """What the whole studio was told, without the words of the brief's frame („Creative Director“)."""
    if "common_terms" not in player.memo:  # the same for every item and listener of the request
        told = frozenset().union(*(_terms(player.code, text) for text in player.req.common))
        player.memo["common_terms"] = told - _terms(player.code, phrase(player.code, "brief", text=""))
    return player.memo["common_terms"]


def _names(player: Player) -> frozenset[str]:
    """The terms of everyone's names: a name says whom an item is about, not what."""
    if "names" not in player.memo:
        player.memo["names"] = frozenset().union(*(_terms(player.code, name) for name in player.req.roster.values()))
    return player.memo["names"]
