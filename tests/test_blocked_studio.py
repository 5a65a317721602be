"""A studio whose files drifted from the format: commands say everything that blocks, at once,
and point at the doctor - instead of stopping at the first bad field."""

from __future__ import annotations

import json

import pytest

BLOCKING = [
    "state/world.json: studio: Field required",
    "state/agents/tobi.json: id: Field required",
    "state/agents/vera.json: role: Field required",
    "state/agents/vera.json: persona: Field required",
    "state/agents/vera.json: today_plan: Input should be a valid dictionary or instance of Plan",
]


def edit(path, change):
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


@pytest.fixture
def drifted(workspace):
    edit(workspace.world_path, lambda w: (w.pop("studio"), w.update(scenes_today=3)))
    edit(workspace.agent_path("vera"), lambda a: (a.pop("role"), a.pop("persona"), a.update(today_plan=["DONE: Skizzen", "Türme"])))
    edit(workspace.agent_path("tobi"), lambda a: a.pop("id"))
    return workspace


def snapshot(workspace):
    return {p: p.read_bytes() for p in sorted(workspace.root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("command", [["next"], ["status"], ["prompt", "vera"], ["next", "--json"], ["day", "advance"]])
def test_every_blocking_field_is_listed_with_the_way_out(drifted, cli, command):
    before = snapshot(drifted)
    result = cli(*command)
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0] == "error: the studio cannot be played until these are fixed:"
    assert [line.strip() for line in lines[1:-1]] == BLOCKING
    assert "gamemaster doctor --fix" in lines[-1]
    assert snapshot(drifted) == before


def test_validate_lists_each_field_of_a_file_on_its_own_line(drifted, cli):
    result = cli("validate")
    assert result.exit_code == 1
    for problem in BLOCKING:
        assert problem in result.output.splitlines()


def test_an_error_that_is_not_about_the_state_files_stays_as_it_was(workspace, cli):
    result = cli("prompt", "vera")
    assert result.exit_code == 1
    assert "cannot be played" not in result.output and "doctor" not in result.output


def test_the_drifted_fixture_studio_lists_every_agent_and_the_world_before_any_fix(tmp_path, cli):
    import shutil
    from pathlib import Path

    root = shutil.copytree(Path(__file__).parent / "fixtures" / "drifted_studio", tmp_path / "theirs")
    result = cli("status", root=root)
    assert result.exit_code == 1
    listed = [line.strip() for line in result.output.splitlines()[1:-1]]
    files = {line.split(":")[0] for line in listed}
    assert files == {"state/world.json", *(f"state/agents/{p.name}" for p in (root / "state/agents").glob("*.json"))}
    assert "gamemaster doctor --fix" in result.output.splitlines()[-1]
    assert cli("doctor", "--fix", root=root).exit_code == 0
    assert cli("status", root=root).exit_code == 0
