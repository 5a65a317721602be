"""The ``gamemaster`` command line: a thin layer over the Game Master.

Human output uses rich; ``--json`` prints one JSON document for programs.
Exit codes: 0 ok, 1 a reported problem, 2 bad usage.

Each module holds one group of commands; a command group (``scene``, ``day``…) is
that module's own Typer. The commands at the top level are registered below, all
in one place, because their order here is the order ``gamemaster --help`` shows.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from . import agents, config, cost, day, doctor, hook, mcp, memory, plugin, report, scene, studio, workspace
from .common import Context

class _App(typer.Typer):
    """Turns only the command a run names into a click command.

    Typer converts every registered command (signature, annotations, options) on each start,
    about 20 ms for all of them, while a run uses one. Help, a mistyped word or anything this
    does not recognise before the command builds them all, as typer would."""

    def __call__(self, *args, **kwargs):
        argv = args[0] if args else kwargs.get("args")
        word = command_word(sys.argv[1:] if argv is None else list(argv))
        commands = [c for c in self.registered_commands if word and c.name == word]
        groups = [g for g in self.registered_groups if word and g.name == word]
        if not commands and not groups:
            return super().__call__(*args, **kwargs)
        one = copy.copy(self)
        one.registered_commands, one.registered_groups = commands, groups
        return typer.Typer.__call__(one, *args, **kwargs)


#: The options before a command word (``main`` below): those that take a value, and flags.
_VALUE_OPTIONS, _FLAGS = {"--root"}, {"--version"}


def command_word(argv: list[str]) -> str | None:
    """The command ``argv`` runs (``gamemaster --root X next`` → ``next``); None when anything
    before it is not one of ``main``'s options, so the full command line is built instead."""
    args = iter(argv)
    for arg in args:
        if arg in _VALUE_OPTIONS:
            next(args, None)
        elif arg in _FLAGS or arg.split("=", 1)[0] in _VALUE_OPTIONS and "=" in arg:
            continue
        else:
            return None if arg.startswith("-") else arg
    return None


app = _App(
    help="Run a studio of AI characters scene by scene.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
)


def print_version(value: bool) -> None:
    """``--version``: the installed package's version, before any workspace is looked at."""
    if not value:
        return
    from importlib.metadata import PackageNotFoundError, version

    try:
        number = version("gamemaster")
    except PackageNotFoundError:  # run from a checkout that was never installed
        from .. import __version__ as number
    print(f"gamemaster {number}")
    raise typer.Exit()


@app.callback()
def main(
    ctx: typer.Context,
    root: Annotated[
        Optional[Path],
        typer.Option("--root", envvar="GAMEMASTER_ROOT",
                     help="Workspace folder (default: the workspace the current directory lies in)."),
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", callback=print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    ctx.obj = Context(root)


app.command("init")(workspace.init)
app.command("status")(workspace.status)
app.command("next", cls=scene.KindsCommand)(scene.next_scene)
app.command("prompt")(scene.prompt)
app.command("apply")(scene.apply)
app.command("reply")(scene.reply)
app.command("mcp")(mcp.mcp)
app.command("cost")(cost.cost)
app.command("memories")(memory.memories)
app.command("brief")(memory.brief)
app.command("validate")(workspace.validate)
app.command("doctor")(doctor.doctor)
app.command("import")(doctor.import_studio)
app.command("schema", cls=scene.KindsCommand)(scene.schema)
app.command("recall")(memory.recall)
app.command("lookup")(memory.lookup)
app.command("ask")(memory.ask)
app.command("who-knows")(memory.who_knows)
app.command("event")(studio.event)
app.command("library")(studio.library)
app.command("config")(config.config)
app.command("report")(report.report)

app.add_typer(scene.scene_app, name="scene")
app.add_typer(day.day_app, name="day")
app.add_typer(agents.agents_app, name="agents")
app.add_typer(hook.hook_app, name="hook")
app.add_typer(plugin.plugin_app, name="plugin")

__all__ = ["app"]
