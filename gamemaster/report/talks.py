"""Who talks with whom: a matrix of conversations over the whole run and per day.

A conversation is a scene with a transcript (MEETING, ENCOUNTER, a gathering …) in which
both characters said something: a notice of a meeting someone was not in, a WORK scene side
by side or an ARRIVAL greeting are not talks. Each cell links to the scenes it counts (``talks.html``).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from ..lang import short_name
from ..records import SceneRecord
from .html import Cell, Frame, Link, day_file, labels
from .studio import Studio
from .templating import render

Pair = tuple[str, str]


def talks(record: SceneRecord) -> list[Pair]:
    """The pairs who spoke with each other in the scene (sorted ids)."""
    speakers = sorted({line.speaker for line in record.transcript or [] if line.says.strip()} & set(record.participants))
    return list(combinations(speakers, 2))


def conversations(studio: Studio, days: list[int]) -> dict[Pair, list[SceneRecord]]:
    found: dict[Pair, list[SceneRecord]] = {}
    for day in days:
        for record in studio.records[day]:
            for pair in talks(record):
                found.setdefault(pair, []).append(record)
    return found


def _pair_id(pair: Pair) -> str:
    return f"pair-{pair[0]}-{pair[1]}"


def _scene_href(record: SceneRecord) -> str:
    return f"{day_file(record.day)}#scene-{record.scene:02d}"


@dataclass
class Matrix:
    caption: str
    names: list[str]  # the characters who talked with anyone, first names
    #: One a character, a cell for each of ``names``: the first scene (a day's single one) or the pair's list.
    rows: list[list[Cell | None]]


def _matrix(studio: Studio, found: dict[Pair, list[SceneRecord]], caption: str, per_day: bool) -> Matrix:
    people = [a for a in studio.agents if any(a in pair for pair in found)]
    rows = []
    for a in people:
        cells: list[Cell | None] = []
        for b in people:
            pair = tuple(sorted((a, b)))
            scenes = found.get(pair, []) if a != b else []
            title = ", ".join(f"{r.ref} {r.type}" + (f" · {r.topic}" if r.topic else "") for r in scenes)
            href = _scene_href(scenes[0]) if per_day and len(scenes) == 1 else f"#{_pair_id(pair)}"
            cells.append(Cell(href, title, len(scenes)) if scenes else None)
        rows.append(cells)
    return Matrix(caption, [short_name(studio.name(a)) for a in people], rows)


def render_talks(studio: Studio, frame: Frame, tracked: bool = False) -> str:
    words = labels(studio.language)
    overall = conversations(studio, studio.days)
    days = []
    for day in reversed(studio.days):
        found = conversations(studio, [day])
        label = f'{words["day"]} {day}'
        days.append((day, label, len({r.ref for v in found.values() for r in v}), _matrix(studio, found, label, True)))
    pairs = [(_pair_id(pair), " – ".join(studio.name(a) for a in pair),
              [(r, Link(words["day"] + f" {r.day} · {r.scene:02d}", _scene_href(r))) for r in scenes])
             for pair, scenes in sorted(overall.items(), key=lambda item: (-len(item[1]), item[0]))]
    return render("talks.html", frame, tracked=tracked, overall=_matrix(studio, overall, words["talks_overall"], False),
                  days=days, pairs=pairs)
