"""Gatherings on a day page: what, when, where, the host, who was invited and answered how and
why (the reason an invitee gave with its answer), and, once held, who came, who accepted and
stayed away, and who came uninvited (those not invited who heard of it are listed, with their answers).

A day page shows the gatherings planned for that day; the latest day's page also shows those
still ahead (their day has no page yet). The facts are ``gatherings.overview``'s, the same as
``gamemaster status`` prints. Everything from the world file goes through ``esc``.
"""

from __future__ import annotations

from ..calendar import day_text
from ..gatherings import overviews
from ..ids import parse_scene_ref
from ..slots import slot_label
from .html import character_file, esc, link
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


def render_gatherings(studio: Studio, day: int) -> str:
    rows = shown_on(studio, day)
    if not rows:
        return ""
    words = LABELS.get(studio.language, LABELS["en"])
    items = "".join(_item(studio, row, words) for row in rows)
    return f'<section class="gatherings" id="gatherings"><h2>{esc(words["title"])}</h2><ul class="acts">{items}</ul></section>'


def _who(studio: Studio, agent_id: str) -> str:
    if agent_id not in studio.agents:
        return esc(agent_id)
    return link(f"../{character_file(agent_id)}", studio.name(agent_id))


def _answered(studio: Studio, people: list[str], reasons: dict[str, str]) -> str:
    """Who answered so, each with why where they said it."""
    if not any(reasons.get(a) for a in people):
        return ", ".join(_who(studio, a) for a in people)
    items = "".join(f"<li>{_who(studio, a)}" + (f": {esc(reasons[a])}" if reasons.get(a) else "") + "</li>"
                    for a in people)
    return f'<ul class="reasons">{items}</ul>'


def _item(studio: Studio, row: dict, words: dict[str, str]) -> str:
    when = f'{words["day"]} {row["day"]} ({day_text(studio.language, studio.world, row["day"])}), {slot_label(studio.language, row["slot"])}'
    facts = [(words["host"], _who(studio, row["host"]))]
    if row["invited"]:
        facts.append((words["invited"], ", ".join(_who(studio, a) for a in row["invited"])))
    if row.get("heard"):
        facts.append((words["heard"], ", ".join(_who(studio, a) for a in row["heard"])))
    for key in ("accepted", "declined", "no_answer"):
        if row[key]:
            facts.append((words[key], _answered(studio, row[key], row.get("reasons", {}))))
    if row["held"]:
        scene_day, scene = parse_scene_ref(row["held"])
        held = link(f"day-{scene_day:03d}.html#scene-{scene:02d}", row["held"])
        facts.append((words["held"], held))
        for key in ("came", "absent", "uninvited"):
            if row[key]:
                facts.append((words[key], ", ".join(_who(studio, a) for a in row[key])))
    else:
        facts.append(("", f'<em>{esc(words["upcoming"])}</em>'))
    listed = "".join(f"<dt>{esc(label)}</dt><dd>{value}</dd>" for label, value in facts)
    return (f'<li><strong>{esc(row["what"])}</strong> · {esc(when)} · {esc(row["place"])} '
            f'<span class="muted">({esc(row["id"])})</span><dl class="facts">{listed}</dl></li>')
