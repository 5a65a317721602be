"""The overview and the two index pages, days and characters (``overview.html``, ``days.html``,
``characters.html``)."""

from __future__ import annotations

from ..calendar import day_text
from ..records import SceneRecord
from .charts import scenes_chart, type_order
from .html import Cell, Frame, Link, character_file, day_file, labels
from .studio import Studio
from .templating import render


def type_counts(studio: Studio) -> dict[int, dict[str, int]]:
    counts: dict[int, dict[str, int]] = {}
    for day in studio.days:
        for record in studio.records[day]:
            counts.setdefault(day, {}).setdefault(record.type, 0)
            counts[day][record.type] += 1
    return counts


def _ordered_types(counts: dict[int, dict[str, int]]) -> list[str]:
    present = {kind for c in counts.values() for kind in c}
    order = type_order()
    return sorted(present, key=lambda k: (order.index(k) if k in order else 99, k))


def render_overview(studio: Studio, costs: dict | None, frame: Frame) -> str:
    words = labels(studio.language)
    counts = type_counts(studio)
    kinds = _ordered_types(counts)
    memories = sum(len(s) for s in studio.memories.values())
    reflections = sum(1 for s in studio.memories.values() for m in s if m.type == "reflection")
    stats = [(len(studio.days), words["days_played"]), (sum(len(r) for r in studio.records.values()), words["scenes"]),
             (memories, words["memories"]), (len(studio.artifacts), words["artifacts"]), (reflections, words["reflections"])]
    return render(
        "overview.html", frame, title=studio.world.studio, stats=stats, kinds=kinds, chart=scenes_chart(counts, words["day"]),
        per_day=[(Link(f'{words["day"]} {day}', day_file(day)), [counts[day].get(k, 0) or "" for k in kinds],
                  sum(counts[day].values())) for day in studio.days],
        activity=_activity(studio), day_labels=[f'{words["day"]} {day}' for day in studio.days],
        people=characters(studio, ""), artifacts=len(studio.artifacts),
        cost_days=sorted(costs["days"].items()) if costs and costs["total"]["calls"] else None,
        cost_total=costs["total"] if costs else None,
    )


def characters(studio: Studio, prefix: str) -> list[tuple[Link, str, str | None]]:
    """Each character's card: a link to their page, role and team."""
    return [(Link(a.name, prefix + character_file(a.id)), a.role, a.team) for a in studio.agents.values()]


def _activity(studio: Studio) -> list[tuple[Link, list[Cell | None]]]:
    """Character × day: per character the scenes they were in each day, the first of them on the
    day page (None: none)."""
    rows = []
    for agent_id in studio.agents:
        cells: list[Cell | None] = []
        for day in studio.days:
            present = [r for r in studio.records[day] if agent_id in r.participants]
            cells.append(Cell(f"{day_file(day)}#scene-{present[0].scene:02d}",
                                  ", ".join(f"{r.scene:02d} {r.type}" for r in present), len(present)) if present else None)
        rows.append((Link(studio.name(agent_id), character_file(agent_id)), cells))
    return rows


def render_days_index(studio: Studio, frame: Frame) -> str:
    """Each day (a link from beside its page) with its date and its scenes, each with its title on the run timeline."""
    words = labels(studio.language)
    days = [(Link(f'{words["day"]} {day}', day_file(day).split("/", 1)[1]), day_text(studio.language, studio.world, day),
             [(r, _mark_title(r)) for r in studio.records[day]]) for day in studio.days]
    return render("days.html", frame, days=days)


def _mark_title(record: SceneRecord) -> str:
    return f"{record.scene:02d} {record.type} {record.topic or ''}".strip()


def render_characters_index(studio: Studio, frame: Frame) -> str:
    return render("characters.html", frame, people=characters(studio, "../"))
