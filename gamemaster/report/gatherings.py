"""Gatherings on a day page: what, when, where, the host, who was invited and answered how and
why (the reason an invitee gave with its answer), and, once held, who came, who accepted and
stayed away, and who came uninvited (those not invited who heard of it are listed, with their answers).

A day page shows the gatherings planned for that day; the latest day's page also shows those
still ahead (their day has no page yet). The facts are ``gatherings.overview``'s, the same as
``gamemaster status`` prints; ``gatherings.html`` draws them, everything from the world file escaped.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..calendar import day_text
from ..gatherings import overviews
from ..ids import parse_scene_ref
from ..slots import slot_label
from .html import Link, person
from .studio import Studio

LABELS = {
    "de": {"title": "Treffen", "host": "Gastgeber·in", "invited": "Eingeladen", "heard": "Davon gehört", "accepted": "Zugesagt",
           "declined": "Abgesagt", "no_answer": "Keine Antwort", "came": "Gekommen", "absent": "Zugesagt, nicht gekommen",
           "uninvited": "Ungeladen gekommen", "held": "Fand statt in", "upcoming": "steht bevor", "day": "Tag"},
    "en": {"title": "Gatherings", "host": "Host", "invited": "Invited", "heard": "Heard of it", "accepted": "Accepted", "declined": "Declined",
           "no_answer": "No answer", "came": "Came", "absent": "Accepted, did not come", "uninvited": "Came uninvited",
           "held": "Held in", "upcoming": "upcoming", "day": "Day"},
}


def shown_on(studio: Studio, day: int) -> list[dict]:
    """The gatherings of ``day``'s page, as ``gatherings.overview`` rows (also the page's fingerprint)."""
    latest = studio.days[-1] if studio.days else None
    by_ref = {r.ref: r for records in studio.records.values() for r in records}
    return [row for row in overviews(studio.world, by_ref.get)
            if row["day"] == day or (day == latest and row["day"] > day)]


@dataclass
class Fact:
    """One line of a gathering's facts: people, each with why they answered so where they said
    it (``reasons``), the scene it was held in (``link``), or that it is still ahead."""

    label: str
    people: list[Link] = field(default_factory=list)
    reasons: list[str] | None = None
    link: Link | None = None
    upcoming: bool = False


@dataclass
class Gathering:
    what: str
    when: str
    place: str
    id: str
    facts: list[Fact]


@dataclass
class Gatherings:
    """The gatherings section of a day page, with its labels."""

    words: dict[str, str]
    items: list[Gathering]


def gatherings_of(studio: Studio, day: int) -> Gatherings | None:
    """The gatherings ``day``'s page shows; None when there are none."""
    rows = shown_on(studio, day)
    if not rows:
        return None
    words = LABELS.get(studio.language, LABELS["en"])
    return Gatherings(words, [_item(studio, row, words) for row in rows])


def _people(studio: Studio, ids: list[str]) -> list[Link]:
    return [person(studio, a) for a in ids]


def _answered(studio: Studio, label: str, people: list[str], reasons: dict[str, str]) -> Fact:
    """Who answered so; with why beside each where any of them said it."""
    said = [reasons.get(a) or "" for a in people] if any(reasons.get(a) for a in people) else None
    return Fact(label, _people(studio, people), said)


def _item(studio: Studio, row: dict, words: dict[str, str]) -> Gathering:
    when = f'{words["day"]} {row["day"]} ({day_text(studio.language, studio.world, row["day"])}), {slot_label(studio.language, row["slot"])}'
    facts = [Fact(words["host"], [person(studio, row["host"])])]
    if row["invited"]:
        facts.append(Fact(words["invited"], _people(studio, row["invited"])))
    if row.get("heard"):
        facts.append(Fact(words["heard"], _people(studio, row["heard"])))
    for key in ("accepted", "declined", "no_answer"):
        if row[key]:
            facts.append(_answered(studio, words[key], row[key], row.get("reasons", {})))
    if row["held"]:
        scene_day, scene = parse_scene_ref(row["held"])
        facts.append(Fact(words["held"], link=Link(row["held"], f"day-{scene_day:03d}.html#scene-{scene:02d}")))
        for key in ("came", "absent", "uninvited"):
            if row[key]:
                facts.append(Fact(words[key], _people(studio, row[key])))
    else:
        facts.append(Fact("", upcoming=True))
    return Gathering(row["what"], when, row["place"], row["id"], facts)
