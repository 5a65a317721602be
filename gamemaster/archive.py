"""``gamemaster day archive``: each finished day's scene folder packed into one ``scenes/day-XXX.tar.xz``.

A scene folder holds the full prompts (most of its bytes), the replies, the scene
record and the usage; prompts of one day repeat each other (the contract, the
studio's bible, personas), so one xz stream per day packs them to a few percent.

Only days before today are packed, never one with the pending scene, and nothing
while an interrupted scene waits in the journal (its replay writes into scene
folders). The archive is written beside the folder (a temp file renamed over,
flushed to disk), read back and compared file by file with the folder, and only
then is the folder removed. ``scene_files`` reads archived days wherever a folder
was read; ``tar -xJf scenes/day-XXX.tar.xz -C scenes`` gives the folder back.
"""

from __future__ import annotations

import io
import re
import shutil
import tarfile
from dataclasses import dataclass
from pathlib import Path

from .fsio import atomic_write_bytes, is_stale_temp
from .ids import parse_scene_ref
from .problems import StateError
from .scene_files import archive_path, read_archive
from .workspace import Workspace

_DAY_FOLDER = re.compile(r"^day-(\d{3,18})$")


@dataclass
class Packed:
    day: str
    files: int
    folder_bytes: int
    archive_bytes: int

    def as_json(self) -> dict:
        return {"day": self.day, "files": self.files, "folder_bytes": self.folder_bytes, "archive_bytes": self.archive_bytes}


def finished_days(workspace: Workspace) -> list[str]:
    """Day folders that may be packed: before today, without the pending scene."""
    world = workspace.load_world()
    pending_day = parse_scene_ref(world.pending)[0] if world.pending else None
    days = []
    if workspace.scenes.is_dir():
        for folder in sorted(workspace.scenes.iterdir()):
            match = _DAY_FOLDER.match(folder.name)
            if match and folder.is_dir() and not folder.is_symlink():
                number = int(match.group(1))
                if number < world.day and number != pending_day:
                    days.append(folder.name)
    return days


def archive_days(workspace: Workspace) -> list[Packed]:
    with workspace.lock:
        if workspace.journal_path.exists():
            raise StateError(f"{workspace.rel(workspace.journal_path)}: an interrupted scene is waiting; nothing was "
                             "archived: run `gamemaster next` (it finishes the scene), then archive")
        for temp in workspace.scenes.glob(".day-*.tmp") if workspace.scenes.is_dir() else []:
            if is_stale_temp(temp):  # an archive a killed run was writing
                temp.unlink(missing_ok=True)
        return [_pack(workspace, day) for day in finished_days(workspace)]


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_symlink() or not p.is_dir())


def _pack(workspace: Workspace, day: str) -> Packed:
    scenes, folder, target = workspace.scenes, workspace.scenes / day, archive_path(workspace, day)
    files = _files(folder)
    folder_bytes = sum(p.lstat().st_size for p in files)
    if not target.exists():  # else an earlier run wrote it and was stopped before the folder was removed
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:xz", format=tarfile.PAX_FORMAT) as tar:
            for path in [folder, *sorted(folder.rglob("*"))]:
                tar.add(path, arcname=path.relative_to(scenes).as_posix(), recursive=False)
        atomic_write_bytes(target, buffer.getvalue())
    _check(workspace, target, files)
    shutil.rmtree(folder)
    return Packed(day, len(files), folder_bytes, target.stat().st_size)


def _check(workspace: Workspace, target: Path, files: list[Path]) -> None:
    """Every file of the folder is in the archive with the same bytes; else the folder stays."""
    members = read_archive(target)
    for path in files:
        if path.is_symlink():
            continue  # kept as a link (tar's symlink member), never read through
        name = path.relative_to(workspace.scenes).as_posix()
        if members.get(name) != path.read_bytes():
            raise StateError(f"{workspace.rel(path)}: not the same in {workspace.rel(target)}; the folder was kept: "
                             f"move {workspace.rel(target)} aside and archive again")
