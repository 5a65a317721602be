"""``--backend claude-code`` when Claude Code cannot play: one line saying what to do, nothing lost.

Run as a user would (a process per command), with a fake ``claude`` first on PATH
(``tests/fake_claude.py``) that is logged in, logged out, or whose login has expired.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from faultkit import assert_clean_error, assert_no_traceback, run, show, tree_snapshot
from gamemaster.create import init_workspace

BUNDLED_AGENTS = Path(__file__).parent.parent.parent / "gamemaster" / "bundled" / "state" / "agents"


@pytest.fixture
def studio(tmp_path):
    workspace = init_workspace(tmp_path / "studio", empty=True)
    for agent in ("emre", "vera"):
        shutil.copy(BUNDLED_AGENTS / f"{agent}.json", workspace.agents_dir / f"{agent}.json")
    return workspace


def test_not_logged_in_is_one_line_before_any_scene_is_opened(studio, fake):
    (fake / "login").write_text("none", encoding="utf-8")
    before = tree_snapshot(studio.root)
    proc = run(studio.root, "day", "advance", "--backend", "claude-code")
    text = assert_clean_error(proc, "Claude Code", "is not logged in", "/login")
    assert len(text.strip().splitlines()) == 1, show(proc)
    assert tree_snapshot(studio.root) == before  # no scene opened, nothing written
    assert not (fake / "calls").exists()  # and no character asked


def test_a_login_that_fails_on_the_call_loses_nothing(studio, fake):
    """``auth status`` says logged in, the call cannot authenticate (an expired token)."""
    (fake / "login").write_text("expired", encoding="utf-8")
    proc = run(studio.root, "scene", "run", "--backend", "claude-code", "--concurrency", "1")
    assert_clean_error(proc, "Claude Code", "is not logged in", "/login")
    assert len([line for line in proc.stderr.splitlines() if line.strip()]) == 1, show(proc)
    world = json.loads(studio.world_path.read_text(encoding="utf-8"))
    assert world["pending"] == "day-001/scene-01"  # still pending: the next run plays it
    assert not list(studio.memories_dir.glob("*.jsonl")) or all(
        not p.read_text(encoding="utf-8").strip() for p in studio.memories_dir.glob("*.jsonl"))
    (fake / "login").write_text("ok", encoding="utf-8")
    proc = run(studio.root, "status", "--json")
    assert proc.returncode == 0, show(proc)


def test_a_named_claude_that_is_not_there(studio, fake, monkeypatch, tmp_path):
    monkeypatch.setenv("GAMEMASTER_CLAUDE_CLI", str(tmp_path / "nowhere" / "claude"))
    proc = run(studio.root, "day", "advance", "--backend", "claude-code")
    assert_clean_error(proc, "GAMEMASTER_CLAUDE_CLI", str(tmp_path / "nowhere" / "claude"), "not an executable file")


def test_without_the_extra_installed(studio, tmp_path, monkeypatch):
    """No claude-agent-sdk: the option names the extra that brings it."""
    shim = tmp_path / "no-sdk"
    shim.mkdir()
    (shim / "claude_agent_sdk.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'claude_agent_sdk'\", name='claude_agent_sdk')\n", encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(shim), os.environ.get("PYTHONPATH")])))
    proc = run(studio.root, "day", "advance", "--backend", "claude-code")
    assert_no_traceback(proc)
    assert proc.returncode == 2, show(proc)
    said = " ".join(re.sub("[│╭╮╰╯─]", " ", proc.stderr).split())  # the option error comes in a box
    assert "backend 'claude-code' needs the Python package claude_agent_sdk, which is not installed: " \
           "pip install 'gamemaster[claude-code]'" in said, show(proc)


@pytest.mark.parametrize("mode, said", [
    ("hang", "claude-code: vera: Claude Code stopped answering: nothing for 10s"),
    ("crash", "claude-code: vera: Command failed with exit code 3 (exit code: 3) "
              "(TypeError: cannot read properties of undefined; at main (cli.js:1:1))"),
    ("silent", "claude-code: vera: Claude Code said nothing within 10s of starting"),
    ("noise", "claude-code: vera: Claude Code said nothing within 10s of starting"),
    ("flood", "claude-code: vera: Claude Code sent more than 20000 messages for one answer (a flood)"),
    ("hugeline", "claude-code: vera: Failed to decode JSON: JSON message exceeded maximum buffer size of 1048576 bytes..."),
    ("overloaded", 'claude-code: vera: API Error: Repeated 529 Overloaded errors · {"type":"error","error":'
                   '{"type":"overloaded_error","message":"Overloaded"}}'),
])
def test_every_way_claude_can_fail_is_one_line_naming_the_character(fake, mode, said):
    """In a process of its own, so whatever the SDK or asyncio would print on the way out shows:
    a hang, a crash, a ``claude`` that never starts the protocol or prints something else, one that
    floods its output or writes a line too long to read, an API that stays overloaded."""
    (fake / "mode").write_text(mode, encoding="utf-8")
    script = (
        "import time\n"
        "from gamemaster.backends.claude_code import ClaudeCodeBackend, ClaudeCodeError\n"
        "started = time.monotonic()\n"
        "try:\n"
        "    ClaudeCodeBackend(timeout=120, idle_timeout=10).ask('Du spielst Vera.', 'Antworte mit \"agent\": \"vera\"', None, 'vera')\n"
        "except ClaudeCodeError as exc:\n"
        "    print(exc)\n"
        "import gc; gc.collect()\n"
        "print(round(time.monotonic() - started))\n"
    )
    # An idle watch of 10 s, not 2: a fake `claude` that is only slow to start on a busy machine
    # must not pass for a silent one.
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent.parent)})
    lines = proc.stdout.strip().splitlines()
    assert lines[:-1] == [said], show(proc)
    assert proc.stderr == "", show(proc)  # no SDK log, no "Exception ignored … Event loop is closed"
    # Before the call's own timeout (120 s): the idle watch or the failure itself ended it.
    assert int(lines[-1]) < 120, show(proc)
