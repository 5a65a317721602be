"""``day advance``: play scenes through a backend until days end."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ..printable import printable
from .common import JsonOption, print_json
from .play import (BackendOption, BatchOption, ConcurrencyOption, FallbackOption, FromOption, ModelOption, PollOption,
                   RecordOption, StrictOption, outcome_json, play, replay_options)

day_app = typer.Typer(help="Play whole days.", no_args_is_help=True)


@day_app.command("advance")
def day_advance(
    ctx: typer.Context,
    days: Annotated[int, typer.Option("--days", min=1, help="How many day ends to play to.")] = 1,
    backend: BackendOption = None,
    model: ModelOption = None,
    concurrency: ConcurrencyOption = None,
    batch: BatchOption = False,
    budget: Annotated[
        Optional[float],
        typer.Option("--budget", min=0.0, help="Stop before a scene that would take this workspace's total API spend (see `cost`) past USD."),
    ] = None,
    poll: PollOption = 10.0,
    record: RecordOption = None,
    source: FromOption = None,
    fallback: FallbackOption = None,
    strict: StrictOption = False,
    as_json: JsonOption = False,
) -> None:
    """Play scenes until the day ends (--days N: N day ends); resumes after an interruption."""

    def steps(gm, chosen, listen):
        from ..loop import advance_days

        report = advance_days(gm, chosen, days, listen, batch=batch, budget=budget, poll_seconds=poll)
        packed = report.archived.packed if report.archived else []
        if as_json:
            print_json({"scenes": [outcome_json(o) for o in report.scenes], "summaries": [str(p) for p in report.summaries],
                        "archived": [p.as_json() for p in packed]})
        elif packed:
            keep = gm.world().archive_after
            print(f"archived {', '.join(p.day for p in packed)} into scenes/day-XXX.tar.xz (the {keep} newest "
                  "finished days stay folders: archive_after in state/world.json; 0 never packs)")

    play(ctx, backend, as_json, steps, {"model": model, "concurrency": concurrency,
                                        **replay_options(source, fallback, strict)}, record)


@day_app.command("archive")
def day_archive(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Pack each finished day's scene folder into scenes/day-XXX.tar.xz (read transparently; tar -xJf unpacks)."""
    from .common import run

    def action(obj):
        from ..archive import archive_days

        obj.workspace.require()
        done = archive_days(obj.workspace)
        if as_json:
            return print_json({"archived": [p.as_json() for p in done.packed],
                               "skipped": [{"day": day, "reason": why} for day, why in done.skipped],
                               "digests": done.digests})
        if not done.packed and not done.skipped:
            print("nothing to archive: every finished day is packed (today and a pending scene never are)")
        for p in done.packed:
            print(f"scenes/{p.day}/ → scenes/{p.day}.tar.xz: {p.files} files, "
                  f"{p.folder_bytes / 1e6:.2f} MB → {p.archive_bytes / 1e6:.2f} MB")
        for day, why in done.skipped:
            print(f"scenes/{day}/ skipped: {printable(why)}")
        for path in done.digests:
            print(f"{path}: written (the archive read back whole; every reader checks it against this)")

    run(ctx, action)
