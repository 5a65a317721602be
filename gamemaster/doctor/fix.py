"""The doctor's run: every state file read tolerantly, the drifts listed, and with ``fix``
the state backed up whole and rewritten in the canonical format.

Each rewritten file is replaced atomically (a memory stream too: one replace per file,
its mode kept), so an editor or a crash sees the old file or the new one. The backup in
``state/.backup/<timestamp>/`` is made first and checked before any file is replaced;
no command reads it as state.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from .. import jsontext
from ..fsio import atomic_write_bytes, dump_json, fsync_dirs
from ..ids import is_agent_id
from ..kinds.settings import world_data as world_file_data
from ..problems import GamemasterError, StateError
from ..workspace import Workspace
from .agents import agent_file, repair_agent
from .templates import check_templates
from .copying import TreeCopy
from .drift import DRIFT, ERROR, WARNING, Drift, Finding, read_json_object
from .memories import RepairedStream, cross_checks, repair_stream
from .world import BULLETIN, StudioFacts, repair_world

BACKUP_DIR = ".backup"
#: Not state: derived files, earlier backups, a writer's temp files.
_NOT_STATE = shutil.ignore_patterns(BACKUP_DIR, ".cache", ".*.tmp")


@dataclass
class Diagnosis:
    drifts: list[Drift] = field(default_factory=list)
    #: path → the file's new bytes, for every file a fix rewrites.
    writes: dict[Path, bytes] = field(default_factory=dict)
    rewritten_streams: list[str] = field(default_factory=list)

    def count(self, kind: str) -> int:
        return sum(1 for d in self.drifts if d.kind == kind)

    @property
    def drift_count(self) -> int:
        return self.count(DRIFT)

    @property
    def error_count(self) -> int:
        return self.count(ERROR)

    @property
    def warning_count(self) -> int:
        return self.count(WARNING)


@dataclass
class DoctorResult:
    diagnosis: Diagnosis
    fixed: bool = False
    backup: str | None = None
    written: list[str] = field(default_factory=list)
    #: What the backup left out (a symbolic link out of the workspace), one line each.
    backup_skipped: list[str] = field(default_factory=list)


def run_doctor(workspace: Workspace, fix: bool = False, studio_name: str | None = None) -> DoctorResult:
    """What drifted, and with ``fix`` the repair. ``studio_name``: for a world without one."""
    workspace.require()
    if not fix:
        return DoctorResult(diagnose(workspace, studio_name))
    with workspace.lock:
        diagnosis = diagnose(workspace, studio_name)
        result = DoctorResult(diagnosis)
        if not diagnosis.writes:
            return result
        if workspace.journal_path.exists():
            raise GamemasterError(f"{workspace.rel(workspace.journal_path)}: an interrupted scene is waiting; "
                                  "run `gamemaster validate` and let a command finish it before the doctor rewrites state")
        backup, result.backup_skipped = make_backup(workspace)
        dirs: set[Path] = set()
        for path, content in sorted(diagnosis.writes.items()):
            atomic_write_bytes(workspace.inside(path), content, dirs)
            result.written.append(workspace.rel(path))
        fsync_dirs(dirs)
        for agent in diagnosis.rewritten_streams:
            # Derived from the stream's old bytes; rebuilt from the new ones on the next read.
            for cached in (workspace.state / ".cache").glob(f"{agent}.*"):
                cached.unlink(missing_ok=True)
        result.fixed, result.backup = True, workspace.rel(backup)
        return result


def diagnose(workspace: Workspace, studio_name: str | None = None) -> Diagnosis:
    diagnosis = Diagnosis()
    streams = _streams(workspace, diagnosis)
    memories = {s.agent: [m for _, m in s.memories] for s in streams}
    world_data, problems = _read_object(workspace, workspace.world_path)
    diagnosis.drifts += problems
    language = world_data.get("language") if isinstance(world_data, dict) else None
    agent_ids = _agents(workspace, diagnosis, memories, language if isinstance(language, str) else "de")
    if world_data is not None:
        facts = StudioFacts(studio_name or workspace.root.name, agent_ids, memories, _bulletin(workspace, diagnosis))
        finding, carried = Finding(), []
        world = repair_world(world_data, facts, finding, carried)
        diagnosis.drifts += finding.located(workspace.rel(workspace.world_path), None) + carried
        if world is not None and (finding.changes or carried):
            diagnosis.writes[workspace.world_path] = dump_json(world_file_data(world)).encode("utf-8")
    drifts, templates = check_templates(workspace)
    diagnosis.drifts += drifts
    diagnosis.writes.update(templates)
    return diagnosis


def _streams(workspace: Workspace, diagnosis: Diagnosis) -> list[RepairedStream]:
    streams = []
    for path in sorted(workspace.memories_dir.glob("*.jsonl")):
        display = workspace.rel(path)
        if not is_agent_id(path.stem):
            diagnosis.drifts.append(Drift(display, None, "the file name is not an agent id",
                                          "not read; rename it to the agent's id", ERROR))
            continue
        linked_out = _linked_out(workspace, path)
        if linked_out:
            diagnosis.drifts.append(linked_out)
            continue
        stream = repair_stream(path, path.stem, display)
        diagnosis.drifts += stream.drifts
        streams.append(stream)
        if stream.changed:
            diagnosis.writes[path] = stream.content()
            diagnosis.rewritten_streams.append(stream.agent)
    diagnosis.drifts += cross_checks(streams, workspace.root)
    return streams


def _agents(workspace: Workspace, diagnosis: Diagnosis, memories: dict, language: str) -> list[str]:
    agent_ids = []
    for path in sorted(workspace.agents_dir.glob("*.json")):
        display = workspace.rel(path)
        if not is_agent_id(path.stem):
            diagnosis.drifts.append(Drift(display, None, "the file name is not an agent id",
                                          "skipped, as every command skips it", WARNING))
            continue
        agent_ids.append(path.stem)
        data, problems = _read_object(workspace, path)
        diagnosis.drifts += problems
        if data is None:
            continue
        finding = Finding()
        agent = repair_agent(data, path.stem, memories.get(path.stem, []), language, finding)
        diagnosis.drifts += finding.located(display, None)
        if agent is not None and finding.changes:
            diagnosis.writes[path] = agent_file(agent).encode("utf-8")
    for stem in sorted(set(memories) - set(agent_ids)):
        # A stream without a character: the character is drafted from what it remembers.
        path = workspace.agent_path(stem)
        finding = Finding()
        agent = repair_agent({}, stem, memories[stem], language, finding)
        if agent is None:
            continue
        agent_ids.append(stem)
        diagnosis.drifts.append(Drift(workspace.rel(path), None, f"no agent file for state/memories/{stem}.jsonl",
                                      "written with id, name, role and persona drafted", DRIFT, True))
        diagnosis.writes[path] = agent_file(agent).encode("utf-8")
    return sorted(agent_ids)


def _linked_out(workspace: Workspace, path: Path) -> Drift | None:
    """A state file a symbolic link takes out of the workspace: not read, not repaired."""
    try:
        workspace.state_file(path)
    except StateError as exc:
        return Drift(workspace.rel(path), None, exc.problems[0].reason, "not read; copy the file into the workspace", ERROR)
    return None


def _read_object(workspace: Workspace, path: Path) -> tuple[dict | None, list[Drift]]:
    linked_out = _linked_out(workspace, path)
    return (None, [linked_out]) if linked_out else read_json_object(path, workspace.rel(path))


def _bulletin(workspace: Workspace, diagnosis: Diagnosis) -> list:
    path = workspace.state / "bulletin.json"
    if not path.exists():
        return []
    linked_out = _linked_out(workspace, path)
    if linked_out:
        diagnosis.drifts.append(linked_out)
        return []
    try:
        data = jsontext.loads(path.read_text(encoding="utf-8-sig"))
    except (jsontext.JSONDecodeError, UnicodeDecodeError) as exc:
        line, reason = (exc.lineno, exc.msg) if isinstance(exc, jsontext.JSONDecodeError) else (None, f"not UTF-8 (byte {exc.start})")
        diagnosis.drifts.append(Drift(BULLETIN, line, f"not readable as JSON: {reason}", "its briefs are not carried; "
                                      "the file stays as it is", ERROR))
        return []
    if isinstance(data, dict):
        data = next((v for k, v in data.items() if isinstance(v, list) and k in ("posts", "messages", "entries", "items", "bulletin")), [])
    return data if isinstance(data, list) else []


def make_backup(workspace: Workspace) -> tuple[Path, list[str]]:
    """A full copy of ``state/`` (but earlier backups and derived files), checked file by file.

    A symbolic link that stays in the workspace is copied as what it points to (the backup
    holds the bytes a fix replaces); one that leads out of the workspace is not followed
    and is returned in the lines naming what was left out."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    base = workspace.state / BACKUP_DIR
    target, number = base / stamp, 1
    while target.exists():
        number += 1
        target = base / f"{stamp}-{number}"
    workspace.inside(target)
    base.mkdir(exist_ok=True)
    copier = TreeCopy(workspace.root, "the workspace", workspace.root, ignore=_NOT_STATE)
    try:
        copier.copy(workspace.state, target)
        for source, copy in copier.files:
            if copy.read_bytes() != source.read_bytes():
                raise GamemasterError(f"{workspace.rel(copy)}: the backup copy differs from the original")
    except GamemasterError as exc:
        shutil.rmtree(target, ignore_errors=True)
        raise GamemasterError(f"{exc}; the backup failed, nothing was changed") from None
    return target, copier.skipped
