"""``agents sync``: the character subagents and the toolkit's other Claude Code files in a workspace;
``agents new``: a new character."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ..printable import printable
from .common import Context, JsonOption, print_json, run

agents_app = typer.Typer(help="The characters: new ones, and their subagents for Claude Code.", no_args_is_help=True)


@agents_app.command("sync")
def agents_sync(
    ctx: typer.Context,
    check: Annotated[bool, typer.Option("--check", help="Only report; exit 1 if the files are out of date.")] = False,
) -> None:
    """Write .claude/agents/character-*.md from state/agents, and bring the toolkit's Claude Code files up to date."""
    from ..claude_code import sync_subagents
    from ..claude_files import record_local, states, update

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
            for path in record_local(obj.workspace):
                print(f"this clone: {path}")
        if check and (result.changed or stale):
            raise typer.Exit(1)

    run(ctx, action)


@agents_app.command("new")
def agents_new(
    ctx: typer.Context,
    agent_id: Annotated[str, typer.Argument(metavar="ID", help="The new id: lower-case letters, digits and _, starting with a letter.")],
    name: Annotated[str, typer.Option("--name", help="The full name, e.g. \"Mira Sander\".")],
    role: Annotated[str, typer.Option("--role", help="What they do in the studio.")],
    persona: Annotated[Optional[str], typer.Option("--persona", help="Who they are, in the studio's language (default: NAME, ROLE.).")] = None,
    artifact_kind: Annotated[str, typer.Option("--artifact-kind", help="Their gallery folder (default: notes).")] = "notes",
    team: Annotated[Optional[str], typer.Option("--team", help="The team they belong to (kept in their file).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Add a character: state/agents/ID.json, an empty memory stream and its subagent; the next ARRIVAL includes them."""
    from ..people import new_agent

    def action(obj: Context):
        agent = new_agent(obj.workspace, agent_id, name=name, role=role, persona=persona,
                          artifact_kind=artifact_kind, team=team)
        if as_json:
            return print_json(agent.dump())
        print(printable(f"new character {agent.id}: {agent.name} ({agent.role})"))
        print(f"written: state/agents/{agent.id}.json, state/memories/{agent.id}.jsonl")
        print("they join at the next ARRIVAL")

    run(ctx, action)
