"""The overview and the two index pages (days, characters)."""

from __future__ import annotations

from ..calendar import day_text
from .charts import scenes_per_day_svg, type_class, type_order
from .html import badge, character_file, day_file, esc, labels, link, table
from .studio import Studio


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


def render_overview(studio: Studio, costs: dict | None) -> str:
    words = labels(studio.language)
    counts = type_counts(studio)
    memories = sum(len(s) for s in studio.memories.values())
    reflections = sum(1 for s in studio.memories.values() for m in s if m.type == "reflection")
    stats = "".join(
        f'<div class="stat"><span class="value">{value}</span><span class="label">{esc(label)}</span></div>'
        for value, label in ((len(studio.days), words["days_played"]),
                             (sum(len(r) for r in studio.records.values()), words["scenes"]),
                             (memories, words["memories"]), (len(studio.artifacts), words["artifacts"]),
                             (reflections, words["reflections"]))
    )
    parts = [f'<h1>{esc(studio.world.studio)}</h1><div class="stats">{stats}</div>']
    if not studio.days:
        parts.append(f'<p class="muted">{esc(words["no_days"])}</p>')
    else:
        kinds = _ordered_types(counts)
        legend = "".join(f'<span class="legend">{badge(k, type_class(k))}</span>' for k in kinds)
        rows = [[link(day_file(day), f'{words["day"]} {day}'), *[str(counts[day].get(k, 0) or "") for k in kinds],
                 f"<strong>{sum(counts[day].values())}</strong>"] for day in studio.days]
        parts.append(f'<section id="scenes"><h2>{esc(words["scenes_per_type"])}</h2>'
                     f'{scenes_per_day_svg(counts, words["day"])}<p>{legend}</p>'
                     f'{table([words["day"], *kinds, words["total"]], rows, "numbers")}</section>')
        parts.append(_activity(studio, words))
    if costs and costs["total"]["calls"]:
        rows = [[esc(day), str(row["calls"]), f'{row["usd"]:.4f}'] for day, row in sorted(costs["days"].items())]
        rows.append([f'<strong>{esc(words["total"])}</strong>', str(costs["total"]["calls"]), f'<strong>{costs["total"]["usd"]:.4f}</strong>'])
        parts.append(f'<section id="cost"><h2>{esc(words["cost"])}</h2>{table([words["day"], words["calls"], "USD"], rows, "numbers")}</section>')
    parts.append(f'<section id="links"><h2>{esc(words["characters"])}</h2>{_character_cards(studio, "")}'
                 f'<p>{link("days/index.html", words["days"])} ({len(studio.days)}) · '
                 f'{link("gallery/index.html", words["gallery"])} ({len(studio.artifacts)})</p></section>')
    return "".join(parts)


def _activity(studio: Studio, words: dict[str, str]) -> str:
    """Character × day: how many scenes each was in, each cell listing the scene types on hover."""
    head = [words["characters"], *[f'{words["day"]} {d}' for d in studio.days]]
    rows = []
    for agent_id in studio.agents:
        cells = [link(character_file(agent_id), studio.name(agent_id))]
        for day in studio.days:
            present = [r for r in studio.records[day] if agent_id in r.participants]
            if not present:
                cells.append('<span class="cell empty">·</span>')
                continue
            title = ", ".join(f"{r.scene:02d} {r.type}" for r in present)
            heat = min(len(present), 6)
            first = present[0].scene
            cells.append(f'<a class="cell heat-{heat}" title="{esc(title)}" href="{esc(day_file(day))}#scene-{first:02d}">{len(present)}</a>')
        rows.append(cells)
    return (f'<section id="activity"><h2>{esc(words["activity"])}</h2><p class="muted">{esc(words["activity_hint"])}</p>'
            f'{table(head, rows, "grid")}</section>')


def _character_cards(studio: Studio, prefix: str) -> str:
    cards = "".join(
        f'<li>{link(prefix + character_file(a.id), a.name)}<span class="muted">{esc(a.role)}'
        f'{" · " + esc(a.team) if a.team else ""}</span></li>'
        for a in studio.agents.values()
    )
    return f'<ul class="cards">{cards}</ul>'


def render_days_index(studio: Studio) -> str:
    words = labels(studio.language)
    if not studio.days:
        return f'<h1>{esc(words["days"])}</h1><p class="muted">{esc(words["no_days"])}</p>'
    items = []
    for day in studio.days:
        kinds = " ".join(badge(r.type, type_class(r.type)) for r in studio.records[day])
        items.append(f'<li>{link(day_file(day).split("/", 1)[1], words["day"] + " " + str(day))} '
                     f'<span class="muted">{esc(day_text(studio.language, studio.world, day))}</span><div class="kinds">{kinds}</div></li>')
    return (f'<h1>{esc(words["days"])}</h1>' + _timeline(studio, words)
            + f'<ul class="cards days">{"".join(items)}</ul>')


def _mark_title(record) -> str:
    return f"{record.scene:02d} {record.type} {record.topic or ''}".strip()


def _timeline(studio: Studio, words: dict[str, str]) -> str:
    """The whole run at a glance: one row a day, one mark a scene (its type's colour), each a link."""
    rows = []
    for day in studio.days:
        marks = "".join(
            f'<a class="badge tick {esc(type_class(r.type))}" title="{esc(_mark_title(r))}" '
            f'href="{esc(day_file(day).split("/", 1)[1])}#scene-{r.scene:02d}">{r.scene:02d}</a>'
            for r in studio.records[day])
        rows.append(f'<li><span class="when">{link(day_file(day).split("/", 1)[1], words["day"] + " " + str(day))}</span>'
                    f'<span class="marks">{marks}</span></li>')
    return f'<section id="timeline"><h2>{esc(words["timeline"])}</h2><ol class="runline">{"".join(rows)}</ol></section>'


def render_characters_index(studio: Studio) -> str:
    words = labels(studio.language)
    return f'<h1>{esc(words["characters"])}</h1>{_character_cards(studio, "../")}'
