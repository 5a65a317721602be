"""Scheduling events: what ``gamemaster event`` writes into ``world.json``.

The EVENT scene itself (when it comes, what it changes) is ``kinds/event.py``.
"""

from __future__ import annotations

from pydantic import ValidationError

from .linesize import text_too_long
from .models import WEEKDAYS, Event
from .problems import GamemasterError, describe_validation_error
from .scenes import scenes_left
from .slots import SLOTS, parse_slot
from .transaction import recover
from .workspace import Workspace


def schedule_event(
    workspace: Workspace,
    text: str,
    *,
    day: int | None = None,
    weekday: str | None = None,
    to: list[str] | None = None,
    meeting: bool = False,
    slot: str | None = None,
) -> Event:
    """Schedule an event once on ``day`` or every ``weekday``; neither: the current day.
    ``slot`` is its time of day (``slots.py``; default the morning, right after ARRIVAL)."""
    if not text.strip():
        raise GamemasterError("event: the text is empty")
    too_long = text_too_long(text.strip())
    if too_long:
        raise GamemasterError(f"event: {too_long}")
    at = "morning" if slot is None else parse_slot(slot)
    if at is None:
        raise GamemasterError(f"--at: {slot!r} is not a time of day (choose {', '.join(SLOTS)})")
    if day is not None and weekday is not None:
        raise GamemasterError("event: give --day or --weekday, not both")
    if weekday is not None:
        weekday = weekday.strip().lower()[:3]
        if weekday not in WEEKDAYS:
            raise GamemasterError(f"--weekday: choose one of {', '.join(WEEKDAYS)}")
    if day is not None and day < 1:
        raise GamemasterError("--day: days start at 1")
    to = list(dict.fromkeys(to)) if to else None
    with workspace.lock:
        recover(workspace)
        world = workspace.load_world()
        workspace.check_agents(to or [], "--to: ")
        today_over = world.day >= 1 and scenes_left(world) == 0
        if day is None and weekday is None:
            # Today while a scene of it is left (the event comes before one of them), else tomorrow.
            day = world.day + 1 if today_over else max(world.day, 1)
        if day is not None and (day < world.day or (day == world.day and today_over)):
            raise GamemasterError(f"--day: day {day:03d} is over (the studio is on day {world.day:03d}"
                                  f"{', and no scene of it is left' if day == world.day else ''})")
        world.events_issued += 1
        try:
            event = Event(id=f"event-{world.events_issued:03d}", text=text.strip(), day=day, weekday=weekday,
                          to=to, meeting=meeting, slot=at)
        except ValidationError as exc:
            raise GamemasterError(f"event: {describe_validation_error(exc)}") from None
        world.events.append(event)
        workspace.save_world(world)
        return event
