"""Issue 19, the smaller things a new user hit: a command run in a subfolder of the workspace,
``init`` into a folder that has Claude Code files of its own, and mistyped memory types and
agent ids.

Commands run as a user runs them: in their own process, from a folder, without ``--root``
unless the test is about it.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import anyio
import faultkit as fk

from gamemaster.workspace import bundled_dir

AGENTS = "darius, emre, finn, leo, nami, tobi, vera"


def run_in(cwd: Path, *args: str, env: dict | None = None, input: str | None = None) -> subprocess.CompletedProcess:
    """``gamemaster ARGS`` started in ``cwd``, as from a terminal there."""
    return subprocess.run([sys.executable, "-m", "gamemaster", *args], cwd=cwd, capture_output=True, text=True,
                          env=env or fk.env(), input=input, stdin=None if input is not None else subprocess.DEVNULL,
                          timeout=fk.HANG_GUARD)


def only_error(proc: subprocess.CompletedProcess) -> str:
    """The one ``error:`` line a refused command prints, after exit 1 and no traceback."""
    fk.assert_no_traceback(proc)
    assert proc.returncode == 1, fk.show(proc)
    errors = fk.error_lines(proc)
    assert len(errors) == 1 and proc.stderr.strip() == errors[0], fk.show(proc)
    return errors[0]


# -- the workspace is found from a subfolder, as git finds its repository ---------------------


def test_status_in_a_subfolder_of_the_workspace_shows_that_workspace(tmp_path):
    workspace = fk.studio(tmp_path)
    deep = workspace.gallery / "skizzen" / "alt"
    deep.mkdir(parents=True)

    proc = run_in(deep, "status")

    fk.assert_no_traceback(proc)
    assert proc.returncode == 0, fk.show(proc)
    assert "GenSoftworks · day 000 · scene 00" in proc.stdout
    assert "not a gamemaster workspace" not in proc.stderr


def test_next_in_a_subfolder_writes_into_the_workspace_and_nowhere_below(tmp_path):
    workspace = fk.studio(tmp_path)

    proc = run_in(workspace.gallery, "next")

    assert proc.returncode == 0, fk.show(proc)
    assert fk.read_json(workspace.world_path)["pending"] == "day-001/scene-01"
    assert (workspace.scenes / "day-001" / "scene-01" / "scene.json").is_file()
    assert sorted(p.name for p in workspace.gallery.iterdir()) == []


def test_root_and_environment_are_taken_as_given_and_never_walked_up(tmp_path):
    workspace = fk.studio(tmp_path)

    by_option = run_in(tmp_path, "--root", str(workspace.gallery), "status")
    by_env = run_in(tmp_path, "status", env={**fk.env(), "GAMEMASTER_ROOT": str(workspace.gallery)})

    for proc in (by_option, by_env):
        assert only_error(proc) == (f"error: {workspace.gallery} is not a gamemaster workspace (no state/world.json); "
                                    "run `gamemaster init` or pass --root")


def test_outside_any_workspace_the_walk_stops_and_says_where_it_started(tmp_path):
    folder = tmp_path / "irgendwo" / "tief"
    folder.mkdir(parents=True)

    proc = run_in(folder, "status")

    assert only_error(proc) == (f"error: {folder} is not a gamemaster workspace (no state/world.json); "
                                "run `gamemaster init` or pass --root")


def test_init_in_a_subfolder_of_a_workspace_refuses_and_creates_nothing(tmp_path):
    workspace = fk.studio(tmp_path)
    before = fk.tree_snapshot(workspace.root)

    here = run_in(workspace.gallery, "init")
    below = run_in(workspace.root, "init", "zweites")
    by_root = run_in(tmp_path, "--root", str(workspace.scenes), "init")

    for proc, target in ((here, workspace.gallery), (below, workspace.root / "zweites"), (by_root, workspace.scenes)):
        assert only_error(proc) == (f"error: {target} lies inside the gamemaster workspace {workspace.root}; "
                                    "a workspace cannot hold another one: choose a folder outside it")
    assert fk.tree_snapshot(workspace.root) == before
    assert not (workspace.root / "zweites").exists()


def test_init_on_a_workspace_names_it(tmp_path):
    workspace = fk.studio(tmp_path)
    before = fk.tree_snapshot(workspace.root)

    proc = run_in(workspace.root, "init")

    assert only_error(proc) == f"error: {workspace.root} is a gamemaster workspace already (state/world.json)"
    assert fk.tree_snapshot(workspace.root) == before


def test_import_into_a_folder_inside_a_workspace_refuses(tmp_path):
    workspace = fk.studio(tmp_path)
    source = fk.studio(tmp_path / "quelle")
    target = workspace.root / "importiert"

    proc = run_in(workspace.root, "import", str(source.root), "--into", str(target))

    assert only_error(proc) == (f"error: {target} lies inside the gamemaster workspace {workspace.root}; "
                                "a workspace cannot hold another one: choose a folder outside it")
    assert not target.exists()


def test_the_mcp_server_started_in_a_subfolder_serves_the_workspace(tmp_path):
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    workspace = fk.studio(tmp_path)
    server = StdioServerParameters(command=sys.executable, args=["-m", "gamemaster", "mcp"],
                                   cwd=str(workspace.gallery), env=fk.env())

    async def status() -> dict:
        async with Client(server) as client:
            result = await client.call_tool("status", {})
            assert not result.is_error, result.content[0].text
            return json.loads(result.content[0].text)

    assert anyio.run(status)["studio"] == "GenSoftworks"


def test_the_hook_run_in_the_workspace_still_stores_the_reply(tmp_path):
    from replies import valid_reply

    from gamemaster.gm import GameMaster

    workspace = fk.studio(tmp_path)
    pending = fk.open_arrival(workspace)
    gm = GameMaster(workspace)
    turn = pending.turns.index("vera")
    reply = json.dumps(valid_reply(gm.build_request(pending, turn)), ensure_ascii=False)
    event = {"hook_event_name": "SubagentStop", "agent_type": "character-vera", "last_assistant_message": reply,
             "cwd": str(workspace.root)}
    environment = {k: v for k, v in fk.env().items() if k != "CLAUDE_PROJECT_DIR"}

    proc = run_in(workspace.root, "hook", "subagent-stop", env=environment, input=json.dumps(event))

    assert proc.returncode == 0 and proc.stdout == "", fk.show(proc)
    replies = sorted((workspace.scenes / pending.spec.ref / "replies").glob("*.json"))
    assert [fk.read_json(path)["agent"] for path in replies] == ["vera"]


# -- init into a folder with Claude Code files of its own -------------------------------------


def _own_files(folder: Path) -> dict[str, str]:
    (folder / ".claude").mkdir(parents=True)
    own = {
        "CLAUDE.md": "# Mein Projekt\n\nImmer auf Deutsch antworten.\n",
        ".claude/settings.json": json.dumps({
            "model": "opus",
            "env": {"MEIN_SCHALTER": "1"},
            "permissions": {"allow": ["Bash(make:*)"], "defaultMode": "acceptEdits"},
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo pre"}]}]},
        }, indent=2) + "\n",
        ".mcp.json": json.dumps({"mcpServers": {"notizen": {"type": "stdio", "command": "notizen-server"}}}) + "\n",
    }
    for relative, text in own.items():
        (folder / relative).write_text(text, encoding="utf-8")
    return own


def test_init_keeps_a_users_claude_files_merges_settings_and_mcp_and_says_so(tmp_path):
    target = tmp_path / "projekt"
    own = _own_files(target)

    proc = fk.run(target, "init")

    fk.assert_no_traceback(proc)
    assert proc.returncode == 0, fk.show(proc)
    assert (target / "CLAUDE.md").read_text(encoding="utf-8") == own["CLAUDE.md"]
    side = target / ".claude" / "gamemaster-CLAUDE.md"
    assert side.read_bytes() == bundled_dir("CLAUDE.md").read_bytes()
    assert proc.stderr.splitlines() == [
        "warning: CLAUDE.md: the folder has its own, kept as it is; the Game Master's instructions are in "
        ".claude/gamemaster-CLAUDE.md: add the line `@.claude/gamemaster-CLAUDE.md` to CLAUDE.md, "
        "or Claude Code does not know how to run the studio",
        "warning: .claude/settings.json: the folder has its own; added what gamemaster needs "
        "(env, permissions, enabledMcpjsonServers, hooks) and kept everything of yours, also where it differs "
        "from gamemaster's: permissions.defaultMode",
        "warning: .mcp.json: the folder has its own; added the gamemaster MCP server and kept yours",
    ]

    settings = fk.read_json(target / ".claude" / "settings.json")
    ours = fk.read_json(bundled_dir(".claude/settings.json"))
    assert settings["model"] == "opus" and settings["permissions"]["defaultMode"] == "acceptEdits"
    assert settings["env"] == {"MEIN_SCHALTER": "1", **ours["env"]}
    assert settings["permissions"]["allow"] == ["Bash(make:*)", *ours["permissions"]["allow"]]
    assert settings["permissions"]["deny"] == ours["permissions"]["deny"]
    # The user's own PreToolUse hook stays, and the toolkit's (handoff and fence) is added after it.
    assert settings["hooks"]["PreToolUse"] == [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo pre"}]},
                                               *ours["hooks"]["PreToolUse"]]
    assert settings["hooks"]["SubagentStop"] == ours["hooks"]["SubagentStop"]

    servers = fk.read_json(target / ".mcp.json")["mcpServers"]
    assert servers == {"notizen": {"type": "stdio", "command": "notizen-server"},
                       "gamemaster": fk.read_json(bundled_dir(".mcp.json"))["mcpServers"]["gamemaster"]}


def test_agents_sync_after_a_merge_keeps_the_users_settings_and_the_side_file_current(tmp_path):
    target = tmp_path / "projekt"
    _own_files(target)
    assert fk.run(target, "init").returncode == 0
    merged = (target / ".claude" / "settings.json").read_bytes()
    side = target / ".claude" / "gamemaster-CLAUDE.md"
    side.write_text("veraltet\n", encoding="utf-8")
    record = fk.read_json(target / ".claude" / "gamemaster-files.json")
    record["files"][".claude/gamemaster-CLAUDE.md"] = hashlib.sha256(b"veraltet\n").hexdigest()
    fk.write_json(target / ".claude" / "gamemaster-files.json", record)

    proc = fk.run(target, "agents", "sync")

    assert proc.returncode == 0, fk.show(proc)
    assert (target / ".claude" / "settings.json").read_bytes() == merged
    assert side.read_bytes() == bundled_dir("CLAUDE.md").read_bytes()
    assert "updated: .claude/gamemaster-CLAUDE.md" in proc.stdout
    assert "CLAUDE.md" not in proc.stdout.replace(".claude/gamemaster-CLAUDE.md", "")


def test_init_leaves_an_unreadable_settings_file_alone_with_one_warning(tmp_path):
    target = tmp_path / "projekt"
    (target / ".claude").mkdir(parents=True)
    broken = b'{"model": "opus",\n  "env": \n'
    (target / ".claude" / "settings.json").write_bytes(broken)

    proc = fk.run(target, "init")

    assert proc.returncode == 0, fk.show(proc)
    assert (target / ".claude" / "settings.json").read_bytes() == broken
    assert proc.stderr.splitlines() == [
        "warning: .claude/settings.json:3: not valid JSON: Expecting value; left as it is, so Claude Code gets "
        "no reply hook and no permissions from gamemaster: fix it and add env, permissions, enabledMcpjsonServers and hooks as in "
        f"{bundled_dir('.claude/settings.json')}",
    ]
    assert fk.read_json(target / ".mcp.json") == fk.read_json(bundled_dir(".mcp.json"))


def test_init_with_the_plugin_merges_the_plugin_settings(tmp_path):
    target = tmp_path / "projekt"
    _own_files(target)

    proc = fk.run(target, "init", "--plugin")

    assert proc.returncode == 0, fk.show(proc)
    settings = fk.read_json(target / ".claude" / "settings.json")
    assert settings["model"] == "opus" and settings["enabledPlugins"] == {"gamemaster@gamemaster": True}
    assert "Bash(make:*)" in settings["permissions"]["allow"]
    assert "mcp__plugin_gamemaster_gamemaster" in settings["permissions"]["allow"]
    assert "SubagentStop" not in settings["hooks"]
    assert fk.read_json(target / ".mcp.json") == {"mcpServers": {"notizen": {"type": "stdio", "command": "notizen-server"}}}


# -- memory types, the version, agent ids -------------------------------------------------------


def test_memories_refuses_an_unknown_type(tmp_path):
    workspace = fk.studio(tmp_path)

    proc = fk.run(workspace.root, "memories", "vera", "--type", "reflektion")

    # Bad usage (exit 2), named with the choices, as for every option that takes one of a few values.
    fk.assert_no_traceback(proc)
    assert proc.returncode == 2, fk.show(proc)
    said = " ".join(re.sub(r"[│╭╮╰╯─]", " ", proc.stderr).split())
    assert "Invalid value for '--type': 'reflektion': choose observation, reflection, plan, artifact, " \
           "conversation" in said, fk.show(proc)
    assert proc.stdout == ""


def test_version_prints_the_installed_version_anywhere(tmp_path):
    from importlib.metadata import version

    broken = tmp_path / "kaputt"
    (broken / "state").mkdir(parents=True)
    (broken / "state" / "world.json").write_text("{", encoding="utf-8")

    for proc in (run_in(tmp_path, "--version"), run_in(broken, "--version")):
        fk.assert_no_traceback(proc)
        assert proc.returncode == 0 and proc.stderr == "", fk.show(proc)
        assert proc.stdout == f"gamemaster {version('gamemaster')}\n"


def test_a_mistyped_agent_id_gets_the_close_one_everywhere(tmp_path):
    workspace = fk.studio(tmp_path)
    before = fk.tree_snapshot(workspace.state)
    commands = [
        ("memories", "verra"), ("recall", "verra", "Türme"), ("prompt", "verra"), ("ask", "verra", "Wie geht's?", "--prompt"),
        ("reply", "verra", "-"), ("brief", "Mehr Licht.", "--to", "verra"), ("event", "Stromausfall", "--to", "verra"),
        ("next", "--with", "verra,emre"),
    ]

    for args in commands:
        where = {"--to": "--to: ", "--with": "--with: "}.get(args[-2], "")
        expected = f"error: {where}no agent 'verra'; did you mean 'vera'?"
        assert only_error(fk.run(workspace.root, *args, input="{}")) == expected, args
    assert only_error(fk.run(workspace.root, "memories", "Vera")) == "error: no agent 'Vera'; did you mean 'vera'?"
    assert fk.tree_snapshot(workspace.state) == before


def test_an_agent_id_close_to_none_lists_the_agents(tmp_path):
    workspace = fk.studio(tmp_path)

    proc = fk.run(workspace.root, "memories", "zacharias")

    assert only_error(proc) == f"error: no agent 'zacharias'; the agents are: {AGENTS}"


def test_mcp_server_outside_a_workspace_starts_and_answers_in_its_tools(tmp_path):
    """`gamemaster mcp` in a folder that is no workspace (the plugin installed at user scope, in
    another project) answers the MCP handshake instead of exiting with an error."""
    import json as _json
    import os
    import subprocess
    import sys

    folder = tmp_path / "other-project"
    folder.mkdir()
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "status", "arguments": {}}},
    ]
    env = {k: v for k, v in os.environ.items() if k != "GAMEMASTER_ROOT"}
    server = subprocess.Popen([sys.executable, "-m", "gamemaster", "mcp"], cwd=folder, env=env, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    answers = {}
    try:
        for message in messages:
            server.stdin.write(_json.dumps(message) + "\n")
            server.stdin.flush()
            if "id" in message:
                line = server.stdout.readline()
                assert line, f"the server exited: {server.communicate(timeout=fk.HANG_GUARD)[1][-2000:]}"
                answers[message["id"]] = _json.loads(line)
    finally:
        server.stdin.close()
        server.wait(timeout=fk.HANG_GUARD)
    assert answers[1]["result"]["serverInfo"]["name"] == "gamemaster"
    call = answers[2]["result"]
    assert call["isError"] is True
    assert f"{folder} is not a gamemaster workspace (no state/world.json)" in call["content"][0]["text"], call
    assert not (folder / "state").exists()
