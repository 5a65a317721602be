"""End to end: the real Claude Code CLI runs `/scene` in a workspace, against a fake API.

Claude Code (installed with npm into a cache, one folder per version) talks to a
loopback fake of the Anthropic Messages API (``run_inside.py``) that scripts the
Game Master and the characters. Both run inside a private network namespace, so
nothing can reach any address but loopback. The test checks what the user
cares about: the scene is written back, every participant remembers it, the
SubagentStop hook's rejection reached the character, the workspace validates.

Opt-in: runs when ``GAMEMASTER_E2E=1`` or ``CI`` is set. Without root (or user
namespaces), ``unshare``, ``ip``, npm, a working install or a starting ``claude``
it skips and says why. ``GAMEMASTER_E2E_VERSIONS`` (comma-separated) picks the
Claude Code versions, ``GAMEMASTER_E2E_CACHE`` the install cache.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gamemaster.claude_code import sync_subagents
from gamemaster.workspace import init_workspace

HERE = Path(__file__).parent
REPO = HERE.parent.parent
RUN_INSIDE = HERE / "run_inside.py"
VERSIONS = [v.strip() for v in os.environ.get("GAMEMASTER_E2E_VERSIONS", "2.1.197,2.1.330").split(",") if v.strip()]
LATEST = VERSIONS[-1]
CACHE = Path(os.environ.get("GAMEMASTER_E2E_CACHE") or Path.home() / ".cache" / "gamemaster-e2e")

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not (os.environ.get("GAMEMASTER_E2E") == "1" or os.environ.get("CI")),
                       reason="end-to-end test with the real Claude Code CLI: set GAMEMASTER_E2E=1 to run it"),
]


def _skip(reason: str):
    print(f"e2e skipped: {reason}")
    pytest.skip(reason)


def _tail(text: str | bytes | None, n: int = 800) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return (text or "").strip()[-n:]


@pytest.fixture(scope="module")
def unshare() -> list[str]:
    """The command prefix that gives a private network namespace (as root, or in a user namespace)."""
    if not shutil.which("unshare") or not shutil.which("ip"):
        _skip("`unshare` or `ip` is not available")
    for prefix in (["unshare", "-n"], ["unshare", "-rn"]):
        probe = subprocess.run([*prefix, "ip", "link", "set", "lo", "up"], capture_output=True, text=True)
        if probe.returncode == 0:
            return prefix
    _skip(f"cannot create a network namespace (not root, no user namespaces): {_tail(probe.stderr)}")


def _install(version: str) -> Path:
    """``claude`` of one version, installed with npm into the cache once and reused."""
    folder = CACHE / version
    binary = folder / "node_modules" / ".bin" / "claude"
    if not binary.exists():
        if not shutil.which("npm"):
            _skip("npm is not installed")
        CACHE.mkdir(parents=True, exist_ok=True)
        staging = CACHE / f"{version}.tmp-{os.getpid()}"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
        try:
            done = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", str(staging),
                                   f"@anthropic-ai/claude-code@{version}"],
                                  capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            shutil.rmtree(staging, ignore_errors=True)
            _skip(f"npm install of Claude Code {version} timed out")
        if done.returncode != 0:
            shutil.rmtree(staging, ignore_errors=True)
            _skip(f"npm install of Claude Code {version} failed: {_tail(done.stderr)}")
        try:
            staging.rename(folder)
        except OSError:  # another run installed it meanwhile
            shutil.rmtree(staging, ignore_errors=True)
    try:
        started = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60,
                                 env={**os.environ, "DISABLE_AUTOUPDATER": "1"})
    except (OSError, subprocess.TimeoutExpired) as exc:
        _skip(f"Claude Code {version} does not start: {exc}")
    if started.returncode != 0 or version not in started.stdout:
        _skip(f"Claude Code {version} does not start: {_tail(started.stdout + started.stderr)}")
    return binary


def _wrapper(folder: Path) -> Path:
    """A `gamemaster` first on PATH that runs this checkout with this Python (as the Bash tool and the hook do)."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "gamemaster"
    script.write_text(f'#!/bin/sh\nPYTHONPATH="{REPO}" exec "{sys.executable}" -m gamemaster "$@"\n', encoding="utf-8")
    script.chmod(0o755)
    return folder


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0


def _run_scene(tmp_path: Path, unshare: list[str], claude: Path, workspace) -> dict:
    home = tmp_path / "home"
    home.mkdir()
    out = tmp_path / "result.json"
    try:
        subprocess.run([*unshare, sys.executable, str(RUN_INSIDE), "--claude", str(claude),
                        "--workspace", str(workspace.root), "--bin", str(_wrapper(tmp_path / "bin")),
                        "--home", str(home), "--out", str(out), "--timeout", "150"],
                       check=True, timeout=200, capture_output=True, text=True)
    except subprocess.CalledProcessError as exc:
        pytest.fail(f"run_inside.py failed: {_tail(exc.stdout)}\n{_tail(exc.stderr, 3000)}")
    result = json.loads(out.read_text(encoding="utf-8"))
    kinds = [r.get("kind") for r in result["requests"]]
    tools = next((r["body"].get("tools") or [] for r in result["requests"] if r.get("kind") == "game_master"), [])
    spawn = next(({"name": t["name"], "fields": sorted(t.get("input_schema", {}).get("properties", {}))}
                  for t in tools if t.get("name") in ("Agent", "Task")), None)
    print(f"Claude Code {claude.parent.parent.parent.name}: exit {result['returncode']} after "
          f"{result['seconds']} s, requests {kinds}, subagent tool {spawn}")
    assert not result.get("timeout"), f"claude timed out: {_tail(result.get('stderr'), 3000)}"
    assert result["returncode"] == 0, f"{_tail(result['stdout'], 3000)}\n{_tail(result['stderr'], 3000)}"
    assert "error" not in kinds, [r["answer"] for r in result["requests"] if r.get("kind") == "error"]
    return result


def _assert_scene_done(workspace, result: dict, before: dict[str, int]) -> None:
    world = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    assert world["pending"] is None, world["pending"]
    assert world["scene"] == 1 and world["day"] == 1
    participants = sorted(before)
    for agent in participants:
        assert _lines(workspace.memories_dir / f"{agent}.jsonl") > before[agent], f"no memory written for {agent}"
    # Every character answered prose first; the hook's reason came back to it, then it answered right.
    characters = [r for r in result["requests"] if r.get("kind") == "character"]
    rejected = [r for r in characters if "gamemaster rejected" in json.dumps(r["body"].get("messages"), ensure_ascii=False)]
    for agent in participants:
        assert any(f"gamemaster rejected {agent}'s reply" in json.dumps(r["body"]["messages"], ensure_ascii=False)
                   for r in rejected), f"the hook's rejection never reached {agent}"
    # The Game Master spawned every character through Claude Code's subagent tool.
    spawned = [b["input"].get("subagent_type") for r in result["requests"] if r.get("kind") == "game_master"
               for b in r["answer"] if b["type"] == "tool_use" and b["name"] in ("Agent", "Task")]
    assert sorted(spawned) == sorted("character-" + a.replace("_", "-") for a in participants)
    # In the foreground: the Game Master's next request already holds each character's stored reply
    # as the result of its subagent call (not an "agent launched in the background" notice).
    spawn_ids = {b["id"]: b["input"]["subagent_type"] for r in result["requests"] if r.get("kind") == "game_master"
                 for b in r["answer"] if b["type"] == "tool_use" and b["name"] in ("Agent", "Task")}
    handed_back = {spawn_ids[b["tool_use_id"]]: json.dumps(b.get("content"), ensure_ascii=False)
                   for r in result["requests"] if r.get("kind") == "game_master"
                   for m in r["body"]["messages"] if m.get("role") == "user" and isinstance(m.get("content"), list)
                   for b in m["content"] if b.get("type") == "tool_result" and b.get("tool_use_id") in spawn_ids}
    for agent in participants:
        assert '\\"agent\\": \\"%s\\"' % agent in handed_back.get("character-" + agent.replace("_", "-"), ""), \
            f"{agent}'s reply never came back to the Game Master as its subagent's result"
    # The hook wrote the scene back with its last reply; the Game Master's `apply` only reported it.
    last = json.dumps(result["requests"][-1]["body"]["messages"][-1], ensure_ascii=False)
    assert "is already applied" in last, last[-1500:]
    summary = json.loads(result["stdout"])
    assert summary.get("is_error") is False, summary
    validate = subprocess.run([sys.executable, "-m", "gamemaster", "--root", str(workspace.root), "validate"],
                              capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert validate.returncode == 0, validate.stdout + validate.stderr


def _two_characters(tmp_path: Path):
    workspace = init_workspace(tmp_path / "studio", empty=True)
    bundled_agents = REPO / "gamemaster" / "bundled" / "state" / "agents"
    for agent in ("emre", "vera"):
        shutil.copy(bundled_agents / f"{agent}.json", workspace.agents_dir / f"{agent}.json")
    sync_subagents(workspace)
    return workspace


@pytest.mark.parametrize("version", VERSIONS)
def test_scene_with_two_characters(tmp_path, unshare, version):
    claude = _install(version)
    workspace = _two_characters(tmp_path)
    before = {a: _lines(workspace.memories_dir / f"{a}.jsonl") for a in workspace.agent_ids()}
    result = _run_scene(tmp_path, unshare, claude, workspace)
    _assert_scene_done(workspace, result, before)


def test_scene_with_the_bundled_studio(tmp_path, unshare):
    """Seven characters answer in parallel, each rejected once, on the latest version."""
    claude = _install(LATEST)
    workspace = init_workspace(tmp_path / "studio")
    sync_subagents(workspace)
    before = {a: _lines(workspace.memories_dir / f"{a}.jsonl") for a in workspace.agent_ids()}
    result = _run_scene(tmp_path, unshare, claude, workspace)
    _assert_scene_done(workspace, result, before)
