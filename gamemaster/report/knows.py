"""Who knows what: for each tracked query (``report --track``), who would recall it since
which scene and from whom (``who_knows``, the same answer as ``gamemaster who-knows``), per
day, and the chain it travelled along drawn as a nested list: who told whom (``knows.html``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..models import parse_scene_ref
from ..who_knows import SELF, Diffusion, Knowing
from .html import Frame, Link, character_file, day_file, labels
from .studio import Studio
from .templating import render


@dataclass
class Told:
    """One character in the chain: since when, from whom (None: first-hand), what they recall, whom they told."""

    who: Link
    since: Link
    source: Link | None
    text: str
    told: list[Told] = field(default_factory=list)


@dataclass
class Tracked:
    query: str
    knowing: int
    characters: int
    chain: list[Told]
    days: list[tuple[Link, list[bool]]]  # per character, per day: knew it by then


def _since(studio: Studio, row: Knowing, words: dict[str, str]) -> tuple[int, Link]:
    try:
        day, scene = parse_scene_ref(row.since) if row.since else (0, 0)
    except ValueError:
        return 0, Link(row.since)
    label = f'{words["day"]} {day} · {scene:02d}'
    return day, Link(label, f"{day_file(day)}#scene-{scene:02d}") if day in studio.records else Link(label)


def _source(studio: Studio, row: Knowing) -> Link | None:
    if row.source == SELF:
        return None
    return Link(studio.name(row.source), character_file(row.source)) if row.source in studio.agents else Link(row.source)


def _chain(studio: Studio, diffusion: Diffusion, words: dict[str, str]) -> list[Told]:
    knowing = {row.agent: row for row in diffusion.knowing}
    told: dict[str, list[Knowing]] = {}
    for row in knowing.values():
        if row.source in knowing and row.source != row.agent:
            told.setdefault(row.source, []).append(row)
    drawn: set[str] = set()

    def node(row: Knowing) -> Told:
        drawn.add(row.agent)
        children = [c for c in sorted(told.get(row.agent, []), key=lambda c: (c.since or "", c.agent)) if c.agent not in drawn]
        below = [node(c) for c in children]
        return Told(Link(row.name, character_file(row.agent)), _since(studio, row, words)[1], _source(studio, row),
                    row.text, below)

    roots = [r for r in knowing.values() if r.source not in knowing or r.source == r.agent]
    chain = [node(r) for r in sorted(roots, key=lambda r: (r.since or "", r.agent))]
    return chain + [node(r) for r in knowing.values() if r.agent not in drawn]  # a ring of retellings: drawn once


def _per_day(studio: Studio, diffusion: Diffusion, words: dict[str, str]) -> list[tuple[Link, list[bool]]]:
    rows = []
    for row in diffusion.rows:
        day = _since(studio, row, words)[0] if row.knows else None
        rows.append((Link(row.name, character_file(row.agent)), [day is not None and d >= day for d in studio.days]))
    return rows


def render_knows(studio: Studio, diffusions: list[Diffusion], frame: Frame) -> str:
    words = labels(studio.language)
    tracked = [Tracked(d.query, len(d.knowing), len(d.rows), _chain(studio, d, words), _per_day(studio, d, words))
               for d in diffusions]
    return render("knows.html", frame, tracked=tracked, days=studio.days)
