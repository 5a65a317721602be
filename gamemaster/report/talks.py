"""Who talks with whom: a matrix of conversations over the whole run and per day.

A conversation is a scene with a transcript (MEETING, ENCOUNTER, a gathering …) in which
both characters said something: a notice of a meeting someone was not in, a WORK scene side
by side or an ARRIVAL greeting are not talks. Each cell links to the scenes it counts.
"""

from __future__ import annotations

from itertools import combinations

from ..lang import short_name
from ..records import SceneRecord
from .charts import type_class
from .html import day_file, esc, labels, link
from .studio import Studio

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


def _matrix(studio: Studio, found: dict[Pair, list[SceneRecord]], caption: str, per_day: bool) -> str:
    people = [a for a in studio.agents if any(a in pair for pair in found)]
    if not people:
        return f'<p class="muted">{esc(labels(studio.language)["none"])}</p>'
    head = "".join(f'<th scope="col">{esc(short_name(studio.name(a)))}</th>' for a in people)
    rows = []
    for a in people:
        cells = []
        for b in people:
            scenes = found.get(tuple(sorted((a, b))), []) if a != b else []
            if not scenes:
                cells.append('<td><span class="cell empty">·</span></td>')
                continue
            title = ", ".join(f"{r.ref} {r.type}" + (f" · {r.topic}" if r.topic else "") for r in scenes)
            href = _scene_href(scenes[0]) if per_day and len(scenes) == 1 else f"#{_pair_id(tuple(sorted((a, b))))}"
            cells.append(f'<td><a class="cell heat-{min(len(scenes), 6)}" title="{esc(title)}" href="{esc(href)}">{len(scenes)}</a></td>')
        rows.append(f'<tr><th scope="row">{esc(short_name(studio.name(a)))}</th>{"".join(cells)}</tr>')
    return (f'<div class="scroll"><table class="grid talks" aria-label="{esc(caption)}">'
            f'<thead><tr><th></th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def render_talks(studio: Studio, tracked: bool = False) -> str:
    words = labels(studio.language)
    overall = conversations(studio, studio.days)
    knows = f'<p>{link("knows.html", words["knows"] + " →")}</p>' if tracked else ""
    parts = [f'<h1>{esc(words["talks"])}</h1><p class="muted">{esc(words["talks_hint"])}</p>{knows}',
             f'<section id="overall"><h2>{esc(words["talks_overall"])}</h2>{_matrix(studio, overall, words["talks_overall"], False)}</section>']
    for n, day in enumerate(reversed(studio.days)):
        found = conversations(studio, [day])
        label = f'{words["day"]} {day}'
        parts.append(f'<details id="day-{day}"{" open" if n == 0 else ""}><summary>{esc(label)} '
                     f'({len({r.ref for v in found.values() for r in v})})</summary>{_matrix(studio, found, label, True)}</details>')
    pairs = []
    for pair, scenes in sorted(overall.items(), key=lambda item: (-len(item[1]), item[0])):
        names = " – ".join(studio.name(a) for a in pair)
        items = "".join(f'<li>{link(_scene_href(r), words["day"] + f" {r.day} · {r.scene:02d}")} '
                        f'<span class="badge {esc(type_class(r.type))}">{esc(r.type)}</span> {esc(r.topic or "")}</li>' for r in scenes)
        pairs.append(f'<li id="{esc(_pair_id(pair))}"><strong>{esc(names)}</strong> ({len(scenes)})<ul>{items}</ul></li>')
    parts.append(f'<section id="pairs"><h2>{esc(words["scenes"])}</h2><ul class="pairs">{"".join(pairs)}</ul></section>')
    return "".join(parts)
