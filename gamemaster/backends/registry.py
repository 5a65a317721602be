"""Backends by name: the built-in ones, then any an installed package adds.

A package adds a backend with an entry point in the ``gamemaster.backends`` group
whose value names a factory (usually the backend class). Installed entry points are
looked up only when a backend is chosen or the names are listed, and a backend's
module is imported only when it is chosen, so commands that play nothing pay for neither.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any, Callable

from ..problems import GamemasterError

ENTRY_POINT_GROUP = "gamemaster.backends"

#: name → "module:factory", imported on demand like an entry point.
BACKENDS = {
    "offline": "gamemaster.backends.offline:OfflineBackend",
    "anthropic": "gamemaster.backends.anthropic_api:AnthropicBackend",
    "claude-code": "gamemaster.backends.claude_code:ClaudeCodeBackend",
    "replay": "gamemaster.backends.replay:ReplayBackend",
}
#: The options of the command line that play through an API; a backend may name the options it
#: takes itself (``command_options`` on its factory), else an API backend takes these and a local one none.
API_OPTIONS = ("model", "concurrency")
#: The command line's options beyond the API ones, as spelled there (``--backend replay``'s).
FLAGS = {"source": "--from", "fallback": "--fallback", "strict": "--strict"}
#: Built-in backends whose packages are an extra, not a dependency: name → (package, extra).
EXTRAS = {"claude-code": ("claude_agent_sdk", "claude-code")}


#: Where the anthropic backend reads its key from.
API_KEY_VARIABLE = "ANTHROPIC_API_KEY"
MISSING_KEY = f"backend anthropic needs an API key: set {API_KEY_VARIABLE} (or play offline with --backend offline)"


class MissingKey(GamemasterError):
    """An API backend chosen without its key: said before its SDK is imported (seconds)."""


class BackendChoiceError(KeyError):
    """A backend that does not exist here, or options it does not take; nothing was started."""

    def __str__(self) -> str:
        return str(self.args[0])


def default_backend_name() -> str:
    """``anthropic`` when its key is set, else ``offline``."""
    return "anthropic" if os.environ.get(API_KEY_VARIABLE) else "offline"


def installed_entry_points() -> dict[str, Any]:
    """name → entry point, for the backends installed packages add; a built-in name is never replaced."""
    from importlib import metadata

    found: dict[str, Any] = {}
    for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if entry_point.name not in BACKENDS:
            found.setdefault(entry_point.name, entry_point)
    return found


def backend_names() -> list[str]:
    """Every backend ``--backend`` accepts: the built-in ones first."""
    return [*BACKENDS, *sorted(installed_entry_points())]


def get_backend(name: str | None = None, **options) -> Any:
    """The backend called ``name``, built with ``options``.

    Options set to None count as not given, so a command line can pass its flags as they are.
    """
    name = name or default_backend_name()
    given = {key: value for key, value in options.items() if value is not None}
    if name in BACKENDS:
        found = _preflight(name, given)
        factory, origin, third_party = _built_in(name), f"backend {name!r}", False
    else:
        entry_point = installed_entry_points().get(name)
        if entry_point is None:
            raise BackendChoiceError(f"unknown backend {name!r}; choose from {', '.join(backend_names())}")
        origin, third_party = _describe(entry_point), True
        factory = _load(entry_point, origin)
    _check_options(factory, origin, given)
    if not third_party:
        return factory(**given, **found)
    try:
        backend = factory(**given)
    except Exception as exc:
        raise BackendChoiceError(f"{origin} could not build its backend: {_one_line(exc)}") from None
    _capabilities(backend, origin)
    return backend


def _check_options(factory: Any, origin: str, given: dict) -> None:
    if not given:
        return
    local = _capabilities(factory, origin).local
    declared = taken = getattr(factory, "command_options", None)
    if declared is None:
        # A program may hand an API backend more (a client, a key); the command line's own
        # options that are not for it are refused.
        taken = () if local else [key for key in given if key in API_OPTIONS or key not in FLAGS]
    refused = [key for key in given if key not in taken]
    if not refused:
        return
    flags = ", ".join(FLAGS.get(key, "--" + key) for key in refused)
    if local and declared is None and all(key in API_OPTIONS for key in refused):
        raise BackendChoiceError(f"{flags} only apply to API backends")
    raise BackendChoiceError(f"{flags} {'does' if len(refused) == 1 else 'do'} not apply to {origin}")


def _preflight(name: str, given: dict) -> dict:
    """What a built-in backend needs that can be checked before its module and its SDK are
    imported (seconds): the API key, the ``claude`` and its login. Returns what was found, for
    the factory (so ``claude auth status`` runs once)."""
    if name == "anthropic" and given.get("client") is None and not os.environ.get(API_KEY_VARIABLE):
        raise MissingKey(MISSING_KEY)
    if name == "claude-code" and _installed_package("claude_agent_sdk"):
        from .claude_cli import preflight

        return {"found": preflight(given.get("cli_path"))}
    return {}


def _installed_package(name: str) -> bool:
    """Whether ``name`` is there as an installed package, found without importing it. Anything
    else of that name (nothing, a stray module in the way) is left to the import, whose error
    names the extra to install."""
    spec = importlib.util.find_spec(name)
    return spec is not None and bool(spec.submodule_search_locations)


def _built_in(name: str) -> Callable[..., Any]:
    import importlib

    module_name, _, factory_name = BACKENDS[name].partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise BackendChoiceError(f"backend {name!r} is not available in this version") from None
        package, extra = EXTRAS.get(name, (None, None))
        if package and exc.name and exc.name.split(".")[0] == package:
            raise BackendChoiceError(
                f"backend {name!r} needs the Python package {package}, which is not installed: "
                f"pip install 'gamemaster[{extra}]'"
            ) from None
        raise
    return getattr(module, factory_name)


def _describe(entry_point: Any) -> str:
    package = getattr(entry_point, "dist", None)
    source = f" from {package.name}" if package is not None else ""
    return f"backend {entry_point.name!r} (entry point {entry_point.value}{source})"


def _load(entry_point: Any, origin: str) -> Callable[..., Any]:
    # A third-party package may be half installed or broken; whatever it raises
    # becomes one line naming it, not a traceback from inside someone else's code.
    try:
        factory = entry_point.load()
    except Exception as exc:
        raise BackendChoiceError(f"{origin} does not load: {_one_line(exc)}") from None
    if not callable(factory):
        raise BackendChoiceError(f"{origin} names {type(factory).__name__} {factory!r}, not a factory")
    return factory


def _capabilities(holder: Any, origin: str) -> Any:
    from .base import Capabilities

    capabilities = getattr(holder, "capabilities", None)
    if not isinstance(capabilities, Capabilities):
        raise BackendChoiceError(f"{origin} declares no capabilities (gamemaster.backends.base.Capabilities)")
    return capabilities


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
