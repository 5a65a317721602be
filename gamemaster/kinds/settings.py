"""The kinds' settings in ``state/world.json``: ``"kinds": {"meeting": {"rounds": 2, …}, …}``.

Each kind declares its settings as a ``KindSettings`` model (``SceneKind.settings``). ``World``
reads the ``kinds`` mapping as a value, each section as it stands, without asking the registry;
this module checks a section where its kind is used (``settings_of``), for ``validate`` and
``config`` (``problems``, ``checked``) and when the world is written (``world_data``), so a
setting's bounds and reasons live only in its kind's model and an error names
``kinds.<kind>.<field>``. A kind's section is its name in lower case. Sections of kinds that
are not installed are kept as they are (a kind's package may come back); a section for a kind
without settings is an error.

Before settings were namespaced they were flat keys of ``world.json`` (``meeting_rounds``):
``move_former`` reads such a key into its new place, so an old world plays as it did, and
``doctor --fix`` writes the world in the new form. A key given under both names is an error
rather than a silent choice: the two may differ, and only the user knows which one they meant.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, create_model, model_validator
from pydantic_core import PydanticCustomError

from .. import jsontext
from ..models import World
from ..problems import GamemasterError, Problem, StateError, described
from . import all_kinds, get_kind
from .base import KindSettings, SceneKind


#: Where the settings stand; an error found where a kind is used names the file, as a load would.
WORLD_FILE = "state/world.json"


def _registry() -> dict[str, SceneKind]:
    """The kinds; none while an installed kind's package does not load. What needs no kind
    (``status``) still reads the world then, its ``kinds`` unchecked and kept as written; what
    needs one asks the registry itself and stops with its one line."""
    try:
        return all_kinds()
    except GamemasterError:
        return {}


def section(kind: SceneKind) -> str:
    """Where a kind's settings stand under ``kinds``: its name in lower case."""
    return kind.name.lower()


def configurable() -> dict[str, type[KindSettings]]:
    """section → settings model, for the kinds that have settings, in listing order."""
    return {section(kind): kind.settings for kind in _registry().values() if kind.settings is not None}


def former_names() -> dict[str, tuple[str, str]]:
    """old flat key → (section, field), over every kind's ``former_names``."""
    return {old: (name, field) for name, model in configurable().items() for field, old in model.former_names.items()}


def new_name(old: str) -> str | None:
    """``kinds.meeting.rounds`` for ``meeting_rounds``; None for a key that is no old name."""
    place = former_names().get(old)
    return f"kinds.{place[0]}.{place[1]}" if place else None


def old_keys(data: dict) -> dict[str, str]:
    """The old flat keys in ``world.json``'s data → their new names, for ``validate`` and ``doctor``."""
    return {key: new for key in data if (new := new_name(key))}


def old_key_notice(old: str) -> str:
    return f"{old}: an old name, read as {new_name(old)} (`gamemaster doctor --fix` writes it there)"


def not_installed(kinds: dict[str, Any]) -> list[str]:
    """Notices for sections of ``kinds`` that name no installed kind (kept as they are, and so
    without effect), for ``validate``."""
    installed = _registry()
    notices = []
    for name in kinds:
        if not installed or _kind_of(name) is not None:
            continue
        if isinstance(name, str) and _kind_of(name.lower()) is not None:
            notices.append(f"kinds.{name}: a section's name is its kind's in lower case; as kinds.{name.lower()} "
                           "it would be read, as it is it has no effect")
        else:
            notices.append(f"kinds.{name}: no scene kind {str(name).upper()} is installed; its settings are kept as they are")
    return notices


def move_former(data: Any, fields: Any = ()) -> Any:
    """``world.json``'s data with every old flat key moved to its place under ``kinds``. Only
    keys that are none of ``fields`` (the world's own) can be old names: a world without such
    keys is taken as it is, without asking every kind for its former names."""
    if not isinstance(data, dict) or all(key in fields for key in data):
        return data
    former = former_names()
    found = [key for key in data if key in former]
    if not found:
        return data
    data = dict(data)
    kinds = dict(data["kinds"]) if isinstance(data.get("kinds"), dict) else {}
    for old in found:
        name, field = former[old]
        settings = dict(kinds[name]) if isinstance(kinds.get(name), dict) else {}
        if field in settings:
            raise PydanticCustomError("set_twice", "{old}: the old name of kinds.{name}.{field}, which is set too; "
                                      "remove {old}", {"old": old, "name": name, "field": field})
        settings[field] = data.pop(old)
        _check_former(old, name, field, settings)
        kinds[name] = settings
    data["kinds"] = kinds
    return data


def _check_former(old: str, name: str, field: str, settings: dict[str, Any]) -> None:
    """An old key's value checked by its new field, the error naming the key the file has: the
    user looks for ``meeting_rounds``, not for a ``kinds.meeting.rounds`` they never wrote."""
    try:
        configurable()[name].model_validate(settings)
    except ValidationError as exc:
        for error in exc.errors():
            if error["loc"][:1] == (field,):
                raise PydanticCustomError("former_invalid", "{old} (read as kinds.{name}.{field}): {msg}",
                                          {"old": old, "name": name, "field": field, "msg": error["msg"]}) from None


def _no_settings(value: Any) -> Any:
    if value is not None:
        raise PydanticCustomError("no_settings", "this kind has no settings (kinds with settings: {known})",
                                  {"known": ", ".join(configurable())})
    return value


@lru_cache(maxsize=4)
def _mapping(kinds: tuple[SceneKind, ...]) -> type[BaseModel]:
    """The ``kinds`` mapping as a model: one field per kind, so an error names ``kinds.<kind>.<field>``."""
    fields: dict[str, Any] = {
        section(kind): (kind.settings, Field(default_factory=kind.settings)) if kind.settings is not None
        else (Annotated[Any, AfterValidator(_no_settings)], None)
        for kind in kinds
    }
    return create_model("KindsSettings", __config__=ConfigDict(extra="allow", defer_build=True), **fields)


def _kind_of(name: Any) -> SceneKind | None:
    """The installed kind whose section ``name`` is, found by name alone (a built-in kind imports
    only its own module, so loading a world does not import every kind); None if there is none."""
    if not isinstance(name, str) or not name.isalpha() or name != name.lower():
        return None
    try:
        kind = get_kind(name.upper(), strict=False)
    except GamemasterError:  # an installed kind's package does not load: kept as written, as with no registry
        return None
    return kind if kind.name == name.upper() else None


def validated(value: dict[str, Any]) -> dict[str, Any]:
    """The ``kinds`` mapping with each section's settings checked and completed with its defaults.

    Only the sections present are checked, each by its own kind: the kinds without a section
    take their defaults when asked (``defaults``), and a command that meets one scene imports
    that scene's kind, not all of them."""
    present = [kind for name in value if (kind := _kind_of(name)) is not None]
    if not present:
        return dict(value)
    present.sort(key=lambda kind: (kind.order, kind.name))
    checked = _mapping(tuple(present)).model_validate(value)
    return {**{section(kind): getattr(checked, section(kind)) for kind in present if kind.settings is not None},
            **(checked.model_extra or {})}


def all_defaults() -> dict[str, Any]:
    """Every installed kind's settings at their defaults: a world without ``kinds`` (a new one) shows them all."""
    return validated({name: {} for name in configurable()})


def defaults(kind: str) -> KindSettings:
    """``kind``'s settings when the world has no section for it."""
    model = get_kind(kind.upper()).settings
    if model is None:
        raise KeyError(f"scene kind {kind.upper()} has no settings")
    return model()


class _Kinds(BaseModel):
    """``world.json`` as far as the kinds' settings go: an old flat key moved to its section, each
    section checked and completed by its kind, an error located as in the file (``kinds.meeting.rounds``)."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    kinds: Annotated[dict[str, Any], AfterValidator(validated)] = Field(default_factory=all_defaults)

    @model_validator(mode="before")
    @classmethod
    def _former_names(cls, data: Any) -> Any:
        return move_former(data, World.model_fields)


def _data(world: World) -> dict[str, Any]:
    """What of ``world`` concerns the kinds' settings: its ``kinds`` as written, and the keys of its own."""
    data = dict(world.model_extra or {})
    if "kinds" in world.model_fields_set:
        data["kinds"] = world.kinds
    return data


def checked(world: World) -> dict[str, Any]:
    """``world``'s ``kinds`` with its old flat keys moved in and every section checked by its kind and
    completed with its defaults; a ``ValidationError`` located as in world.json (``kinds.meeting.rounds``)."""
    return _Kinds.model_validate(_data(world)).kinds


def problems(world: World) -> list[str]:
    """What ``checked`` refuses, one line each (``validate``)."""
    try:
        checked(world)
    except ValidationError as exc:
        return [described(error) for error in exc.errors()]
    return []


def _state_error(lines: list[str]) -> StateError:
    return StateError(f"{WORLD_FILE}: " + "; ".join(lines), [Problem(WORLD_FILE, None, line) for line in lines])


def _moved(world: World) -> dict[str, Any]:
    """``world``'s ``kinds`` with an old world.json's flat keys (``meeting_rounds``) read into their
    sections; a key under both names, or a bad value under an old one, is a ``StateError`` naming
    the key. Only the sections those keys move into are checked here."""
    if not (world.model_extra and old_keys(world.model_extra)):
        return world.kinds
    try:
        return move_former(_data(world), World.model_fields)["kinds"]
    except PydanticCustomError as exc:
        raise _state_error([exc.message()]) from None


def former_checked(world: World) -> None:
    """An old world.json's flat keys read into their sections now: a key under both names, or a
    bad value under an old one, stops any command that reads the world, as it did before names
    were namespaced. A wrong section of the new form waits for its kind (``settings_of``)."""
    _moved(world)


def settings_of(world: World, kind: str) -> KindSettings:
    """The settings of ``kind`` (``"MEETING"`` or ``"meeting"``), its section checked here, where the
    kind is used: a world whose ``encounter`` section is wrong still plays its WORK scenes, and
    ``validate`` names every section that is wrong."""
    name = kind.lower()
    kinds = _moved(world)
    if name not in kinds:
        return defaults(kind)
    model = get_kind(name.upper()).settings
    if model is None:
        raise _state_error([f"kinds.{name}: this kind has no settings (kinds with settings: {', '.join(configurable())})"])
    return _section(model, name, jsontext.dumps(kinds[name], sort_keys=True)).model_copy(deep=True)


@lru_cache(maxsize=64)
def _section(model: type[KindSettings], name: str, text: str) -> KindSettings:
    """A section checked once while its text stays the same (a kind reads its settings for each
    character it weighs); callers get a deep copy, so none changes what the next one gets."""
    try:
        return model.model_validate(jsontext.loads(text))
    except ValidationError as exc:
        raise _state_error([".".join(("kinds", name, *map(str, error["loc"]))) + f": {error['msg']}"
                            for error in exc.errors()]) from None


def world_data(world: World) -> dict[str, Any]:
    """``world`` as world.json is written: old flat keys moved under ``kinds`` and each section
    completed with its kind's defaults (a new world lists every kind's). A world whose settings a
    kind refuses is written with them as they stand: nothing is lost, and ``validate`` and the
    kind's next use name them."""
    data = world.dump()
    try:
        kinds = checked(world)
    except ValidationError:
        return data
    for old in old_keys(world.model_extra or {}):
        data.pop(old, None)
    data["kinds"] = {name: value.model_dump(mode="json") if isinstance(value, BaseModel) else value
                     for name, value in kinds.items()}
    return data
