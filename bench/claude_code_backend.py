"""What playing through Claude Code adds to a day, against playing through the API backend.

    python bench/claude_code_backend.py [--claude PATH] [--version 2.1.332]

Plays day 1 of a two-character studio (emre, vera from the bundled studio) twice, inside a
private network namespace (``unshare -n``) against the loopback fake Messages API of the
end-to-end tests (``tests/e2e/backend_inside.py``, characters written by hand): once with
``--backend anthropic`` (the baseline), once with ``--backend claude-code`` through the real
``claude`` from npm (the e2e install cache, ``~/.cache/gamemaster-e2e/<version>``). The fake
answers at once, so the time is the toolkit's and Claude Code's own. Reports per backend:
wall time of the day, character runs (for claude-code each is one ``claude`` process) and the API
requests they made, the tokens recorded (``gamemaster cost``), and the characters each run's first
request sends (system prompt and messages), so the difference is what Claude Code adds to a run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
INSIDE = REPO / "tests" / "e2e" / "backend_inside.py"
sys.path.insert(0, str(REPO / "tests" / "e2e"))

from run_inside import _system_text, _text_of  # noqa: E402

MODEL = "claude-sonnet-4-5"


def play(backend: str, claude: Path, folder: Path) -> dict:
    from gamemaster.create import init_workspace

    workspace = init_workspace(folder / "studio", empty=True)
    for agent in ("emre", "vera"):
        shutil.copy(REPO / "gamemaster" / "bundled" / "state" / "agents" / f"{agent}.json",
                    workspace.agents_dir / f"{agent}.json")
    home = folder / "home"
    home.mkdir()
    out = folder / "result.json"
    subprocess.run(["unshare", "-n", sys.executable, str(INSIDE), "--claude", str(claude), "--workspace",
                    str(workspace.root), "--home", str(home), "--out", str(out), "--model", MODEL,
                    "--backend", backend], check=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    result = json.loads(out.read_text(encoding="utf-8"))
    if result["returncode"] != 0:
        raise SystemExit(f"{backend}: day advance failed: {result['stderr'][-2000:]}")
    calls = [r for r in result["requests"] if r.get("kind") == "character"]
    # A character's run (one `claude` process, one API call for `anthropic`) starts with its one message.
    runs = [r for r in calls if len(r["body"]["messages"]) == 1]
    sizes = [len(_system_text(r["body"])) + sum(len(_text_of(m.get("content"))) for m in r["body"]["messages"])
             for r in runs]
    scenes = len(json.loads(result["stdout"])["scenes"])
    cost = subprocess.run([sys.executable, "-m", "gamemaster", "--root", str(workspace.root), "cost", "--json"],
                          capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    total = json.loads(cost.stdout)["total"]
    tokens = sum(total[name] for name in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
    return {"seconds": result["seconds"], "scenes": scenes, "runs": len(runs), "calls": len(calls),
            "chars": statistics.mean(sizes), "input": tokens, "output": total["output_tokens"],
            "other": sum(1 for r in result["requests"] if r.get("kind") == "other")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--version", default="2.1.332")
    parser.add_argument("--claude", help="the claude executable (default: the e2e install cache for --version)")
    args = parser.parse_args()
    cache = Path(os.environ.get("GAMEMASTER_E2E_CACHE") or Path.home() / ".cache" / "gamemaster-e2e")
    claude = Path(args.claude) if args.claude else cache / args.version / "node_modules" / ".bin" / "claude"
    if not claude.exists():
        raise SystemExit(f"no claude at {claude}: run the e2e tests once (GAMEMASTER_E2E=1) or pass --claude")
    rows = {}
    for backend in ("anthropic", "claude-code"):
        with tempfile.TemporaryDirectory() as folder:
            rows[backend] = play(backend, claude, Path(folder))
    print(f"day 1, two characters, fake API on loopback; claude {args.version}")
    print("| backend | scenes | character runs (processes) | character API requests | other API requests | day (s) "
          "| input tokens | output tokens | chars sent per run |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for backend, row in rows.items():
        processes = row["runs"] if backend == "claude-code" else 0
        print(f"| {backend} | {row['scenes']} | {row['runs']} ({processes}) | {row['calls']} | {row['other']} | "
              f"{row['seconds']:.1f} | {row['input']:,} | {row['output']:,} | {row['chars']:,.0f} |")
    added = rows["claude-code"]["chars"] - rows["anthropic"]["chars"]
    print(f"Claude Code adds {added:,.0f} characters (about {added / 4:,.0f} tokens) to every run's first request.")


if __name__ == "__main__":
    main()
