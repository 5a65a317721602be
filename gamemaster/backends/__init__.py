"""Backends play the characters. ``offline`` is the default; others load on demand."""

from __future__ import annotations

import os

from .base import Backend, ReplyRequest, Turn

BACKENDS = {
    "offline": "gamemaster.backends.offline:OfflineBackend",
    "anthropic": "gamemaster.backends.anthropic_api:AnthropicBackend",
}


def default_backend_name() -> str:
    """``anthropic`` when its key is set, else ``offline``."""
    return "anthropic" if os.environ.get("ANTHROPIC_API_KEY") else "offline"


def get_backend(name: str | None = None, **options) -> Backend:
    """The backend called ``name``; its module is imported only now."""
    import importlib

    name = name or default_backend_name()
    if name not in BACKENDS:
        raise KeyError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}")
    module_name, _, class_name = BACKENDS[name].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise KeyError(f"backend {name!r} is not available in this version") from None
        raise
    return getattr(module, class_name)(**options)


__all__ = ["Backend", "ReplyRequest", "Turn", "get_backend", "default_backend_name", "BACKENDS"]
