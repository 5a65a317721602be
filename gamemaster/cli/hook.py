"""``hook subagent-stop`` and ``hook pre-tool-use``: the hooks Claude Code runs for character subagents."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from ..command_run import subagent_stop
from .common import Context, print_json, run

hook_app = typer.Typer(help="Claude Code hooks.", no_args_is_help=True)


@hook_app.command("subagent-stop")
def hook_subagent_stop(
    ctx: typer.Context,
    from_plugin: Annotated[bool, typer.Option("--from-plugin", hidden=True,
                                              help="Run by the plugin: step aside where the workspace has its own hook.")] = False,
) -> None:
    """Claude Code's SubagentStop hook: store a character's reply, or send it back with the reason."""
    # `python -m gamemaster` and the `gamemaster` script start this same action without typer
    # (``__main__.reply_hook``); typer runs it where the command line is parsed whole (``app``
    # called from a program, as the tests' CliRunner does).
    run(ctx, subagent_stop(from_plugin))


@hook_app.command("pre-tool-use")
def hook_pre_tool_use(
    ctx: typer.Context,
    from_plugin: Annotated[bool, typer.Option("--from-plugin", hidden=True,
                                              help="Run by the plugin: step aside where the workspace has its own hook.")] = False,
) -> None:
    """Claude Code's PreToolUse hook: hand a character its prompt file's text; keep its reading to its own mind."""
    from ..claude_fence import pre_tool_use_hook

    def action(obj: Context):
        answer = pre_tool_use_hook(obj.workspace, sys.stdin.read(), from_plugin=from_plugin)
        if answer is not None:
            print_json(answer)

    run(ctx, action)
