"""``gamemaster import``: a workspace made of a studio's state folder from elsewhere.

The folder given is only read: its ``state/`` (and a ``gallery/`` beside it) is copied
into the new workspace, and the copy is repaired by the doctor, whose backup keeps the
state as it came. Then the workspace gets what ``init`` gives one (prompt templates,
Claude Code files, a subagent per character), and a day the studio had finished is
closed, so that ``day advance`` opens the next one.

A studio folder someone sent can hold symbolic links to anywhere: no link is followed out
of it (``copying``), and each one left out is named. An import that fails on the way
leaves no half-built workspace: the target is removed again, or emptied if the user made
it (empty) beforehand.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from ..create import add_workspace_files
from ..gm import GameMaster
from ..ids import reads_inside
from ..problems import GamemasterError, StateError
from ..workspace import Workspace, refuse_nested
from .copying import TreeCopy
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
    #: One line per symbolic link (or special file) not copied, naming it and why.
    skipped: list[str] = field(default_factory=list)


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
    if not reads_inside(studio_root, state):
        raise GamemasterError(f"{state}: a symbolic link to {os.path.realpath(state)}, outside {studio_root}; "
                              "import the folder it points to instead")
    target = target.expanduser().resolve()
    if target == source or target.is_relative_to(source):
        raise GamemasterError(f"{target}: lies inside {source}; import never writes into the folder it imports")
    refuse_nested(target)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise GamemasterError(f"{target}: exists and is not empty; choose a new folder with --into")
    made = next((p for p in reversed([target, *target.parents]) if not p.exists()), None)
    target.mkdir(parents=True, exist_ok=True)
    try:
        return _build(studio_root, state, target)
    except BaseException as exc:
        undone = _undo(target, made)
        if isinstance(exc, GamemasterError):
            raise GamemasterError(f"{exc}; {undone}", exc.problems) from None
        if isinstance(exc, OSError):
            raise GamemasterError(f"{exc.filename or target}: {exc.strerror or exc}; {undone}") from None
        raise


def _build(studio_root: Path, state: Path, target: Path) -> ImportResult:
    gallery = studio_root / "gallery"
    keep = [(state, target / "state")]
    skipped: list[str] = []
    if os.path.lexists(gallery) and not reads_inside(studio_root, gallery):
        skipped.append(f"gallery: skipped: a symbolic link to {os.path.realpath(gallery)}, outside the studio folder")
    elif gallery.is_dir():
        keep.append((gallery, target / "gallery"))
    for (folder, copy), ignore in zip(keep, (_NOT_COPIED, shutil.ignore_patterns(".*.tmp"))):
        copier = TreeCopy(studio_root, "the studio folder", studio_root, keep=keep, ignore=ignore)
        copier.copy(folder, copy)
        skipped += copier.skipped
    workspace = Workspace(target)
    doctor = run_doctor(workspace, fix=True, studio_name=_studio_name(studio_root))
    result = ImportResult(workspace, state, len(keep) > 1, doctor, skipped=skipped)

    try:
        with workspace.lock:
            add_workspace_files(workspace)

        summary = GameMaster(workspace).close_day_if_over()
    except StateError as exc:
        result.incomplete = str(exc)
        return result
    result.day_summary = workspace.rel(summary) if summary else None
    return result


def _undo(target: Path, made: Path | None) -> str:
    """Remove what the import made: the folders it created, or the contents of an empty one the user made."""
    if made is not None:
        shutil.rmtree(made, ignore_errors=True)
        return f"the import was undone ({made} removed)" if not made.exists() else f"{made} could not be removed entirely"
    for child in list(target.iterdir()):
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)
    return f"the import was undone ({target} is empty again)" if not any(target.iterdir()) else f"{target} could not be emptied entirely"


def _studio_name(studio_root: Path) -> str:
    """The name a world without ``studio`` gets: the studio folder's, as people named it."""
    return studio_root.name.replace("_", " ").replace("-", " ").strip() or "Studio"
