"""``config``: show the world's settings, one of them, or set one."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from ..printable import printable
from .common import Context, JsonOption, print_json, run


def config(
    ctx: typer.Context,
    key: Annotated[Optional[str], typer.Argument(metavar="KEY", help="A setting, e.g. scenes_per_day or retrieval_weights.relevance.")] = None,
    value: Annotated[Optional[str], typer.Argument(metavar="VALUE", help="The new value: JSON (8, null, \"text\") or plain text; a negative number after --.")] = None,
    as_json: JsonOption = False,
) -> None:
    """The settings in world.json: all of them, one (KEY), or set one (KEY VALUE)."""
    from ..settings import get_setting, set_setting, settings

    def action(obj: Context):
        if key is None:
            found = settings(obj.workspace.load_world())
            if as_json:
                return print_json(found)
            for name, current in found.items():
                for line in _lines(name, current):
                    print(printable(line))
        elif value is None:
            current = get_setting(obj.workspace, key)
            if as_json:
                return print_json({"key": key, "value": current})
            print(printable(current if isinstance(current, str) else _shown(current)))
        else:
            # start_date and first_weekday move together: the other one's change is shown as well.
            other = _COMPANION.get(key)
            before = get_setting(obj.workspace, other) if other else None
            previous, new = set_setting(obj.workspace, key, value)
            after = get_setting(obj.workspace, other) if other else None
            if as_json:
                return print_json({"key": key, "value": new, "previous": previous,
                                   **({other: after} if after != before else {})})
            change = "unchanged" if new == previous else f"was {_shown(previous)}"
            print(printable(f"{key} = {_shown(new)} ({change})"))
            if after != before:
                print(printable(f"{other} = {_shown(after)} (was {_shown(before)}: follows {key})"))

    run(ctx, action)


#: Settings that change together: day 1's date and its weekday.
_COMPANION = {"start_date": "first_weekday", "first_weekday": "start_date"}


def _shown(value: Any) -> str:
    from ..jsontext import dumps

    return dumps(value)


def _lines(name: str, value: Any) -> list[str]:
    # A setting with parts is shown part by part, as the dotted keys `config` accepts.
    if isinstance(value, dict):
        return [line for part, inner in value.items() for line in _lines(f"{name}.{part}", inner)]
    return [f"{name} = {_shown(value)}"]
