"""`gamemaster import`: a drifted studio becomes a workspace that validates clean and plays on
from the day it stopped; the folder imported from is never written to."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gamemaster.cli import app

DRIFTED = Path(__file__).parent / "fixtures" / "drifted_studio"
AGENTS = ["greta", "jonas", "lea", "mara", "ozan"]


def gamemaster(*args: str):
    return CliRunner().invoke(app, list(args))


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def streams(root: Path) -> dict[str, list[dict]]:
    return {p.stem: [json.loads(line) for line in p.read_text(encoding="utf-8").splitlines()]
            for p in sorted((root / "state/memories").glob("*.jsonl"))}


@pytest.fixture
def source(tmp_path) -> Path:
    folder = tmp_path / "moorlicht"
    shutil.copytree(DRIFTED, folder)
    return folder


def test_import_validates_clean_and_plays_the_next_day(source, tmp_path):
    before = snapshot(source)
    originals = streams(source)
    target = tmp_path / "workspace"
    result = gamemaster("import", str(source), "--into", str(target))
    assert result.exit_code == 0, result.output
    assert "the studio's last day is over: scenes/day-005/summary.md" in result.output
    assert snapshot(source) == before

    for name in ("prompts", "CLAUDE.md", ".claude/commands", ".mcp.json", "gallery/konzepte/day-003_moorhexe_v1.md"):
        assert (target / name).exists(), name
    assert sorted(p.stem for p in (target / ".claude/agents").glob("character-*.md")) == [f"character-{a}" for a in AGENTS]
    validated = gamemaster("--root", str(target), "validate")
    assert validated.exit_code == 0 and "0 error(s)" in validated.output, validated.output

    imported = streams(target)
    for agent, lines in originals.items():
        assert [m["id"] for m in imported[agent]] == [m["id"] for m in lines]
        texts = {m["description"] for m in imported[agent]}
        assert all(m.get("description", m.get("content")) in texts for m in lines)

    played = gamemaster("--root", str(target), "day", "advance")
    assert played.exit_code == 0, played.output
    world = json.loads((target / "state/world.json").read_text(encoding="utf-8"))
    assert world["day"] == 6
    arrival = json.loads((target / "scenes/day-006/scene-01/scene.json").read_text(encoding="utf-8"))
    assert arrival["type"] == "ARRIVAL" and arrival["participants"] == AGENTS
    for record in (target / "scenes/day-006").glob("scene-*/scene.json"):
        assert set(json.loads(record.read_text(encoding="utf-8"))["participants"]) <= set(AGENTS)
    after = streams(target)
    for agent, lines in originals.items():
        last = max(int(m["id"].rsplit("-", 1)[1]) for m in lines)
        new = after[agent][len(lines):]
        assert new, agent
        assert [int(m["id"].rsplit("-", 1)[1]) for m in new] == list(range(last + 1, last + 1 + len(new)))
        assert all(m["created"].startswith("day-006/") for m in new)
        assert after[agent][: len(lines)] == imported[agent]  # the imported lines are untouched
    validated = gamemaster("--root", str(target), "validate")
    assert validated.exit_code == 0, validated.output


def test_import_carries_the_studio_into_the_toolkit(source, tmp_path):
    target = tmp_path / "workspace"
    assert gamemaster("import", str(source), "--into", str(target)).exit_code == 0
    world = json.loads((target / "state/world.json").read_text(encoding="utf-8"))
    assert (world["studio"], world["day"], world["scene"], world["first_weekday"]) == ("moorlicht", 5, 6, "mon")
    assert [e["participants"] for e in world["today"]][:3] == [["mara"], ["greta"], ["jonas"]]
    events = {e["id"]: e for e in world["events"]}
    assert events["event-001"]["held"] == [4]
    assert (events["event-002"]["day"], events["event-002"]["to"], events["event-002"]["meeting"],
            events["event-002"]["time"]) == (6, ["greta", "mara"], True, "10:00")
    assert events["event-003"]["weekday"] == "mon"
    assert world["events_issued"] == 3 and world["briefs_issued"] == 3 and world["briefs"] == []
    past = {b["text"]: b for b in world["past_briefs"]}
    demo = past["Die Demo muss in zehn Minuten zeigen, warum man dem Fährmann zuhören will."]
    assert (demo["created"], demo["active"], demo["from"]) == ("day-003/scene-04", True, "Creative Director")
    assert all(b["seen_by"] == AGENTS for b in world["past_briefs"])
    assert any(text.startswith("„Moorlicht“ ist ein ruhiges Spiel") for text in past)
    assert world["imported"]["active_briefs"] and world["imported"]["scheduled_events"]
    greta = json.loads((target / "state/agents/greta.json").read_text(encoding="utf-8"))
    assert greta["today_plan"]["text"] == "Termin mit dem Verlag bestätigen"
    assert (greta["importance_accumulator"], greta["last_reflection"]) == (48, "day-004/scene-05")
    # The state as it came is kept in the backup of the copy.
    backup = next((target / "state/.backup").iterdir())
    assert snapshot(backup) == snapshot(source / "state")


def test_import_takes_the_state_folder_itself(source, tmp_path):
    target = tmp_path / "from-state"
    result = gamemaster("import", str(source / "state"), "--into", str(target))
    assert result.exit_code == 0, result.output
    assert (target / "gallery/builds/day-005_build-0-4_v1.md").is_file()


def test_import_refuses_a_target_that_is_not_empty_or_inside_the_source(source, tmp_path):
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "notes.txt").write_text("meins", encoding="utf-8")
    result = gamemaster("import", str(source), "--into", str(occupied))
    assert result.exit_code == 1 and "not empty" in result.output
    assert [p.name for p in occupied.iterdir()] == ["notes.txt"]
    before = snapshot(source)
    inside = gamemaster("import", str(source), "--into", str(source / "workspace"))
    assert inside.exit_code == 1 and "never writes into" in inside.output
    assert snapshot(source) == before


def test_import_of_a_folder_without_state_says_what_it_looked_for(tmp_path):
    result = gamemaster("import", str(tmp_path), "--into", str(tmp_path / "ws"))
    assert result.exit_code == 1
    assert re.search(r"neither state/world.json nor world.json", result.output)
