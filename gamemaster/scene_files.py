"""Files under ``scenes/``, in day folders or packed per day: one reader for both.

``gamemaster day archive`` packs a finished day's folder ``scenes/day-XXX/`` into
``scenes/day-XXX.tar.xz`` (member names relative to ``scenes/``, so
``tar -xJf scenes/day-003.tar.xz -C scenes`` gives the folder back, byte for byte).
Whatever reads scene files — scene records, stored replies and prompts, day summaries,
usage — asks here, with the path the file had in its folder: the folder is read
when it is there, else the day's archive.
"""

from __future__ import annotations

import re
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .workspace import Workspace

ARCHIVE_SUFFIX = ".tar.xz"
_DAY = re.compile(r"^day-\d{3,}$")


def archive_path(workspace: "Workspace", day_name: str) -> Path:
    return workspace.scenes / f"{day_name}{ARCHIVE_SUFFIX}"


def archived_days(workspace: "Workspace") -> list[str]:
    """The day names that have an archive (``day-003``), sorted."""
    if not workspace.scenes.is_dir():
        return []
    names = (p.name[: -len(ARCHIVE_SUFFIX)] for p in workspace.scenes.glob(f"day-*{ARCHIVE_SUFFIX}"))
    return sorted(n for n in names if _DAY.match(n))


def _where(workspace: "Workspace", path: Path) -> tuple[Path, str] | None:
    """The archive that would hold ``path`` and its member name there, for a path in a day folder."""
    try:
        parts = path.relative_to(workspace.scenes).parts
    except ValueError:
        return None
    if len(parts) < 2 or not _DAY.match(parts[0]):
        return None
    return archive_path(workspace, parts[0]), "/".join(parts)


def read_archive(archive: Path) -> dict[str, bytes]:
    """Every file of a day archive by member name; read once per process while it is unchanged."""
    stat = archive.stat()
    return _members(str(archive), stat.st_size, stat.st_mtime_ns)


def archive_names(archive: Path) -> frozenset[str]:
    """The names of a day archive's files: kept for every archive once read (they are small)."""
    stat = archive.stat()
    return _names(str(archive), stat.st_size, stat.st_mtime_ns)


@lru_cache(maxsize=None)
def _names(archive: str, size: int, mtime_ns: int) -> frozenset[str]:
    return frozenset(_members(archive, size, mtime_ns))


@lru_cache(maxsize=2)  # the bytes of a day or two at a time: readers go through the days in order
def _members(archive: str, size: int, mtime_ns: int) -> dict[str, bytes]:
    import tarfile

    found = {}
    with tarfile.open(archive, "r:xz") as tar:
        for member in tar:
            if member.isfile():
                handle = tar.extractfile(member)
                found[member.name] = handle.read() if handle else b""
    return found


def _in_archive(workspace: "Workspace", path: Path) -> tuple[Path, str] | None:
    """(the day's archive, the member name) where the archive holds ``path``; by names only."""
    where = _where(workspace, path)
    if where is None or not where[0].is_file() or where[1] not in archive_names(where[0]):
        return None
    return where


def _archived(workspace: "Workspace", path: Path) -> bytes | None:
    where = _in_archive(workspace, path)
    return read_archive(where[0])[where[1]] if where else None


def read_bytes(workspace: "Workspace", path: Path) -> bytes:
    """The bytes of a scene file, from its folder or its day's archive; FileNotFoundError if neither has it."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        data = _archived(workspace, path)
        if data is None:
            raise
        return data


def is_file(workspace: "Workspace", path: Path) -> bool:
    """In its folder or its day's archive: the archive's names answer, its bytes are not unpacked."""
    return path.is_file() or _in_archive(workspace, path) is not None


def glob(workspace: "Workspace", pattern: str) -> list[Path]:
    """Paths under ``scenes/`` matching ``pattern`` (relative to it, ``*`` within one part),
    in day folders or archives, sorted. (A day whose folder an interrupted archiving left
    partly removed is in both: the union is the day.)"""
    scenes = workspace.scenes
    found = set(scenes.glob(pattern)) if scenes.is_dir() else set()
    parts = PurePosixPath(pattern).parts
    for day in archived_days(workspace):
        if not fnmatchcase(day, parts[0]):
            continue
        for name in archive_names(archive_path(workspace, day)):
            relative = PurePosixPath(name)
            if len(relative.parts) == len(parts) and relative.match(pattern):
                found.add(scenes / name)
    return sorted(found)
