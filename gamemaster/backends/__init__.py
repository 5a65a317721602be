"""Backends play the characters. ``offline`` is the default; the others load on demand.

Choosing a backend by name (``registry``) imports neither a backend nor the state
models, so the command line can name the backends without paying for them.
"""

from __future__ import annotations

from .registry import (
    BACKENDS,
    ENTRY_POINT_GROUP,
    BackendChoiceError,
    backend_names,
    default_backend_name,
    get_backend,
)

_FROM_BASE = frozenset({"Answer", "Backend", "Capabilities", "InterviewRequest", "ReplyRequest", "Turn"})


def __getattr__(name: str):
    if name in _FROM_BASE:
        from . import base

        return getattr(base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Answer", "Backend", "Capabilities", "InterviewRequest", "ReplyRequest", "Turn",
    "get_backend", "default_backend_name", "backend_names", "BackendChoiceError",
    "BACKENDS", "ENTRY_POINT_GROUP",
]
