"""End to end with a Game Master or a character that does not do as told: subagents asked for
in the background, Write and Edit into `state/`, a general-purpose subagent next to the
characters, a character whose reply is rejected twice (see ``claude_e2e.py`` for the setup)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from claude_e2e import (  # noqa: F401 (unshare is a fixture)
    LATEST, REPO, VERSIONS, _assert_played, _assert_scenes_written, _game_master_calls, _install, _memory_counts, _run_claude,
    _tool_results, _two_characters, pytestmark, unshare,
)


@pytest.mark.parametrize("version", VERSIONS)
def test_game_master_asking_for_background_subagents(tmp_path, unshare, version):
    """The Game Master asks for every character with `run_in_background: true`. Where the
    workspace's `CLAUDE_CODE_DISABLE_BACKGROUND_TASKS` takes the choice away (the subagent tool
    offers no `run_in_background`), each character answers in the foreground and its stored reply
    is the call's result. Where Claude Code still offers it (2.1.197), the call only says the agent
    was launched; the hook then writes the scene back when the last reply is in, before `claude`
    ends, so the scene is complete either way."""
    claude = _install(version)
    workspace = _two_characters(tmp_path)
    before = _memory_counts(workspace)
    result = _run_claude(tmp_path, unshare, claude, workspace, inside_args=("--background",))
    calls = _game_master_calls(result)
    spawns = [c for c in calls if c["name"] in ("Agent", "Task")]
    assert spawns and all(c["input"].get("run_in_background") is True for c in spawns), spawns
    tools = next(r["body"]["tools"] for r in result["requests"] if r.get("kind") == "game_master")
    schema = next(t for t in tools if t["name"] in ("Agent", "Task"))["input_schema"]["properties"]
    if "run_in_background" not in schema:
        _assert_played(workspace, result, before, scenes=1)
        return
    handed_back = _tool_results(result)
    for call in spawns:
        assert "launched" in handed_back.get(call["id"], ""), handed_back.get(call["id"])
    _assert_scenes_written(workspace, before, result, 1)
    assert sum("every reply stored, scene written back" in a for a in result["hook_answers"]) == 1, \
        result["hook_answers"]


@pytest.mark.parametrize("version", VERSIONS)
def test_hook_does_not_run_for_other_subagents(tmp_path, unshare, version):
    """A general-purpose subagent before the scene: the SubagentStop hook matches `character-.*`,
    so it runs once per character stop (a rejection and a stored reply each) and never for the
    general-purpose one; every hook run is logged by the `gamemaster` wrapper, even a silent one."""
    claude = _install(version)
    workspace = _two_characters(tmp_path)
    before = _memory_counts(workspace)
    result = _run_claude(tmp_path, unshare, claude, workspace, inside_args=("--general-purpose",))
    helper = [c for c in _game_master_calls(result) if c["input"].get("subagent_type") == "general-purpose"]
    assert len(helper) == 1, _game_master_calls(result)
    assert "helper" in [r.get("kind") for r in result["requests"]], "the general-purpose subagent never ran"
    assert "OK" in _tool_results(result).get(helper[0]["id"], ""), _tool_results(result).get(helper[0]["id"])
    # In order: the general-purpose subagent stopped first; a hook run for it would be a silent
    # first entry. Each character stops twice (rejected, then stored; a stored reply that does
    # not complete the scene is silent too).
    answers = result["hook_answers"]
    assert len(answers) == 2 * len(before), f"the hook ran for a subagent that is not a character: {answers}"
    assert answers[0] != "", f"the hook ran for the general-purpose subagent: {answers}"
    _assert_played(workspace, result, before, scenes=1)


@pytest.mark.parametrize("version", VERSIONS)
def test_writes_into_state_are_refused(tmp_path, unshare, version):
    """In a trusted workspace and with edits accepted without asking (`acceptEdits`), the Game
    Master tries to Write a file into `state/` and Edit a character's file: the workspace's deny
    rules refuse both, nothing is created and the character keeps its id, while a note at the top is written (so the
    refusals come from the rules, not from the mode); the scene is then played as usual."""
    claude = _install(version)
    workspace = _two_characters(tmp_path)
    agent_file = workspace.agents_dir / "emre.json"
    before = _memory_counts(workspace)
    result = _run_claude(tmp_path, unshare, claude, workspace, trust=True,
                         prompt="Spiel die nächste Szene, wie es in CLAUDE.md steht.",
                         claude_args=("--permission-mode", "acceptEdits"), inside_args=("--probe-writes",))
    assert not (workspace.root / "state" / "e2e-probe.json").exists()
    assert json.loads(agent_file.read_text(encoding="utf-8"))["id"] == "emre"
    assert (workspace.root / "e2e-probe.md").read_text(encoding="utf-8") == "allowed\n"
    handed_back = _tool_results(result)
    refused = [c for c in _game_master_calls(result) if c["name"] in ("Write", "Edit") and "/state/" in
               c["input"]["file_path"]]
    assert len(refused) == 2, _game_master_calls(result)
    for call in refused:
        said = handed_back.get(call["id"], "")
        assert "denied" in said.lower() or "permission" in said.lower(), (call, said)
    _assert_played(workspace, result, before, scenes=1)


def test_a_reply_rejected_twice(tmp_path, unshare):
    """Vera answers prose every time. The hook sends her first answer back with the reason,
    lets her go after the second and says so; as CLAUDE.md says, the Game Master reads the
    rejections in `status --json` and asks the Creative Director: the scene stays pending with
    Emre's reply kept, nothing is written back, the workspace validates."""
    claude = _install(LATEST)
    workspace = _two_characters(tmp_path)
    before = _memory_counts(workspace)
    result = _run_claude(tmp_path, unshare, claude, workspace, inside_args=("--stubborn=vera",))
    world = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    assert world["pending"] == "day-001/scene-01", world["pending"]
    assert _memory_counts(workspace) == before
    replies = workspace.scenes / "day-001" / "scene-01" / "replies"
    assert sorted(p.name for p in replies.iterdir()) == ["01-emre.json"]
    answers = result["hook_answers"]
    assert sum("gamemaster rejected vera's reply" in a for a in answers) == 1, answers
    assert sum("vera's reply was rejected 2 times and is not stored" in a for a in answers) == 1, answers
    calls = _game_master_calls(result)
    assert not [c for c in calls if c["name"] == "Bash" and c["input"]["command"].startswith("gamemaster apply")]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    gamemaster = [sys.executable, "-m", "gamemaster", "--root", str(workspace.root)]
    status = json.loads(subprocess.run([*gamemaster, "status", "--json"], capture_output=True, text=True,
                                       env=env, check=True).stdout)
    rejections = status["pending"]["rejections"]
    assert list(rejections) == ["vera"] and len(rejections["vera"]) == 2, rejections
    validate = subprocess.run([*gamemaster, "validate"], capture_output=True, text=True, env=env)
    assert validate.returncode == 0, validate.stdout + validate.stderr
