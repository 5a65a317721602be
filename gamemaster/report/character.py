"""A character page: who they are, their plans, the accumulator, reflections as trees,
what they read, and the whole memory stream with filters and search."""

from __future__ import annotations

from ..models import Memory, memory_author
from .charts import accumulator_points, accumulator_svg
from .html import badge, day_file, esc, gallery_file, labels, link, paragraphs, script_json
from .studio import Studio


def render_character(studio: Studio, agent_id: str) -> str:
    words = labels(studio.language)
    agent = studio.agents[agent_id]
    stream = studio.memories.get(agent_id, [])
    facts = f'<dt>{esc(words["role"])}</dt><dd>{esc(agent.role)}</dd>'
    if agent.team:
        facts += f'<dt>{esc(words["team"])}</dt><dd>{esc(agent.team)}</dd>'
    points = accumulator_points(studio, agent_id)
    chart = accumulator_svg(points, studio.world.reflection_threshold, words["threshold"])
    return (
        f'<h1>{esc(agent.name)}</h1><dl class="facts">{facts}</dl>'
        f'<section><h2>{esc(words["persona"])}</h2>{paragraphs(agent.persona)}</section>'
        + _plans(studio, stream, words)
        + f'<section id="accumulator"><h2>{esc(words["accumulator"])}</h2>'
          f'<p class="muted">{esc(words["accumulator_hint"])}</p>{chart}</section>'
        + _reflections(studio, stream, words)
        + _library(studio, agent_id, words)
        + _stream(studio, stream, words)
    )


def _day_of(memory: Memory) -> int:
    return memory.scene_key[0] if memory.scene_key else 0


#: Where a memory came from when it is something the character learned from outside.
LEARNED = ("heard", "meeting", "event", "brief", "artifact", "invitation")


def _learned(memory: Memory) -> bool:
    source = memory.metadata.get("source")
    return memory.type == "conversation" or (memory.type == "observation" and isinstance(source, str)
                                              and (source in LEARNED or source.startswith("library/")))


def _plans(studio: Studio, stream: list[Memory], words: dict[str, str]) -> str:
    """Per day what changed for the character: the plan, new reflections, what they learned."""
    by_day: dict[int, dict[str, list[Memory]]] = {}
    for memory in stream:
        group = ("plan" if memory.type == "plan" else "reflections" if memory.type == "reflection"
                 else "learned" if _learned(memory) else None)
        if group:
            by_day.setdefault(_day_of(memory), {}).setdefault(group, []).append(memory)
    if not by_day:
        return ""
    rows = []
    for n, (day, groups) in enumerate(sorted(by_day.items(), reverse=True)):
        parts = "".join(
            f'<h4>{esc(words[key])} ({len(groups[key])})</h4><ul>'
            + "".join(f"<li>{esc(m.description)} {_anchor(m)}</li>" for m in groups[key]) + "</ul>"
            for key in ("plan", "reflections", "learned") if groups.get(key))
        counts = " · ".join(f"{len(groups[k])} {words[k]}" for k in ("plan", "reflections", "learned") if groups.get(k))
        rows.append(f'<li><details{" open" if n == 0 else ""}><summary>{_day_link(studio, day, words)} '
                    f'<span class="muted">{esc(counts)}</span></summary>{parts}</details></li>')
    return f'<section id="plans"><h2>{esc(words["plans"])}</h2><ul class="plans">{"".join(rows)}</ul></section>'


def _day_link(studio: Studio, day: int, words: dict[str, str], scene: int | None = None) -> str:
    label = f'{words["day"]} {day}'
    if day not in studio.records:
        return esc(label)
    fragment = f"#scene-{scene:02d}" if scene is not None and any(r.scene == scene for r in studio.records[day]) else ""
    return link(f"../{day_file(day)}{fragment}", label + (f" · {scene:02d}" if scene is not None else ""))


def _anchor(memory: Memory) -> str:
    return f'<a class="ref" href="#{esc(memory.id)}">{esc(memory.id)}</a>'


def _foreign(studio: Studio, evidence_id: str) -> str:
    """Evidence from another character's stream: a link to it on their page, with their name."""
    author = memory_author(evidence_id) or ""
    return (f'<a class="ref" href="{esc(author)}.html#{esc(evidence_id)}">{esc(evidence_id)}</a> '
            f'<span class="muted">({esc(studio.name(author))})</span>')


def _reflections(studio: Studio, stream: list[Memory], words: dict[str, str]) -> str:
    by_id = {m.id: m for m in stream}
    reflections = [m for m in stream if m.type == "reflection"]
    if not reflections:
        return ""
    cited = {e for m in reflections for e in m.evidence}
    roots = [m for m in reflections if m.id not in cited]

    expanded: set[str] = set()  # a reflection's tree is drawn once; later it is a link to it

    def tree(memory: Memory, seen: frozenset[str]) -> str:
        expanded.add(memory.id)
        items = []
        for evidence_id in memory.evidence:
            evidence = by_id.get(evidence_id)
            if evidence is None and evidence_id in studio.known_ids:
                items.append(f'<li>{_foreign(studio, evidence_id)}</li>')
            elif evidence is None:
                items.append(f'<li class="missing">{esc(evidence_id)}</li>')
            elif evidence.type == "reflection" and evidence.id in expanded:
                items.append(f'<li>{_anchor(evidence)} {badge(evidence.type, "m-" + evidence.type)} {esc(evidence.description)} '
                             f'<a class="subtree" href="#tree-{esc(evidence.id)}">{esc(words["subtree"])}</a></li>')
            elif evidence.type == "reflection" and evidence.id not in seen:
                items.append(f'<li>{tree(evidence, seen | {evidence.id})}</li>')
            else:
                items.append(f'<li>{_anchor(evidence)} {badge(evidence.type, "m-" + evidence.type)} {esc(evidence.description)}</li>')
        return (f'<div class="insight depth-{min(memory.depth, 4)}" id="tree-{esc(memory.id)}">'
                f'{badge(words["depth"] + " " + str(memory.depth), "depth")} '
                f'{_anchor(memory)} {esc(memory.description)}</div>'
                f'<ul class="evidence" aria-label="{esc(words["evidence"])}">{"".join(items)}</ul>')

    body = "".join(f'<li class="root">{tree(m, frozenset({m.id}))}</li>' for m in reversed(roots))
    return f'<section id="reflections"><h2>{esc(words["reflections"])} ({len(reflections)})</h2><ul class="trees">{body}</ul></section>'


def _library(studio: Studio, agent_id: str, words: dict[str, str]) -> str:
    reads = studio.library_reads(agent_id)
    if not reads:
        return ""
    items = "".join(
        f'<li><code>{esc(m.metadata["source"])}</code> {esc(", ".join(str(s) for s in m.metadata.get("sections") or []))} '
        f'<span class="muted">{_day_link(studio, _day_of(m), words)}</span> {_anchor(m)}</li>'
        for m in reads
    )
    return f'<section id="library"><h2>{esc(words["library"])}</h2><ul>{items}</ul></section>'


def _stream(studio: Studio, stream: list[Memory], words: dict[str, str]) -> str:
    types = sorted({m.type for m in stream})
    tags = sorted({t for m in stream for t in m.tags})
    days = sorted({_day_of(m) for m in stream})

    def select(name: str, label: str, values) -> str:
        options = "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in values)
        return (f'<label>{esc(label)}<select data-filter="{name}"><option value="">{esc(words["all"])}</option>'
                f"{options}</select></label>")

    controls = (
        '<form class="filters" onsubmit="return false">'
        f'<label class="grow">{esc(words["search"])}<input type="search" data-filter="text" autocomplete="off"></label>'
        + select("type", words["filter_type"], types)
        + select("tag", words["filter_tag"], tags)
        + select("day", words["filter_day"], days)
        + select("importance", words["filter_importance"], range(1, 11))
        + f'<button type="reset">{esc(words["reset"])}</button>'
        f'<output data-count>{len(stream)} / {len(stream)} {esc(words["shown"])}</output></form>'
    )
    own = {m.id for m in stream}
    rows = "".join(_row(studio, m, words, own) for m in reversed(stream))
    data = [{"id": m.id, "type": m.type, "day": _day_of(m), "importance": m.importance, "tags": m.tags,
             "text": " ".join([m.id, m.description, *m.tags])} for m in stream]
    return (
        f'<section id="stream"><h2>{esc(words["stream"])} ({len(stream)})</h2>{controls}'
        f'<ol class="stream" data-shown-label="{esc(words["shown"])}">{rows}</ol>'
        f'<script type="application/json" id="memory-data">{script_json(data)}</script></section>'
    )


def _row(studio: Studio, memory: Memory, words: dict[str, str], own: set[str]) -> str:
    day, scene = memory.scene_key or (0, 0)
    extra = []
    if memory.evidence:
        extra.append(f'{esc(words["evidence"])}: ' + " ".join(
            f'<a class="ref" href="#{esc(e)}">{esc(e)}</a>' if e in own
            else _foreign(studio, e) if e in studio.known_ids
            else f'<span class="ref">{esc(e)}</span>' for e in memory.evidence))
    path = memory.metadata.get("artifact_path")
    if isinstance(path, str) and path in studio.artifacts:
        extra.append(link(f"../{gallery_file(path)}", studio.artifacts[path].title))
    source = memory.metadata.get("source")
    if isinstance(source, str) and source.startswith("library/"):
        extra.append(f"<code>{esc(source)}</code>")
    tags = " ".join(f'<span class="tag">{esc(t)}</span>' for t in memory.tags)
    depth = " " + badge(f'{words["depth"]} {memory.depth}', "depth") if memory.depth else ""
    return (
        f'<li class="mem" id="{esc(memory.id)}">'
        f'<div class="meta">{badge(memory.importance, "imp")} {badge(memory.type, "m-" + memory.type)}{depth} '
        f'<span class="muted">{_day_link(studio, day, words, scene if day else None) if day else esc(words["day"] + " 0")}</span> '
        f'<span class="ref">{esc(memory.id)}</span></div>'
        f'<p>{esc(memory.description)}</p>'
        + (f'<div class="tags">{tags}</div>' if tags else "")
        + (f'<div class="extra">{" · ".join(extra)}</div>' if extra else "")
        + "</li>"
    )
