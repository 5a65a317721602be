"""Meetings stay bounded: at most meeting_max participants, and a turn's transcript has a ceiling."""

from __future__ import annotations

import json

import pytest

from conftest import write_agent, write_lines
from replies import valid_reply
from test_scenes import MORNING, ROSTER, agents, world
from gamemaster.backends.base import Turn
from gamemaster.backends.scripted import ScriptedBackend
from gamemaster.briefs import give_brief
from gamemaster.gm import GameMaster
from gamemaster.loop import run_scene
from gamemaster.models import Brief
from gamemaster.prompts import render_transcript
from gamemaster.scenes import Force, SceneType, decide_next

WORKED = MORNING + [("WORK", ["ana"])]


def test_a_talk_wish_with_many_partners_opens_a_meeting_of_at_most_meeting_max():
    wish = {"with": ["ana", "cem", "dia"], "topic": "Knochentürme"}
    spec = decide_next(world(today=WORKED, meeting_max=2), agents(bob={"talk_wishes": [wish]}))
    assert (spec.type, spec.participants) == (SceneType.MEETING, ["bob", "ana"])
    assert decide_next(world(today=WORKED), agents(bob={"talk_wishes": [wish]})).participants == ["bob", "ana", "cem", "dia"]


def test_a_brief_to_more_than_meeting_max_meets_with_those_it_concerns_most():
    brief = Brief(id="brief-001", text="Die Vertical Slice braucht Knochentürme.", created="day-001/scene-02")
    concerned = {"topic": "Vertical Slice", "tags": ["knochentürme"]}
    crew = agents(cem={"interests": [concerned]}, dia={"today_plan": {"text": "Knochentürme bauen"}})
    spec = decide_next(world(today=WORKED, briefs=[brief], meeting_max=2), crew)
    assert (spec.type, spec.participants, spec.brief_ids) == (SceneType.MEETING, ["cem", "dia"], ["brief-001"])
    assert spec.reason == "brief brief-001 from the Creative Director awaits cem, dia (announced to 2 more)"
    # At or under meeting_max nothing changes: everyone waiting meets, the reason as before.
    spec = decide_next(world(today=WORKED, briefs=[brief]), crew)
    assert spec.participants == ROSTER and spec.reason == f"brief brief-001 from the Creative Director awaits {', '.join(ROSTER)}"


def test_ties_fall_by_the_seed_not_by_name_order():
    brief = Brief(id="brief-001", text="Nichts Besonderes.", created="day-001/scene-02")
    chosen = {tuple(decide_next(world(today=WORKED, briefs=[brief], meeting_max=2, seed=s), agents()).participants)
              for s in range(12)}
    assert len(chosen) > 1  # the seed decides between equally concerned people
    again = decide_next(world(today=WORKED, briefs=[brief], meeting_max=2, seed=3), agents()).participants
    assert again == decide_next(world(today=WORKED, briefs=[brief], meeting_max=2, seed=3), agents()).participants


def test_an_event_meeting_is_capped_at_meeting_max():
    event = {"id": "event-001", "text": "Playtest der Knochentürme.", "day": 1, "meeting": True, "held": [1]}
    w = world(today=MORNING, events=[event], meeting_max=3)
    w.today.append(w.today[0].model_validate({"scene": 2, "type": "EVENT", "participants": ROSTER, "event": "event-001"}))
    w.scene = 2
    spec = decide_next(w, agents(bob={"interests": [{"topic": "Playtest", "tags": []}]}))
    assert spec.type == SceneType.MEETING and len(spec.participants) == 3 and "bob" in spec.participants


def test_forcing_a_meeting_larger_than_meeting_max_is_refused():
    with pytest.raises(ValueError, match=r"a MEETING has at most three participants \(kinds.meeting.max\)"):
        decide_next(world(today=MORNING, meeting_max=3), agents(), Force(type="MEETING", participants=ROSTER))
    with pytest.raises(ValueError, match="at most three"):
        decide_next(world(today=MORNING, meeting_max=3), agents(), Force(participants=ROSTER))
    assert decide_next(world(today=MORNING), agents(), Force(participants=ROSTER)).participants == ROSTER


def test_an_all_hands_brief_at_20_agents_is_an_announcement(empty_workspace):
    workspace = empty_workspace
    ids = [f"a{n:02d}" for n in range(1, 21)]
    interested = {"a04", "a09", "a11", "a15", "a17", "a20"}
    for agent_id in ids:
        extra = {"interests": [{"topic": "Vertical Slice Präsentation", "tags": ["vertical-slice"]}]} if agent_id in interested else {}
        write_agent(workspace, agent_id, **extra)
        write_lines(workspace, agent_id, [])
    gm = GameMaster(workspace)
    run_scene(gm, ScriptedBackend([valid_reply] * 20))  # ARRIVAL
    give_brief(gm.workspace, "Alle: Bis Freitag braucht jede Abteilung eine spielbare Ecke für die Vertical Slice Präsentation.")
    backend = ScriptedBackend([valid_reply] * 12)
    outcome = run_scene(gm, backend)
    assert outcome.spec.type == SceneType.MEETING and outcome.spec.brief_ids == ["brief-001"]
    assert set(outcome.spec.participants) == interested and len(backend.requests) == 12
    assert gm.world().briefs == []  # seen by all 20: nobody's scene is opened for it again
    assert not decide_next(gm.world(), gm.agents()).brief_ids
    for agent_id in set(ids) - interested:  # the others have it as a memory from when it was given
        stream = (workspace.memories_dir / f"{agent_id}.jsonl").read_text(encoding="utf-8").splitlines()
        assert any(json.loads(line)["metadata"].get("brief") == "brief-001" for line in stream)


LONG = "Das ist der erste Satz meines Beitrags. " + "Danach kommt noch sehr viel mehr Text dazu. " * 40


def test_the_transcript_stays_under_its_budget_and_says_it_is_shortened():
    turns = [Turn(f"p{n % 6}", f"Person {n % 6}", f"{n}: {LONG}") for n in range(30)]
    text = render_transcript(turns, 6, "de", 4000)
    assert len(text) < 4000 + 200
    assert text.startswith("(Das Gespräch ist lang: frühere Beiträge sind gekürzt")
    assert "**Person 5** (Runde 5): 29: " + LONG.strip()[:100] in text  # the newest turn is verbatim
    assert "**Person 0** (Runde 1): 0: Das ist der erste Satz meines Beitrags.\n" in text or "ausgelassen" in text
    short = [Turn("a", "Ana", "Kurz."), Turn("b", "Bob", "Auch kurz.")]
    assert render_transcript(short, 2, "de", 4000) == render_transcript(short, 2, "de")  # small meetings: as before


def test_a_turn_prompt_has_a_ceiling_with_30_long_turns_before_it(gm, monkeypatch):
    run_scene(gm, ScriptedBackend([valid_reply] * 7))
    prompts: list[str] = []

    def long_turn(request):
        prompts.append(request.prompt)
        return {**valid_reply(request), "says": f"{request.turn}: {LONG}"}

    world_path = gm.workspace.world_path
    data = json.loads(world_path.read_text(encoding="utf-8"))
    data["kinds"]["meeting"]["rounds"] = 16
    world_path.write_text(json.dumps(data), encoding="utf-8")
    run_scene(gm, ScriptedBackend([long_turn] * 32), Force(type="MEETING", participants=["vera", "darius"], topic="Türme"))
    first = len(prompts[0])  # the same prompt without any transcript
    assert len(prompts) == 32 and max(len(p) for p in prompts) < first + gm.world().transcript_budget + 400
    assert "frühere Beiträge sind gekürzt" in prompts[-1]
