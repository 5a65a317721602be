"""``agents sync``: the character subagents and the toolkit's other Claude Code files in a workspace."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import Context, run

agents_app = typer.Typer(help="Character subagents for Claude Code.", no_args_is_help=True)


@agents_app.command("sync")
def agents_sync(
    ctx: typer.Context,
    check: Annotated[bool, typer.Option("--check", help="Only report; exit 1 if the files are out of date.")] = False,
) -> None:
    """Write .claude/agents/character-*.md from state/agents, and bring the toolkit's Claude Code files up to date."""
    from ..claude_code import sync_subagents
    from ..claude_files import states, update

    def action(obj: Context):
        obj.workspace.require()
        result = sync_subagents(obj.workspace, check=check)
        verb = "out of date" if check else "written"
        for path in result.written:
            print(f"{verb}: {path}")
        for path in result.removed:
            print(f"{'stale' if check else 'removed'}: {path}")
        if not result.changed:
            print("subagents are up to date")
        # CLAUDE.md, the commands and the settings: as the installed toolkit ships them?
        found = states(obj.workspace)
        stale = [s for s in found if s.stale]
        for state in found:
            if state.status == "changed here":
                print(f"changed here (kept; the installed toolkit ships another version): {state.path}")
        if check:
            for state in stale:
                print(f"{state.status} (the installed toolkit ships a newer one): {state.path}")
        else:
            for path in update(obj.workspace):
                print(f"updated: {path}")
        if check and (result.changed or stale):
            raise typer.Exit(1)

    run(ctx, action)
