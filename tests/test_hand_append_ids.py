"""Ids never repeat, also with a line appended by hand while a scene is written back (issue 39,
item 6): a user appends without the lock, so the id the scene was about to give (the highest + 1,
what a person types next) may be taken by the time it is written. The hand line keeps its id;
the scene's memory takes the next free one, everywhere the scene names it."""

from __future__ import annotations

import json
from collections import Counter

from gamemaster import scene_apply
from gamemaster.backends.offline import OfflineBackend
from gamemaster.loop import run_scene
from gamemaster.validate import validate_workspace

HAND = "Von Hand notiert: die Asche riecht heute nach Eisen."


def _rows(workspace, agent: str) -> list[dict]:
    return [json.loads(line) for line in (workspace.memories_dir / f"{agent}.jsonl").read_text(encoding="utf-8").splitlines()]


def test_a_line_appended_by_hand_mid_write_keeps_its_id_and_the_scene_takes_the_next(gm, workspace, monkeypatch):
    planned = scene_apply.plan_scene
    taken: dict[str, str] = {}

    def racing(*args, **kwargs):
        result = planned(*args, **kwargs)
        first = result.transaction.appends["vera"][0].id  # the scene's first id for vera …
        line = {"id": first, "created": "day-000/scene-00", "type": "observation", "depth": 0,
                "description": HAND, "importance": 5, "tags": ["asche"], "evidence": [], "metadata": {}}
        with (workspace.memories_dir / "vera.jsonl").open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")  # … typed by hand meanwhile
        taken["id"] = first
        return result

    monkeypatch.setattr(scene_apply, "plan_scene", racing)
    outcome = run_scene(gm, OfflineBackend())
    rows = _rows(workspace, "vera")
    counts = Counter(row["id"] for row in rows)
    assert [i for i, n in counts.items() if n > 1] == []  # no id twice (it was: validate found a duplicate)
    [hand] = [row for row in rows if row["description"] == HAND]
    assert hand["id"] == taken["id"]  # the hand line keeps the id it was typed with
    scene = [row for row in rows if row["created"] == outcome.spec.ref]
    assert scene and all(int(row["id"].rsplit("-", 1)[1]) > int(taken["id"].rsplit("-", 1)[1]) for row in scene)
    # What the scene record and the command name are the ids in the streams.
    record = json.loads((workspace.scene_dir(outcome.spec.ref) / "scene.json").read_text(encoding="utf-8"))
    vera_written = [w["id"] for w in record["written"] if w["agent"] == "vera"]
    assert sorted(vera_written) == sorted(row["id"] for row in scene)
    assert [w["id"] for w in outcome.result.written if w["agent"] == "vera"] == vera_written
    issued = json.loads((workspace.state / "memory_ids.json").read_text(encoding="utf-8"))
    assert issued["vera"] == max(int(row["id"].rsplit("-", 1)[1]) for row in rows)
    assert [p for p in validate_workspace(workspace) if not p.warning] == []
