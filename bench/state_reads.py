"""How often one offline day loads and parses world.json and the agent files, and builds prompts.

    python bench/state_reads.py [--days N]

Counts calls on a fresh workspace with the bundled studio (in a temporary folder).
"""

from __future__ import annotations

import argparse
import tempfile
from collections import Counter
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--days", type=int, default=1)
    args = parser.parse_args()

    import sys

    from gamemaster import gm as gm_module
    from gamemaster import requests as requests_module
    from gamemaster.backends.offline import OfflineBackend
    from gamemaster.loop import advance_days
    from gamemaster.models import Agent, World
    from gamemaster.create import init_workspace
    from gamemaster.workspace import Workspace

    counts: Counter[str] = Counter()

    def counted(owner, name, label):
        original = getattr(owner, name)

        def wrapper(*a, **k):
            counts[label] += 1
            return original(*a, **k)

        setattr(owner, name, wrapper)

    counted(Workspace, "load_world", "world.json loads")
    counted(Workspace, "load_agent", "agent file loads")
    counted(World, "model_validate", "world.json parses")
    counted(Agent, "model_validate", "agent file parses")
    # A prompt is built by requests.build_request, wherever it was imported to.
    built = requests_module.build_request
    for name, module in list(sys.modules.items()):
        if name.startswith("gamemaster") and getattr(module, "build_request", None) is built:
            counted(module, "build_request", "prompts built")
    with tempfile.TemporaryDirectory() as tmp:
        workspace = init_workspace(Path(tmp) / "studio")
        gm = gm_module.GameMaster(workspace)
        counts.clear()  # what creating the studio read is not the day's
        outcomes = advance_days(gm, OfflineBackend(), args.days).scenes
        scenes = len(outcomes)
        turns = sum(len(o.spec.turns) for o in outcomes)
    print(f"{args.days} offline day(s): {scenes} scenes, {turns} turns")
    print("| what | count | per scene |")
    print("|---|---|---|")
    for label in ("world.json loads", "world.json parses", "agent file loads", "agent file parses", "prompts built"):
        print(f"| {label} | {counts[label]} | {counts[label] / max(scenes, 1):.1f} |")


if __name__ == "__main__":
    main()
