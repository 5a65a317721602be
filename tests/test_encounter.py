"""ENCOUNTER: two people cross paths at lunch or in the hallway, briefly, between the day's scenes."""

from __future__ import annotations

import json

import pytest

from test_scenes import MORNING, ROSTER, agents, world
from gamemaster.cli import app
from gamemaster.kinds import get_kind
from gamemaster.scenes import Force, decide_next, day_is_over
from typer.testing import CliRunner

WISH = {"with": ["dia"], "topic": "Knochentürme", "tags": ["bone-towers"]}
LUNCH = MORNING + [("WORK", ["ana", "bob", "cem"]), ("WORK", ["dia", "ana", "bob"])]  # 3 of 6 counted scenes


def test_at_lunch_a_talk_wish_becomes_an_encounter_of_two():
    spec = decide_next(world(today=LUNCH), agents(bob={"talk_wishes": [WISH]}))
    assert (spec.type, spec.participants, spec.topic, spec.topic_tags) == ("ENCOUNTER", ["bob", "dia"], "Knochentürme", ["bone-towers"])
    assert spec.reason == "bob and dia cross paths at lunch: bob wants to talk with dia about Knochentürme"
    assert spec.turns == ["bob", "dia"] and spec.kind.in_sequence


def test_at_lunch_without_wishes_the_pair_with_most_shared_interests_meets():
    interests = {
        "ana": {"interests": [{"topic": "Türme", "tags": ["towers", "bone"]}]},
        "cem": {"interests": [{"topic": "Knochen", "tags": ["bone", "towers", "light"]}]},
        "dia": {"interests": [{"topic": "Licht", "tags": ["light"]}]},
    }
    spec = decide_next(world(today=LUNCH), agents(**interests))
    assert (spec.type, sorted(spec.participants), spec.topic_tags) == ("ENCOUNTER", ["ana", "cem"], ["bone", "towers"])
    assert spec.reason == f"{spec.participants[0]} and {spec.participants[1]} cross paths at lunch: both care about bone, towers"


def test_after_a_meeting_a_talk_wish_meets_in_the_hallway_instead():
    today = MORNING + [("WORK", ["ana"]), ("MEETING", ["ana", "cem"]), ("WORK", ["bob"])]
    assert decide_next(world(today=today), agents(bob={"talk_wishes": [WISH]})).type == "MEETING"
    today = MORNING + [("WORK", ["ana"]), ("WORK", ["bob"]), ("WORK", ["cem"]), ("MEETING", ["ana", "cem"])]
    spec = decide_next(world(today=today), agents(bob={"talk_wishes": [WISH]}))
    assert (spec.type, spec.participants) == ("ENCOUNTER", ["bob", "dia"])
    assert "in the hallway" in spec.reason


def test_never_two_in_a_row_never_more_than_the_day_allows_never_the_same_pair_twice():
    wishes = agents(bob={"talk_wishes": [WISH]})
    assert decide_next(world(today=LUNCH + [("ENCOUNTER", ["ana", "cem"])]), wishes).type == "MEETING"
    assert decide_next(world(today=LUNCH, encounters_per_day=0), wishes).type == "MEETING"
    talked = MORNING + [("WORK", ["ana"]), ("ENCOUNTER", ["bob", "dia"]), ("WORK", ["cem"]), ("WORK", ["dia"])]
    assert decide_next(world(today=talked), wishes).type != "ENCOUNTER"


def test_an_encounter_does_not_use_up_a_scene_of_the_day():
    today = LUNCH + [("ENCOUNTER", ["bob", "dia"]), ("WORK", ["cem"]), ("WORK", ["ana"])]
    assert not day_is_over(world(today=today))
    assert day_is_over(world(today=today + [("WORK", ["dia"])]))


def test_forcing_an_encounter_needs_exactly_two():
    spec = decide_next(world(today=MORNING), agents(), Force(type="encounter", participants=["cem", "ana"]))
    assert (spec.type, spec.participants, spec.turns) == ("ENCOUNTER", ["cem", "ana"], ["cem", "ana"])
    with pytest.raises(ValueError, match="an? ENCOUNTER has exactly two participants"):
        decide_next(world(today=MORNING), agents(), Force(type="ENCOUNTER", participants=["cem", "ana", "bob"]))


def test_two_rounds_when_the_world_asks_for_them():
    spec = decide_next(world(today=LUNCH, encounter_rounds=2), agents(bob={"talk_wishes": [WISH]}))
    assert spec.turns == ["bob", "dia", "bob", "dia"]


def test_an_encounter_through_the_cli_leaves_two_conversation_memories_and_settles_the_wish(workspace, cli):
    """Forced with the CLI, played by the offline player: both remember it, nobody else hears of it."""
    assert cli("scene", "run", "--backend", "offline").exit_code == 0  # the ARRIVAL
    agent_file = workspace.agent_path("vera")
    vera = json.loads(agent_file.read_text(encoding="utf-8"))
    vera["talk_wishes"] = [{"with": ["emre"], "topic": "Knochentürme", "tags": ["bone-towers"]}]
    agent_file.write_text(json.dumps(vera, ensure_ascii=False), encoding="utf-8")
    before = {a: len([loc.memory for loc in workspace.stream(a).scan()[0]]) for a in workspace.agent_ids()}
    result = cli("scene", "run", "--backend", "offline", "--type", "ENCOUNTER", "--with", "vera,emre", "--json")
    assert result.exit_code == 0, result.output
    after = {a: [loc.memory for loc in workspace.stream(a).scan()[0]] for a in workspace.agent_ids()}
    for agent in ("vera", "emre"):
        new = after[agent][before[agent]:]
        talks = [m for m in new if m.type == "conversation"]
        assert len(talks) == 1 and talks[0].metadata["with"] == [{"vera": "emre", "emre": "vera"}[agent]]
        assert [t["speaker"] for t in talks[0].metadata["transcript"]] == ["vera", "emre"]
    assert all(len(after[a]) == before[a] for a in after if a not in ("vera", "emre"))
    assert json.loads(agent_file.read_text(encoding="utf-8"))["talk_wishes"] == []
    assert cli("validate").exit_code == 0
