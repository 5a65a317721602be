"""Files under ``scenes/``, in day folders or packed per day: one reader for both.

``gamemaster day archive`` packs a finished day's folder ``scenes/day-XXX/`` into
``scenes/day-XXX.tar.xz`` (member names relative to ``scenes/``, so
``tar -xJf scenes/day-003.tar.xz -C scenes`` gives the folder back, byte for byte).
Whatever reads scene files — scene records, stored replies and prompts, day summaries,
usage — asks here, with the path the file had in its folder: the folder is read
when it is there, else the day's archive.

An archive is checked before it is trusted: against the SHA-256 written beside it when it was
packed (``day-XXX.tar.xz.sha256``, as ``sha256sum`` writes it), and by reading it to its end (xz
checks every block; a tar that stops early would otherwise read as a shorter day). A damaged one
is ``DamagedArchive``: a reader of one file fails with that line; ``glob``, which every command
that goes through days uses, leaves the day out and says so once. No member is read bigger than
``MEMBER_LIMIT``, no day bigger than ``DAY_LIMIT``: an archive of a few kilobytes can unpack to
gigabytes.
"""

from __future__ import annotations

import hashlib
import re
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path, PurePosixPath

from .notices import notice
from .problems import StateError

ARCHIVE_SUFFIX = ".tar.xz"
DIGEST_SUFFIX = ".sha256"
#: The biggest file a day archive may hold: a scene's files are prompts and replies of kilobytes
#: (a reply is refused above 1 MB); a bigger member is damage or a bomb, not a scene file.
MEMBER_LIMIT = 32 * 1024 * 1024
#: All of a day's files together: a day of a large studio is some tens of MB of prompts. Two days'
#: bytes are kept at most (``_members``), so reading archives stays within a few hundred MB.
DAY_LIMIT = 128 * 1024 * 1024


class DamagedArchive(StateError):
    """A day archive that cannot be trusted: its digest differs, it cannot be read to its end, or
    a member is out of bounds."""


def _damaged(archive: str, why: str) -> DamagedArchive:
    name = f"scenes/{Path(archive).name}"
    return DamagedArchive(f"{name}: damaged ({why}): restore it from a backup; `tar -xJf {name} -C scenes` "
                          "unpacks what is still readable")
_DAY = re.compile(r"^day-\d{3,}$")


def archive_path(scenes: Path, day_name: str) -> Path:
    return scenes / f"{day_name}{ARCHIVE_SUFFIX}"


def archived_days(scenes: Path) -> list[str]:
    """The day names that have an archive (``day-003``), sorted."""
    if not scenes.is_dir():
        return []
    names = (p.name[: -len(ARCHIVE_SUFFIX)] for p in scenes.glob(f"day-*{ARCHIVE_SUFFIX}"))
    return sorted(n for n in names if _DAY.match(n))


def _where(scenes: Path, path: Path) -> tuple[Path, str] | None:
    """The archive that would hold ``path`` and its member name there, for a path in a day folder."""
    try:
        parts = path.relative_to(scenes).parts
    except ValueError:
        return None
    if len(parts) < 2 or not _DAY.match(parts[0]):
        return None
    return archive_path(scenes, parts[0]), "/".join(parts)


def digest_path(archive: Path) -> Path:
    return archive.with_name(archive.name + DIGEST_SUFFIX)


def digest_line(archive: Path) -> str:
    """The archive's SHA-256 line, as ``sha256sum`` writes it (``sha256sum -c`` checks it)."""
    with archive.open("rb") as handle:
        return f"{hashlib.file_digest(handle, 'sha256').hexdigest()}  {archive.name}\n"


def check_archive(archive: Path) -> None:
    """Raise ``DamagedArchive`` unless the archive matches its digest (where it has one) and reads
    to its end with every member in bounds. Once per process while it is unchanged."""
    stat = archive.stat()
    _names(str(archive), stat.st_size, stat.st_mtime_ns)


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
    """Every file member's bytes, once the archive matched its digest and read to its end."""
    digest = digest_path(Path(archive))
    if digest.is_file():
        try:
            expected = digest.read_text(encoding="utf-8", errors="replace").split()[0]
        except (OSError, IndexError):
            expected = ""
        if digest_line(Path(archive)).split()[0] != expected:
            raise _damaged(archive, f"its SHA-256 is not the one written beside it when it was packed, "
                                    f"scenes/{digest.name}")
    return _read(archive)


def _read(archive: str) -> dict[str, bytes]:
    """Every file member's bytes, reading the xz stream to its end."""
    import lzma
    import tarfile

    found: dict[str, bytes] = {}
    total = 0
    try:
        with tarfile.open(archive, "r:xz") as tar:
            for member in tar:
                total += member.size
                if member.size > MEMBER_LIMIT:
                    raise _damaged(archive, f"{member.name} is {member.size:,} bytes, more than a scene file "
                                            f"may be ({MEMBER_LIMIT:,})")
                if total > DAY_LIMIT:
                    raise _damaged(archive, f"its files add up to more than {DAY_LIMIT:,} bytes, more than a "
                                            "day's scenes hold")
                if member.isfile():
                    handle = tar.extractfile(member)
                    found[member.name] = handle.read() if handle else b""
            # tarfile ends quietly at a header it cannot read: the rest of the stream must be there too.
            while tar.fileobj.read(1 << 20):
                pass
    except (tarfile.TarError, lzma.LZMAError, EOFError) as exc:
        raise _damaged(archive, str(exc) or type(exc).__name__) from None
    return found


def _in_archive(scenes: Path, path: Path) -> tuple[Path, str] | None:
    """(the day's archive, the member name) where the archive holds ``path``; by names only."""
    where = _where(scenes, path)
    if where is None or not where[0].is_file() or where[1] not in archive_names(where[0]):
        return None
    return where


def _archived(scenes: Path, path: Path) -> bytes | None:
    where = _in_archive(scenes, path)
    return read_archive(where[0])[where[1]] if where else None


def read_bytes(scenes: Path, path: Path) -> bytes:
    """The bytes of a scene file, from its folder or its day's archive; FileNotFoundError if neither has it."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        data = _archived(scenes, path)
        if data is None:
            raise
        return data


def is_file(scenes: Path, path: Path) -> bool:
    """In its folder or its day's archive: the archive's names answer, its bytes are not unpacked."""
    return path.is_file() or _in_archive(scenes, path) is not None


def glob(scenes: Path, pattern: str) -> list[Path]:
    """Paths under ``scenes/`` matching ``pattern`` (relative to it, ``*`` within one part),
    in day folders or archives, sorted. (A day whose folder an interrupted archiving left
    partly removed is in both: the union is the day.)"""
    found = set(scenes.glob(pattern)) if scenes.is_dir() else set()
    parts = PurePosixPath(pattern).parts
    for day in archived_days(scenes):
        if not fnmatchcase(day, parts[0]):
            continue
        try:
            names = archive_names(archive_path(scenes, day))
        except DamagedArchive as exc:
            notice(f"warning: {exc}; {day} is left out", key=f"damaged {day}")
            continue
        for name in names:
            relative = PurePosixPath(name)
            if len(relative.parts) == len(parts) and relative.match(pattern):
                found.add(scenes / name)
    return sorted(found)
