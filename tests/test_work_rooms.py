"""A large studio works in several rooms at once, so that everyone gets to act every day.

Who sits in which room matters: a worker sees (in the prompt) and observes (as memories)
only the artifacts of the others in their room.
"""

from __future__ import annotations

import json

import pytest

from gamemaster.backends.offline import OfflineBackend
from gamemaster.gm import GameMaster
from gamemaster.loop import advance_days, run_scene
from gamemaster.models import Agent, SceneEntry, World
from gamemaster.records import SceneRecord
from gamemaster.scenes import SceneSpec, decide_next
from gamemaster.validate import validate_workspace
from studios import grow


def roster(size: int, teams: dict[str, str] | None = None) -> dict[str, Agent]:
    teams = teams or {}
    return {
        f"a{i:03d}": Agent.model_validate({"id": f"a{i:03d}", "name": f"A {i}", "role": "r", "persona": "p",
                                           **({"team": teams[f"a{i:03d}"]} if f"a{i:03d}" in teams else {})})
        for i in range(size)
    }


def after_arrival(agents: dict[str, Agent], **fields) -> World:
    arrival = SceneEntry(scene=1, type="ARRIVAL", participants=sorted(agents))
    return World(studio="Test", day=1, scene=1, today=[arrival], **fields)


def test_a_small_studio_works_in_one_room_as_before():
    agents = roster(7)
    spec = decide_next(after_arrival(agents), agents)
    assert spec.type == "WORK" and len(spec.participants) == 3 and spec.rooms == []
    assert "rooms" not in spec.dump()


@pytest.mark.parametrize("size, rooms", [(25, 3), (100, 12)])
def test_the_first_work_scene_seats_as_many_rooms_as_the_day_needs(size, rooms):
    agents = roster(size)
    spec = decide_next(after_arrival(agents), agents)
    assert spec.type == "WORK" and len(spec.rooms) == rooms
    assert all(len(room) == 3 for room in spec.rooms)
    seated = [a for room in spec.rooms for a in room]
    assert sorted(seated) == sorted(spec.participants) and len(set(seated)) == len(seated)
    assert spec.reason.endswith(f"in {rooms} rooms")


def test_the_last_work_scene_of_the_day_seats_everyone_who_has_not_acted_yet():
    agents = roster(25)
    worked = sorted(agents)[:15]
    today = [SceneEntry(scene=1, type="ARRIVAL", participants=sorted(agents))]
    today += [SceneEntry(scene=n, type="WORK", participants=worked[(n - 2) * 5:(n - 1) * 5]) for n in (2, 3, 4)]
    today += [SceneEntry(scene=5, type="MEETING", participants=["a015", "a016"])]
    world = World(studio="Test", day=1, scene=5, today=today)
    spec = decide_next(world, agents)
    assert spec.type == "WORK"
    assert set(spec.participants) == set(agents) - set(worked) - {"a015", "a016"}


def test_work_rooms_fixes_the_number_of_rooms():
    agents = roster(25)
    assert decide_next(after_arrival(agents, work_rooms=1), agents).rooms == []
    assert len(decide_next(after_arrival(agents, work_rooms=5), agents).rooms) == 5


def test_people_of_one_team_share_a_room():
    teams = {a: ("kunst" if i % 2 else "technik") for i, a in enumerate(sorted(roster(25)))}
    agents = roster(25, teams)
    spec = decide_next(after_arrival(agents), agents)
    mixed = [room for room in spec.rooms if len({agents[a].team for a in room}) > 1]
    assert len(mixed) <= 1  # only where one team's people run out mid-room


def test_rooms_must_seat_every_participant_exactly_once():
    with pytest.raises(ValueError, match="exactly one room"):
        SceneSpec(type="WORK", day=1, scene=2, participants=["a", "b", "c"], rooms=[["a"], ["b"]], reason="r")
    with pytest.raises(ValueError, match="exactly one room"):
        SceneSpec(type="WORK", day=1, scene=2, participants=["a", "b"], rooms=[["a", "b"], []], reason="r")


def test_workers_see_and_observe_only_their_own_room(workspace):
    grow(workspace, 25)
    gm = GameMaster(workspace)
    backend = OfflineBackend()
    run_scene(gm, backend)  # ARRIVAL
    while True:
        result = run_scene(gm, backend)
        if result.spec.type == "WORK":
            break
    spec = result.spec
    assert len(spec.rooms) > 1
    record = SceneRecord.model_validate_json((workspace.root / "scenes" / "day-001" / f"scene-{spec.scene:02d}" / "scene.json").read_text(encoding="utf-8"))
    assert record.rooms == spec.rooms
    observed = 0
    for room in spec.rooms:
        for agent_id in room:
            label = next(label for label in record.prompts if label.endswith(f"-{agent_id}"))
            prompt = (workspace.root / record.prompts[label]).read_text(encoding="utf-8")
            present = next(line for line in prompt.splitlines() if line.startswith("- Anwesend:"))
            assert all(f"({other})" in present for other in room if other != agent_id)
            assert not any(f"({other})" in present for other in spec.participants if other not in room)
            for line in (workspace.memories_dir / f"{agent_id}.jsonl").read_text(encoding="utf-8").splitlines():
                memory = json.loads(line)
                if memory["created"] == spec.ref and memory.get("metadata", {}).get("source") == "artifact":
                    assert memory["metadata"]["author"] in room
                    observed += 1
    assert observed > 0


def test_everyone_in_a_studio_of_25_acts_every_day(workspace):
    grow(workspace, 25)
    gm = GameMaster(workspace)
    advance_days(gm, OfflineBackend(), days=3)
    for day in (1, 2, 3):
        acted: set[str] = set()
        for path in sorted((workspace.root / "scenes" / f"day-{day:03d}").glob("scene-*/scene.json")):
            record = SceneRecord.model_validate_json(path.read_text(encoding="utf-8"))
            if record.type in ("WORK", "MEETING", "ENCOUNTER"):
                acted.update(record.participants)
        assert acted == set(workspace.agent_ids()), f"day {day}: idle {sorted(set(workspace.agent_ids()) - acted)}"
    assert [p for p in validate_workspace(workspace) if not p.warning] == []


def test_next_prints_each_room_on_its_own_line(workspace, cli):
    grow(workspace, 25)
    assert cli("config", "kinds.encounter.per_day", "0").exit_code == 0  # no talk in the break before it
    assert cli("scene", "run", "--backend", "offline").exit_code == 0  # ARRIVAL
    shown = cli("next")  # after the ARRIVAL of day 1: WORK
    assert shown.exit_code == 0, shown.output
    spec = SceneRecord.model_validate_json(
        (workspace.root / "scenes" / "day-001" / "scene-02" / "scene.json").read_text(encoding="utf-8")).spec
    agents = GameMaster(workspace).agents()
    for number, room in enumerate(spec.rooms, 1):
        assert f"room {number}: " + ", ".join(agents[a].name for a in room) in shown.output
    assert len(spec.rooms) == 3
