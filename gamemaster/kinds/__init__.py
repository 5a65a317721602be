"""The scene kinds, found rather than listed.

A kind is a module with a ``KIND`` (a ``SceneKind`` instance, ``base.py``) plus its task
template in ``prompts/``. It is found where it lives: a module of this package, or an entry
point in the ``gamemaster.kinds`` group of an installed package whose value names the kind
object or its module (the way ``backends/registry.py`` finds backends). Nothing is imported
until a kind is first asked for, so this module imports only ``base.py``: the kind modules
import the rest of the toolkit (``scenes.py``, ``scene_spec.py``), never the other way round.

The order kinds are listed in (error messages, ``--help``, the report) is their ``order``;
the order ``scenes.decide_next`` asks them whether their scene is due is their ``decides``.
"""

from __future__ import annotations

import importlib

from ..found import in_package, installed
from .base import SECTIONS, KindSettings, ReplyCheck, SceneKind, SceneWrite

ENTRY_POINT_GROUP = "gamemaster.kinds"

_SECTION_ERRORS = {
    "artifacts": "only {kinds} scenes produce artifacts, this is {kind}",
    "insights": "only {kinds} scenes produce insights, this is {kind}",
    "conversation": "only {kinds} replies carry one, this is {kind}",
}

__all__ = ["ENTRY_POINT_GROUP", "KindSettings", "ReplyCheck", "SECTIONS", "SceneKind", "SceneWrite", "all_kinds", "builtin_kind",
           "check_kind",
           "decision_order", "get_kind", "kind_names"]

_found: dict[str, SceneKind] | None = None


def all_kinds() -> dict[str, SceneKind]:
    """name → kind, in listing order: this package's modules, then installed entry points."""
    global _found
    if _found is None:
        found = {kind.name: kind for kind in in_package(__path__, __name__ + ".", "KIND", SceneKind)}
        for kind in _installed():
            found.setdefault(kind.name, kind)  # a built-in kind is never replaced
        _found = dict(sorted(found.items(), key=lambda item: (item[1].order, item[0])))
    return _found


def _installed() -> list[SceneKind]:
    return installed(ENTRY_POINT_GROUP, "KIND", SceneKind, "scene kind")


def forget() -> None:
    """Find the kinds again on the next call (after a package was installed, in tests)."""
    global _found
    _found = None


def kind_names() -> list[str]:
    return list(all_kinds())


def get_kind(name: str, strict: bool = True) -> SceneKind:
    """The kind called ``name``; with ``strict=False`` an unknown name (an old or hand-written
    log entry) is treated as a plain side-by-side scene instead of failing."""
    if _found is None and (builtin := _builtin(str(name).upper())) is not None:
        return builtin
    kinds = all_kinds()
    kind = kinds.get(str(name).upper())
    if kind is None:
        if not strict:
            return _UNKNOWN
        raise ValueError(f"{name!r}: not a scene kind (choose {', '.join(kinds)})")
    return kind


def builtin_kind(name: str) -> SceneKind | None:
    """The built-in kind called ``name`` (any case), found without the installed packages' kinds."""
    return _builtin(str(name).upper())


def _builtin(name: str) -> SceneKind | None:
    """A kind of this package by its module (``WORK`` lives in ``work.py``), imported alone: a
    command that meets one scene (``prompt``, ``status``, the hook) then imports neither every
    kind nor the installed packages' metadata. An installed kind never replaces a built-in one,
    so the answer is the one ``all_kinds()`` gives."""
    if not name.isalpha():
        return None
    module_name = f"{__name__}.{name.lower()}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        return None
    kind = getattr(module, "KIND", None)
    return kind if isinstance(kind, SceneKind) and kind.name == name else None


def decision_order(briefs: int) -> list[SceneKind | None]:
    """The kinds that choose their own scene, in the order they are asked; None marks where the
    Creative Director's unseen briefs are asked (at ``briefs`` on the same scale)."""
    steps: list[tuple[int, str, SceneKind | None]] = [(briefs, "", None)]
    steps += [(k.decides, k.name, k) for k in all_kinds().values() if k.decides is not None]
    return [kind for _, _, kind in sorted(steps, key=lambda step: step[:2])]


class _Unknown(SceneKind):
    name = "UNKNOWN"


_UNKNOWN = _Unknown()


def _joined(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def check_kind(reply, ctx: ReplyCheck) -> list[str]:
    """The kind's own rules, what it requires and its own rules did not name, then the sections it
    does not allow."""
    kind = get_kind(ctx.spec.type)
    problems = kind.check(reply, ctx)
    named = {problem.partition(":")[0].partition(".")[0] for problem in problems}
    for field in sorted(kind.required(ctx.final_turn) - named):
        value = getattr(reply, field, None)
        if value is None or value == [] or (isinstance(value, str) and not value.strip()):
            when = " in the speaker's last turn" if field not in kind.required(False) else ""
            problems.append(f"{field}: required in {kind.name} scenes{when}")
    for section in SECTIONS:
        if getattr(reply, section) and section not in kind.allows:
            allowed = [k.name for k in all_kinds().values() if section in k.allows]
            problems.append(f"{section}: " + _SECTION_ERRORS[section].format(kinds=_joined(allowed), kind=kind.name))
    return problems
