"""The Claude Code plugin: its files, workspaces set up for it, and one hook per reply."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from test_claude_code import arrival, hook, stop_event  # noqa: F401  (arrival: the shared fixture)
from gamemaster.claude_files import states
from gamemaster.claude_plugin import SKILLS, plugin_dir, rendered
from gamemaster.cli import app
from gamemaster.create import init_workspace

REPO = Path(__file__).parent.parent


def test_the_committed_plugin_is_what_the_commands_render():
    """Skills are the commands plus a name: change a command, then re-render the plugin."""
    committed = {p.relative_to(plugin_dir()).as_posix(): p.read_bytes()
                 for p in plugin_dir().rglob("*") if p.is_file()}
    assert committed == rendered(), (
        "gamemaster/plugin/ differs from the commands; re-render it with\n"
        "python -c 'from gamemaster.claude_plugin import write; write()'"
    )


def test_every_skill_keeps_its_commands_allowed_tools_and_is_named():
    commands = REPO / "gamemaster" / "bundled" / ".claude" / "commands"
    for skill in SKILLS:
        text = (plugin_dir() / "skills" / skill / "SKILL.md").read_text(encoding="utf-8")
        front = text.split("---\n")[1]
        assert f"name: {skill}\n" in front
        command_front = (commands / f"{skill}.md").read_text(encoding="utf-8").split("---\n")[1]
        assert front == f"name: {skill}\n" + command_front


def test_the_manifest_hook_and_mcp_server():
    manifest = json.loads((plugin_dir() / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))
    assert manifest["name"] == "gamemaster"
    hooks = json.loads((plugin_dir() / "hooks" / "hooks.json").read_text(encoding="utf-8"))["hooks"]
    assert [g["matcher"] for g in hooks["SubagentStop"]] == ["character-.*"]
    assert [h["command"] for g in hooks["SubagentStop"] for h in g["hooks"]] == [
        'sh "${CLAUDE_PLUGIN_ROOT}/bin/gamemaster.sh" hook subagent-stop --from-plugin']
    servers = json.loads((plugin_dir() / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]
    assert servers["gamemaster"]["command"] == "sh"
    assert servers["gamemaster"]["args"] == ["${CLAUDE_PLUGIN_ROOT}/bin/gamemaster.sh", "mcp"]
    # One launcher: the plugin's is the workspace's.
    assert (plugin_dir() / "bin" / "gamemaster.sh").read_bytes() == (REPO / ".claude" / "gamemaster.sh").read_bytes()


def test_plugin_path_prints_the_folder_claude_loads():
    result = CliRunner().invoke(app, ["plugin", "path"])
    assert result.exit_code == 0
    assert Path(result.output.strip()) == plugin_dir()
    assert (Path(result.output.strip()) / ".claude-plugin" / "plugin.json").is_file()


def test_a_plugin_workspace_has_no_commands_reply_hook_or_mcp_entry_and_enables_the_plugin(tmp_path):
    workspace = init_workspace(tmp_path / "studio", plugin=True)
    root = workspace.root
    assert (root / "CLAUDE.md").is_file()
    assert not (root / ".claude" / "commands").exists() and not (root / ".mcp.json").exists()
    settings = json.loads((root / ".claude" / "settings.json").read_text(encoding="utf-8"))
    # The plugin brings the reply hook and the handoff; the workspace keeps the fence on reads,
    # run through its own launcher.
    assert list(settings["hooks"]) == ["PreToolUse"]
    assert [g["matcher"] for g in settings["hooks"]["PreToolUse"]] == ["Read|Grep|Glob|Bash"]
    assert (root / ".claude" / "gamemaster.sh").is_file()
    assert settings["env"]["CLAUDE_CODE_DISABLE_BACKGROUND_TASKS"] == "1"
    assert settings["enabledPlugins"] == {"gamemaster@gamemaster": True}
    # No path of this machine in the committed settings; this clone's marketplace is local.
    assert "extraKnownMarketplaces" not in settings and str(plugin_dir()) not in json.dumps(settings)
    local = json.loads((root / ".claude" / "settings.local.json").read_text(encoding="utf-8"))
    source = local["extraKnownMarketplaces"]["gamemaster"]["source"]
    assert source == {"source": "directory", "path": str(plugin_dir())}
    assert "settings.local.json" in (root / ".claude" / ".gitignore").read_text(encoding="utf-8").split()
    assert "mcp__plugin_gamemaster_gamemaster" in settings["permissions"]["allow"]
    assert sorted((root / ".claude" / "agents").iterdir())  # the characters stay per workspace
    assert {s.path: s.status for s in states(workspace)} == {
        "CLAUDE.md": "current", ".claude/settings.json": "current", ".claude/.gitignore": "current",
        ".claude/gamemaster.sh": "current"}
    check = CliRunner().invoke(app, ["--root", str(root), "agents", "sync", "--check"])
    assert check.exit_code == 0, check.output


@pytest.fixture
def plugin_cli(tmp_path):
    workspace = init_workspace(tmp_path / "plugin-studio", plugin=True)
    runner = CliRunner()
    assert runner.invoke(app, ["--root", str(workspace.root), "next"]).exit_code == 0
    return workspace, lambda *args, input=None: runner.invoke(app, ["--root", str(workspace.root), *args], input=input)


def test_the_plugin_hook_works_where_the_workspace_has_no_hook_of_its_own(plugin_cli):
    _, cli = plugin_cli
    result = cli("hook", "subagent-stop", "--from-plugin", input=json.dumps(stop_event("character-vera", "Hallo!")))
    assert result.exit_code == 0
    assert json.loads(result.output)["decision"] == "block"


def test_the_plugin_hook_steps_aside_where_the_workspace_runs_its_own(workspace, cli, arrival):
    """Both hooks run for the same reply when a commands workspace also loads the plugin: only
    the workspace's counts, so one invalid reply is one rejection, not two."""
    event = json.dumps(stop_event("character-vera", "Hallo!"))
    from_plugin = cli("hook", "subagent-stop", "--from-plugin", input=event)
    assert from_plugin.exit_code == 0 and from_plugin.output == ""
    assert hook(cli, stop_event("character-vera", "Hallo!"))["decision"] == "block"
    status = json.loads(cli("status", "--json").output)
    assert status["pending"]["rejections"] == {"vera": [status["pending"]["rejections"]["vera"][0]]}
