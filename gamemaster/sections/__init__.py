"""The prompt sections, found rather than listed (as the scene kinds are, ``kinds/__init__.py``).

A section is a module with a ``SECTION`` (a ``PromptSection``, ``base.py``): a module of this
package, or an entry point in the ``gamemaster.sections`` group of an installed package whose
value names the section object or its module. Nothing is imported until a section is first
asked for. A built-in section is never replaced by an installed one of the same name.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from ..found import in_package, installed
from ..problems import GamemasterError
from ..kinds.base import SECTIONS
from .base import PromptSection, TurnFacts

if TYPE_CHECKING:
    from ..kinds.base import SceneKind

ENTRY_POINT_GROUP = "gamemaster.sections"

__all__ = ["ENTRY_POINT_GROUP", "PromptSection", "TurnFacts", "all_sections", "contract_lines", "forget",
           "reply_model_for", "sections_for"]

_found: dict[str, PromptSection] | None = None


def all_sections() -> dict[str, PromptSection]:
    """name → section, in ``order``: this package's modules, then installed entry points."""
    global _found
    if _found is None:
        found = {s.name: s for s in in_package(__path__, __name__ + ".", "SECTION", PromptSection)}
        for section in _installed():
            found.setdefault(section.name, section)  # a built-in section is never replaced
        _found = dict(sorted(found.items(), key=lambda item: (item[1].order, item[0])))
    return _found


def _installed() -> list[PromptSection]:
    return installed(ENTRY_POINT_GROUP, "SECTION", PromptSection, "prompt section")


def forget() -> None:
    """Find the sections again on the next call (after a package was installed, in tests)."""
    global _found
    _found = None
    _composed.cache_clear()


def sections_for(kind: "SceneKind") -> list[PromptSection]:
    """The sections scenes of ``kind`` have, in order."""
    return [s for s in all_sections().values() if s.used_in(kind)]


def reply_model_for(kind: "SceneKind") -> type:
    """What a reply to a scene of ``kind`` is: its own reply model, with the fields of the
    sections it uses that add some (the same class when none does)."""
    names = tuple(name for name, s in all_sections().items() if s.reply_fields and s.used_in(kind))
    model = _composed(kind.reply_model, names) if names else kind.reply_model
    # A kind that requires a field no reply can carry would refuse every reply, the offline one too.
    missing = sorted(kind.required(True) - set(model.model_fields))
    if missing:
        raise GamemasterError(f"scene kind {kind.name}: requires {', '.join(missing)}, which its reply model "
                              f"{model.__name__} has no field for")
    refused = sorted((kind.required(True) & set(SECTIONS)) - kind.allows)
    if refused:
        raise GamemasterError(f"scene kind {kind.name}: requires {', '.join(refused)}, which it does not allow")
    return model


@lru_cache(maxsize=None)
def _composed(model: type, names: tuple[str, ...]) -> type:
    from pydantic import create_model

    fields = {field: spec for name in names for field, spec in all_sections()[name].reply_fields.items()}
    return create_model(model.__name__, __base__=model, __module__=model.__module__, **fields)


def contract_lines(language: str) -> list[str]:
    """The contract lines of every section that has some, in order."""
    return [line for s in all_sections().values()
            for line in s.contract_lines.get(language, s.contract_lines.get("en", []))]
