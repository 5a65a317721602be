"""The reply hook and the MCP server run without `gamemaster` on PATH, and nothing committed
names a path of this machine (a teammate's clone, a new venv)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import faultkit as fk

from gamemaster.claude_plugin import plugin_dir
from gamemaster.create import init_workspace

#: A shell without the toolkit's environment active: no venv on PATH.
BARE_PATH = "/usr/bin:/bin"


def _hook_command(root) -> str:
    settings = json.loads((root / ".claude" / "settings.json").read_text(encoding="utf-8"))
    return settings["hooks"]["SubagentStop"][0]["hooks"][0]["command"]


def _run_hook(root, cwd, extra_env=None):
    env = {"PATH": BARE_PATH, "HOME": str(root.parent), "CLAUDE_PROJECT_DIR": str(root), **(extra_env or {})}
    assert shutil.which("gamemaster", path=BARE_PATH) is None
    event = {"hook_event_name": "SubagentStop", "agent_type": "character-vera", "cwd": str(cwd),
             "last_assistant_message": "Guten Morgen!"}
    # Claude Code runs a hook command through the shell, with CLAUDE_PROJECT_DIR set.
    return subprocess.run(["/bin/sh", "-c", _hook_command(root)], cwd=cwd, env=env, input=json.dumps(event),
                          capture_output=True, text=True, timeout=fk.HANG_GUARD)


def test_the_hook_runs_without_gamemaster_on_path(tmp_path):
    workspace = init_workspace(tmp_path / "studio")
    root = workspace.root
    done = subprocess.run([sys.executable, "-m", "gamemaster", "--root", str(root), "next"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    hook = _run_hook(root, root / "gallery")
    assert hook.returncode == 0, hook.stderr
    answer = json.loads(hook.stdout)
    assert answer["decision"] == "block" and "gamemaster rejected vera's reply" in answer["reason"], answer


def test_nothing_committed_names_this_machine(tmp_path):
    for plugin in (False, True):
        root = init_workspace(tmp_path / f"studio-{plugin}", empty=True, plugin=plugin).root
        ignored = (root / ".claude" / ".gitignore").read_text(encoding="utf-8").split()
        assert (root / ".claude" / "gamemaster-python").read_text(encoding="utf-8").strip() == sys.executable
        for path in sorted((root / ".claude").rglob("*")) + [root / ".mcp.json", root / "CLAUDE.md"]:
            if not path.is_file() or path.relative_to(root / ".claude").as_posix() in ignored \
                    if path.parent == root / ".claude" else not path.is_file():
                continue
            text = path.read_text(encoding="utf-8")
            for local in (sys.executable, str(plugin_dir()), sys.prefix):
                assert local not in text, f"{path.relative_to(root)} names {local}"


def test_a_teammates_clone_without_the_record_says_what_to_do(tmp_path):
    """A clone has the committed files only: without gamemaster anywhere, one clear line."""
    root = init_workspace(tmp_path / "studio", empty=True).root
    (root / ".claude" / "gamemaster-python").unlink()
    hook = _run_hook(root, root, {})
    assert hook.returncode == 127
    assert hook.stderr.strip().splitlines() == [
        "gamemaster not found: activate its environment, set GAMEMASTER_PYTHON, or run "
        f"`gamemaster agents sync` in {root} once"]
    # Pointing GAMEMASTER_PYTHON at an interpreter with the package is enough.
    hook = _run_hook(root, root, {"GAMEMASTER_PYTHON": sys.executable})
    assert hook.returncode == 0, hook.stderr


def test_the_mcp_server_starts_without_gamemaster_on_path(tmp_path):
    root = init_workspace(tmp_path / "studio", empty=True).root
    server = json.loads((root / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["gamemaster"]
    args = [a.replace("${CLAUDE_PROJECT_DIR:-.}", str(root)) for a in server["args"]]
    message = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    proc = subprocess.Popen([server["command"], *args], cwd=root, env={"PATH": BARE_PATH, "HOME": str(tmp_path)},
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
        line = proc.stdout.readline()
    finally:
        proc.stdin.close()
        proc.wait(timeout=fk.HANG_GUARD)
    assert json.loads(line)["result"]["serverInfo"]["name"] == "gamemaster", proc.stderr.read()[-2000:]


def test_without_gamemaster_the_fence_refuses_and_the_plugins_handoff_steps_aside(tmp_path):
    """Nowhere to find the toolkit: the workspace's fence on a character's reads exits 2 (Claude
    Code refuses the call and shows the line), where the reply hook exits 127 (an error, the call
    goes on); the plugin's handoff, which runs in every project, fails open too."""
    root = init_workspace(tmp_path / "studio", empty=True).root
    (root / ".claude" / "gamemaster-python").unlink()
    settings = json.loads((root / ".claude" / "settings.json").read_text(encoding="utf-8"))
    fence = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    env = {"PATH": BARE_PATH, "HOME": str(root.parent), "CLAUDE_PROJECT_DIR": str(root)}
    event = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Read", "agent_id": "a1",
                        "agent_type": "character-vera", "tool_input": {"file_path": "state/world.json"}})
    done = subprocess.run(["/bin/sh", "-c", fence], cwd=root, env=env, input=event, capture_output=True, text=True,
                          timeout=fk.HANG_GUARD)
    assert done.returncode == 2 and "gamemaster not found" in done.stderr, (done.returncode, done.stderr)
    launcher = f'sh "{plugin_dir()}/bin/gamemaster.sh" hook pre-tool-use --from-plugin'
    done = subprocess.run(["/bin/sh", "-c", launcher], cwd=root, env=env, input=event, capture_output=True, text=True,
                          timeout=fk.HANG_GUARD)
    assert done.returncode == 127, (done.returncode, done.stderr)
