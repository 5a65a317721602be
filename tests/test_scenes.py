"""Scene choice is a pure function of world and agents, with a reason for every choice."""

from __future__ import annotations

import pytest

from gamemaster.models import Agent, Brief, SceneEntry, World
from gamemaster.scenes import Force, SceneType, decide_next, topic_terms

ROSTER = ["ana", "bob", "cem", "dia"]


def agents(**overrides) -> dict[str, Agent]:
    result = {}
    for agent_id in ROSTER:
        fields = {"id": agent_id, "name": agent_id.title(), "role": "r", "persona": "p"}
        fields.update(overrides.get(agent_id, {}))
        result[agent_id] = Agent.model_validate(fields)
    return result


def world(day=1, today=(), **fields) -> World:
    entries = [SceneEntry(scene=i + 1, type=t, participants=p) for i, (t, p) in enumerate(today)]
    return World(studio="Test", day=day, scene=len(entries), today=entries, **fields)


MORNING = [("ARRIVAL", ROSTER)]


def test_a_new_studio_opens_with_arrival_of_everyone():
    spec = decide_next(world(day=0), agents())
    assert (spec.type, spec.ref, spec.participants) == (SceneType.ARRIVAL, "day-001/scene-01", ROSTER)
    assert spec.reason == "the studio opens: day 001 begins with ARRIVAL"


def test_an_agent_over_the_threshold_gets_a_reflection_with_the_reason():
    spec = decide_next(world(today=MORNING), agents(bob={"importance_accumulator": 112}, cem={"importance_accumulator": 100}))
    assert (spec.type, spec.participants, spec.ref) == (SceneType.REFLECTION, ["bob"], "day-001/scene-02")
    assert spec.reason == "bob: accumulator 112 > 100"


def test_exactly_at_the_threshold_is_not_over_it():
    spec = decide_next(world(today=MORNING), agents(cem={"importance_accumulator": 100}))
    assert spec.type == SceneType.WORK


def test_talk_wishes_become_a_meeting_once_work_is_under_way():
    """With no ENCOUNTER to take it (``test_encounter``: a wish for one colleague is met in the break)."""
    wish = {"with": ["dia"], "topic": "Knochentürme", "tags": ["bone-towers"]}
    quiet = {"encounters_per_day": 0}
    assert decide_next(world(today=MORNING, **quiet), agents(bob={"talk_wishes": [wish]})).type == SceneType.WORK
    spec = decide_next(world(today=MORNING + [("WORK", ["ana"])], **quiet), agents(bob={"talk_wishes": [wish]}))
    assert (spec.type, spec.participants, spec.topic, spec.topic_tags) == (
        SceneType.MEETING, ["bob", "dia"], "Knochentürme", ["bone-towers"])
    assert spec.rounds == 2 and spec.turns == ["bob", "dia", "bob", "dia"]
    assert spec.reason == "bob wants to talk with dia about Knochentürme"


def test_no_two_meetings_in_a_row():
    wish = {"with": ["dia"], "topic": "Knochentürme"}
    today = MORNING + [("WORK", ["ana"]), ("MEETING", ["ana", "cem"])]
    spec = decide_next(world(today=today, encounters_per_day=0), agents(bob={"talk_wishes": [wish]}))
    assert spec.type == SceneType.WORK


def test_a_reflection_between_two_meetings_does_not_break_the_row():
    wish = {"with": ["dia"], "topic": "Knochentürme"}
    today = MORNING + [("WORK", ["ana"]), ("MEETING", ["ana", "cem"]), ("REFLECTION", ["cem"])]
    assert decide_next(world(today=today, encounters_per_day=0), agents(bob={"talk_wishes": [wish]})).type == SceneType.WORK


def test_work_goes_to_those_with_fewest_scenes_today():
    spec = decide_next(world(today=MORNING + [("WORK", ["ana", "bob", "cem"])]), agents())
    assert spec.type == SceneType.WORK
    assert spec.participants[0] == "dia"
    assert spec.reason.startswith("dia, ")


def test_day_closes_after_scenes_per_day_and_reflections_do_not_count():
    today = MORNING + [("WORK", ["ana"]), ("REFLECTION", ["bob"]), ("WORK", ["cem"])]
    assert decide_next(world(today=today, scenes_per_day=4), agents()).type == SceneType.WORK
    today.append(("WORK", ["dia"]))
    spec = decide_next(world(today=today, scenes_per_day=4), agents())
    assert (spec.type, spec.ref) == (SceneType.ARRIVAL, "day-002/scene-01")
    assert spec.reason == "day 001 is over after 4 scenes; day 002 begins with ARRIVAL"


def test_evening_reflection_comes_before_the_next_day():
    today = MORNING + [("WORK", ["ana"])] * 5
    spec = decide_next(world(today=today), agents(ana={"importance_accumulator": 130}))
    assert (spec.type, spec.day) == (SceneType.REFLECTION, 1)


def test_a_brief_for_one_agent_becomes_their_work_scene():
    brief = Brief(id="brief-001", text="Mehr Licht in den Türmen", to=["cem"], created="day-001/scene-02")
    spec = decide_next(world(today=MORNING, briefs=[brief]), agents())
    assert (spec.type, spec.participants, spec.topic, spec.brief_ids) == (
        SceneType.WORK, ["cem"], "Mehr Licht in den Türmen", ["brief-001"])


def test_a_brief_for_everyone_becomes_a_meeting():
    brief = Brief(id="brief-002", text="Wir brauchen einen Titel", created="day-001/scene-02", seen_by=["ana"])
    spec = decide_next(world(today=MORNING, briefs=[brief]), agents())
    assert (spec.type, spec.participants) == (SceneType.MEETING, ["bob", "cem", "dia"])


def test_the_creative_director_can_force_type_participants_and_topic():
    spec = decide_next(world(today=MORNING), agents(), Force(type=SceneType.MEETING, participants=["cem", "ana"], topic="Titel"))
    assert (spec.type, spec.participants, spec.topic) == (SceneType.MEETING, ["cem", "ana"], "Titel")
    assert spec.reason.startswith("forced by the Creative Director")
    spec = decide_next(world(today=MORNING), agents(), Force(topic="Aschen-Einöden"))
    assert spec.type == SceneType.WORK and spec.topic == "Aschen-Einöden"


@pytest.mark.parametrize("force,message", [
    (Force(type="ENCOUNTER", participants=["ana"]), "exactly two participants"),
    (Force(type=SceneType.MEETING, participants=["ana"]), "at least two"),
    (Force(participants=["zed"]), "participants: no agent 'zed'; the agents are: ana, bob"),
])
def test_impossible_forces_are_refused(force, message):
    with pytest.raises(ValueError, match=message):
        decide_next(world(today=MORNING), agents(), force)


def test_decision_does_not_touch_its_inputs():
    w, a = world(today=MORNING), agents(bob={"importance_accumulator": 150})
    before = (w.model_dump(), {k: v.model_dump() for k, v in a.items()})
    decide_next(w, a)
    assert (w.model_dump(), {k: v.model_dump() for k, v in a.items()}) == before


def test_topic_terms_keep_tags_and_long_words():
    assert topic_terms("Die Knochentürme der Aschen-Einöden", ["bone-towers"]) == [
        "bone-towers", "knochentürme", "aschen-einöden"]
