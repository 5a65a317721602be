"""``init``, ``status`` and ``validate``: create a workspace, see where it stands, check its files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ..printable import markup_safe, printable
from .common import Context, JsonOption, describe_scene, print_json, rich_console, run


def init(
    ctx: typer.Context,
    directory: Annotated[Optional[Path], typer.Argument(metavar="DIR", help="Where to create it (default: --root or here).")] = None,
    empty: Annotated[bool, typer.Option("--empty", help="No characters: an empty studio.")] = False,
    plugin: Annotated[bool, typer.Option("--plugin", help="Claude Code runs the Game Master from the gamemaster plugin "
                                         "(claude --plugin-dir \"$(gamemaster plugin path)\"), not from workspace commands.")] = False,
) -> None:
    """Create a workspace with the bundled studio and editable prompts."""
    from ..create import init_workspace

    def action(obj: Context):
        workspace = init_workspace(obj.target(directory), empty=empty, plugin=plugin)
        obj.workspace = workspace  # its warnings (Claude Code files of the folder's own) are printed at the end
        console = rich_console()
        console.print(f"workspace ready: {workspace.root}", markup=False)
        console.print("next: gamemaster day advance", markup=False)

    run(ctx, action)


def status(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Day, scene, the pending scene and every agent's accumulator, plan and memory count."""

    def action(obj: Context):
        gm = obj.gm()
        data = gm.status()
        if as_json:
            return print_json(data)
        from rich.table import Table

        from ..scenes import SceneSpec

        rows, threshold, pending = data["agents"], data["reflection_threshold"], data["pending"]
        console = rich_console()
        console.print(f"[bold]{markup_safe(data['studio'])}[/] · day {data['day']:03d} · scene {data['scene']:02d}")
        if pending:
            console.print("pending:", style="bold")
            describe_scene(console, SceneSpec.model_validate(pending), {r["id"]: r["name"] for r in rows})
            console.print(f"  replies: {len(pending['replied'])}/{len(pending['turns'])}")
        table = Table("agent", "accumulator", "memories", "plan", "last scene")
        for row in rows:
            over = row["accumulator"] > threshold
            acc = f"[bold red]{row['accumulator']}[/]" if over else str(row["accumulator"])
            table.add_row(row["id"], f"{acc}/{threshold}", str(row["memories"]), markup_safe(row["plan"] or "—"), row["last_scene"] or "—")
        console.print(table)
        for brief in data["briefs"]:
            console.print(printable(f"brief {brief['id']} waiting: {brief['text']}"), markup=False)
        if data["gatherings"]:
            from ..gatherings import overview_lines

            console.print("gatherings:", style="bold")
            for row in data["gatherings"]:
                for line in overview_lines(row):
                    console.print(printable(line), markup=False, highlight=False, soft_wrap=True)

    run(ctx, action)


def validate(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Check every state file; every problem as file:line: reason; exit 1 if any."""
    from ..validate import validate_workspace

    def action(obj: Context):
        obj.workspace.require()
        problems = validate_workspace(obj.workspace)
        errors = [p for p in problems if not p.warning]
        if as_json:
            print_json({"ok": not errors, "problems": [str(p) for p in problems]})
        else:
            for problem in problems:
                print(problem)
            print(f"{len(errors)} error(s), {len(problems) - len(errors)} warning(s)")
        if errors:
            raise typer.Exit(1)

    run(ctx, action)
