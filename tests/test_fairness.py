"""Who acts next: whoever waited longest, across days; talk wishes oldest first; ties by the seed, never by name."""

from __future__ import annotations

from gamemaster.models import Agent, SceneEntry, World
from gamemaster.scenes import decide_next

ROSTER = ["ana", "bob", "cem", "dia", "eda", "fay"]


def agents(**fields) -> dict[str, Agent]:
    return {a: Agent.model_validate({"id": a, "name": a.title(), "role": "r", "persona": "p", **fields.get(a, {})})
            for a in ROSTER}


def world(day=2, today=(("ARRIVAL", ROSTER),), **fields) -> World:
    entries = [SceneEntry(scene=i + 1, type=t, participants=list(p)) for i, (t, p) in enumerate(today)]
    return World(studio="Test", day=day, scene=len(entries), today=entries, **fields)


def test_those_who_acted_yesterday_wait_behind_those_who_did_not():
    yesterday = {a: {"last_acted": "day-001/scene-03"} for a in ("ana", "bob", "cem")}
    spec = decide_next(world(), agents(**yesterday))
    assert spec.type == "WORK" and sorted(spec.participants) == ["dia", "eda", "fay"]
    longer_ago = {**yesterday, "dia": {"last_acted": "day-001/scene-05"}, "eda": {"last_acted": "day-001/scene-02"},
                  "fay": {"last_acted": "day-001/scene-04"}}
    picked = decide_next(world(), agents(**longer_ago)).participants
    assert picked[0] == "eda" and set(picked[1:]) <= {"ana", "bob", "cem"}


def test_ties_are_broken_by_the_seed_not_by_name_and_the_same_seed_gives_the_same_group():
    groups = {tuple(decide_next(world(seed=seed), agents()).participants) for seed in range(8)}
    assert len(groups) > 1
    assert all(decide_next(world(seed=s), agents()).participants == decide_next(world(seed=s), agents()).participants
               for s in range(3))
    assert any(sorted(g) != ["ana", "bob", "cem"] for g in groups)


def test_the_oldest_talk_wish_is_served_first_whoever_made_it():
    wishes = {
        "ana": {"talk_wishes": [{"with": ["bob"], "topic": "neu", "created": "day-002/scene-01"}]},
        "fay": {"talk_wishes": [{"with": ["eda"], "topic": "alt", "created": "day-001/scene-04"}]},
    }
    today = (("ARRIVAL", ROSTER), ("WORK", ["cem"]))
    spec = decide_next(world(today=today, encounters_per_day=0), agents(**wishes))
    assert (spec.type, spec.participants, spec.topic) == ("MEETING", ["fay", "eda"], "alt")


def test_acting_scenes_are_remembered_on_the_agent(workspace, cli):
    import json

    assert cli("scene", "run", "--backend", "offline").exit_code == 0  # ARRIVAL: not acting
    assert json.loads(workspace.agent_path("vera").read_text(encoding="utf-8")).get("last_acted") is None
    assert cli("scene", "run", "--backend", "offline", "--type", "WORK", "--with", "vera").exit_code == 0
    assert json.loads(workspace.agent_path("vera").read_text(encoding="utf-8"))["last_acted"] == "day-001/scene-02"
