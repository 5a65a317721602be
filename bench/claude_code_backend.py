"""What playing through Claude Code adds to a day, against playing through the API backend.

    python bench/claude_code_backend.py [--claude PATH] [--version 2.1.332] [--python PY]

Plays two things with a two-character studio (emre, vera from the bundled studio), inside a
private network namespace (``unshare -n``) against the loopback fake Messages API of the
end-to-end tests (``tests/e2e/backend_inside.py``, characters written by hand): **day 1** as
the Game Master plans it (no scene in it is played in turns), and **a meeting** (their
arrival, then a MEETING of three rounds: six turns). Each once with ``--backend anthropic``
(the baseline), once with ``--backend claude-code`` through the real ``claude`` from npm (the
e2e install cache, ``~/.cache/gamemaster-e2e/<version>``). The fake answers at once, so the time
is the toolkit's and Claude Code's own. Reports per backend: wall time, character runs (for
claude-code each is one ``claude`` process) and the API requests they made, the characters all
character requests sent (system prompt, messages, tool calls and results), how many of them
no earlier request started with, in whole blocks (what a prompt cache could not serve), and the input and
output tokens the toolkit recorded (``gamemaster cost``) from what the fake reported: four
characters a token, nothing cached — what the requests weigh, not a bill.

``--python`` runs the toolkit of another checkout (its own virtual environment, with that
checkout installed) under the same fake, to compare two commits.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
INSIDE = REPO / "tests" / "e2e" / "backend_inside.py"
sys.path.insert(0, str(REPO / "tests" / "e2e"))

from run_inside import request_blocks  # noqa: E402

MODEL = "claude-sonnet-4-5"


#: What each scenario plays, as gamemaster commands (``--backend`` and ``--model`` are added).
SCENARIOS = {
    "day 1": ["day advance --json"],
    "a meeting": ["scene run --json", "scene run --type MEETING --with emre,vera --json"],
}


def fresh(requests: list[list[str]]) -> int:
    """Characters of the requests that no earlier request started with, counted in whole blocks
    as a prompt cache serves them (the longest run of leading blocks it has seen before): what
    a cache could not serve."""
    total = 0
    for n, blocks in enumerate(requests):
        shared = 0
        for before in requests[:n]:
            same = 0
            while same < min(len(blocks), len(before)) and blocks[same] == before[same]:
                same += 1
            shared = max(shared, same)
        total += sum(len(block) for block in blocks[shared:])
    return total


def play(backend: str, scenario: str, claude: Path, python: str, folder: Path) -> dict:
    from gamemaster.create import init_workspace

    workspace = init_workspace(folder / "studio", empty=True)
    for agent in ("emre", "vera"):
        shutil.copy(REPO / "gamemaster" / "bundled" / "state" / "agents" / f"{agent}.json",
                    workspace.agents_dir / f"{agent}.json")
    # This checkout's toolkit, unless --python names another's (it imports its own).
    env = {**os.environ, "PYTHONPATH": str(REPO) if python == sys.executable else ""}
    if scenario == "a meeting":
        subprocess.run([python, "-m", "gamemaster", "--root", str(workspace.root), "config", "kinds.meeting.rounds", "3"],
                       check=True, capture_output=True, env=env, cwd=folder)
    home = folder / "home"
    home.mkdir()
    out = folder / "result.json"
    plays = [arg for command in SCENARIOS[scenario] for arg in ("--play", command)]
    subprocess.run(["unshare", "-n", python, str(INSIDE), "--claude", str(claude), "--workspace",
                    str(workspace.root), "--home", str(home), "--out", str(out), "--model", MODEL,
                    "--backend", backend, *plays], check=True, env=env, cwd=folder)  # `-m` looks in the cwd first
    result = json.loads(out.read_text(encoding="utf-8"))
    if result["returncode"] != 0:
        raise SystemExit(f"{backend}: {scenario} failed: {result['stderr'][-2000:]}")
    # A meeting is measured from its own command on: the arrival before it only opens the day.
    measured = result["plays"][-1] if scenario == "a meeting" else result
    calls = [r for r in result["requests"][measured.get("first_request", 0):] if r.get("kind") == "character"]
    # A character's run (one `claude` process, one API call for `anthropic`) starts with its one message.
    runs = [r for r in calls if len(r["body"]["messages"]) == 1]
    # The tokens the toolkit recorded with the scenes measured (a meeting's arrival only opens the day).
    scenes = workspace.root / "scenes" / "day-001"
    files = (scenes / "scene-02").glob("usage/*.json") if scenario == "a meeting" else scenes.glob("*/usage/*.json")
    recorded = [call for path in files for call in json.loads(path.read_text(encoding="utf-8"))["calls"]]
    tokens = {name: sum(call.get(name) or 0 for call in recorded) for name in ("input_tokens", "output_tokens")}
    blocks = [request_blocks(r["body"]) for r in calls]
    return {"seconds": measured["seconds"], "runs": len(runs), "calls": len(calls),
            "sent": sum(len(block) for request in blocks for block in request), "fresh": fresh(blocks), "input": tokens["input_tokens"],
            "output": tokens["output_tokens"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--version", default="2.1.332")
    parser.add_argument("--claude", help="the claude executable (default: the e2e install cache for --version)")
    parser.add_argument("--python", default=sys.executable, help="the Python whose gamemaster plays (default: this one)")
    parser.add_argument("--backends", default="anthropic,claude-code")
    args = parser.parse_args()
    cache = Path(os.environ.get("GAMEMASTER_E2E_CACHE") or Path.home() / ".cache" / "gamemaster-e2e")
    claude = Path(args.claude) if args.claude else cache / args.version / "node_modules" / ".bin" / "claude"
    if not claude.exists():
        raise SystemExit(f"no claude at {claude}: run the e2e tests once (GAMEMASTER_E2E=1) or pass --claude")
    print(f"two characters, fake API on loopback; claude {args.version}")
    print("| played | backend | character runs (processes) | character API requests | seconds "
          "| characters sent | of them new | input tokens | output tokens |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for scenario in SCENARIOS:
        for backend in args.backends.split(","):
            with tempfile.TemporaryDirectory() as folder:
                row = play(backend, scenario, claude, args.python, Path(folder))
            processes = row["runs"] if backend == "claude-code" else 0
            print(f"| {scenario} | {backend} | {row['runs']} ({processes}) | {row['calls']} | {row['seconds']:.1f} | "
                  f"{row['sent']:,} | {row['fresh']:,} | {row['input']:,} | {row['output']:,} |", flush=True)


if __name__ == "__main__":
    main()
