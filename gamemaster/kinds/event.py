"""EVENT: something from outside changes the day (a deadline, a playtest, a game night,
a server outage, a visit).

Events are scheduled in ``world.json`` (``gamemaster event``): once on a day, or
every given weekday. A due event comes right after the morning ARRIVAL (and any
reflection that is due first), or at the time of day it is set for (``slot``, see
``slots.py``): an event at lunch comes before the day's lunch scene. Everyone it concerns gets an observation of it
and is asked whether it changes their plan; their replies may carry a new
``plan``. An event marked ``meeting`` then opens a MEETING of those it
concerns. An EVENT is an interruption, not a working scene: it does not use up
one of the day's scenes.
"""

from __future__ import annotations

from ..calendar import annotate
from ..scenes import SceneSpec, slot_has_come
from . import meeting
from .base import SceneKind, SceneWrite
from .crowd import most_concerned
from .heard import remember_heard

EVENT_IMPORTANCE = 7


class EventKind(SceneKind):
    name = "EVENT"
    order = 60
    decides = 30
    colour = "#b23a48"
    #: What everyone in it remembers of the event.
    phrases = {"de": {"event": "Ereignis im Studio: {text}"}, "en": {"event": "Studio event: {text}"}}
    counts_toward_day = False
    recalls_by_plan = True
    reasons = {
        "meeting": {"en": "event {event} calls a meeting: {text}",
                    "de": "Ereignis {event} beruft eine Besprechung ein: {text}"},
        "weekly": {"en": "event {event} (every {weekday}{slot}): {text}",
                   "de": "Ereignis {event} (jeden {weekday}{slot}): {text}"},
        "day": {"en": "event {event} (day {day}{slot}): {text}", "de": "Ereignis {event} (Tag {day}{slot}): {text}"},
    }

    def choose(self, world, agents, roster):
        if world.day == 0 or not world.today:
            return None
        follow_up = self._meeting_after(world, agents, roster)
        if follow_up is not None:
            return follow_up
        event = self.due(world)
        if event is None:
            return None
        slot = f", {event.slot}" if event.slot != "morning" else ""
        reason = (self.reason("weekly", event=event.id, weekday=event.weekday, slot=slot, text=event.text)
                  if event.weekday else self.reason("day", event=event.id, day=f"{event.day:03d}", slot=slot, text=event.text))
        return SceneSpec(type=self.name, day=world.day, scene=world.scene + 1,
                         participants=self.concerned(event, roster), topic=event.text, event_id=event.id,
                         reason=reason)

    @staticmethod
    def due(world, any_slot: bool = False):
        """Today's first event not yet held whose time of day has come (any time of day: forced)."""

        weekday = world.weekday()
        return next((e for e in world.events
                     if e.due_on(world.day, weekday) and (any_slot or slot_has_come(world, e.slot))), None)

    @staticmethod
    def concerned(event, roster: list[str]) -> list[str]:
        return [a for a in (event.to or roster) if a in roster] or list(roster)

    def _meeting_after(self, world, agents, roster):
        """The MEETING an event marked ``meeting`` opens, as soon as nothing comes first.

        Not only right after the EVENT: the event's own observation often tips someone
        over the reflection threshold, and the REFLECTION that is asked first must not
        swallow the meeting the event called."""

        event = self._meeting_owed(world)
        if event is None:
            return None

        # Everyone concerned had the event as a memory in the EVENT itself; the meeting is capped.
        people = most_concerned(world, agents, self.concerned(event, roster), event.text)
        if len(people) < meeting.KIND.min_participants:
            return None
        return SceneSpec(type=meeting.KIND.name, day=world.day, scene=world.scene + 1, participants=people,
                         topic=event.text, rounds=meeting.KIND.rounds(world), event_id=event.id,
                         reason=self.reason("meeting", event=event.id, text=event.text))

    def _meeting_owed(self, world):
        """The last event held today that calls a meeting which has not taken place yet."""
        held = {}
        for entry in world.today:
            event_id = (entry.model_extra or {}).get("event")
            if event_id is None:
                continue
            if entry.type == self.name:
                held[event_id] = True
            elif entry.type == "MEETING":
                held.pop(event_id, None)
        for event_id in reversed(list(held)):
            event = next((e for e in world.events if e.id == event_id), None)
            if event is not None and event.meeting:
                return event
        return None

    def forced(self, world, agents, participants):
        event = self.due(world, any_slot=True)
        if event is None:
            raise ValueError(f"no event is due on day {world.day:03d}: schedule one with `gamemaster event`")
        return participants or self.concerned(event, sorted(agents))

    def forced_fields(self, world) -> dict:
        event = self.due(world, any_slot=True)
        return {"event_id": event.id, "topic": event.text} if event else {}

    def before_replies(self, scene: SceneWrite) -> None:
        event = next((e for e in scene.world.events if e.id == scene.spec.event_id), None)
        if event is None:
            return
        if scene.spec.day not in event.held:
            event.held.append(scene.spec.day)
        # The memory keeps what the event's „heute“ or „in zwei Wochen“ meant on the day it happened.
        dates = annotate(event.text, scene.language, scene.world, scene.spec.day)
        for agent_id in scene.spec.participants:
            scene.remember(
                agent_id,
                type="observation",
                description=self.say(scene.language, "event", text=event.text) + dates,
                importance=EVENT_IMPORTANCE,
                tags=["event"],
                # Said to everyone: what the studio as a whole was told (``colleagues.common_ground``).
                metadata={"source": "event", "event": event.id, **({} if event.to else {"everyone": True})},
            )

    def write_back(self, scene: SceneWrite) -> None:
        remember_heard(scene)


KIND = EventKind()
