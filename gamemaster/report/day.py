"""A day page: the day's scenes as a timeline of cards, then the day summary."""

from __future__ import annotations

from ..calendar import day_text
from ..lang import join_names, short_name
from ..records import DaySummary, SceneRecord, WrittenMemory
from .charts import type_class
from .gatherings import render_gatherings
from .html import badge, character_file, esc, gallery_file, labels, link, paragraphs, scene_file
from .shown import turn_anchor
from .studio import Studio, Turn


def render_day(studio: Studio, day: int, turns: dict[str, list[Turn]], summary: DaySummary | None) -> str:
    words = labels(studio.language)
    records = studio.records.get(day, [])
    toc = "".join(
        f'<li><a href="#scene-{r.scene:02d}">{badge(r.type, type_class(r.type))} {esc(r.topic or scene_people(studio, r))}</a></li>'
        for r in records
    )
    earlier = [d for d in studio.days if d < day]
    later = [d for d in studio.days if d > day]
    steps = [link(f"day-{earlier[-1]:03d}.html", "← " + words["previous_day"]) if earlier else "",
             link("index.html", words["timeline"]),
             link(f"day-{later[0]:03d}.html", words["next_day"] + " →") if later else ""]
    back = f'<p class="pager">{" · ".join(s for s in steps if s)}</p>'
    cards = "".join(_scene_card(studio, record, turns.get(record.ref, []), words) for record in records)
    return (
        f'<h1>{esc(words["day"])} {day} <small>{esc(day_text(studio.language, studio.world, day))}</small></h1>{back}'
        f'<nav class="toc"><ol>{toc}</ol></nav>'
        f'<ol class="timeline">{cards}</ol>'
        + render_gatherings(studio, day)
        + _summary(studio, summary, words)
    )


def scene_people(studio: Studio, record: SceneRecord) -> str:
    """A scene without a topic is named after who was in it (first names, as the studio speaks)."""
    return join_names(studio.language, [short_name(studio.name(p)) for p in record.participants])


def _who(studio: Studio, agent_id: str) -> str:
    if agent_id not in studio.agents:
        return esc(agent_id)
    return link(f"../{character_file(agent_id)}", studio.name(agent_id))


def memory_ref(studio: Studio, agent_id: str, memory_id: str) -> str:
    """A link to the memory on its character's page, or just its id when the stream no longer has it."""
    if memory_id not in studio.known_ids or agent_id not in studio.agents:
        return f'<span class="ref">{esc(memory_id)}</span>'
    return f'<a class="ref" href="{esc(f"../{character_file(agent_id)}#{memory_id}")}">{esc(memory_id)}</a>'


def _memory_line(studio: Studio, written: WrittenMemory) -> str:
    return (f'<li>{badge(written.importance, "imp")} {badge(written.type, "m-" + written.type)} '
            f'{esc(written.description)} {memory_ref(studio, written.agent, written.id)}</li>')


def _scene_card(studio: Studio, record: SceneRecord, turns: list[Turn], words: dict[str, str]) -> str:
    people = ", ".join(_who(studio, p) for p in record.participants)
    if record.rooms:  # a large studio's WORK: who sat with whom
        people = "<br>".join(f'{esc(words["room"])} {n}: ' + ", ".join(_who(studio, p) for p in room)
                             for n, room in enumerate(record.rooms, 1))
    head = (f'<header><span class="num">{record.scene:02d}</span> {badge(record.type, type_class(record.type))}'
            f'<h2>{esc(record.topic or scene_people(studio, record))}</h2>'
            f'<a class="open" href="{esc("../" + scene_file(record.ref))}">{esc(words["open_scene"])} →</a></header>')
    facts = (f'<dl class="facts"><dt>{esc(words["why"])}</dt><dd>{esc(studio.reason(record))}</dd>'
             f'<dt>{esc(words["who"])}</dt><dd>{people}</dd></dl>')
    parts = [head, facts]
    briefs = studio.brief_texts
    for brief_id in record.brief_ids:
        parts.append(f'<p class="note brief"><strong>{esc(words["brief"])}</strong> ({esc(brief_id)}): '
                     f'{esc(briefs.get(brief_id, brief_id))}</p>')
    if record.event_id:
        text = studio.event_texts.get(record.event_id, record.event_id)
        parts.append(f'<p class="note event"><strong>{esc(words["event"])}</strong>: {esc(text)}</p>')
    parts.append(_exchange(studio, record, turns, words))
    if record.artifacts:
        items = "".join(f"<li>{_artifact_link(studio, path)}</li>" for path in record.artifacts)
        parts.append(f'<h3>{esc(words["artifacts"])}</h3><ul class="artifacts">{items}</ul>')
    written = record.written or []
    own = [w for w in written if w.agent in record.participants]
    others = [w for w in written if w.agent not in record.participants]
    for title, group in ((words["wrote"], own), (words["others_got"], others)):
        if not group:
            continue
        by_agent: dict[str, list[WrittenMemory]] = {}
        for w in group:
            by_agent.setdefault(w.agent, []).append(w)
        blocks = "".join(
            f'<div class="who">{_who(studio, agent)}<ul class="mems">{"".join(_memory_line(studio, w) for w in items)}</ul></div>'
            for agent, items in by_agent.items()
        )
        parts.append(f'<details><summary>{esc(title)} ({len(group)})</summary>{blocks}</details>')
    return f'<li class="card" id="scene-{record.scene:02d}">{"".join(parts)}</li>'


def _shown_link(studio: Studio, record: SceneRecord, turn: Turn, words: dict[str, str]) -> str:
    """The way from a reply to what its character was shown (the scene page keeps the prompt)."""
    if not (record.prompts or {}).get(turn.label):
        return ""
    href = f"../{scene_file(record.ref)}#{turn_anchor(turn.label)}"
    text = words["shown_link"].format(name=short_name(studio.name(turn.agent)))
    return f' <a class="shown" href="{esc(href)}">{esc(text)}</a>'


def _exchange(studio: Studio, record: SceneRecord, turns: list[Turn], words: dict[str, str]) -> str:
    """Each turn: who, what they did and, beside it, the line they said (a MEETING's action stays
    with its line); lines of the transcript no turn accounts for are listed where they fell."""
    lines = list(record.transcript or [])
    items = []
    for turn in turns:
        said = ""
        if turn.reply is not None and not record.transcript:
            said = turn.reply.says or ""
        elif turn.reply is not None and turn.reply.says:
            mine = next((n for n, line in enumerate(lines) if line.speaker == turn.agent), None)
            if mine is not None:
                for stray in lines[:mine]:  # lines no reply of this record accounts for, where they fell
                    items.append(f'<li><span class="speaker">{_who(studio, stray.speaker)}</span><q>{esc(stray.says)}</q></li>')
                said, lines = lines[mine].says, lines[mine + 1:]
        if turn.reply is None:
            items.append(f'<li><span class="speaker">{_who(studio, turn.agent)}</span><em>{esc(words["no_reply"])}</em></li>')
            continue
        quote = f'<q>{esc(said)}</q>' if said else ""
        items.append(f'<li><span class="speaker">{_who(studio, turn.agent)}{_shown_link(studio, record, turn, words)}</span>'
                     f'{quote}<div class="act">{paragraphs(turn.reply.action)}</div></li>')
    items += [f'<li><span class="speaker">{_who(studio, line.speaker)}</span><q>{esc(line.says)}</q></li>' for line in lines]
    if not items:
        return ""
    title = words["dialogue"] if record.transcript else words["actions"]
    body = f'<ol class="dialogue">{"".join(items)}</ol>'
    if len(items) > 4:  # a long exchange is folded: the page stays a scan of the day
        return f'<details class="exchange"><summary>{esc(title)} ({len(items)})</summary>{body}</details>'
    return f'<h3>{esc(title)}</h3>{body}'


def _artifact_link(studio: Studio, path: str) -> str:
    artifact = studio.artifacts.get(path)
    if artifact is None:  # neither its memory nor its file is left: there is no page to link to
        return f"<code>{esc(path)}</code>"
    title = artifact.title
    author = f' <span class="muted">· {esc(studio.name(artifact.author))}</span>' if artifact.author else ""
    return link(f"../{gallery_file(path)}", title) + author


def _summary(studio: Studio, summary: DaySummary | None, words: dict[str, str]) -> str:
    if summary is None:
        return ""
    def memories(items: list[WrittenMemory]) -> str:
        if not items:
            return f'<p class="muted">{esc(words["none"])}</p>'
        return '<ul class="mems">' + "".join(
            f'<li>{badge(w.importance, "imp")} {_who(studio, w.agent)}: {esc(w.description)} '
            f'{memory_ref(studio, w.agent, w.id)}</li>' for w in items
        ) + "</ul>"
    artifacts = "".join(f"<li>{_artifact_link(studio, p)}</li>" for p in summary.artifacts) or f'<li class="muted">{esc(words["none"])}</li>'
    threads = "".join(f"<li>{esc(t)}</li>" for t in summary.open_threads) or f'<li class="muted">{esc(words["none"])}</li>'
    return (
        f'<section class="summary" id="summary"><h2>{esc(words["summary"])}</h2>'
        f'<p>{len(summary.scenes)} {esc(words["scenes"])} · {summary.memories_written} {esc(words["memories"])}</p>'
        f'<h3>{esc(words["highlights"])}</h3>{memories(summary.highlights)}'
        f'<h3>{esc(words["artifacts"])}</h3><ul>{artifacts}</ul>'
        f'<h3>{esc(words["reflections"])}</h3>{memories(summary.reflections)}'
        f'<h3>{esc(words["open_threads"])}</h3><ul>{threads}</ul></section>'
    )
