"""The records scenes and days leave on disk are typed, written and read through the same models."""

from __future__ import annotations

import json

import pytest

from gamemaster.records import DaySummary, SceneRecord
from gamemaster.scenes import SceneSpec


def test_a_scene_record_holds_its_scene_and_writes_its_fields_at_the_top_level():
    spec = SceneSpec(type="work", day=2, scene=3, participants=["vera", "emre"], reason="weil",
                     rooms=[["vera"], ["emre"]], slot="lunch")
    record = SceneRecord.opened(spec)
    assert record.spec == spec and record.type == "WORK" and record.rooms == [["vera"], ["emre"]]
    written = record.dump()
    assert list(written)[:3] == ["ref", "status", "type"] and list(written)[-1] == "turns"
    assert {k: written[k] for k in spec.dump()} == spec.dump()  # every field of the scene, none restated
    assert "spec" not in written
    again = SceneRecord.model_validate(json.loads(json.dumps({**written, "from_a_newer_toolkit": 1})))
    assert again.spec == spec and again.dump() == {**written, "from_a_newer_toolkit": 1}


def test_records_of_a_played_day_read_back_through_their_models(workspace, cli):
    assert cli("day", "advance").exit_code == 0
    records = [SceneRecord.model_validate(json.loads(p.read_text(encoding="utf-8")))
               for p in sorted(workspace.scenes.glob("day-001/scene-*/scene.json"))]
    assert records and all(r.applied and r.written for r in records)
    assert records[0].spec.type == "ARRIVAL" and records[0].prompts and records[0].replies
    talks = [r for r in records if r.spec.kind.in_sequence]
    assert all(r.transcript and [t.speaker for t in r.transcript] == r.turns for r in talks)
    summary = DaySummary.model_validate(json.loads((workspace.scenes / "day-001/summary.json").read_text(encoding="utf-8")))
    assert [s.ref for s in summary.scenes] == [r.ref for r in records]
    assert summary.memories_written == sum(len(r.written) for r in records)


def test_a_damaged_scene_record_is_named_with_its_field(workspace, cli):
    assert cli("next").exit_code == 0
    path = workspace.scenes / "day-001/scene-01/scene.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    record["status"] = "half-done"
    path.write_text(json.dumps(record), encoding="utf-8")
    result = cli("status")
    assert result.exit_code == 1
    assert "scenes/day-001/scene-01/scene.json" in result.output and "status" in result.output


@pytest.mark.parametrize("extra", [{"viewer_note": "kept"}])
def test_unknown_keys_in_a_record_are_kept(extra):
    spec = SceneSpec(type="WORK", day=1, scene=2, participants=["vera"], reason="r")
    record = SceneRecord.model_validate({**SceneRecord.opened(spec).dump(), **extra})
    assert record.dump()["viewer_note"] == "kept"
