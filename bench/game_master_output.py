"""What the Game Master outputs, and what each character is sent, when Claude Code plays `/day`.

    python bench/game_master_output.py [--version 2.1.332] [--checkout DIR --python PY] [--claude PATH]

Plays day 1 of the bundled studio (seven characters) with the real ``claude`` from npm (the e2e
install cache, ``~/.cache/gamemaster-e2e/<version>``) in a private network namespace against the
loopback fake Messages API of the end-to-end tests: ``tests/e2e/run_inside.py`` of ``--checkout``
(default: this checkout) with that checkout's toolkit, so an older commit is measured by its
own rules: ``git worktree add /tmp/before <commit>``, a venv there with it installed
(``pip install -e /tmp/before``: an editable install wins over ``PYTHONPATH``), then
``--checkout /tmp/before --python /tmp/before/.venv/bin/python``. The fake's
Game Master does what that checkout's CLAUDE.md tells a model; each character answers prose once
and is sent back by the hook. What a real model would have to *generate* is the Game Master's
output: the input of its tool calls (the subagent prompts, the commands) and its text. Reports
the Game Master's output per day, how much of it is subagent prompts, what a character request
carries, and how many character requests carry the Game Master's CLAUDE.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GAME_MASTER_MARK = "You are the Game Master of this studio"


def _text(content) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(block.get("text", ""))
        elif isinstance(block, dict) and block.get("type") == "tool_result":
            parts.append(_text(block.get("content")))
    return "\n".join(parts)


def _wrapper(folder: Path, python: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "gamemaster"
    script.write_text(f'#!/bin/sh\nexec "{python}" -m gamemaster "$@"\n', encoding="utf-8")
    script.chmod(0o755)
    return folder


def play(checkout: Path, python: str, claude: Path, folder: Path, timeout: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    studio = folder / "studio"
    done = subprocess.run([python, "-c", "import gamemaster; print(gamemaster.__file__)"], env=env, cwd=folder,
                          capture_output=True, text=True, check=True)
    if not Path(done.stdout.strip()).resolve().is_relative_to(checkout):
        raise SystemExit(f"{python} runs the toolkit from {done.stdout.strip()}, not from {checkout}: pass --python")
    subprocess.run([python, "-m", "gamemaster", "init", str(studio)], check=True, env=env, cwd=folder, capture_output=True)
    home = folder / "home"
    home.mkdir()
    out = folder / "result.json"
    subprocess.run(["unshare", "-n", python, str(checkout / "tests" / "e2e" / "run_inside.py"),
                    "--claude", str(claude), "--workspace", str(studio), "--bin", str(_wrapper(folder / "bin", python)),
                    "--home", str(home), "--out", str(out), "--timeout", str(timeout), "--prompt", "/day"],
                   check=True, env=env, capture_output=True, timeout=timeout + 60)
    result = json.loads(out.read_text(encoding="utf-8"))
    if result.get("returncode") != 0:
        raise SystemExit(f"claude failed: {str(result.get('stderr'))[-2000:]}")
    return result


def measure(result: dict) -> dict:
    blocks = [b for r in result["requests"] if str(r.get("kind", "")).startswith("game_master") for b in r["answer"]]
    uses = [b for b in blocks if b["type"] == "tool_use"]
    spawns = [u for u in uses if u["name"] in ("Agent", "Task")]
    output = sum(len(json.dumps(u["input"], ensure_ascii=False)) for u in uses) + \
        sum(len(b["text"]) for b in blocks if b["type"] == "text")
    characters = [r for r in result["requests"] if r.get("kind") == "character"]
    sizes = [len(_text(r["body"].get("system"))) + sum(len(_text(m.get("content"))) for m in r["body"]["messages"])
             for r in characters]
    with_claude_md = sum(GAME_MASTER_MARK in json.dumps([r["body"].get("system"), r["body"]["messages"]], ensure_ascii=False)
                         for r in characters)
    return {
        "seconds": result["seconds"], "scenes": sum(1 for u in uses if u["name"] == "Bash" and
                                                    u["input"].get("command", "").startswith("gamemaster apply")
                                                    or u["name"].endswith("__apply")),
        "output": output, "spawns": len(spawns),
        "spawn_prompts": sum(len(u["input"].get("prompt", "")) for u in spawns),
        "tool_calls": len(uses), "character_requests": len(characters),
        "character_chars": sum(sizes) / max(1, len(sizes)), "with_claude_md": with_claude_md,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--version", default="2.1.332")
    parser.add_argument("--claude", help="the claude executable (default: the e2e install cache for --version)")
    parser.add_argument("--checkout", default=str(REPO), help="the toolkit checkout to measure (its tests/e2e and package)")
    parser.add_argument("--python", default=sys.executable, help="a Python that has that checkout's toolkit installed")
    parser.add_argument("--timeout", type=int, default=900)
    args = parser.parse_args()
    cache = Path(os.environ.get("GAMEMASTER_E2E_CACHE") or Path.home() / ".cache" / "gamemaster-e2e")
    claude = Path(args.claude) if args.claude else cache / args.version / "node_modules" / ".bin" / "claude"
    if not claude.exists():
        raise SystemExit(f"no claude at {claude}: run the e2e tests once (GAMEMASTER_E2E=1) or pass --claude")
    checkout = Path(args.checkout).resolve()
    with tempfile.TemporaryDirectory() as folder:
        row = measure(play(checkout, args.python, claude, Path(folder), args.timeout))
    commit = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "?"
    print(f"/day, day 1 of the bundled studio, claude {args.version}, checkout {commit}")
    print("| scenes | Game Master tool calls | subagent spawns | Game Master output (chars) | of it subagent prompts "
          "| character requests | chars per character request | with the Game Master's CLAUDE.md |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    print(f"| {row['scenes']} | {row['tool_calls']} | {row['spawns']} | {row['output']:,} | "
          f"{row['spawn_prompts']:,} ({row['spawn_prompts'] / max(1, row['output']):.0%}) | {row['character_requests']} | "
          f"{row['character_chars']:,.0f} | {row['with_claude_md']} of {row['character_requests']} |")


if __name__ == "__main__":
    main()
