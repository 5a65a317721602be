"""Values below, registry above: world.json and scene records are read as values, their shape
checked without importing a single scene kind; what a kind's section holds is checked where that
kind is used (and by ``validate``), with the file and the setting named."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from gamemaster.cli import app
from gamemaster.kinds.encounter import EncounterSettings
from gamemaster.kinds.settings import settings_of
from gamemaster.models import World
from gamemaster.problems import StateError
from gamemaster.scene_spec import SceneSpec


def _reason() -> str:
    """What the kind's own model says of ``per_day`` 100,000 (its bound and the reason for it)."""
    with pytest.raises(ValidationError) as raised:
        EncounterSettings.model_validate({"per_day": 100_000})
    return raised.value.errors()[0]["msg"]


REASON = _reason()
_READ_WITHOUT_KINDS = r"""
import json, sys
from gamemaster.models import World
from gamemaster.records import SceneRecord
world = World.model_validate(json.load(open(sys.argv[1], encoding="utf-8")))
record = SceneRecord.model_validate({"ref": "day-001/scene-02", "status": "applied", "type": "meeting", "day": 1,
                                     "scene": 2, "participants": ["vera", "emre"], "reason": "r", "turns": ["vera"]})
kinds = sorted(m for m in sys.modules if m.startswith("gamemaster.kinds"))
print(json.dumps({"kinds": kinds, "sections": sorted(world.kinds), "type": record.type}))
"""


def test_reading_the_world_and_a_scene_record_imports_no_kind(workspace):
    proc = subprocess.run([sys.executable, "-c", _READ_WITHOUT_KINDS, str(workspace.world_path)],
                          capture_output=True, text=True, check=True)
    seen = json.loads(proc.stdout)
    assert seen["kinds"] == []
    assert seen["sections"] == ["encounter", "meeting", "work"]  # read, not checked
    assert seen["type"] == "MEETING"  # a kind's name in capitals, by its shape alone


def test_a_scene_record_is_refused_for_its_shape_only():
    with pytest.raises(ValueError, match="not a scene kind's name"):
        SceneSpec(type="tea party", day=1, scene=1, participants=["vera"], reason="r")
    # A name no kind has is a value all the same; the scene's kind is asked for where it is played.
    spec = SceneSpec(type="lunch", day=1, scene=1, participants=["vera"], reason="r")
    with pytest.raises(ValueError, match="'LUNCH': not a scene kind"):
        spec.kind


def test_a_kind_checks_its_own_section_where_it_is_used(workspace):
    data = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    data["kinds"]["encounter"]["per_day"] = 100_000
    world = World.model_validate(data)  # the value reads it

    assert settings_of(world, "work").group_size == 3  # another kind's section is not its concern
    with pytest.raises(StateError) as raised:
        settings_of(world, "encounter")
    assert str(raised.value) == "state/world.json: kinds.encounter.per_day: " + REASON
    assert REASON.startswith("at most 100: ")


def test_a_studio_with_a_wrong_section_plays_the_scenes_that_do_not_read_it(workspace):
    data = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    data["kinds"]["encounter"]["per_day"] = 100_000
    workspace.world_path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    runner = CliRunner()

    for force in ([], ["--type", "work", "--with", "vera,emre"]):  # the day's ARRIVAL, then a WORK scene
        played = runner.invoke(app, ["--root", str(workspace.root), "scene", "run", "--backend", "offline", *force])
        assert played.exit_code == 0, played.output
    after = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    assert [entry["type"] for entry in after["today"]] == ["ARRIVAL", "WORK"]
    assert after["kinds"]["encounter"]["per_day"] == 100_000  # kept as written, nothing lost

    checked = runner.invoke(app, ["--root", str(workspace.root), "validate"])
    assert checked.exit_code == 1
    assert [line for line in checked.output.splitlines() if "world.json" in line] == [
        "state/world.json: kinds.encounter.per_day: " + REASON]

    # The kind that reads it stops there, naming the file and the setting, and writes nothing.
    before = workspace.world_path.read_bytes()
    forced = runner.invoke(app, ["--root", str(workspace.root), "next", "--type", "encounter", "--with", "vera,emre"])
    assert forced.exit_code == 1
    assert "state/world.json: kinds.encounter.per_day: " + REASON in forced.output, forced.output
    assert workspace.world_path.read_bytes() == before


def test_a_pending_scene_of_a_kind_not_installed_is_named_by_its_file(workspace):
    runner = CliRunner()
    opened = runner.invoke(app, ["--root", str(workspace.root), "next"])
    assert opened.exit_code == 0, opened.output
    record = workspace.root / "scenes/day-001/scene-01/scene.json"
    data = json.loads(record.read_text(encoding="utf-8"))
    data["type"] = "LUNCH"  # its package was uninstalled while the scene waited
    record.write_text(json.dumps(data), encoding="utf-8")

    shown = runner.invoke(app, ["--root", str(workspace.root), "prompt", "vera"])
    assert shown.exit_code == 1
    assert [line for line in shown.output.splitlines() if "LUNCH" in line] == [
        "error: scenes/day-001/scene-01/scene.json: type: 'LUNCH': not a scene kind (choose "
        "ARRIVAL, WORK, MEETING, REFLECTION, ENCOUNTER, EVENT, GATHERING)"], shown.output
    assert json.loads(record.read_text(encoding="utf-8")) == data  # nothing written


def test_an_old_world_with_a_wrong_section_stops_only_what_reads_that_section(workspace):
    """The old flat keys are read into their sections at load; a wrong section of the new form
    waits for its kind there too, and `config` sets the new name of an old key."""
    data = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    data["kinds"]["encounter"]["per_day"] = 100_000
    data["meeting_rounds"] = data["kinds"]["meeting"].pop("rounds")
    workspace.world_path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    runner = CliRunner()

    shown = runner.invoke(app, ["--root", str(workspace.root), "status", "--json"])
    assert shown.exit_code == 0, shown.output
    world = World.model_validate(data)
    assert settings_of(world, "meeting").rounds == 2  # read from its old name
    with pytest.raises(StateError, match=r"^state/world\.json: kinds\.encounter\.per_day: "):
        settings_of(world, "encounter")

    data["kinds"]["encounter"]["per_day"] = 3
    workspace.world_path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    configured = runner.invoke(app, ["--root", str(workspace.root), "config", "kinds.meeting.rounds", "3"])
    assert configured.exit_code == 0, configured.output
    after = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    assert after["kinds"]["meeting"]["rounds"] == 3 and "meeting_rounds" not in after
    assert after["kinds"]["encounter"]["per_day"] == 3
