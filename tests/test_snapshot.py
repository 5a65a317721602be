"""The studio snapshot: read once per step, immutable, read anew once its files changed."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from pydantic import ValidationError

from gamemaster.backends.offline import OfflineBackend
from gamemaster.loop import run_scene
from gamemaster.workspace import Workspace


def test_a_snapshot_cannot_be_changed_and_its_working_copy_leaves_it_as_read(gm):
    snap = gm.snapshot()
    vera = snap.agents["vera"]

    with pytest.raises(ValidationError, match="frozen"):
        snap.world.day = 9
    with pytest.raises(ValidationError, match="frozen"):
        vera.name = "Someone else"
    with pytest.raises(TypeError):
        snap.world.briefs.append(None)
    with pytest.raises(TypeError):
        vera.talk_wishes.append(None)
    with pytest.raises(TypeError):
        snap.agents["nobody"] = vera
    with pytest.raises(AttributeError):
        snap.world = None

    world, copied = snap.working_world(), snap.working_agent("vera")
    world.day, copied.name = 9, "Someone else"
    copied.talk_wishes.append(None)
    assert (snap.world.day, vera.name, vera.talk_wishes) == (0, "Vera Kowalski", [])
    assert snap.world.dump() == gm.workspace.load_world().dump()


@pytest.fixture
def loads(monkeypatch) -> Counter:
    counts: Counter = Counter()
    for name in ("load_world", "load_agent"):
        original = getattr(Workspace, name)

        def counting(self, *args, _original=original, _name=name, **kwargs):
            counts[(_name, *args)] += 1
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(Workspace, name, counting)
    return counts


def test_a_scene_reads_the_world_and_each_agent_once(gm, loads):
    backend = OfflineBackend()
    run_scene(gm, backend)  # the studio opens: every step after it finds the state it wrote
    loads.clear()

    for _ in range(3):
        outcome = run_scene(gm, backend)
        assert len(outcome.spec.turns) > 1
        assert loads[("load_world",)] == 1
        assert all(count == 1 for count in loads.values()), loads
        loads.clear()


def test_a_hand_edit_between_two_steps_is_seen_by_the_next(gm, workspace):
    assert gm.world().studio != "Edited by hand"
    data = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    workspace.world_path.write_text(json.dumps({**data, "studio": "Edited by hand"}), encoding="utf-8")
    agent = json.loads(workspace.agent_path("vera").read_text(encoding="utf-8"))
    workspace.agent_path("vera").write_text(json.dumps({**agent, "name": "Vera Edited"}), encoding="utf-8")

    assert gm.world().studio == "Edited by hand"
    assert gm.agents()["vera"].name == "Vera Edited"
