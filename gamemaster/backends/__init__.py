"""Backends play the characters. ``offline`` is the default; others load on demand."""

from __future__ import annotations

import os

from .base import Backend, ReplyRequest, Turn

BACKENDS = {
    "offline": "gamemaster.backends.offline:OfflineBackend",
    "anthropic": "gamemaster.backends.anthropic_api:AnthropicBackend",
}

#: Backends that play the characters on this machine: no API calls, no key, no model to choose.
LOCAL_BACKENDS = frozenset({"offline"})


class BackendChoiceError(KeyError):
    """A backend that does not exist here, or options it does not take; nothing was started."""

    def __str__(self) -> str:
        return str(self.args[0])


def default_backend_name() -> str:
    """``anthropic`` when its key is set, else ``offline``."""
    return "anthropic" if os.environ.get("ANTHROPIC_API_KEY") else "offline"


def get_backend(name: str | None = None, **options) -> Backend:
    """The backend called ``name``; its module is imported only now.

    Options set to None count as not given, so a command line can pass its flags as they are.
    """
    import importlib

    name = name or default_backend_name()
    if name not in BACKENDS:
        raise BackendChoiceError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}")
    given = {key: value for key, value in options.items() if value is not None}
    if given and name in LOCAL_BACKENDS:
        raise BackendChoiceError(f"{', '.join('--' + key for key in given)} only apply to API backends")
    module_name, _, class_name = BACKENDS[name].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise BackendChoiceError(f"backend {name!r} is not available in this version") from None
        raise
    return getattr(module, class_name)(**given)


__all__ = [
    "Backend", "ReplyRequest", "Turn", "get_backend", "default_backend_name", "BackendChoiceError",
    "BACKENDS", "LOCAL_BACKENDS",
]
