"""Reflections at scale: those due at once reflect in one scene, each alone; a day holds few."""

from __future__ import annotations

import json

from gamemaster.backends.offline import OfflineBackend
from gamemaster.loop import run_scene
from gamemaster.models import Agent, SceneEntry, World
from gamemaster.scenes import SceneType, decide_next

MANY = [f"a{n:02d}" for n in range(1, 16)]


def studio(accumulators: dict[str, int]) -> dict[str, Agent]:
    return {a: Agent.model_validate({"id": a, "name": a.title(), "role": "r", "persona": "p",
                                     "importance_accumulator": accumulators.get(a, 0)}) for a in MANY}


def world(today=(("ARRIVAL", MANY),)) -> World:
    entries = [SceneEntry(scene=i + 1, type=t, participants=list(p)) for i, (t, p) in enumerate(today)]
    return World(studio="Test", day=1, scene=len(entries), today=entries)


def test_those_over_the_threshold_at_once_reflect_in_one_scene_each_alone():
    agents = studio({a: 101 + n for n, a in enumerate(MANY[:5])})
    spec = decide_next(world(), agents)
    assert spec.type == SceneType.REFLECTION
    assert spec.participants == ["a05", "a04", "a03", "a02", "a01"]  # highest first
    assert spec.rooms == [[a] for a in spec.participants]  # no one sees another's reflection
    assert spec.reason == ("a05: accumulator 105 > 100; a04: accumulator 104 > 100; a03: accumulator 103 > 100; "
                           "a02: accumulator 102 > 100; a01: accumulator 101 > 100")


def test_one_reflection_takes_at_most_twelve_the_rest_the_next():
    agents = studio({a: 200 - n for n, a in enumerate(MANY)})
    spec = decide_next(world(), agents)
    assert spec.participants == MANY[:12]
    assert "a13" not in spec.reason


def test_a_forced_reflection_takes_no_more_than_a_chosen_one():
    from gamemaster.scenes import Force

    agents = studio({})
    spec = decide_next(world(), agents, Force(type=SceneType.REFLECTION, participants=MANY[:12]))
    assert spec.participants == MANY[:12]
    try:
        decide_next(world(), agents, Force(type=SceneType.REFLECTION, participants=MANY[:13]))
    except ValueError as exc:
        assert str(exc) == ("a REFLECTION has at most 12 participants (a quarter of the studio, at least 12); "
                            "force the others in the next one")
    else:
        raise AssertionError("13 of 15 forced into one REFLECTION")


def test_in_a_large_studio_one_reflection_takes_a_quarter_of_it():
    many = [f"a{n:03d}" for n in range(1, 101)]
    agents = {a: Agent.model_validate({"id": a, "name": a.title(), "role": "r", "persona": "p",
                                       "importance_accumulator": 300 - n}) for n, a in enumerate(many)}
    entries = [SceneEntry(scene=1, type="ARRIVAL", participants=many)]
    spec = decide_next(World(studio="Test", day=1, scene=1, today=entries), agents)
    assert spec.type == SceneType.REFLECTION
    assert spec.participants == many[:25]  # 100 characters: 25 at once, highest accumulator first
    assert spec.rooms == [[a] for a in many[:25]]


def test_a_day_holds_two_reflections_then_those_left_wait_with_a_reason():
    agents = studio({"a07": 130, "a03": 120})
    today = (("ARRIVAL", MANY), ("REFLECTION", ["a01"]), ("WORK", MANY), ("REFLECTION", ["a02"]))
    spec = decide_next(world(today), agents)
    assert spec.type != SceneType.REFLECTION
    assert spec.reason.endswith("; REFLECTION deferred, today's 2 held: a07, a03 wait")
    assert agents["a07"].importance_accumulator == 130  # still over: they reflect later
    # the next day, the first REFLECTION is theirs
    spec = decide_next(world(), agents)
    assert (spec.type, spec.participants) == (SceneType.REFLECTION, ["a07", "a03"])


def lines(workspace, agent):
    path = workspace.memories_dir / f"{agent}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_a_batched_reflection_writes_each_ones_insights_to_its_own_stream_from_its_own_prompt(gm, workspace):
    backend = OfflineBackend()
    run_scene(gm, backend)  # ARRIVAL
    due = ["vera", "tobi", "emre"]
    for n, agent_id in enumerate(due):
        path = workspace.agent_path(agent_id)
        data = json.loads(path.read_text(encoding="utf-8"))
        data["importance_accumulator"] = 150 - n
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    before = {a: len(lines(workspace, a)) for a in gm.agents()}
    outcome = run_scene(gm, backend)
    assert (outcome.spec.type, outcome.spec.participants) == (SceneType.REFLECTION, due)
    assert all(a in outcome.spec.reason for a in due)
    scene_dir = workspace.root / "scenes" / "day-001" / outcome.spec.ref.split("/")[1]
    for turn, agent_id in enumerate(outcome.spec.turns):
        new = lines(workspace, agent_id)[before[agent_id]:]
        insights = [m for m in new if m["type"] == "reflection"]
        assert 3 <= len(insights) <= 5
        shown = json.loads((scene_dir / "shown" / f"{turn + 1:02d}-{agent_id}.json").read_text(encoding="utf-8"))
        assert {e for m in insights for e in m["evidence"]} <= set(shown["memories"])
        assert all(e.startswith(f"{agent_id}-") for m in insights for e in m["evidence"])
        prompt = (scene_dir / "prompts" / f"{agent_id}.md").read_text(encoding="utf-8")
        assert "- Anwesend: —" in prompt  # each reflects alone
        assert gm.agents()[agent_id].importance_accumulator == 0
    for agent_id in set(gm.agents()) - set(due):
        assert lines(workspace, agent_id)[before[agent_id]:] == []  # no one else learns of them


def set_accumulator(workspace, agent_id, value):
    path = workspace.agent_path(agent_id)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["importance_accumulator"] = value
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def test_a_day_whose_reflections_are_held_closes_and_the_one_left_reflects_the_next_day(gm, workspace):
    world = gm.world()
    workspace.save_world(world.model_copy(update={"scenes_per_day": 3}))  # one REFLECTION a day
    backend = OfflineBackend()
    run_scene(gm, backend)  # ARRIVAL
    set_accumulator(workspace, "vera", 500)
    assert run_scene(gm, backend).spec.participants == ["vera"]
    set_accumulator(workspace, "tobi", 500)
    played = []
    while gm.world().day == 1 or not played or played[-1].type == "ARRIVAL":
        outcome = run_scene(gm, backend)
        played.append(outcome.spec)
        if outcome.spec.day == 1:
            assert outcome.spec.type != SceneType.REFLECTION
            assert "REFLECTION deferred, today's 1 held: " in outcome.spec.reason and "tobi" in outcome.spec.reason
    assert (workspace.root / "scenes" / "day-001" / "summary.md").is_file()
    arrival, first = played[-2], played[-1]
    assert (arrival.day, arrival.type) == (2, "ARRIVAL")
    assert first.type == SceneType.REFLECTION and "tobi" in first.participants
