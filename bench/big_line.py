"""How long `gamemaster next` takes when a memory stream holds one enormous line.

    python bench/big_line.py [--mb 50] [--strategy ranked]

Makes a studio (the bundled one, in a temporary folder) whose ``vera.jsonl`` ends in a
valid memory of ``--mb`` megabytes, imports it into a second folder as ``gamemaster
import`` would, and times ``next``, ``validate`` and ``doctor`` there, each in its own
process as from a terminal.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed(root: Path, *args: str) -> tuple[float, int, str]:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "gamemaster", "--root", str(root), *args],
                          capture_output=True, text=True)
    last = (proc.stderr.strip().splitlines() or proc.stdout.strip().splitlines() or [""])[-1]
    return time.perf_counter() - start, proc.returncode, last


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--strategy", default="ranked")
    args = parser.parse_args()

    from gamemaster.create import init_workspace

    with tempfile.TemporaryDirectory(prefix="gamemaster-bigline-") as folder:
        source = init_workspace(Path(folder) / "source")
        words = "Knochenturm Asche Titan Ebene Skizze Rippe Glut "
        description = (words * (args.mb * 1024 * 1024 // len(words) + 1))[: args.mb * 1024 * 1024]
        line = json.dumps({"id": "vera-900", "created": "day-000/scene-00", "type": "observation", "depth": 0,
                           "description": description, "importance": 5, "tags": [], "evidence": [],
                           "metadata": {}}, ensure_ascii=False)
        with (source.memories_dir / "vera.jsonl").open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")
        target = Path(folder) / "imported"
        print(f"a line of {len(line.encode()):,} bytes in state/memories/vera.jsonl")
        for label, root, command in (
            ("import", Path(folder), ("import", str(source.root), "--into", str(target))),
            ("config", target, ("config", "selection", args.strategy)),
            ("next", target, ("next",)),
            ("validate", target, ("validate",)),
            ("doctor", target, ("doctor",)),
        ):
            seconds, code, last = timed(root, *command)
            print(f"{label:9} {seconds:7.2f} s  exit {code}  {last[:110]}")


if __name__ == "__main__":
    main()
