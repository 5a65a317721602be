"""What surrounds the characters: ``event`` schedules something that changes a day,
``library`` shows the reference documents and who read what."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ..printable import printable
from .common import Context, JsonOption, print_json, run


def event(
    ctx: typer.Context,
    text: Annotated[str, typer.Argument(metavar="TEXT", help="What happens, e.g. \"Playtest mit externen Testern\".")],
    day: Annotated[Optional[int], typer.Option("--day", min=1, help="Once, on this day (default: the current day).")] = None,
    weekday: Annotated[Optional[str], typer.Option("--weekday", help="Every such weekday: mon … sun.")] = None,
    to: Annotated[Optional[str], typer.Option("--to", help="Whom it concerns: comma-separated agent ids (default everyone).")] = None,
    meeting: Annotated[bool, typer.Option("--meeting", help="Those it concerns meet about it right after.")] = False,
    at: Annotated[Optional[str], typer.Option("--at", "--slot", help="Time of day: morning (default, right after ARRIVAL), lunch, afternoon, evening.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Schedule an EVENT in world.json: once on a day, or every weekday, at a time of day."""
    from ..events import schedule_event

    def action(obj: Context):
        people = [p.strip() for p in (to or "").split(",") if p.strip()] or None
        scheduled = schedule_event(obj.workspace, text, day=day, weekday=weekday, to=people, meeting=meeting, slot=at)
        if as_json:
            return print_json(scheduled.model_dump(mode="json"))
        when = f"every {scheduled.weekday}" if scheduled.weekday else f"on day {scheduled.day:03d}"
        when += f" at {scheduled.slot}"
        whom = ", ".join(scheduled.to) if scheduled.to else "everyone"
        print(printable(f"scheduled {scheduled.id} {when} for {whom}{' (then a meeting)' if meeting else ''}: {scheduled.text}"))
        _print_dates(obj.workspace.load_world(), scheduled)

    run(ctx, action)


def _print_dates(world, scheduled) -> None:
    """What the event says about days, read on the day it happens (a weekly one: its next day)."""
    from ..calendar import next_day_on, resolve, summary

    day = scheduled.day or next_day_on(world, scheduled.weekday, max(world.day, 1))
    found = resolve(scheduled.text, world.language, world, day)
    if found:
        ahead = f" (as read on day {day:03d}, the next {scheduled.weekday})" if scheduled.weekday else ""
        print(printable(summary(found) + ahead))


def library(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """The reference library's documents and what each character read in them."""
    from ..library import report

    def action(obj: Context):
        obj.workspace.require()
        documents = report(obj.workspace)
        if as_json:
            return print_json({"documents": documents})
        if not documents:
            print("library/ holds no Markdown documents")
        for document in documents:
            title = document["title"] or "(no longer in library/)"
            print(printable(f"{document['path']}: {title}"))
            if document["sections"]:
                print(printable("  sections: " + ", ".join(document["sections"])))
            for agent, read in document["read_by"].items():
                print(printable(f"  {agent} read: {', '.join(read) or '(whole document)'}"))
            if not document["read_by"]:
                print("  not read yet")

    run(ctx, action)
