"""Copying a folder that may hold symbolic links, for ``import`` and the doctor's backup.

A studio folder from elsewhere (a zip, a git repository) can carry links to any file on
the machine, to ``/`` or to the folder being written. ``shutil.copytree`` follows them:
it would copy ``/etc/passwd`` into the workspace, fill the disk, or recurse into its own
copy. Here no link is ever followed out of ``boundary``; each link left out is named in
``skipped``, and a copy that fails names the file (``CopyError``).

Two ways to treat a link that stays inside:

* ``keep``: copy it as a link. ``import`` keeps links between the folders it copies,
  re-pointed to the same place in the copy, so the new workspace never points back into
  the folder it came from; a link to anything else is skipped.
* otherwise the link is followed and what it points to is copied: the doctor's backup
  must hold the bytes a fix is about to replace, not a link to them. A folder link back
  into a folder being copied (a loop) is skipped.
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..ids import reads_inside
from ..printable import printable
from ..problems import GamemasterError


class CopyError(GamemasterError):
    """A file that could not be copied; the message names it."""


@dataclass
class TreeCopy:
    """One copy: what it may read and how it treats links; ``skipped`` and ``files`` as it went."""

    #: No link is followed (or kept) to anything outside this folder.
    boundary: Path
    #: How a skipped line calls it: "the studio folder", "the workspace".
    boundary_name: str
    #: File names are shown relative to this folder (the studio's or the workspace's).
    shown_from: Path
    #: (source folder, its copy): keep a link into one of them as a link into the copy.
    keep: list[tuple[Path, Path]] | None = None
    ignore: Callable[[str, list[str]], set[str]] | None = None
    skipped: list[str] = field(default_factory=list)
    #: (source, copy) of every regular file copied, for a check against the originals.
    files: list[tuple[Path, Path]] = field(default_factory=list)

    def copy(self, source: Path, target: Path) -> None:
        """Copy the folder ``source`` to the new folder ``target``."""
        self._folder(source, target, [os.path.realpath(source)])

    def shown(self, path: Path) -> str:
        try:
            return path.relative_to(self.shown_from).as_posix()
        except ValueError:
            return str(path)

    def _skip(self, path: Path, reason: str) -> None:
        self.skipped.append(printable(f"{self.shown(path)}: {reason}"))

    def _failed(self, path: Path, exc: OSError) -> CopyError:
        return CopyError(f"{self.shown(path)}: cannot be copied: {exc.strerror or exc}")

    def _folder(self, source: Path, target: Path, seen: list[str]) -> None:
        try:
            names = sorted(os.listdir(source))
            target.mkdir()
        except OSError as exc:
            raise self._failed(source, exc) from None
        ignored = self.ignore(str(source), names) if self.ignore else set()
        for name in names:
            if name not in ignored:
                self._entry(source / name, target / name, seen)
        try:  # last: a read-only folder is filled before it becomes read-only
            shutil.copymode(source, target)
        except OSError as exc:
            raise self._failed(source, exc) from None

    def _entry(self, source: Path, target: Path, seen: list[str]) -> None:
        if source.is_symlink():
            self._link(source, target, seen)
            return
        try:
            mode = source.lstat().st_mode
        except OSError as exc:
            raise self._failed(source, exc) from None
        if stat.S_ISDIR(mode):
            self._folder(source, target, [*seen, os.path.realpath(source)])
        elif stat.S_ISREG(mode):
            self._file(source, target)
        else:  # a FIFO would block the copy for ever, a device would copy a disk
            self._skip(source, "skipped: not a regular file or folder")

    def _link(self, source: Path, target: Path, seen: list[str]) -> None:
        real = os.path.realpath(source)
        if not reads_inside(self.boundary, Path(real)):
            self._skip(source, f"skipped: a symbolic link to {real}, outside {self.boundary_name}")
            return
        if self.keep is not None:
            for folder, copy in self.keep:
                if reads_inside(folder, Path(real)):
                    mapped = copy / os.path.relpath(real, os.path.realpath(folder))
                    os.symlink(os.path.relpath(mapped, target.parent), target)
                    return
            self._skip(source, f"skipped: a symbolic link to {real}, outside what is imported")
            return
        if not os.path.exists(source):
            self._skip(source, "skipped: a symbolic link to nothing (or a loop of links)")
        elif os.path.isdir(source):
            if real in seen:
                self._skip(source, "skipped: a symbolic link back to a folder it is in (a loop)")
            else:
                self._folder(source, target, [*seen, real])
        elif os.path.isfile(source):
            self._file(source, target)
        else:
            self._skip(source, "skipped: not a regular file or folder")

    def _file(self, source: Path, target: Path) -> None:
        try:
            shutil.copy2(source, target)
        except OSError as exc:
            raise self._failed(source, exc) from None
        self.files.append((source, target))
