"""The offline player's answers to invitations: by its plans, its ties to the host and the topic.

A character declines when the gathering clashes with something it already has for that day
and time of day: another gathering it hosts or has said yes to, today's plan naming that time
(„mittags“, „am Abend“ …), or a plan or brief it remembers that names the day and the time
(„Am Mittwoch mittags zeigst du dem Verlag …“ — a brief's memory keeps its dates as
„Tag 003“). Otherwise it goes when it has a reason to: it knows the host (a memory of its prompt
came from the host or names them — a conversation, something heard, an artifact watched; not
the invitation — or the host is among those it talked with lately), or the gathering is about
something it cares for (one of its interests). A stranger's gathering on a topic of no interest
it declines. There is no draw: the same state gives the same answer in whatever scene.

It may change its mind: a gathering it accepted and now has a clash with (a brief that came
later, today's plan) gets a decline in its next reply. Each answer says why (``because``).

Someone not invited who heard of a gathering (``word_of_mouth.py``) answers it too: by the
same clash, and otherwise goes only where it is sure to be welcome (``_uninvited``). Those who go
mention it to the few they are close to at their table (``mention``), and so word gets round.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...lang import phrase
from ...schedule import ANSWER_REASON_MAX
from ...slots import named_slots, slot_label
from .whom import CLOSE
from .organise import weekday
from .text import clip

if TYPE_CHECKING:
    from ...models import Gathering
    from .player import Player

#: „Tag 003“ / „day 3“: how a memory names a day (briefs and events keep their dates so).
_DAY = re.compile(r"\b(?:tag|day)\s+0*(\d{1,4})\b", re.IGNORECASE)
_QUOTED = re.compile(r"[„“\"]([^„“”\"]{3,})[“”\"]")


def answers(player: Player) -> list[dict]:
    """One answer per open invitation, in the order given, then a decline for each gathering it
    had accepted and now cannot go to."""
    taken = {(g.day, g.slot): g for g in player.req.engagements}
    out = []
    for gathering in player.req.invitations:
        accept, because = _decide(player, gathering, taken)
        because = clip(because, ANSWER_REASON_MAX)  # a gathering's ``what`` alone may be longer
        if accept:
            taken[(gathering.day, gathering.slot)] = gathering
        out.append({"gathering": gathering.id, "answer": "accept" if accept else "decline", "because": because})
    for gathering in player.req.engagements:
        busy = commitment(player, gathering) if gathering.host != player.agent.id else None
        if busy is not None:
            out.append({"gathering": gathering.id, "answer": "decline", "because": _busy(player, busy)})
    return out


def _decide(player: Player, gathering: Gathering, taken: dict) -> tuple[bool, str]:
    """Whether it goes, and why, in its own words."""
    words = player.lines["organise"]["answers"]
    other = taken.get((gathering.day, gathering.slot))
    if other is not None:
        return False, player.fill(words["taken"], {"what": other.what})
    busy = commitment(player, gathering)
    if busy is not None:
        return False, _busy(player, busy)
    host = player.name_of(gathering.host)
    if player.agent.id not in gathering.invited:
        return _uninvited(player, gathering, host)
    if knows(player, gathering.host):
        return True, player.fill(words["knows"], {"host": host})
    interest = player.interest_for([], gathering.what)
    if interest is not None:
        return True, player.fill(words["topic"], {"topic": interest.topic})
    return False, player.fill(words["stranger"], {"host": host})


def _uninvited(player: Player, gathering: Gathering, host: str) -> tuple[bool, str]:
    """Heard of it, not invited: one goes only where one is sure to be welcome: the host is among
    those one talked with, or one knows the host and cares for the topic."""
    words = player.lines["organise"]["answers"]
    if gathering.host in player.req.partners:
        return True, player.fill(words["uninvited_close"], {"host": host})
    interest = player.interest_for([], gathering.what)
    if interest is not None and ties(player, gathering.host) > 0:
        return True, player.fill(words["uninvited_topic"], {"topic": interest.topic})
    return False, player.fill(words["uninvited_stranger"], {"host": host})


def mention(player: Player, declined: set[str]) -> str | None:
    """A word on a gathering the character goes to, to those it is close to who listen and have
    not heard of it (not invited, not told yet): people tell their friends where they are going.
    The host chose whom to invite and does not canvass; one gathering a turn."""
    close = set(player.req.partners[:CLOSE])
    for gathering in player.req.engagements:
        if gathering.host == player.agent.id or gathering.id in declined:
            continue
        told = [p for p in player.req.listeners if p in close and p != gathering.host and p not in gathering.asked()]
        if not told:
            continue
        bank = player.lines["organise"]
        slot = slot_label(player.code, gathering.slot)
        # Mid-sentence, so not through ``fill`` (which starts a sentence with a capital).
        day = phrase(player.code, "weekday_" + weekday(player, gathering.day))
        when = (bank["when_today"].format(slot=slot) if gathering.day == player.spec.day else
                bank["when_day"].format(slot=slot, weekday=day))
        return player.pick(bank["mention"], {"host": player.name_of(gathering.host), "when": when,
                                              "what": gathering.what, "place": gathering.place})
    return None


def _busy(player: Player, text: str) -> str:
    """„Da habe ich schon etwas vor: „Am Mittwoch mittags …““ — a brief's own words, where its
    memory quotes it."""
    quoted = _QUOTED.search(text)
    what = player.quote(quoted.group(1) if quoted else text, ANSWER_REASON_MAX // 2)
    return player.fill(player.lines["organise"]["answers"]["busy"], {"what": what})


def commitment(player: Player, gathering: Gathering) -> str | None:
    """What the character already has for the gathering's day and time of day, as it reads in
    its plan or memory; None when that time is free."""
    plan = player.agent.today_plan
    if plan is not None and gathering.day == player.spec.day and gathering.slot in named_slots(plan.text):
        return plan.text
    for memory in [*player.req.memories, *player.req.since]:
        if memory.metadata.get("source") == "invitation":
            continue  # invitations and answers: the clash with those is ``taken``'s
        if memory.type != "plan" and memory.metadata.get("source") != "brief":
            continue
        named = {int(day) for day in _DAY.findall(memory.description)}
        days = named or ({memory.scene_key[0]} if memory.scene_key else set())
        if gathering.day in days and gathering.slot in named_slots(memory.description):
            return memory.description
    return None


def knows(player: Player, host: str) -> bool:
    return host in player.req.partners or ties(player, host) > 0


def ties(player: Player, host: str) -> int:
    """Memories in the character's prompt that came from the host or name them (not the
    invitation, which every invitee has)."""
    count = 0
    for memory in [*player.req.memories, *player.req.since]:
        meta = memory.metadata
        if meta.get("source") == "invitation":
            continue
        heard = meta.get("heard") if isinstance(meta.get("heard"), list) else []
        if (meta.get("author") == host or host in (meta.get("with") or []) or host in memory.tags
                or any(isinstance(h, dict) and h.get("speaker") == host for h in heard)):
            count += 1
    return count
