"""Who knows what: for each tracked query (``report --track``), who would recall it since
which scene and from whom (``who_knows``, the same answer as ``gamemaster who-knows``), per
day, and the chain it travelled along drawn as a nested list: who told whom."""

from __future__ import annotations

from ..models import parse_scene_ref
from ..who_knows import SELF, Diffusion, Knowing
from .html import character_file, day_file, esc, labels, link
from .studio import Studio


def _since(studio: Studio, row: Knowing, words: dict[str, str]) -> tuple[int, str]:
    try:
        day, scene = parse_scene_ref(row.since) if row.since else (0, 0)
    except ValueError:
        return 0, esc(row.since)
    label = f'{words["day"]} {day} · {scene:02d}'
    return day, link(f"{day_file(day)}#scene-{scene:02d}", label) if day in studio.records else esc(label)


def _source(studio: Studio, row: Knowing, words: dict[str, str]) -> str:
    return link(character_file(row.source), studio.name(row.source)) if row.source in studio.agents else esc(row.source)


def _chain(studio: Studio, diffusion: Diffusion, words: dict[str, str]) -> str:
    knowing = {row.agent: row for row in diffusion.knowing}
    told: dict[str, list[Knowing]] = {}
    for row in knowing.values():
        if row.source in knowing and row.source != row.agent:
            told.setdefault(row.source, []).append(row)
    drawn: set[str] = set()

    def node(row: Knowing) -> str:
        drawn.add(row.agent)
        children = [c for c in sorted(told.get(row.agent, []), key=lambda c: (c.since or "", c.agent)) if c.agent not in drawn]
        below = "".join(node(c) for c in children)
        _, since = _since(studio, row, words)
        source = esc(words["own"]) if row.source == SELF else f'{esc(words["from"])} {_source(studio, row, words)}'
        return (f'<li><strong>{link(character_file(row.agent), row.name)}</strong> <span class="muted">{since} · '
                f'{source}</span>'
                + (f'<q>{esc(row.text)}</q>' if row.text else "") + (f"<ul>{below}</ul>" if below else "") + "</li>")

    roots = [r for r in knowing.values() if r.source not in knowing or r.source == r.agent]
    body = "".join(node(r) for r in sorted(roots, key=lambda r: (r.since or "", r.agent)))
    body += "".join(node(r) for r in knowing.values() if r.agent not in drawn)  # a ring of retellings: drawn once
    return f'<ul class="chain">{body}</ul>'


def _per_day(studio: Studio, diffusion: Diffusion, words: dict[str, str]) -> str:
    head = "".join(f'<th scope="col">{esc(words["day"])} {d}</th>' for d in studio.days)
    rows = []
    for row in diffusion.rows:
        day, _ = _since(studio, row, words) if row.knows else (None, "")
        cells = "".join(f'<td>{"●" if day is not None and d >= day else "·"}</td>' for d in studio.days)
        rows.append(f'<tr><th scope="row">{link(character_file(row.agent), row.name)}</th>{cells}</tr>')
    return (f'<div class="scroll"><table class="grid knows"><thead><tr><th></th>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def render_knows(studio: Studio, diffusions: list[Diffusion]) -> str:
    words = labels(studio.language)
    parts = [f'<h1>{esc(words["knows"])}</h1><p class="muted">{esc(words["knows_hint"])}</p>']
    for n, diffusion in enumerate(diffusions, 1):
        parts.append(f'<section id="track-{n}"><h2>„{esc(diffusion.query)}“ <small class="muted">'
                     f'{len(diffusion.knowing)} / {len(diffusion.rows)}</small></h2>'
                     f'<h3>{esc(words["knows_chain"])}</h3>{_chain(studio, diffusion, words)}'
                     f'<h3>{esc(words["knows_days"])}</h3>{_per_day(studio, diffusion, words)}</section>')
    return "".join(parts)
