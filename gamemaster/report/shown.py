"""A scene page: per reply, what the character was shown — the memories of each prompt
section (each a link to the memory on its character's page), the library excerpts, and the
whole prompt one click away. It answers "why did she say that?".

The prompt is read back from the scene folder (``prompts/``), the ids it showed from
``shown/<turn>.json`` (the evidence check's own record), the excerpts from ``library/``.
A memory line in a prompt reads ``- [<id> · <where> · …] <text>``; the section it is under is
the nearest ``## heading``, ``**bold heading**`` or line ending in a colon above it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .. import jsontext, scene_files
from ..models import memory_author
from ..records import SceneRecord
from ..workspace import Workspace
from .charts import type_class
from .html import badge, character_file, day_file, esc, labels, link, paragraphs, scene_file
from .studio import Studio, Turn, workspace_file

_MEMORY_LINE = re.compile(r"^\s*- \[(?P<id>[^\s\]·]+) · (?P<meta>[^\]]*)\] ?(?P<text>.*)$")
_HEADING = re.compile(r"^(?:#{1,6} +(?P<hash>.+)|\*\*(?P<bold>[^*]+)\*\*.*|(?P<colon>[^\s\-*#].{0,80}:))\s*$")


@dataclass
class Section:
    title: str
    memories: list[tuple[str, str, str]] = field(default_factory=list)  # (id, where · type …, text)


@dataclass
class Shown:
    """What one turn's prompt showed; ``prompt`` None when the scene folder does not keep it."""

    label: str
    agent: str
    prompt: str | None
    ids: list[str] | None
    sections: list[Section]
    excerpts: list[dict]
    #: What the character looked up in its own memory on the way (``lookup.py``): query and ids.
    lookups: list[dict] = field(default_factory=list)


def turn_files(workspace: Workspace, record: SceneRecord, label: str) -> list[Path]:
    """The files a turn's view is made from (for the build's fingerprint)."""
    folder = workspace.scene_dir(record.ref)
    prompt = (record.prompts or {}).get(label)
    found = [folder / "shown" / f"{label}.json", folder / "library" / f"{label}.json", folder / "lookups" / f"{label}.json"]
    path = workspace_file(workspace, prompt) if prompt else None
    return found + ([path] if path else [])


def _read(workspace: Workspace, path: Path) -> str | None:
    """A scene file's text from its folder or its day's archive (``gamemaster day archive``);
    None where it is not kept, or lies behind a link out of the workspace."""
    if path.exists() and not workspace.readable(path):
        return None
    try:
        return scene_files.read_bytes(workspace, path).decode("utf-8", errors="replace")
    except OSError:
        return None


def _json_list(workspace: Workspace, path: Path, key: str) -> list | None:
    text = _read(workspace, path)
    try:
        data = jsontext.loads(text) if text is not None else None
    except ValueError:
        return None
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, list) else None


def shown_ids(workspace: Workspace, record: SceneRecord, label: str) -> list[str] | None:
    """The memory ids the turn's prompt showed (``shown/<turn>.json``); None when not kept."""
    ids = _json_list(workspace, workspace.scene_dir(record.ref) / "shown" / f"{label}.json", "memories")
    return [i for i in ids if isinstance(i, str)] if ids is not None else None


def sections_of(prompt: str, ids: set[str] | None) -> list[Section]:
    """The prompt's sections that show memories, in prompt order; a memory shown twice (its
    topic and 'since your last scene') is listed under each."""
    found: list[Section] = []
    current = Section("")
    for line in prompt.splitlines():
        memory = _MEMORY_LINE.match(line)
        if memory:
            if ids is None or memory["id"] in ids:
                if not found or found[-1] is not current:
                    found.append(current)
                current.memories.append((memory["id"], memory["meta"], memory["text"]))
            continue
        heading = _HEADING.match(line)
        if heading and not line.startswith((" ", "-")):
            title = (heading["hash"] or heading["bold"] or heading["colon"]).strip().rstrip(":").strip("*").strip()
            current = Section(title)
    return found


def read_shown(workspace: Workspace, record: SceneRecord, turn: Turn) -> Shown:
    folder = workspace.scene_dir(record.ref)
    ids = shown_ids(workspace, record, turn.label)
    excerpts = [e for e in _json_list(workspace, folder / "library" / f"{turn.label}.json", "excerpts") or [] if isinstance(e, dict)]
    relative = (record.prompts or {}).get(turn.label)
    path = workspace_file(workspace, relative) if relative else None
    prompt = _read(workspace, path) if path else None
    sections = sections_of(prompt, set(ids) if ids is not None else None) if prompt else []
    listed = {m[0] for s in sections for m in s.memories}
    missing = [i for i in ids or [] if i not in listed]
    if missing:  # shown, but not as a memory line (a brief, a heard line): still named
        sections.append(Section("", [(i, "", "") for i in missing]))
    lookups = [entry for entry in _json_list(workspace, folder / "lookups" / f"{turn.label}.json", "lookups") or []
               if isinstance(entry, dict)]
    return Shown(turn.label, turn.agent, prompt, ids, sections, excerpts, lookups)


def turn_anchor(label: str) -> str:
    return f"turn-{label}"


def _memory_link(studio: Studio, memory_id: str) -> str:
    author = memory_author(memory_id) or ""
    if memory_id in studio.known_ids and author in studio.agents:
        return f'<a class="ref" href="{esc(f"../{character_file(author)}#{memory_id}")}">{esc(memory_id)}</a>'
    return f'<span class="ref">{esc(memory_id)}</span>'


def render_shown(studio: Studio, shown: Shown, words: dict[str, str]) -> str:
    if shown.prompt is None and shown.ids is None:
        return f'<p class="muted">{esc(words["no_prompt"])}</p>'
    parts = []
    count = len(shown.ids) if shown.ids is not None else sum(len(s.memories) for s in shown.sections)
    parts.append(f'<p class="muted">{count} {esc(words["memories"])}</p>')
    for section in shown.sections:
        items = "".join(
            f'<li>{_memory_link(studio, mid)} <span class="muted">{esc(meta)}</span> {esc(text)}</li>'
            for mid, meta, text in section.memories)
        title = f'<h4>{esc(section.title)}</h4>' if section.title else ""
        parts.append(f'<div class="section">{title}<ul class="mems">{items}</ul></div>')
    if shown.lookups:
        items = "".join(
            f'<li><q>{esc(entry.get("query"))}</q> → '
            + (", ".join(_memory_link(studio, str(i)) for i in entry.get("memories") or [])
               or f'<span class="muted">{esc(words["lookup_none"])}</span>') + "</li>"
            for entry in shown.lookups)
        parts.append(f'<div class="section"><h4>{esc(words["looked_up"])}</h4><ul class="lookups">{items}</ul></div>')
    if shown.excerpts:
        items = "".join(
            f'<li><code>{esc(e.get("path"))}</code> {esc(e.get("heading") or "")}'
            f'<blockquote>{paragraphs(str(e.get("text") or ""))}</blockquote></li>' for e in shown.excerpts)
        parts.append(f'<div class="section"><h4>{esc(words["library"])}</h4><ul class="excerpts">{items}</ul></div>')
    if shown.prompt is not None:
        parts.append(f'<details class="prompt"><summary>{esc(words["full_prompt"])}</summary>'
                     f'<pre>{esc(shown.prompt)}</pre></details>')
    return "".join(parts)


def render_scene(studio: Studio, record: SceneRecord, turns: list[Turn], shown: dict[str, Shown],
                 neighbours: tuple[str | None, str | None]) -> str:
    words = labels(studio.language)
    before, after = neighbours
    pager = " · ".join(p for p in (
        link(scene_file(before).split("/", 1)[1], "← " + words["previous_scene"]) if before else "",
        link(f"../{day_file(record.day)}#scene-{record.scene:02d}", f'{words["day"]} {record.day}'),
        link(scene_file(after).split("/", 1)[1], words["next_scene"] + " →") if after else "") if p)
    cards = []
    for turn in turns:
        name = studio.name(turn.agent)
        who = link(f"../{character_file(turn.agent)}", name) if turn.agent in studio.agents else esc(turn.agent)
        reply = ""
        if turn.reply is not None:
            reply = paragraphs(turn.reply.action) + (f'<q>{esc(turn.reply.says)}</q>' if turn.reply.says else "")
        view = shown.get(turn.label)
        cards.append(
            f'<li class="card turn" id="{esc(turn_anchor(turn.label))}"><header><span class="num">{esc(turn.label.split("-", 1)[0])}</span>'
            f'<h2>{who}</h2></header>{reply}'
            f'<h3>{esc(words["what_shown"])}</h3>{render_shown(studio, view, words) if view else ""}</li>')
    title = record.topic or ", ".join(studio.name(p) for p in record.participants)
    return (f'<h1>{esc(words["scene"])} {esc(record.ref)} {badge(record.type, type_class(record.type))}</h1>'
            f'<p class="pager">{pager}</p><p><strong>{esc(title)}</strong></p>'
            f'<dl class="facts"><dt>{esc(words["why"])}</dt><dd>{esc(studio.reason(record))}</dd></dl>'
            f'<ol class="turns">{"".join(cards)}</ol><p class="pager">{pager}</p>')
