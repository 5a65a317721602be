"""``gamemaster agents new``: a new character's files, the id rule, and the next ARRIVAL."""

from __future__ import annotations

import json

import pytest

from gamemaster.models import Agent


def files_of(workspace, agent_id: str):
    return (workspace.agents_dir / f"{agent_id}.json", workspace.memories_dir / f"{agent_id}.jsonl",
            workspace.root / ".claude" / "agents" / f"character-{agent_id.replace('_', '-')}.md")


def snapshot(workspace) -> dict:
    return {p.relative_to(workspace.root).as_posix(): p.read_bytes()
            for p in sorted(workspace.root.rglob("*")) if p.is_file() and p.name != ".gamemaster.lock"}


def test_writes_the_three_files(cli, workspace):
    result = cli("agents", "new", "mira_s", "--name", "Mira Sander", "--role", "Sounddesign",
                 "--persona", "Mira nimmt Geräusche auf, wo andere nur zuhören.", "--artifact-kind", "sound-notes",
                 "--team", "audio", "--json")
    assert result.exit_code == 0, result.output
    agent_file, stream, subagent = files_of(workspace, "mira_s")
    data = json.loads(agent_file.read_text(encoding="utf-8"))
    agent = Agent.model_validate(data)
    assert (agent.name, agent.role, agent.artifact_kind) == ("Mira Sander", "Sounddesign", "sound-notes")
    assert agent.persona.startswith("Mira nimmt")
    assert data["team"] == "audio"
    assert json.loads(result.stdout)["id"] == "mira_s"
    assert stream.read_bytes() == b""
    assert "Mira Sander" in subagent.read_text(encoding="utf-8")
    assert cli("validate").exit_code == 0
    assert cli("agents", "sync", "--check").exit_code == 0


def test_persona_defaults_to_name_and_role(cli, workspace):
    assert cli("agents", "new", "mira", "--name", "Mira Sander", "--role", "Sounddesign").exit_code == 0
    assert json.loads(files_of(workspace, "mira")[0].read_text(encoding="utf-8"))["persona"] == "Mira Sander, Sounddesign."


@pytest.mark.parametrize("bad_id", ["../x", "Vera", "1abc", "a-b", ""])
def test_a_bad_id_is_refused_before_anything_is_written(cli, workspace, bad_id):
    before = snapshot(workspace)
    result = cli("agents", "new", bad_id, "--name", "X", "--role", "Y")
    assert result.exit_code == 1
    assert "is not an agent id" in result.stderr
    assert snapshot(workspace) == before
    assert not (workspace.state / "x.json").exists() and not (workspace.root / "x.json").exists()


def test_an_existing_agent_is_refused(cli, workspace):
    before = snapshot(workspace)
    result = cli("agents", "new", "vera", "--name", "Vera Zwei", "--role", "Doppelgängerin")
    assert result.exit_code == 1
    assert "vera exists already" in result.stderr
    assert snapshot(workspace) == before


def test_a_stream_without_agent_file_is_not_adopted(cli, workspace):
    stream = workspace.memories_dir / "ghost.jsonl"
    stream.write_text("", encoding="utf-8")
    result = cli("agents", "new", "ghost", "--name", "Ghost", "--role", "Spuk")
    assert result.exit_code == 1
    assert "state/memories/ghost.jsonl exists already" in result.stderr
    assert not files_of(workspace, "ghost")[0].exists()


def test_a_bad_artifact_kind_is_refused(cli, workspace):
    result = cli("agents", "new", "mira", "--name", "Mira", "--role", "Sound", "--artifact-kind", "Sound Notes")
    assert result.exit_code == 1
    assert "artifact_kind" in result.stderr
    assert not files_of(workspace, "mira")[0].exists()


def test_the_next_arrival_includes_the_new_character(cli):
    assert cli("agents", "new", "mira", "--name", "Mira Sander", "--role", "Sounddesign").exit_code == 0
    result = cli("next", "--json")
    assert result.exit_code == 0, result.output
    scene = json.loads(result.stdout)
    assert scene["type"] == "ARRIVAL"
    assert "mira" in scene["participants"]
