"""Word of mouth: who hears of a gathering without being invited.

A line said in a scene names a gathering still ahead when it carries its id, or the words of its
``what`` (two of them, or the one there is; not the names of people) together with a sign of
whose it is: said by the host, or naming the host or the place. Whoever heard that line and is
neither host nor invitee is added to the gathering's ``heard`` (``state/world.json``); their next
prompt lists it as something they heard of, and they may answer it as an invitee would and
come (``gatherings.guests``). The host's own invitation said aloud at a table counts: those at
the table who were not invited heard it.

The words and the sign together keep a line about „Abend“ and „Spiel“ from inviting anyone to
„Spieleabend“; a line that names a gathering in other words is not read as naming it.
"""

from __future__ import annotations

import functools
from typing import Callable, Iterable

from .lang import short_name
from .retrieval.text import analyzer
from .schedule import Gathering

#: Words of a gathering's ``what`` a line must share with it (fewer when ``what`` has fewer).
SHARED_WORDS = 2


@functools.cache
def _terms(code: str, text: str) -> frozenset[str]:
    return frozenset(analyzer(code).query_terms(text))


@functools.cache
def _name_terms(code: str, names: frozenset[str]) -> frozenset[str]:
    """The terms of everyone's names: read once per roster, not per line and gathering."""
    return frozenset().union(*(_terms(code, name) for name in names))


def names_gathering(code: str, gathering: Gathering, speaker: str, says: str, names: dict[str, str]) -> bool:
    """Whether ``says`` (by ``speaker``) names ``gathering``: its id, or its words with a sign of
    whose it is (the host says it, or the line names the host or the place)."""
    if gathering.id in says:
        return True
    people = _name_terms(code, frozenset(names.values()))
    wanted = _terms(code, gathering.what) - people
    if not wanted:
        return False
    said = _terms(code, says)
    if len(wanted & said) < min(SHARED_WORDS, len(wanted)):
        return False
    host = names.get(gathering.host, gathering.host)
    host_terms = _terms(code, short_name(host)) | _terms(code, host)
    place = _terms(code, gathering.place) - people
    return speaker == gathering.host or bool(host_terms & said) or bool(place and place <= said)


def told_by(code: str, gathering: Gathering, lines, agent: str, names: dict[str, str]) -> list[str]:
    """Who, of the lines the character heard lately (``news.Exchange``), named the gathering to it."""
    return list(dict.fromkeys(line.speaker for line in lines if line.speaker != agent
                              and names_gathering(code, gathering, line.speaker, line.says, names)))


def spread(code: str, gatherings: Iterable[Gathering], day: int, said: list[tuple[str, str]],
           hearers: Callable[[str], list[str]], names: dict[str, str]) -> dict[str, list[str]]:
    """Add to each gathering still ahead the listeners of a line naming it who were not asked yet;
    returns gathering id → who heard of it now."""
    found: dict[str, list[str]] = {}
    for gathering in gatherings:
        if gathering.held is not None or gathering.day < day:
            continue
        for speaker, says in said:
            if not says.strip() or not names_gathering(code, gathering, speaker, says, names):
                continue
            for listener in hearers(speaker):
                if listener != gathering.host and listener not in gathering.asked():
                    gathering.heard.append(listener)
                    found.setdefault(gathering.id, []).append(listener)
    return found
