"""``gamemaster import``: a workspace made of a studio's state folder from elsewhere.

The folder given is only read: its ``state/`` (and a ``gallery/`` beside it) is copied
into the new workspace, and the copy is repaired by the doctor, whose backup keeps the
state as it came. Then the workspace gets what ``init`` gives one (prompt templates,
Claude Code files, a subagent per character), and a day the studio had finished is
closed, so that ``day advance`` opens the next one.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from ..problems import GamemasterError, StateError
from ..workspace import Workspace, refuse_nested
from .fix import DoctorResult, run_doctor

#: Not copied: derived files, the source's own backups, a writer's temp files, an unfinished
#: scene's journal (the scene it belongs to is not part of the import).
_NOT_COPIED = shutil.ignore_patterns(".cache", ".backup", ".*.tmp", ".journal.json")


@dataclass
class ImportResult:
    workspace: Workspace
    source_state: Path
    gallery_copied: bool
    doctor: DoctorResult
    day_summary: str | None = None
    #: Why the workspace could not be completed (an agent file the doctor could not repair).
    incomplete: str | None = None


def find_state(source: Path) -> Path:
    """``DIR/state`` for a studio's folder, ``DIR`` itself for its state folder."""
    if (source / "state" / "world.json").is_file():
        return source / "state"
    if (source / "world.json").is_file():
        return source
    raise GamemasterError(f"{source}: neither state/world.json nor world.json is there; "
                          "give the studio's folder or its state/ folder")


def import_studio(source: Path, target: Path, plugin: bool = False) -> ImportResult:
    source = source.expanduser().resolve()
    if not source.is_dir():
        raise GamemasterError(f"{source}: no such folder")
    state = find_state(source)
    studio_root = state.parent
    target = target.expanduser().resolve()
    if target == source or target.is_relative_to(source):
        raise GamemasterError(f"{target}: lies inside {source}; import never writes into the folder it imports")
    refuse_nested(target)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise GamemasterError(f"{target}: exists and is not empty; choose a new folder with --into")
    target.mkdir(parents=True, exist_ok=True)
    shutil.copytree(state, target / "state", ignore=_NOT_COPIED)
    gallery = studio_root / "gallery"
    if gallery.is_dir():
        shutil.copytree(gallery, target / "gallery", ignore=shutil.ignore_patterns(".*.tmp"))
    workspace = Workspace(target)
    doctor = run_doctor(workspace, fix=True, studio_name=_studio_name(studio_root))
    result = ImportResult(workspace, state, gallery.is_dir(), doctor)
    from ..create import add_workspace_files

    try:
        with workspace.lock:
            add_workspace_files(workspace)
        from ..gm import GameMaster

        summary = GameMaster(workspace).close_day_if_over()
    except StateError as exc:
        result.incomplete = str(exc)
        return result
    result.day_summary = workspace.rel(summary) if summary else None
    return result


def _studio_name(studio_root: Path) -> str:
    """The name a world without ``studio`` gets: the studio folder's, as people named it."""
    return studio_root.name.replace("_", " ").replace("-", " ").strip() or "Studio"
