"""Build the report: every page whose inputs changed since the last build, and the assets.

``manifest.json`` in the output folder keeps a fingerprint of each page's inputs (the files
it is made from, the names it shows, the report's own code). A page whose fingerprint is
unchanged and whose file is still there is left alone, so a rebuild after one more day
renders that day, the overview and the pages that show every day, not the whole logbook.

A page is rendered from the state as loaded and fingerprinted from its files as read later in
the build; a scene written back in between (``day advance`` running) would leave a page whose
fingerprint matches files it does not show. So a build during which the state moved
(``_stamp``) keeps no fingerprints: the next build renders every page again.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path

from .. import jsontext
from ..costs import cost_report
from ..fsio import atomic_write_bytes, atomic_write_text
from ..problems import StateError
from ..scene_files import is_file, read_bytes
from ..who_knows import who_knows
from ..workspace import Workspace
from . import character, day as day_page, gallery, knows, overview, search, shown as scene_page, talks
from .charts import kind_css
from .gatherings import shown_on as gatherings_shown
from .html import Frame, character_file, day_file, gallery_file, labels, scene_file
from .studio import Studio, Turn, day_input_files, day_summary, load_studio, scene_turns, workspace_file

MANIFEST = "manifest.json"
MANIFEST_VERSION = 1
ASSETS = ("style.css", "app.js", "search.js")
DEFAULT_FOLDER = "report"


@dataclass
class BuildResult:
    out: Path
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)

    @property
    def index(self) -> Path:
        return self.out / "index.html"


def _code_fingerprint() -> str:
    """The report's own modules, templates and assets: a new version of them renders every page again."""
    digest = hashlib.sha256()
    package = files("gamemaster.report")
    for name in sorted(p.name for p in package.iterdir() if p.name.endswith(".py")):
        digest.update((package / name).read_bytes())
    for name in ASSETS:
        digest.update((package / "assets" / name).read_bytes())
    for name in sorted(p.name for p in (package / "templates").iterdir() if p.name.endswith(".html")):
        digest.update((package / "templates" / name).read_bytes())
    digest.update(kind_css().encode("utf-8"))
    return digest.hexdigest()


def _fingerprint(*parts: object) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part if isinstance(part, bytes) else json.dumps(part, ensure_ascii=False, sort_keys=True, default=str).encode())
        digest.update(b"\0")
    return digest.hexdigest()


def _file_bytes(workspace: Workspace, paths: list[Path]) -> list[bytes]:
    return [read_bytes(workspace.scenes, path) if is_file(workspace.scenes, path) else b"<missing>" for path in paths]


class _Writer:
    def __init__(self, out: Path, old: dict[str, str], result: BuildResult):
        self.out, self.old, self.result = out, old, result
        self.pages: dict[str, str] = {}

    def page(self, relative: str, fingerprint: str, render) -> None:
        """Write ``relative`` unless its fingerprint matches the last build and the file is there."""
        self.pages[relative] = fingerprint
        target = self.out / relative
        if self.old.get(relative) == fingerprint and target.is_file():
            self.result.unchanged.append(relative)
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(target, render(), durable=False)
        self.result.written.append(relative)


def build_report(workspace: Workspace, out: Path | None = None, track: list[str] | None = None) -> BuildResult:
    """Build into ``out`` (default: ``report/`` in the workspace); returns what was written.

    ``track``: queries whose diffusion the "who knows what" page draws; kept in the manifest,
    so a later build without ``track`` draws them again (``[]`` stops tracking)."""
    workspace.require()
    out = (out or workspace.root / DEFAULT_FOLDER).resolve()
    if out.exists() and not out.is_dir():
        raise StateError(f"{out}: not a folder")
    workspace.check_output_folder(out, "--out", "report/")
    stamp = _stamp(workspace)
    studio = load_studio(workspace)
    result = BuildResult(out)
    old_pages, old_tracked = _read_manifest(out)
    writer = _Writer(out, old_pages, result)
    tracked = list(dict.fromkeys(q.strip() for q in (old_tracked if track is None else track) if q.strip()))
    code = _code_fingerprint()
    language, title = studio.language, studio.world.studio
    words = labels(language)
    names = {a.id: [a.name, a.role, a.team] for a in studio.agents.values()}

    def frame(page_title: str, prefix: str, current: str, script: bool = False) -> Frame:
        return Frame(page_title, title, language, prefix, current, script)

    for name in ASSETS:
        data = (files("gamemaster.report") / "assets" / name).read_bytes()
        if name == "style.css":
            data += kind_css().encode("utf-8")
        writer.page(f"assets/{name}", _fingerprint(data), lambda data=data: data.decode("utf-8"))

    everything = _fingerprint(code, _studio_state(studio))
    # Each scene's turns, with its replies read (and an archived day's unpacked) once for the
    # three pages that show them: its day page, the search index and its own page.
    turns = {r.ref: scene_turns(workspace, r) for day in studio.days for r in studio.records[day]}

    costs = cost_report(workspace)
    writer.page("index.html", _fingerprint(everything, costs),
                lambda: overview.render_overview(studio, costs, frame(title, "", "overview")))
    writer.page("days/index.html", everything, lambda: overview.render_days_index(studio, frame(words["days"], "../", "days")))
    writer.page("characters/index.html", everything,
                lambda: overview.render_characters_index(studio, frame(words["characters"], "../", "characters")))
    _day_pages(workspace, studio, writer, _fingerprint(code, title, names), frame, turns)
    writer.page("talks.html", _fingerprint(everything, tracked), lambda: talks.render_talks(
        studio, frame(words["talks"], "", "talks"), bool(tracked)))
    if tracked:
        writer.page("knows.html", _fingerprint(everything, tracked), lambda: knows.render_knows(
            studio, [who_knows(workspace, q) for q in tracked], frame(words["knows"], "", "talks")))
    elif (out / "knows.html").is_file():  # tracking stopped: no page of it is left to be found
        (out / "knows.html").unlink()
    _scene_pages(workspace, studio, writer, code, frame, turns)
    _search(workspace, studio, writer, everything, frame, turns)
    for agent_id in studio.agents:
        writer.page(character_file(agent_id), everything, lambda agent_id=agent_id: character.render_character(
            studio, agent_id, frame(studio.name(agent_id), "../", "characters", script=True)))
    writer.page("gallery/index.html", everything, lambda: gallery.render_gallery_index(
        studio, frame(words["gallery"], "../", "gallery")))
    _artifact_pages(workspace, studio, writer, _fingerprint(code, title, names), frame)
    # The state moved during the build: no page of it vouches for what it shows.
    _write_manifest(out, writer.pages if _stamp(workspace) == stamp else {}, tracked)
    return result


def _day_pages(workspace: Workspace, studio, writer: _Writer, common: str, frame, turns) -> None:
    """A page a day, rebuilt when its own files, the day before it or the frame (``common``) changed."""
    words = labels(studio.language)
    for day in studio.days:
        records = studio.records[day]
        # The date of day 1 (start_date, or its default from first_weekday) dates every page.
        day_inputs = _fingerprint(common, day, studio.world.first_weekday, studio.world.date(1).isoformat(),
                                  [d for d in studio.days if d < day][-1:],
                                  _file_bytes(workspace, day_input_files(workspace, records, day)),
                                  _day_context(studio, day))
        writer.page(day_file(day), day_inputs, lambda day=day, records=records: day_page.render_day(
            studio, day, {r.ref: turns[r.ref] for r in records}, day_summary(workspace, day),
            frame(f'{words["day"]} {day}', "../", "days")))


def _artifact_pages(workspace: Workspace, studio, writer: _Writer, common: str, frame) -> None:
    """A page an artifact, rebuilt when its versions, their files or what mentions it changed."""
    for path, artifact in studio.artifacts.items():
        series = gallery.versions(studio, artifact)
        inputs = _fingerprint(common, artifact.__dict__, [a.__dict__ for a in series],
                              _file_bytes(workspace, [workspace.root / a.path for a in series]),
                              [(a, m.id, m.description, m.importance) for a, m in studio.mentions(artifact)], sorted(studio.records))
        writer.page(gallery_file(path), inputs, lambda artifact=artifact: gallery.render_artifact(
            studio, artifact, frame(artifact.title, "../", "gallery")))


def _stamp(workspace: Workspace) -> list:
    """Size and change time of every file a scene written back rewrites or adds (world, agents,
    streams, scene records, day summaries, the gallery): equal before and after a build only if
    nothing was written meanwhile."""
    paths = [workspace.world_path, *workspace.agents_dir.glob("*.json"), *workspace.memories_dir.glob("*.jsonl"),
             *workspace.scenes.glob("day-*/summary.md"), *workspace.scenes.glob("day-*/scene-*/scene.json"),
             *workspace.scenes.glob("day-*.tar.xz"), *workspace.gallery.rglob("*.md")]
    stamp = []
    for path in paths:
        try:
            info = path.stat()
        except OSError:
            continue
        stamp.append((str(path), info.st_size, info.st_mtime_ns))
    return sorted(stamp)


def _search(workspace: Workspace, studio: Studio, writer: _Writer, everything: str, frame,
            turns: dict[str, list[Turn]]) -> None:
    """The search page and its index, made from every day's files and every artifact."""
    inputs = [p for day in studio.days for p in day_input_files(workspace, studio.records[day], day)]
    inputs += [workspace.root / path for path in studio.artifacts]
    fingerprint = _fingerprint(everything, _file_bytes(workspace, inputs))
    words = labels(studio.language)
    writer.page("search/index.js", fingerprint, lambda: search.build_index(studio, turns).script())
    writer.page("search.html", fingerprint, lambda: search.render_search(studio, frame(words["search_all"], "", "search")))


def _scene_pages(workspace: Workspace, studio: Studio, writer: _Writer, code: str, frame,
                 turns_of: dict[str, list[Turn]]) -> None:
    """One page per scene: each reply with what its character was shown, prev/next scene."""
    refs = [r for day in studio.days for r in studio.records[day]]
    names = {a.id: a.name for a in studio.agents.values()}
    for n, record in enumerate(refs):
        neighbours = (refs[n - 1].ref if n else None, refs[n + 1].ref if n + 1 < len(refs) else None)
        turns = turns_of[record.ref]
        inputs = [workspace.scene_dir(record.ref) / "scene.json"]
        inputs += [p for p in (workspace_file(workspace, r) for r in (record.replies or {}).values()) if p]
        inputs += [p for t in turns for p in scene_page.turn_files(workspace, record, t.label)]
        linked = sorted({i for t in turns for i in scene_page.shown_ids(workspace, record, t.label) or []} & studio.known_ids)
        fingerprint = _fingerprint(code, studio.world.studio, names, neighbours, _file_bytes(workspace, inputs), linked)
        writer.page(scene_file(record.ref), fingerprint, lambda record=record, turns=turns, neighbours=neighbours: scene_page.render_scene(
            studio, record, turns, {t.label: scene_page.read_shown(workspace, record, t) for t in turns}, neighbours,
            frame(record.ref, "../", "days")))


def _studio_state(studio: Studio) -> list:
    """What the overview, indexes and character pages show: world, agents, memories, records."""
    return [
        studio.world.dump(),
        {a.id: a.dump() for a in studio.agents.values()},
        {a: [m.model_dump(mode="json") for m in stream] for a, stream in studio.memories.items()},
        {d: [r.dump() for r in records] for d, records in studio.records.items()},
        {p: a.__dict__ for p, a in studio.artifacts.items()},
    ]


def _day_context(studio: Studio, day: int) -> list:
    """What a day page shows from outside its own folder: brief and event texts, artifact titles, linkable memory ids,
    gatherings."""

    records = studio.records[day]
    briefs = {b: studio.brief_texts.get(b) for r in records for b in r.brief_ids}
    events = {r.event_id: studio.event_texts.get(r.event_id) for r in records if r.event_id}
    summary = day_summary(studio.workspace, day)
    paths = {p for r in records for p in r.artifacts or []} | set(summary.artifacts if summary else [])
    titles = {p: [studio.artifacts[p].title, studio.artifacts[p].author] if p in studio.artifacts else None for p in sorted(paths)}
    ids = sorted({w.id for r in records for w in r.written or []} & studio.known_ids)
    return [briefs, events, titles, ids, gatherings_shown(studio, day)]


def _read_manifest(out: Path) -> tuple[dict[str, str], list[str]]:
    """The last build's page fingerprints and tracked queries."""
    try:
        data = jsontext.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}, []  # no manifest (or a damaged one): every page is rendered again
    if not isinstance(data, dict) or data.get("version") != MANIFEST_VERSION or not isinstance(data.get("pages"), dict):
        return {}, []
    tracked = data.get("tracked") if isinstance(data.get("tracked"), list) else []
    return ({k: v for k, v in data["pages"].items() if isinstance(k, str) and isinstance(v, str)},
            [q for q in tracked if isinstance(q, str)])


def _write_manifest(out: Path, pages: dict[str, str], tracked: list[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    text = jsontext.dumps({"version": MANIFEST_VERSION, "pages": pages, "tracked": tracked}, indent=1, sort_keys=True) + "\n"
    atomic_write_bytes(out / MANIFEST, text.encode("utf-8"), durable=False)
