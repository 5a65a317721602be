"""ENCOUNTER: two people cross paths at lunch or in the hallway, briefly, in the breaks between the day's scenes."""

from __future__ import annotations

import json

import pytest

from replies import valid_reply
from test_news import plant
from test_scenes import MORNING, ROSTER, agents, world
from gamemaster.backends.offline import OfflineBackend
from gamemaster.backends.scripted import ScriptedBackend
from gamemaster.loop import run_scene
from gamemaster.who_knows import who_knows
from gamemaster.cli import app
from gamemaster.kinds import get_kind
from gamemaster.models import Agent, SceneEntry, TalkWish, World
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


def test_a_wish_for_one_colleague_is_met_in_the_next_break_one_for_several_is_a_meeting():
    wishes = agents(bob={"talk_wishes": [WISH]})
    for today in (MORNING, MORNING + [("WORK", ["ana"])], MORNING + [("WORK", ["ana"]), ("MEETING", ["ana", "cem"])]):
        spec = decide_next(world(today=today), wishes)
        assert (spec.type, spec.participants) == ("ENCOUNTER", ["bob", "dia"])
        assert spec.reason == (f"bob and dia cross paths {'at lunch' if len(today) == 3 else 'in the hallway'}: "
                               "bob wants to talk with dia about Knochentürme")
    several = agents(bob={"talk_wishes": [{**WISH, "with": ["dia", "cem"]}]})
    spec = decide_next(world(today=MORNING + [("WORK", ["ana"])]), several)
    assert (spec.type, spec.participants) == ("MEETING", ["bob", "dia", "cem"])


def test_a_large_studio_has_several_talks_in_one_break_nobody_in_two():
    roster = [f"p{i:02d}" for i in range(20)]
    people = {a: Agent.model_validate({"id": a, "name": a, "role": "r", "persona": "p"}) for a in roster}
    for wisher, partner in (("p00", "p01"), ("p02", "p01"), ("p03", "p04"), ("p05", "p06"), ("p07", "p08"), ("p09", "p10")):
        people[wisher] = people[wisher].model_copy(update={"talk_wishes": [TalkWish.model_validate({"with": [partner], "topic": "t"})]})
    today = [("ARRIVAL", roster)]
    chosen = []
    while True:  # a day of 20 allows 20 encounters, four to each of the five breaks
        spec = decide_next(World(studio="T", day=1, scene=len(today), today=[
            SceneEntry(scene=i + 1, type=t, participants=p) for i, (t, p) in enumerate(today)]), people)
        if spec.type != "ENCOUNTER":
            break
        chosen.append(spec.participants)
        today.append(("ENCOUNTER", spec.participants))
    assert len(chosen) == 4 and len({a for pair in chosen for a in pair}) == 8  # nobody in two talks at once
    assert ["p02", "p01"] not in chosen
    today.append(("WORK", roster))
    spec = decide_next(World(studio="T", day=1, scene=len(today), today=[
        SceneEntry(scene=i + 1, type=t, participants=p) for i, (t, p) in enumerate(today)]), people)
    assert (spec.type, spec.participants) == ("ENCOUNTER", ["p02", "p01"])


def test_no_one_has_more_encounters_a_day_than_per_character():
    wishes = agents(bob={"talk_wishes": [WISH]})
    today = MORNING + [("ENCOUNTER", ["dia", "ana"]), ("WORK", ["ana"]), ("ENCOUNTER", ["dia", "cem"]), ("WORK", ["cem"])]
    assert decide_next(world(today=today, scenes_per_day=8), wishes).type == "MEETING"  # dia had her two
    more = {"encounter": {"per_character": 3}}
    assert decide_next(world(today=today, scenes_per_day=8, kinds=more), wishes).participants == ["bob", "dia"]


def test_never_more_than_a_break_or_the_day_allows_never_the_same_pair_twice():
    wishes = agents(bob={"talk_wishes": [WISH]})
    # Four people may have four encounters a day (two each), one a break; lunch holds what is left.
    assert decide_next(world(today=MORNING + [("WORK", ["ana"]), ("ENCOUNTER", ["ana", "cem"])]), wishes).type == "MEETING"
    assert decide_next(world(today=LUNCH + [("ENCOUNTER", ["ana", "cem"])]), wishes).type == "ENCOUNTER"
    four = [("ENCOUNTER", ["ana", "cem"])] * 2 + [("WORK", ["ana"])] + [("ENCOUNTER", ["ana", "cem"])] * 2
    assert decide_next(world(today=MORNING + four + [("WORK", ["cem"])]), wishes).type == "MEETING"
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


def test_who_wants_to_tell_one_colleague_seeks_them_out_in_the_next_break(gm, workspace):
    """A wish to tell Leo something (as a Claude character writes it) is met right after the
    ARRIVAL, the news told there; nobody else hears it."""
    run_scene(gm, ScriptedBackend([valid_reply] * 7))  # the ARRIVAL, no wishes in it
    plant(workspace, "vera", "Im Playtest hat sich keiner in den Aschen-Einöden zurechtgefunden: die Orientierung "
                             "an den Knochentürmen trägt nicht.", "day-001/scene-01")
    path = workspace.agent_path("vera")
    vera = json.loads(path.read_text(encoding="utf-8"))
    vera["talk_wishes"] = [{"with": ["leo"], "topic": "was ich im Playtest gesehen habe", "tags": ["playtest"]}]
    path.write_text(json.dumps(vera, ensure_ascii=False), encoding="utf-8")

    outcome = run_scene(gm, OfflineBackend())

    assert (outcome.spec.type, outcome.spec.participants) == ("ENCOUNTER", ["vera", "leo"])
    rows = {row.agent: row for row in who_knows(workspace, "Playtest Aschen-Einöden Orientierung Knochentürmen").rows}
    assert (rows["leo"].knows, rows["leo"].source, rows["leo"].since) == (True, "vera", outcome.spec.ref)
    assert sorted(a for a, row in rows.items() if row.knows) == ["leo", "vera"]
    assert json.loads(path.read_text(encoding="utf-8"))["talk_wishes"] == []
