"""What every command shares: the workspace from ``--root``, reported problems as exit code 1,
JSON for programs and how a scene is described to people.

Nothing here imports rich, the Game Master or a backend at import time: every command
pays for this module, so each import waits until a command needs it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Annotated

import typer
from typer._types import TyperChoice

from ..command_run import Context, Exit, guarded, print_json  # noqa: F401 (Context and print_json: every command's)
from ..printable import printable
from ..problems import GamemasterError

JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON for programs.")]


def rich_console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


def print_json_rows(data: dict) -> None:
    """``print_json`` for listings: each item of a list on a line of its own."""
    from ..jsontext import dumps_rows

    sys.stdout.write(dumps_rows(data))


def fail(message: str) -> None:
    print(f"error: {printable(message)}", file=sys.stderr)
    raise typer.Exit(1)


def run(ctx: typer.Context, action):
    """Call ``action(Context)`` and turn reported problems into exit code 1 (``command_run.guarded``)."""
    try:
        return guarded(ctx.obj, action)
    except Exit as exc:
        raise typer.Exit(exc.code) from None


def scene_lines(spec, names: dict[str, str]) -> list[str]:
    """Plain lines, control characters escaped: names, topics and reasons come from files."""
    topic = f" · {spec.topic}" if spec.topic else ""
    rooms = spec.rooms or [spec.participants]
    people = [printable(f"  room {n}: " * (len(rooms) > 1) + ", ".join(names.get(p, p) for p in room))
              for n, room in enumerate(rooms, 1)]
    return [printable(f"{spec.ref} {spec.type}{topic}"), *people, printable(f"  why: {spec.reason}")]


def describe_scene(console, spec, names: dict[str, str]) -> None:
    from rich.markup import escape

    first, *people, why = scene_lines(spec, names)
    console.print(f"[bold]{escape(first)}[/]", soft_wrap=True)
    for line in people:
        console.print(line, markup=False, soft_wrap=True)
    console.print(f"[dim]{escape(why)}[/]", soft_wrap=True)


class LazyChoice(TyperChoice):
    """A choice of values found only when they are needed — for ``--help``, or to check a value
    given — since finding them (every scene kind, every retrieval strategy) costs an import the
    other commands do not pay for. The parser checks the value, so a wrong one is a usage error
    (exit 2) naming the option, and ``--help`` shows the choices. (Typer's own choice type: typer
    carries its own click, and takes no other click's types.)

    ``resolve``, where given, turns a value into the choice it names without finding them all (a
    built-in scene kind, without the installed packages' kinds). Values that cannot be found (an
    installed kind package that does not load) are one ``error:`` line, not a traceback."""

    def __init__(self, find: Callable[[], list[str]], case_sensitive: bool = False,
                 resolve: Callable[[str], str | None] | None = None):
        self._find = find
        self._resolve = resolve
        self._found: tuple[str, ...] | None = None
        self.case_sensitive = case_sensitive

    @property
    def choices(self) -> tuple[str, ...]:  # type: ignore[override]
        if self._found is None:
            try:
                self._found = tuple(self._find())
            except GamemasterError as exc:
                fail(str(exc))
        return self._found

    @choices.setter
    def choices(self, values) -> None:
        self._found = tuple(values)

    def convert(self, value, param, ctx):
        quick = self._resolve(value) if self._resolve and isinstance(value, str) else None
        return quick if quick is not None else super().convert(value, param, ctx)

    # Shown as they are named (ARRIVAL), not as they are compared (case-insensitively).
    def get_metavar(self, param, ctx) -> str:
        return f"<{'|'.join(self.choices)}>"

    def get_invalid_choice_message(self, value, ctx) -> str:
        return f"{value!r}: choose {', '.join(self.choices)}"


def kind_choice() -> LazyChoice:
    def kinds() -> list[str]:
        from ..kinds import kind_names

        return list(kind_names())

    def builtin(value: str) -> str | None:
        from ..kinds import builtin_kind

        kind = builtin_kind(value)
        return None if kind is None else kind.name

    return LazyChoice(kinds, resolve=builtin)


def memory_type_choice() -> LazyChoice:
    def types() -> list[str]:
        from typing import get_args

        from ..models import MemoryType

        return list(get_args(MemoryType))

    return LazyChoice(types, case_sensitive=True)


def strategy_choice() -> LazyChoice:
    def strategies() -> list[str]:
        from ..retrieval import available

        return available()

    return LazyChoice(strategies, case_sensitive=True)


def complete_agent(ctx: typer.Context, incomplete: str) -> list[str]:
    """Shell completion of an agent id: the agents of the workspace the command would use."""
    from ..workspace import resolve_root

    try:
        root = resolve_root(ctx.find_root().params.get("root"))
    except Exception:  # noqa: BLE001 - completion offers nothing rather than an error in the shell
        return []
    agents = root / "state" / "agents"
    return sorted(p.stem for p in agents.glob("*.json") if p.stem.startswith(incomplete)) if agents.is_dir() else []


#: An agent id as the first argument, completed from the workspace's agents.
AgentArgument = Annotated[str, typer.Argument(metavar="AGENT", help="Agent id.", autocompletion=complete_agent)]
