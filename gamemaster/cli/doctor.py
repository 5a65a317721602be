"""``doctor`` and ``import``: adopt a studio written by hand or by another Game Master.

The doctor package is imported inside the commands only: every other command starts
without it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from ..printable import printable
from .common import Context, JsonOption, print_json, run


def doctor(
    ctx: typer.Context,
    fix: Annotated[bool, typer.Option("--fix", help="Back up state/ into state/.backup/<time>/, then rewrite it "
                                      "in the canonical format.")] = False,
    as_json: JsonOption = False,
) -> None:
    """List how the state files drift from the format (file:line: what — what the fix does); --fix repairs them."""
    from ..doctor.fix import run_doctor

    def action(obj: Context):
        result = run_doctor(obj.workspace, fix=fix)
        if as_json:
            print_json(doctor_json(result))
        else:
            print_doctor(result)
        if result.diagnosis.error_count or (result.diagnosis.drift_count and not fix):
            raise typer.Exit(1)

    run(ctx, action)


def import_studio(
    ctx: typer.Context,
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="The studio's folder (with state/ and maybe gallery/), "
                                              "or its state/ folder. Only read.")],
    into: Annotated[Optional[Path], typer.Option("--into", help="The new workspace (default: --root or here); "
                                                 "must be new or empty.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Make a workspace of a studio's state folder from elsewhere: copy, repair, add prompts and Claude Code files."""
    from ..doctor.importer import import_studio as import_folder

    def action(obj: Context):
        result = import_folder(directory, obj.target(into))
        if as_json:
            print_json({**doctor_json(result.doctor), "workspace": str(result.workspace.root),
                        "gallery_copied": result.gallery_copied, "day_summary": result.day_summary,
                        "incomplete": result.incomplete, "skipped": result.skipped})
        else:
            print(printable(f"imported {result.source_state} into {result.workspace.root}"))
            for line in result.skipped:
                print(printable(line))
            print_doctor(result.doctor)
            if result.day_summary:
                print(printable(f"the studio's last day is over: {result.day_summary}"))
            if result.incomplete:
                print(printable(f"error: the workspace is not complete: {result.incomplete}; correct it by hand, "
                                f"then run `gamemaster --root {result.workspace.root} doctor --fix` and `agents sync`"))
            else:
                print(printable(f"next: gamemaster --root {result.workspace.root} day advance"))
        if result.doctor.diagnosis.error_count or result.incomplete:
            raise typer.Exit(1)

    run(ctx, action)


def doctor_json(result) -> dict:
    diagnosis = result.diagnosis
    return {
        "drifts": [d.as_json() for d in diagnosis.drifts],
        "counts": {"drift": diagnosis.drift_count, "error": diagnosis.error_count, "warning": diagnosis.warning_count},
        "fixed": result.fixed,
        "backup": result.backup,
        "backup_skipped": result.backup_skipped,
        "written": result.written,
    }


def print_doctor(result) -> None:
    diagnosis = result.diagnosis
    for drift in diagnosis.drifts:
        print(printable(str(drift)))
    counts = (f"{diagnosis.drift_count} drift(s), {diagnosis.error_count} error(s), "
              f"{diagnosis.warning_count} warning(s)")
    if result.fixed:
        print(printable(f"fixed: {counts}; rewrote {len(result.written)} file(s): {', '.join(result.written)}"))
        print(printable(f"backup of state/ before the fix: {result.backup}"))
        for line in result.backup_skipped:
            print(printable(f"  not in the backup: {line}"))
    else:
        print(counts)
        if diagnosis.drift_count:
            print("run `gamemaster doctor --fix` to repair them (state/ is backed up first)")
    drafts = sorted({d.file for d in diagnosis.drifts if d.draft})
    if drafts:
        print(printable(f"DRAFT values to read and rewrite in your own words: {', '.join(drafts)}"))
    if diagnosis.error_count:
        print("errors: left as they are; correct them by hand, then run `gamemaster doctor` again")
