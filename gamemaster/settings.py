"""The world's settings: what ``gamemaster config`` shows and changes in ``state/world.json``.

A setting is a field of ``World`` that a person chooses (scenes per day, budgets, weights…);
the running state (day, scene, today's logbook, briefs, events, the pending scene) is the
Game Master's own bookkeeping and is changed by scenes and commands, never set by hand here.
Every new value goes through the ``World`` model, so ``config`` accepts exactly what a
valid ``world.json`` may hold.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from . import calendar, jsontext
from .kinds.settings import checked, configurable, new_name, settings_of, world_data
from .models import WEEKDAYS, World
from .problems import GamemasterError, describe_validation_error
from .retrieval import available
from .transaction import recover
from .workspace import Workspace

#: Fields of World the Game Master keeps itself: setting them by hand would break a day under way.
RUNNING_STATE = ("day", "scene", "today", "briefs", "briefs_issued", "past_briefs", "events", "events_issued", "pending")


def setting_names() -> list[str]:
    """The settings in the order ``World`` declares them."""
    return [name for name in World.model_fields if name not in RUNNING_STATE]


def settings(world: World) -> dict[str, Any]:
    """Every setting's value as JSON would hold it."""
    data = world_data(world)
    # The date of day 1 also where world.json leaves it to first_weekday.
    data["start_date"] = world.date(1).isoformat()
    # Every kind's settings, also those a world.json leaves out (they hold their defaults).
    data["kinds"] = {**{name: settings_of(world, name).model_dump(mode="json") for name in configurable()},
                     **data["kinds"]}
    return {name: data[name] for name in setting_names()}


def _path(key: str) -> tuple[str, ...]:
    """``key`` split at the dots, once each part is known to be a setting (or a field of one)."""
    parts = tuple((new_name(key) or key).split("."))  # an old flat name sets the setting's new place
    names = setting_names()
    if parts[0] in RUNNING_STATE:
        raise GamemasterError(f"{key}: running state the Game Master keeps, not a setting; settings are {', '.join(names)}")
    if parts[0] not in names:
        raise GamemasterError(f"{key}: not a setting; settings are {', '.join(names)}")
    if len(parts) == 1:
        return parts
    if parts[0] == "kinds":
        return _kind_path(key, parts)
    nested = World.model_fields[parts[0]].annotation
    if not (isinstance(nested, type) and issubclass(nested, BaseModel)):
        raise GamemasterError(f"{key}: {parts[0]} has no parts; set it as a whole")
    fields = list(nested.model_fields)
    if len(parts) > 2 or parts[1] not in fields:
        raise GamemasterError(f"{key}: not a part of {parts[0]}; its parts are {', '.join(fields)}")
    return parts


def _kind_path(key: str, parts: tuple[str, ...]) -> tuple[str, ...]:
    """``kinds.<kind>`` or ``kinds.<kind>.<field>``, once the kind has settings and the field is one of them."""
    models = configurable()
    if parts[1] not in models:
        raise GamemasterError(f"{key}: not a kind with settings; kinds with settings are {', '.join(models)}")
    fields = list(models[parts[1]].model_fields)
    if len(parts) > 3 or (len(parts) == 3 and parts[2] not in fields):
        raise GamemasterError(f"{key}: not a setting of {parts[1]}; its settings are {', '.join(fields)}")
    return parts


def get_setting(workspace: Workspace, key: str) -> Any:
    """The value of ``key`` (``scenes_per_day``, ``retrieval_weights.relevance``)."""
    return _value(settings(workspace.load_world()), _path(key))


def _value(data: dict[str, Any], parts: tuple[str, ...]) -> Any:
    for part in parts:
        data = data[part]
    return data


def parse_value(text: str) -> Any:
    """What the command line gave: JSON when it is JSON (``8``, ``null``, ``{"a": 1}``), else the text."""
    try:
        return jsontext.loads(text)
    except jsontext.JSONDecodeError:
        return text


def set_setting(workspace: Workspace, key: str, text: str) -> tuple[Any, Any]:
    """Set ``key`` to the value ``text`` holds and write world.json; returns (previous, new).

    A value ``World`` refuses is reported with the key and the rule it broke, and nothing is
    written. Text that is JSON of the wrong type (``2077`` for the studio's name) is tried
    once more as the plain text it also is, so a string setting can hold digits or ``true``.
    """
    parts = _path(key)
    with workspace.lock:
        recover(workspace)
        world = workspace.load_world()
        previous = _value(settings(world), parts)
        value = parse_value(text)
        try:
            updated = _validated(world, parts, value)
        except ValidationError as exc:
            if isinstance(value, str):
                raise GamemasterError(describe_validation_error(exc)) from None
            try:
                updated = _validated(world, parts, text)
            except ValidationError:
                raise GamemasterError(describe_validation_error(exc)) from None
        if parts[0] == "selection":
            _check_known_strategy(updated)
        new = _value(settings(updated), parts)
        if new != previous:
            workspace.save_world(updated)
        return previous, new


def _validated(world: World, parts: tuple[str, ...], value: Any) -> World:
    data = world_data(world)  # as world.json is written: old flat keys in their sections
    target = data
    for part in parts[:-1]:
        target = target.setdefault(part, {})  # a kind's section a world.json leaves out
    target[parts[-1]] = value
    # start_date and first_weekday never disagree: a new date of day 1 brings its weekday, and a
    # new weekday of day 1 moves a start_date to the first such day from it on.
    if parts == ("start_date",) and calendar.weekday_of(value):
        data["first_weekday"] = calendar.weekday_of(value)
    elif parts == ("first_weekday",) and world.start_date and value in WEEKDAYS:
        data["start_date"] = calendar.on_or_after(world.start_date, value).isoformat()
    updated = World.model_validate(data)
    if parts[0] == "kinds":  # the value reads a section as JSON; its kind checks what it holds
        checked(updated)
    return updated


def _check_known_strategy(world: World) -> None:
    # The model only checks that selection looks like a module name; an unknown one
    # would stop the next scene, so it is refused here instead.

    if world.selection not in available():
        raise GamemasterError(f"selection: unknown strategy {world.selection!r}; choose one of {', '.join(available())}")
