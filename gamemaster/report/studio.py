"""What the report shows, read through the toolkit's own models: world, agents, memory
streams, scene records, replies and day summaries."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from .. import scene_files
from ..gallery import read_front_matter
from ..library import FOLDER as LIBRARY_FOLDER
from ..reasons import reason
from ..models import Agent, Memory, World, parse_scene_ref
from ..problems import Problem
from ..records import DaySummary, SceneRecord, read_record
from ..replies import Reply
from ..sections import reply_model_for
from ..workspace import Workspace


@dataclass
class Artifact:
    path: str  # gallery/<kind>/<file>.md, relative to the workspace
    title: str
    kind: str
    author: str | None
    created: str | None
    memory_id: str | None


@dataclass
class Turn:
    label: str  # "02-vera"
    agent: str
    reply: Reply | None


@dataclass
class Studio:
    workspace: Workspace
    world: World
    agents: dict[str, Agent]
    memories: dict[str, list[Memory]]
    #: Day → its applied scene records in order (pending scenes are not part of the logbook yet).
    records: dict[int, list[SceneRecord]]
    artifacts: dict[str, Artifact] = field(default_factory=dict)

    @property
    def language(self) -> str:
        return self.world.language

    @property
    def days(self) -> list[int]:
        return sorted(self.records)

    def reason(self, record: SceneRecord) -> str:
        """The Game Master's reason in the studio's language, with first names."""
        return reason(self.language, record.reason, {a.id: a.name for a in self.agents.values()})

    def name(self, agent_id: str) -> str:
        agent = self.agents.get(agent_id)
        return agent.name if agent else agent_id

    @cached_property
    def known_ids(self) -> set[str]:
        """Every memory id, so a link to a memory is only made where its anchor exists."""
        return {m.id for stream in self.memories.values() for m in stream}

    @cached_property
    def brief_texts(self) -> dict[str, str]:
        """Brief id → the memory it became (a brief seen by everyone is gone from world.json)."""
        found = {b.id: b.text for b in self.world.briefs}
        for stream in self.memories.values():
            for memory in stream:
                if memory.metadata.get("source") == "brief" and isinstance(memory.metadata.get("brief"), str):
                    found.setdefault(memory.metadata["brief"], memory.description)
        return found

    @cached_property
    def event_texts(self) -> dict[str, str]:
        return {event.id: event.text for event in self.world.events}

    def scene_day(self, ref: str | None) -> int | None:
        try:
            return parse_scene_ref(ref)[0] if ref else None
        except ValueError:
            return None

    def library_reads(self, agent_id: str) -> list[Memory]:
        return [m for m in self.memories.get(agent_id, [])
                if isinstance(m.metadata.get("source"), str) and m.metadata["source"].startswith(LIBRARY_FOLDER + "/")]

    def mentions(self, artifact: Artifact) -> list[tuple[str, Memory]]:
        """(agent, memory) for every memory that points at the artifact or names its title."""
        found = []
        for agent_id, stream in self.memories.items():
            for memory in stream:
                if memory.id == artifact.memory_id:
                    continue
                if memory.metadata.get("artifact_path") == artifact.path or (artifact.title and artifact.title in memory.description):
                    found.append((agent_id, memory))
        return found


def workspace_file(workspace: Workspace, relative: str) -> Path | None:
    """The file a record or memory names (or a walk found), if reading it reads a file in
    the workspace: a hand-edited ``../`` path or a symbolic link that leads out is never
    read into the report; it is named in a warning."""
    return workspace.readable(workspace.root / relative)


def load_studio(workspace: Workspace) -> Studio:
    world = workspace.load_world()
    agents = workspace.load_agents()
    memories: dict[str, list[Memory]] = {}
    for agent_id in agents:
        located, problems = workspace.stream(agent_id).scan()
        for problem in problems:
            workspace.warn(problem)
        memories[agent_id] = [item.memory for item in located]
    records: dict[int, list[SceneRecord]] = {}
    for path in scene_files.glob(workspace.scenes, "day-*/scene-*/scene.json"):
        if not workspace.readable(path):
            continue
        record = read_record(workspace, path, SceneRecord)
        if record.applied:
            records.setdefault(record.day, []).append(record)
    for day_records in records.values():
        day_records.sort(key=lambda r: r.scene)
    studio = Studio(workspace, world, agents, memories, records)
    studio.artifacts = _artifacts(workspace, memories)
    return studio


def _artifacts(workspace: Workspace, memories: dict[str, list[Memory]]) -> dict[str, Artifact]:
    """The gallery: each artifact from the memory its author got for it; files nobody wrote
    through a scene (added by hand) with what their path says."""
    found: dict[str, Artifact] = {}
    for agent_id, stream in memories.items():
        for memory in stream:
            path = memory.metadata.get("artifact_path")
            if memory.type == "artifact" and isinstance(path, str) and workspace_file(workspace, path):
                found[path] = Artifact(path, str(memory.metadata.get("title") or Path(path).stem),
                                       str(memory.metadata.get("kind") or Path(path).parent.name),
                                       agent_id, memory.created, memory.id)
    if workspace.gallery.is_dir():
        for file in sorted(workspace.gallery.rglob("*.md")):
            relative = workspace.rel(file)
            if relative not in found and workspace_file(workspace, relative):
                fields = _front_matter(workspace, relative)
                title = fields.get("title")
                found[relative] = Artifact(relative, title if isinstance(title, str) and title else file.stem,
                                           file.parent.name, None, None, None)
    return dict(sorted(found.items()))


def _front_matter(workspace: Workspace, relative: str) -> dict:
    """A hand-added file's front matter (its title); a header that is not YAML is warned about by line."""
    try:
        text = (workspace.root / relative).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    parsed = read_front_matter(text)
    if parsed.problem:
        workspace.warn(Problem(relative, parsed.problem[0], parsed.problem[1], warning=True))
    return parsed.fields or {}


def day_summary(workspace: Workspace, day: int) -> DaySummary | None:
    path = workspace.day_dir(day) / "summary.json"
    return read_record(workspace, path, DaySummary) if scene_files.is_file(workspace.scenes, path) and workspace.readable(path) else None


def scene_turns(workspace: Workspace, record: SceneRecord) -> list[Turn]:
    """Each turn of the scene with the reply its record points to, in turn order."""
    turns = []
    for label, relative in sorted((record.replies or {}).items()):
        agent = label.split("-", 1)[1] if "-" in label else label
        path = workspace_file(workspace, relative)
        turns.append(Turn(label, agent, read_record(workspace, path, reply_model_for(record.spec.kind))
                          if path and scene_files.is_file(workspace.scenes, path) else None))
    return turns


def day_input_files(workspace: Workspace, records: list[SceneRecord], day: int) -> list[Path]:
    """The files a day page is made from: its scene records, the replies they point to, the summary."""
    files = []
    for record in records:
        files.append(workspace.scene_dir(record.ref) / "scene.json")
        files.extend(p for p in (workspace_file(workspace, r) for r in (record.replies or {}).values()) if p)
    files.append(workspace.day_dir(day) / "summary.json")
    return files


def artifact_body(workspace: Workspace, artifact: Artifact) -> str | None:
    """The artifact's Markdown without the front matter the toolkit writes above it."""
    path = workspace_file(workspace, artifact.path)
    if path is None:
        return None
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None

    return read_front_matter(text).body.strip() + "\n"
