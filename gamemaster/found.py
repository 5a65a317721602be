"""Plug-ins found rather than listed: the objects a package's modules name, and those installed
packages declare in an entry point group (scene kinds, prompt sections)."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Iterable

from .problems import GamemasterError


def in_package(path: Iterable[str], prefix: str, attribute: str, kind: type) -> list:
    """The ``attribute`` of each module of the package at ``path`` that has one of type ``kind``."""
    found = []
    for module in pkgutil.iter_modules(path, prefix):
        value = getattr(importlib.import_module(module.name), attribute, None)
        if isinstance(value, kind):
            found.append(value)
    return found


def installed(group: str, attribute: str, kind: type, what: str) -> list:
    """What the entry points of ``group`` name: an object of type ``kind``, or a module holding one
    as ``attribute``. A package that does not load, or names something else, is one line naming
    it (``what``: "scene kind"), not its traceback."""
    from importlib import metadata

    found = []
    for entry_point in metadata.entry_points(group=group):
        try:
            loaded = entry_point.load()
        except Exception as exc:  # someone else's package
            raise GamemasterError(f"{what} {entry_point.name!r} (entry point {entry_point.value}) does not load: "
                                  f"{type(exc).__name__}: {' '.join(str(exc).split())}") from None
        value = getattr(loaded, attribute, loaded)
        if not isinstance(value, kind):
            raise GamemasterError(f"{what} {entry_point.name!r} (entry point {entry_point.value}) names "
                                  f"{type(value).__name__}, not a {kind.__name__}")
        found.append(value)
    return found
