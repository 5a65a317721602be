"""End to end as a user starts it: interactive `claude` in tmux with its dialogs, and the Game
Master playing through the MCP tools in a shell where `gamemaster` is not on PATH."""

from __future__ import annotations

import json

import pytest

from claude_e2e import (  # noqa: F401 (unshare is a fixture)
    LATEST, VERSIONS, _assert_quiet_start, _assert_scenes_written, _install, _memory_counts, _run_claude, _tmux,
    _two_characters, pytestmark, unshare,
)


@pytest.mark.parametrize("prompt", ["/scene", "/day"])
def test_interactive_in_a_trusted_folder_with_no_flags(tmp_path, unshare, prompt):
    """Plain `claude` in a trusted workspace (newer releases start in auto mode, whose server-side
    check cannot pass a gateway): the generated settings carry `/scene` and `/day` to the end
    without a single question, and the MCP server needs no approval dialog."""
    _tmux()
    claude = _install(LATEST)
    workspace = _two_characters(tmp_path)
    before = _memory_counts(workspace)
    result = _run_claude(tmp_path, unshare, claude, workspace, prompt=prompt, trust=True,
                         timeout=240 if prompt == "/day" else 150, inside_args=("--interactive",))
    assert result["outcome"] == "finished", result["outcome"]
    _assert_quiet_start(result)
    assert "manual mode on" in result["screens"][-1]["screen"]
    scenes = len(list(workspace.scenes.glob("day-001/scene-*/scene.json")))
    assert scenes == 1 if prompt == "/scene" else scenes >= 4
    _assert_scenes_written(workspace, before, result, scenes)
    if prompt == "/day":
        assert (workspace.scenes / "day-001" / "summary.md").is_file()


def test_interactive_first_start_answers_the_trust_dialog_as_the_readme_says(tmp_path, unshare):
    """A folder opened for the first time: the trust dialog (preselected „No, exit“) is answered
    as the README says (down, Enter), then `/scene` plays to the end."""
    _tmux()
    claude = _install(LATEST)
    workspace = _two_characters(tmp_path)
    before = _memory_counts(workspace)
    result = _run_claude(tmp_path, unshare, claude, workspace, prompt="/scene",
                         inside_args=("--interactive", "--answer=trust=Down,Enter"))
    assert result["outcome"] == "finished", result["outcome"]
    trust = [s["screen"] for s in result["screens"] if s["dialog"] == "trust"]
    assert trust and "Yes, I trust this folder" in trust[0], result["screens"]
    _assert_quiet_start(result)
    _assert_scenes_written(workspace, before, result, 1)


@pytest.mark.parametrize("version", VERSIONS)
def test_mcp_mode_to_the_end_without_gamemaster_on_path(tmp_path, unshare, version):
    """The Game Master plays through the MCP tools only, in a shell where `gamemaster` is not on
    PATH: the launcher starts the MCP server and the hook, the hook writes the scene back, and the
    final `apply` answers "already applied", not a tool error."""
    claude = _install(version)
    workspace = _two_characters(tmp_path)
    before = _memory_counts(workspace)
    result = _run_claude(tmp_path, unshare, claude, workspace, trust=True,
                         prompt="Spiel die nächste Szene mit den gamemaster-MCP-Tools.",
                         inside_args=("--mcp", "--hide-gamemaster"))
    assert "game_master_mcp" in [r.get("kind") for r in result["requests"]], "the MCP tools were never offered"
    _assert_scenes_written(workspace, before, result, 1)
    last = [r for r in result["requests"] if r.get("kind") == "game_master_mcp"][-1]["body"]["messages"]
    outcomes = [b for m in last if m.get("role") == "user" and isinstance(m.get("content"), list)
                for b in m["content"] if b.get("type") == "tool_result"]
    errors = [b for b in outcomes if b.get("is_error")]
    assert not errors, errors
    assert '\\"already_applied\\": \\"day-001/scene-01\\"' in json.dumps(outcomes[-1], ensure_ascii=False), outcomes[-1]
    assert json.loads(result["stdout"]).get("is_error") is False
