"""`gamemaster doctor`: every drift of a hand- and model-written studio named with file and line,
repaired by --fix without losing a value, and a second --fix changes nothing."""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gamemaster.cli import app

DRIFTED = Path(__file__).parent / "fixtures" / "drifted_studio"


@pytest.fixture
def studio(tmp_path) -> Path:
    root = tmp_path / "moorlicht"
    shutil.copytree(DRIFTED, root)
    return root


def doctor(root: Path, *args: str):
    return CliRunner().invoke(app, ["--root", str(root), "doctor", *args])


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def original_memories(root: Path) -> dict[str, list[dict]]:
    return {p.stem: [json.loads(line) for line in p.read_text(encoding="utf-8").splitlines()]
            for p in sorted((root / "state/memories").glob("*.jsonl"))}


def test_doctor_lists_every_drift_class_with_file_and_line(studio):
    before = snapshot(studio)
    result = doctor(studio)
    assert result.exit_code == 1, result.output
    out = result.output
    expected = [
        "state/memories/mara.jsonl:3: `content` instead of `description` — renamed to description",
        "state/memories/mara.jsonl:3: fields the schema has no place for: agent, day — moved into metadata",
        "state/memories/mara.jsonl:3: no created, day 2 — created day-002/scene-00",
        "state/memories/mara.jsonl:3: no depth, tags, evidence, metadata",
        "state/memories/mara.jsonl:4: created 'day-002/scene-01b' is a sub-scene",
        "state/memories/lea.jsonl:2: warning: artifact_path gallery/konzepte/day-002_fährhaus_v1.png is not in the folder",
        "state/agents/mara.json: no id — id 'mara' from the file name",
        "state/agents/mara.json: no role — role drafted",
        "state/agents/mara.json: no persona — persona drafted",
        "state/agents/mara.json: today_plan is a list of 3 item(s), 1 done",
        "state/agents/lea.json: no persona",
        "state/world.json: no studio",
        "state/world.json: day_of_week 'Freitag' — first_weekday mon",
        "state/world.json: scenes_today 6 — today: scenes 1–6 of day 005",
        "state/world.json: scheduled_events (3) — events event-001 day 004 (held), event-002 day 006, event-003 every mon",
        "state/world.json: active_briefs (2) — past_briefs brief-001, brief-002",
        "state/bulletin.json: [0] brief from Creative Director on day 1 — world.json past_briefs brief-003",
        "DRAFT",
        "run `gamemaster doctor --fix`",
    ]
    for line in expected:
        assert line in out, line
    # The existing artifact is fine, and evidence that cites another character's memory is not drift.
    assert "day-003_moorhexe_v1.md" not in out
    assert [line for line in out.splitlines() if "evidence" in line and "tags, evidence, metadata" not in line] == []
    assert snapshot(studio) == before  # without --fix nothing is written


def test_fix_keeps_every_memory_and_value(studio):
    originals = original_memories(studio)
    result = doctor(studio, "--fix")
    assert result.exit_code == 0, result.output
    assert "fixed: 80 drift(s), 0 error(s), 2 warning(s)" in result.output
    fixed = original_memories(studio)
    for agent, lines in originals.items():
        assert [m["id"] for m in fixed[agent]] == [m["id"] for m in lines], agent
        for old, new in zip(lines, fixed[agent]):
            assert new["description"] == old.get("description", old.get("content"))
            assert new["evidence"] == old.get("evidence", [])
            for key, value in old.items():
                if key not in ("content", "created", "description", "tags", "evidence", "metadata", "depth"):
                    assert new.get(key, new["metadata"].get(key)) == value, (new["id"], key)
            if old.get("created") and old["created"] != new["created"]:
                assert new["metadata"]["original_created"] == old["created"]
    mara = {m["id"]: m for m in fixed["mara"]}
    assert mara["mara-003"]["metadata"] == {"agent": "mara", "day": 2}
    assert mara["mara-003"]["created"] == "day-002/scene-00"
    assert mara["mara-004"]["created"] == "day-002/scene-01"
    assert mara["mara-008"]["created"] == "day-005/scene-01"  # the scene of the line before, on its day
    lea = {m["id"]: m for m in fixed["lea"]}
    assert lea["lea-005"]["evidence"] == ["lea-003", "jonas-004"]

    agent = json.loads((studio / "state/agents/mara.json").read_text(encoding="utf-8"))
    assert agent["id"] == "mara" and agent["drafted"] == ["role", "persona"]
    assert "Dialogbaum der zweiten Überfahrt" in agent["persona"] and "Kickoff für „Moorlicht“" in agent["persona"]
    assert agent["today_plan"]["text"] == ("Dialogbaum für die zweite Überfahrt kürzen; "
                                           "Mit Ozan über die Geräusche des Moors sprechen")
    assert agent["today_plan"]["items"][0] == "DONE: Kernschleife mit Jonas durchspielen"
    assert (agent["position"], agent["mood"], agent["last_reflection"]) == (
        "Besprechungsraum", "konzentriert, ein wenig ungeduldig", "day-004/scene-02")
    ozan = json.loads((studio / "state/agents/ozan.json").read_text(encoding="utf-8"))
    assert ozan["persona"].startswith("Ozan nimmt alles auf") and "drafted" not in ozan

    world = json.loads((studio / "state/world.json").read_text(encoding="utf-8"))
    assert world["studio"] == "moorlicht" and world["day"] == 5 and world["scene"] == 6
    assert [e["scene"] for e in world["today"]] == [1, 2, 3, 4, 5, 6]
    assert world["imported"]["scenes_total"] == 29 and world["imported"]["day_of_week"] == "Freitag"
    assert (world["time_of_day"], world["artifacts_today"]) == ("Feierabend", ["gallery/builds/day-005_build-0-4_v1.md"])
    validated = CliRunner().invoke(app, ["--root", str(studio), "validate"])
    assert validated.exit_code == 0 and "0 error(s)" in validated.output, validated.output
    assert ".backup" not in validated.output


def test_fix_backs_up_all_of_state_first(studio):
    before = snapshot(studio / "state")
    result = doctor(studio, "--fix")
    assert result.exit_code == 0, result.output
    backups = list((studio / "state/.backup").iterdir())
    assert len(backups) == 1
    assert f"backup of state/ before the fix: state/.backup/{backups[0].name}" in result.output
    assert snapshot(backups[0]) == before


def test_a_second_fix_changes_nothing(studio):
    assert doctor(studio, "--fix").exit_code == 0
    after_first = snapshot(studio)
    second = doctor(studio, "--fix")
    assert second.exit_code == 0, second.output
    assert "0 drift(s), 0 error(s)" in second.output and "fixed:" not in second.output
    assert snapshot(studio) == after_first
    assert len(list((studio / "state/.backup").iterdir())) == 1
    assert doctor(studio).exit_code == 0


def test_a_rewritten_stream_keeps_its_mode(studio):
    stream = studio / "state/memories/mara.jsonl"
    stream.chmod(0o640)
    assert doctor(studio, "--fix").exit_code == 0
    assert stat.S_IMODE(stream.stat().st_mode) == 0o640


def test_json_lists_the_drifts_for_programs(studio):
    result = doctor(studio, "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["counts"] == {"drift": 80, "error": 0, "warning": 2}
    assert not data["fixed"] and data["backup"] is None
    first = next(d for d in data["drifts"] if d["file"] == "state/memories/mara.jsonl")
    assert first["line"] == 3 and first["kind"] == "drift" and first["what"] and first["fix"]
    assert any(d["draft"] for d in data["drifts"])


def test_bad_input_is_named_with_file_and_line_and_nothing_is_lost(studio):
    stream = studio / "state/memories/mara.jsonl"
    lines = stream.read_text(encoding="utf-8").splitlines()
    lines.insert(1, "Mara hat hier von Hand etwas notiert, ganz ohne JSON – „Überfahrt“")
    lines.insert(2, '["kein", "Objekt"]')
    stream.write_text("\n".join(lines) + "\n", encoding="utf-8")
    agent = studio / "state/agents/ozan.json"
    agent.write_text('["Ozan", "Sound Designer"]\n', encoding="utf-8")

    result = doctor(studio, "--fix")
    assert result.exit_code == 1
    assert "state/memories/mara.jsonl:2: error: not JSON" in result.output
    assert "state/memories/mara.jsonl:3: error: expected a JSON object, found a list" in result.output
    assert "state/agents/ozan.json:1: error: expected a JSON object, found a list" in result.output
    assert "state/memories/mara.jsonl:5: `content` instead of `description`" in result.output  # the rest is repaired
    fixed = stream.read_text(encoding="utf-8").splitlines()
    assert fixed[1] == lines[1] and fixed[2] == lines[2]
    assert len(fixed) == len(lines)
    assert agent.read_text(encoding="utf-8") == '["Ozan", "Sound Designer"]\n'


def test_evidence_that_exists_nowhere_is_reported_and_kept(studio):
    stream = studio / "state/memories/greta.jsonl"
    lines = stream.read_text(encoding="utf-8").splitlines()
    reflection = json.loads(lines[4])
    reflection["evidence"].append("tobi-012")
    lines[4] = json.dumps(reflection, ensure_ascii=False)
    stream.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = doctor(studio, "--fix")
    assert "state/memories/greta.jsonl:5: error: evidence tobi-012 exists in no stream" in result.output
    assert json.loads(stream.read_text(encoding="utf-8").splitlines()[4])["evidence"][-1] == "tobi-012"


def test_a_studio_in_the_canonical_format_has_no_drift(workspace):
    result = doctor(workspace.root)
    assert result.exit_code == 0, result.output
    assert "0 drift(s), 0 error(s), 0 warning(s)" in result.output
    assert not (workspace.state / ".backup").exists()


@pytest.mark.parametrize("broken", [{"day": 0}, "hello", {"day": 3, "ids": [1]}, {"day": 3, "heard": []}])
def test_a_broken_day_memories_block_is_dropped_by_fix_and_the_studio_plays_on(workspace, broken):
    path = workspace.agents_dir / "emre.json"
    agent = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**agent, "day_memories": broken}, ensure_ascii=False), encoding="utf-8")
    runner = CliRunner()
    blocked = runner.invoke(app, ["--root", str(workspace.root), "next"])
    assert blocked.exit_code == 1 and "state/agents/emre.json: day_memories" in blocked.output
    fixed = doctor(workspace.root, "--fix")
    assert "day_memories dropped (chosen again at the character's next plan)" in fixed.output
    after = json.loads(path.read_text(encoding="utf-8"))
    assert "day_memories" not in after
    assert {k: v for k, v in after.items() if v is not None} == {k: v for k, v in agent.items() if v is not None}
    assert runner.invoke(app, ["--root", str(workspace.root), "next"]).exit_code == 0


def test_next_prompt_and_apply_do_not_load_the_doctor(workspace):
    from test_cli import imported_by

    root = ["--root", str(workspace.root)]
    loaded = imported_by([*root, "next"], [*root, "prompt", "vera"], packages=("gamemaster",))
    assert "gamemaster.cli.doctor" in loaded
    assert [m for m in loaded if m.startswith("gamemaster.doctor")] == []


def test_a_world_without_day_takes_the_last_day_of_the_memories(studio):
    world_path = studio / "state/world.json"
    world = json.loads(world_path.read_text(encoding="utf-8"))
    del world["day"]
    world_path.write_text(json.dumps(world, ensure_ascii=False), encoding="utf-8")
    bulletin = studio / "state/bulletin.json"
    bulletin.write_text(json.dumps({"posts": json.loads(bulletin.read_text(encoding="utf-8"))}, ensure_ascii=False),
                        encoding="utf-8")
    result = doctor(studio, "--fix")
    assert result.exit_code == 0, result.output
    assert "state/world.json: no day as a number — day 5 (the last day the memories were written on)" in result.output
    assert "state/bulletin.json: [0] brief from Creative Director" in result.output
    fixed = json.loads(world_path.read_text(encoding="utf-8"))
    assert (fixed["day"], fixed["first_weekday"], len(fixed["past_briefs"])) == (5, "mon", 3)


def test_an_agent_file_whose_id_is_not_its_name_is_an_error_and_kept(studio):
    path = studio / "state/agents/lea.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["id"] = "lena"
    text = json.dumps(data, ensure_ascii=False)
    path.write_text(text, encoding="utf-8")
    result = doctor(studio, "--fix")
    assert result.exit_code == 1
    assert "state/agents/lea.json: error: id 'lena' does not match the file name 'lea'" in result.output
    assert path.read_text(encoding="utf-8") == text


def test_a_stream_without_a_final_line_end_gets_one(workspace):
    stream = workspace.memories_dir / "vera.jsonl"
    text = stream.read_text(encoding="utf-8").rstrip("\n")
    stream.write_text(text, encoding="utf-8")
    result = doctor(workspace.root, "--fix")
    lines = text.count("\n") + 1
    assert f"state/memories/vera.jsonl:{lines}: the last line has no line end — one is added" in result.output
    assert stream.read_text(encoding="utf-8") == text + "\n"
    assert "0 drift(s)" in doctor(workspace.root).output
