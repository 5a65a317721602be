"""The bundled studio ships with the package, so `init` never copies what was played in a checkout."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gamemaster.workspace import BUNDLED, CLAUDE_CODE_FILES

REPO = Path(__file__).resolve().parents[1]

#: What a checkout holds at its top level besides the package: its own playable workspace.
CHECKOUT_WORKSPACE = ("state", "prompts", "CLAUDE.md", ".claude", ".mcp.json")


def run_gamemaster(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "GAMEMASTER_ROOT")}
    env["PYTHONPATH"] = str(cwd)
    done = subprocess.run([sys.executable, "-m", "gamemaster", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"gamemaster {' '.join(args)}\n{done.stdout}\n{done.stderr}"
    return done


def test_init_gives_the_pristine_studio_after_a_day_was_played_in_the_checkout(tmp_path):
    # The README's order on a fresh clone: `gamemaster day advance` in the checkout, then the tests,
    # whose workspaces come from `init`.
    checkout = tmp_path / "checkout"
    shutil.copytree(REPO / "gamemaster", checkout / "gamemaster",
                    ignore=shutil.ignore_patterns("__pycache__", ".cache"))
    for name in CHECKOUT_WORKSPACE:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, checkout / name, ignore=shutil.ignore_patterns(".cache", ".journal.json"))
        else:
            shutil.copy2(source, checkout / name)
    run_gamemaster(checkout, "day", "advance")
    assert json.loads((checkout / "state/world.json").read_text(encoding="utf-8"))["day"] == 1

    fresh = tmp_path / "fresh"
    run_gamemaster(checkout, "init", str(fresh))
    world = json.loads((fresh / "state/world.json").read_text(encoding="utf-8"))
    assert (world["day"], world["scene"], world["today"]) == (0, 0, [])
    streams = sorted((fresh / "state/memories").glob("*.jsonl"))
    assert len(streams) == 7
    for stream in streams:
        count = len(stream.read_text(encoding="utf-8").splitlines())
        assert 7 <= count <= 10, f"{stream.name}: {count} memories"
    for agent in (fresh / "state/agents").glob("*.json"):
        data = json.loads(agent.read_text(encoding="utf-8"))
        assert (data["last_scene"], data["today_plan"]) == (None, None), agent.name


def test_the_checkout_commits_the_bundled_studio_unchanged():
    # The checkout's own workspace is compared as committed: playing it changes state/, not HEAD.
    if shutil.which("git") is None:
        pytest.skip("git is not installed: cannot compare the committed workspace with the bundled copy")
    listed = subprocess.run(["git", "-C", str(REPO), "ls-tree", "-r", "--name-only", "-z", "HEAD", "--",
                             "state", "prompts", "library", *CLAUDE_CODE_FILES], capture_output=True)
    if listed.returncode != 0:
        pytest.skip(f"{REPO} is not a git checkout with a commit: {listed.stderr.decode(errors='replace').strip()}")
    committed = {path for path in listed.stdout.decode().split("\0") if path}
    shipped = {p.relative_to(BUNDLED).as_posix() for p in BUNDLED.rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    assert committed == shipped, (f"only in the checkout: {sorted(committed - shipped)}; "
                                  f"only in gamemaster/bundled/: {sorted(shipped - committed)}")
    differing = [
        path for path in sorted(shipped)
        if subprocess.run(["git", "-C", str(REPO), "show", f"HEAD:{path}"], capture_output=True, check=True).stdout
        != (BUNDLED / path).read_bytes()
    ]
    assert not differing, "the checkout's committed copy differs from gamemaster/bundled/ (change both): " + ", ".join(differing)
