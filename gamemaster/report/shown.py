"""A scene page: per reply, what the character was shown — the memories of each prompt
section (each a link to the memory on its character's page), the library excerpts, and the
whole prompt one click away (``scene.html``). It answers "why did she say that?".

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
from ..replies import Reply
from ..workspace import Workspace
from .html import Frame, Link, day_file, memory_link, person, scene_file
from .studio import Studio, Turn, workspace_file
from .templating import render

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
        return scene_files.read_bytes(workspace.scenes, path).decode("utf-8", errors="replace")
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


def _memory_link(studio: Studio, memory_id: str) -> Link:
    """A memory of any character's stream, linked to it on its author's page where it is there."""
    return memory_link(studio, memory_author(memory_id) or "", memory_id)


@dataclass
class View:
    """What ``scene.html`` shows of one turn's prompt: each memory a link (``_memory_link``)."""

    shown: Shown
    count: int
    sections: list[tuple[str, list[tuple[Link, str, str]]]]  # (title, [(memory, where · type …, text)])
    lookups: list[tuple[object, list[Link]]]  # (the query, the memories it found)
    excerpts: list[tuple[object, str, str]]  # (path, heading, text) of each library excerpt


@dataclass
class TurnCard:
    label: str
    anchor: str
    who: Link
    reply: Reply | None  # None: not stored
    view: View | None


def _view(studio: Studio, shown: Shown) -> View:
    count = len(shown.ids) if shown.ids is not None else sum(len(s.memories) for s in shown.sections)
    sections = [(s.title, [(_memory_link(studio, mid), meta, text) for mid, meta, text in s.memories]) for s in shown.sections]
    lookups = [(entry.get("query"), [_memory_link(studio, str(i)) for i in entry.get("memories") or []])
               for entry in shown.lookups]
    excerpts = [(e.get("path"), str(e.get("heading") or ""), str(e.get("text") or "")) for e in shown.excerpts]
    return View(shown, count, sections, lookups, excerpts)


def render_scene(studio: Studio, record: SceneRecord, turns: list[Turn], shown: dict[str, Shown],
                 neighbours: tuple[str | None, str | None], frame: Frame) -> str:
    before, after = neighbours
    cards = [TurnCard(turn.label, turn_anchor(turn.label), person(studio, turn.agent), turn.reply,
                      _view(studio, shown[turn.label]) if turn.label in shown else None) for turn in turns]
    return render(
        "scene.html", frame, record=record, cards=cards, reason=studio.reason(record),
        title=record.topic or ", ".join(studio.name(p) for p in record.participants),
        before=scene_file(before).split("/", 1)[1] if before else None,
        day=f"../{day_file(record.day)}#scene-{record.scene:02d}",
        after=scene_file(after).split("/", 1)[1] if after else None,
    )
