"""``config``: show the world's settings, one of them, or set one."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from ..printable import printable
from .common import Context, JsonOption, print_json, run


def config(
    ctx: typer.Context,
    key: Annotated[Optional[str], typer.Argument(help="A setting, e.g. scenes_per_day or retrieval_weights.relevance.")] = None,
    value: Annotated[Optional[str], typer.Argument(help="The new value: JSON (8, null, \"text\") or plain text; a negative number after --.")] = None,
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
            previous, new = set_setting(obj.workspace, key, value)
            if as_json:
                return print_json({"key": key, "value": new, "previous": previous})
            change = "unchanged" if new == previous else f"was {_shown(previous)}"
            print(printable(f"{key} = {_shown(new)} ({change})"))

    run(ctx, action)


def _shown(value: Any) -> str:
    from ..jsontext import dumps

    return dumps(value)


def _lines(name: str, value: Any) -> list[str]:
    # A setting with parts is shown part by part, as the dotted keys `config` accepts.
    if isinstance(value, dict):
        return [line for part, inner in value.items() for line in _lines(f"{name}.{part}", inner)]
    return [f"{name} = {_shown(value)}"]
