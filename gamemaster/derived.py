"""Derived files (``state/.cache/``: stream indexes, search and embedding stores, stems) are
the tool's own and rebuilt from the state when they are missing. Something else in their place —
a folder where a file goes, a plain file where the ``.cache`` folder goes — is not the tool's to
delete, and must not block a character either: it is moved aside with one warning, and the
derived file is made anew."""

from __future__ import annotations

import os
from pathlib import Path

from .ids import workspace_of
from .notices import notice

#: What a thing in the way is renamed to start with: no derived file's name or glob matches it.
ASIDE = "set-aside-"


def make_way(path: Path) -> Path:
    """``path`` of a derived file, with its folder a folder and no folder where the file goes."""
    folder = path.parent
    if folder.name == ".cache" and os.path.lexists(folder) and not folder.is_dir():
        _move_aside(folder)
    if path.is_dir() and not path.is_symlink():
        _move_aside(path)
    return path


def _move_aside(path: Path) -> None:
    for n in range(1, 1000):
        aside = path.with_name(f"{ASIDE}{n}-{path.name}")
        if not os.path.lexists(aside):
            break
    os.rename(path, aside)
    root = workspace_of(path)
    shown = (lambda p: os.path.relpath(p, root)) if root else str
    what = "a folder" if aside.is_dir() else "not a folder"
    notice(f"warning: {shown(path)} was {what}, in the way of a file the tool derives and rebuilds: "
           f"moved aside to {shown(aside)}")
