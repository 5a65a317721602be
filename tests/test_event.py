"""EVENT: scheduled outside triggers that change the day, once or every weekday."""

from __future__ import annotations

import json

import pytest

from test_scenes import MORNING, ROSTER, agents, world
from gamemaster.events import schedule_event
from gamemaster.models import Event, World
from gamemaster.problems import GamemasterError
from gamemaster.scenes import Force, decide_next, day_is_over

OUTAGE = {"id": "event-001", "text": "Serverausfall bis Mittag.", "day": 1}
GAME_NIGHT = {"id": "event-002", "text": "Spieleabend.", "weekday": "fri"}
PLAYTEST = {"id": "event-003", "text": "Playtest heute.", "day": 1, "to": ["bob", "dia"], "meeting": True}


def test_an_event_due_today_comes_right_after_the_arrival_for_those_it_concerns():
    spec = decide_next(world(today=MORNING, events=[PLAYTEST]), agents())
    assert (spec.type, spec.participants, spec.topic, spec.event_id) == ("EVENT", ["bob", "dia"], "Playtest heute.", "event-003")
    assert spec.reason == "event event-003 (day 001): Playtest heute."
    everyone = decide_next(world(today=MORNING, events=[OUTAGE]), agents())
    assert everyone.participants == ROSTER


def test_a_weekday_event_recurs_every_such_day_and_only_then():
    monday_start = world(day=5, today=MORNING, events=[GAME_NIGHT])  # day 5 is a Friday
    assert monday_start.weekday() == "fri"
    assert decide_next(monday_start, agents()).type == "EVENT"
    assert decide_next(world(day=4, today=MORNING, events=[GAME_NIGHT]), agents()).type != "EVENT"
    assert decide_next(world(day=12, today=MORNING, events=[GAME_NIGHT]), agents()).type == "EVENT"
    held = {**GAME_NIGHT, "held": [5]}
    assert decide_next(world(day=5, today=MORNING, events=[held]), agents()).type != "EVENT"
    assert world(day=3, first_weekday="wed").weekday() == "fri"


def test_a_due_reflection_comes_first_and_the_event_does_not_use_up_a_scene():
    tired = agents(ana={"importance_accumulator": 150})
    assert decide_next(world(today=MORNING, events=[OUTAGE]), tired).type == "REFLECTION"
    today = MORNING + [("EVENT", ROSTER)] + [("WORK", ["ana"])] * 4
    assert not day_is_over(world(today=today))


def test_an_event_marked_meeting_opens_a_meeting_of_those_it_concerns():
    w = world(today=MORNING, events=[{**PLAYTEST, "held": [1]}])
    w.today.append(w.today[0].model_validate({"scene": 2, "type": "EVENT", "participants": ["bob", "dia"], "event": "event-003"}))
    w.scene = 2
    spec = decide_next(w, agents())
    assert (spec.type, spec.participants, spec.topic, spec.event_id) == ("MEETING", ["bob", "dia"], "Playtest heute.", "event-003")
    assert spec.reason == "event event-003 calls a meeting: Playtest heute."


def test_forcing_an_event_needs_one_that_is_due():
    spec = decide_next(world(today=MORNING, events=[OUTAGE]), agents(), Force(type="EVENT"))
    assert (spec.type, spec.event_id, spec.topic) == ("EVENT", "event-001", "Serverausfall bis Mittag.")
    with pytest.raises(ValueError, match="no event is due on day 001"):
        decide_next(world(today=MORNING), agents(), Force(type="EVENT"))


@pytest.mark.parametrize("fields,message", [
    ({"id": "event-001", "text": "x"}, "give exactly one of day"),
    ({"id": "event-001", "text": "x", "day": 2, "weekday": "fri"}, "give exactly one of day"),
    ({"id": "event-001", "text": "x", "weekday": "friday"}, "weekday"),
    ({"id": "e1", "text": "x", "day": 2}, "id"),
])
def test_a_hand_written_event_that_cannot_be_one_is_refused(fields, message):
    with pytest.raises(ValueError, match=message):
        Event.model_validate(fields)


def test_schedule_event_writes_world_json(workspace):
    event = schedule_event(workspace, "Besuch vom Publisher.", weekday="Thursday", to=["vera", "emre"], meeting=True)
    again = schedule_event(workspace, "Deadline für die Präsentation.", day=4)
    today = schedule_event(workspace, "Feueralarm-Probe.")
    stored = json.loads(workspace.world_path.read_text(encoding="utf-8"))["events"][-3:]
    assert [e["id"] for e in stored] == [event.id, again.id, today.id]
    assert stored[0] | {} == {"id": event.id, "text": "Besuch vom Publisher.", "day": None, "weekday": "thu",
                              "to": ["vera", "emre"], "meeting": True, "held": [], "slot": "morning"}
    assert stored[1]["day"] == 4 and stored[2]["day"] == 1
    for bad, message in ((dict(text=" "), "text is empty"), (dict(text="x", weekday="someday"), "--weekday"),
                         (dict(text="x", to=["zoe"]), "--to: no agent 'zoe'"), (dict(text="x", day=2, weekday="mon"), "not both")):
        with pytest.raises(GamemasterError, match=message):
            schedule_event(workspace, **bad)


def test_the_event_command_schedules_and_the_day_plays_it(workspace, cli):
    done = cli("event", "Besuch vom Publisher.", "--to", "vera,emre", "--meeting", "--json")
    assert done.exit_code == 0, done.output
    scheduled = json.loads(done.output)
    assert (scheduled["day"], scheduled["to"], scheduled["meeting"]) == (1, ["vera", "emre"], True)
    assert cli("event", "x", "--weekday", "funday").exit_code == 1
    assert cli("scene", "run", "--backend", "offline").exit_code == 0  # the ARRIVAL
    played = json.loads(cli("scene", "run", "--backend", "offline", "--json").output)
    assert (played["type"], played["participants"]) == ("EVENT", ["vera", "emre"])
    meeting = json.loads(cli("scene", "run", "--backend", "offline", "--json").output)
    while meeting["type"] == "REFLECTION":  # a reflection that falls due comes first; the meeting is owed
        meeting = json.loads(cli("scene", "run", "--backend", "offline", "--json").output)
    assert (meeting["type"], meeting["participants"]) == ("MEETING", ["vera", "emre"])
    world = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    assert next(e for e in world["events"] if e["id"] == scheduled["id"])["held"] == [1]


def test_an_event_meeting_still_comes_when_a_reflection_falls_due_right_after_the_event():
    # The event's own importance-7 observation often tips someone over the threshold, so a
    # REFLECTION is chosen first; the meeting the event called is owed all the same.
    w = world(today=MORNING, events=[{**PLAYTEST, "held": [1]}])
    w.today.append(w.today[0].model_validate({"scene": 2, "type": "EVENT", "participants": ["bob", "dia"], "event": "event-003"}))
    w.today.append(w.today[0].model_validate({"scene": 3, "type": "REFLECTION", "participants": ["bob"]}))
    w.scene = 3
    spec = decide_next(w, agents())
    assert (spec.type, spec.participants, spec.event_id) == ("MEETING", ["bob", "dia"], "event-003")
    # Once held, the meeting is not called again.
    w.today.append(w.today[0].model_validate({"scene": 4, "type": "MEETING", "participants": ["bob", "dia"], "event": "event-003"}))
    w.scene = 4
    assert decide_next(w, agents()).event_id != "event-003"
