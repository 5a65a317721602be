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

Beside each archive goes its SHA-256 (``day-XXX.tar.xz.sha256``), which every reader checks; an
archive packed before digests were written gets one here once it has read back whole. Only
regular files are packed: a day folder holding anything else (a FIFO, a link, a device) is left
as it is and named, since reading a FIFO would wait for a writer forever, under the lock.
"""

from __future__ import annotations

import io
import lzma
import re
import shutil
import stat
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

from .fsio import atomic_write_bytes, atomic_write_text, is_stale_temp
from .ids import parse_scene_ref
from .problems import StateError
from .progress import progress
from .scene_files import (DamagedArchive, archive_path, archived_days, check_archive, digest_line, digest_path,
                          read_archive)
from .workspace import Workspace

_DAY_FOLDER = re.compile(r"^day-(\d{3,18})$")
#: Days packed in one run from which it shows its progress (a day takes a tenth of a second or more).
PROGRESS_DAYS = 10
#: xz's fast mode (a hash-chain match finder, as presets 0 to 3) with twice preset 3's dictionary:
#: the prompts of a day repeat each other a few MB apart, so a larger window finds them where a
#: longer search for matches (preset 3) costs more. Seven days of a hundred characters (108 MB)
#: pack with two thirds of preset 3's CPU (1.39 s against 2.09) to 5 % more (2.26 MB against
#: 2.16); preset 6 took 2.2 s for one day. ``day advance`` packs a day each day, so its CPU counts
#: more than a few kB.
XZ_FILTERS = ({"id": lzma.FILTER_LZMA2, "preset": 1, "dict_size": 8 << 20, "mf": lzma.MF_HC4, "depth": 16,
               "nice_len": 96, "mode": lzma.MODE_FAST},)


@dataclass
class Packed:
    day: str
    files: int
    folder_bytes: int
    archive_bytes: int

    def as_json(self) -> dict:
        return {"day": self.day, "files": self.files, "folder_bytes": self.folder_bytes, "archive_bytes": self.archive_bytes}


@dataclass
class Archived:
    """What ``day archive`` did: days packed, days left as folders (and why), digests written."""

    packed: list[Packed] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    digests: list[str] = field(default_factory=list)


def finished_days(workspace: Workspace, keep: int = 0) -> list[str]:
    """Day folders that may be packed: before today, without the pending scene; with ``keep``,
    the ``keep`` newest finished days stay folders."""
    world = workspace.load_world()
    pending_day = parse_scene_ref(world.pending)[0] if world.pending else None
    days = []
    if workspace.scenes.is_dir():
        for folder in sorted(workspace.scenes.iterdir()):
            match = _DAY_FOLDER.match(folder.name)
            if match and folder.is_dir() and not folder.is_symlink():
                number = int(match.group(1))
                if number < world.day - keep and number != pending_day:
                    days.append(folder.name)
    return days


def archive_when_due(workspace: Workspace) -> Archived | None:
    """What ``day advance`` packs by itself: days older than ``archive_after`` (0: nothing)."""
    keep = workspace.load_world().archive_after
    if not keep or not finished_days(workspace, keep):
        return None
    return archive_days(workspace, keep)


def archive_days(workspace: Workspace, keep: int = 0) -> Archived:
    with workspace.lock:
        if workspace.journal_path.exists():
            raise StateError(f"{workspace.rel(workspace.journal_path)}: an interrupted scene is waiting; nothing was "
                             "archived: run `gamemaster next` (it finishes the scene), then archive")
        for temp in workspace.scenes.glob(".day-*.tmp") if workspace.scenes.is_dir() else []:
            if is_stale_temp(temp):  # an archive a killed run was writing
                temp.unlink(missing_ok=True)
        done, days = Archived(), finished_days(workspace, keep)
        update = (progress(f"archiving {len(days)} days", "archiving days", f"archived {len(days)} days", len(days),
                           key="archive") if len(days) >= PROGRESS_DAYS else lambda n: None)
        for n, day in enumerate(days, start=1):
            odd = _not_regular(workspace, workspace.scenes / day)
            if odd:
                done.skipped.append((day, odd))
            else:
                done.packed.append(_pack(workspace, day))
            update(n)
        for day in archived_days(workspace.scenes):
            archive = archive_path(workspace.scenes, day)
            if not digest_path(archive).exists():  # packed before digests were written
                try:
                    check_archive(archive)
                except DamagedArchive as exc:  # no digest for it: it would vouch for the damage
                    done.skipped.append((day, f"no digest written: {exc}"))
                    continue
                atomic_write_text(digest_path(archive), digest_line(archive))
                done.digests.append(workspace.rel(digest_path(archive)))
        return done


def _not_regular(workspace: Workspace, folder: Path) -> str | None:
    """Why a day folder is not packed: the first entry that is neither a folder nor a regular file."""
    for path in sorted(folder.rglob("*")):
        mode = path.lstat().st_mode
        if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):  # lstat: a link is a link here
            what = ("a link" if stat.S_ISLNK(mode) else "a FIFO" if stat.S_ISFIFO(mode)
                    else "a socket" if stat.S_ISSOCK(mode) else "a device")
            return (f"{workspace.rel(path)} is {what}, not a regular file: the day was not archived; "
                    "move it out of scenes/ and archive again")
    return None


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if not p.is_dir())


def _pack(workspace: Workspace, day: str) -> Packed:
    scenes, folder, target = workspace.scenes, workspace.scenes / day, archive_path(workspace.scenes, day)
    files = _files(folder)
    folder_bytes = sum(p.lstat().st_size for p in files)
    if not target.exists():  # else an earlier run wrote it and was stopped before the folder was removed
        buffer = io.BytesIO()
        # What tarfile's "w:xz" does, with our filters instead of a preset.
        with lzma.LZMAFile(buffer, "w", filters=XZ_FILTERS) as packed, \
                tarfile.open(fileobj=packed, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for path in [folder, *sorted(folder.rglob("*"))]:
                tar.add(path, arcname=path.relative_to(scenes).as_posix(), recursive=False)
        atomic_write_bytes(target, buffer.getvalue())
        atomic_write_text(digest_path(target), digest_line(target))
    _check(workspace, target, files)
    if not digest_path(target).exists():  # written by a run stopped before the digest: checked above
        atomic_write_text(digest_path(target), digest_line(target))
    shutil.rmtree(folder)
    return Packed(day, len(files), folder_bytes, target.stat().st_size)


def _check(workspace: Workspace, target: Path, files: list[Path]) -> None:
    """Every file of the folder is in the archive with the same bytes; else the folder stays."""
    members = read_archive(target)
    for path in files:
        name = path.relative_to(workspace.scenes).as_posix()
        if members.get(name) != path.read_bytes():
            raise StateError(f"{workspace.rel(path)}: not the same in {workspace.rel(target)}; the folder was kept: "
                             f"move {workspace.rel(target)} aside and archive again")
