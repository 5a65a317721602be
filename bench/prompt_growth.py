"""How prompts grow over a long offline run, per memory selection strategy.

    python bench/prompt_growth.py [--days 120] [--selection ranked,seed] [--budget CHARS] [--keep DIR]

For each strategy: `gamemaster init` a fresh workspace, set ``selection`` in its
state/world.json (and ``memory_budget`` with ``--budget``), play ``--days`` offline
days through the CLI (10 days per call), then read every prompt the characters
were sent. Per strategy a Markdown table (days 1, 10, 30, 60, 90, 120, those that
were played): largest and median prompt in characters, memories per agent at the
end of that day, and the share of the largest prompt taken by reflections; then
the growth ratio of the largest prompt from day 30 to the last reported day.
Tables go to stdout, progress to stderr.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPORT_DAYS = (1, 10, 30, 60, 90, 120)
CHUNK = 10
RATIO_FROM = 30
TARGETS = {"ranked": 1.3}

# "## Deine Reflexionen" in German prompts; the English template is matched too,
# so the bench still works when a studio switches language.
REFLECTION_HEADING = re.compile(r"^##\s.*(Reflexionen|[Rr]eflections)\s*$")
MEMORY_LINE = re.compile(r"^- \[([^\]]*)\]")
SCENE_DIR = re.compile(r"^day-(\d{3})$")
CREATED_DAY = re.compile(r'"created":\s*"day-(\d+)/')


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def gamemaster(*args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "gamemaster", *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"`gamemaster {' '.join(args)}` exited {proc.returncode}:\n{proc.stderr.strip()}")
    return proc


def world_day(root: Path) -> int:
    return json.loads((root / "state" / "world.json").read_text(encoding="utf-8"))["day"]


def play(root: Path, strategy: str, days: int, budget: int | None) -> float:
    gamemaster("init", str(root))
    world_path = root / "state" / "world.json"
    world = json.loads(world_path.read_text(encoding="utf-8"))
    world["selection"] = strategy
    if budget is not None:
        world["memory_budget"] = budget
    world_path.write_text(json.dumps(world, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    start = time.perf_counter()
    # The day counter is read back after each call rather than assumed, so a
    # call that ends early (or a changed --days meaning) cannot skew the table.
    while (day := world_day(root)) < days:
        step = min(CHUNK, days - day)
        chunk_start = time.perf_counter()
        gamemaster("--root", str(root), "day", "advance", "--days", str(step))
        now = world_day(root)
        elapsed = time.perf_counter() - chunk_start
        log(f"  {strategy}: day {now}/{days} ({elapsed / max(now - day, 1):.2f} s/day, "
            f"{time.perf_counter() - start:.0f} s total)")
        if now <= day:
            raise RuntimeError(f"`day advance` did not move past day {day}")
    return time.perf_counter() - start


def reflection_chars(text: str) -> int:
    """Characters of reflection lines: the whole reflections section, plus reflections listed elsewhere."""
    total = 0
    in_section = False
    for line in text.splitlines(keepends=True):
        if line.startswith("## "):
            in_section = bool(REFLECTION_HEADING.match(line.rstrip("\n")))
            continue
        match = MEMORY_LINE.match(line)
        if not match:
            continue
        fields = [f.strip() for f in match.group(1).split("·")]
        if in_section or (len(fields) > 2 and fields[2] == "reflection"):
            total += len(line)
    return total


def prompts_by_day(root: Path) -> dict[int, list[Path]]:
    days: dict[int, list[Path]] = defaultdict(list)
    for day_dir in (root / "scenes").iterdir():
        match = SCENE_DIR.match(day_dir.name)
        if match:
            days[int(match.group(1))] = sorted(day_dir.glob("scene-*/prompts/*.md"))
    return days


def memories_per_agent(root: Path) -> dict[int, float]:
    """Mean stream length at the end of each day, rebuilt from the final streams.

    Streams are append-only and every line carries the scene it was created in,
    so counting lines created on or before a day gives that day's size.
    """
    streams = sorted((root / "state" / "memories").glob("*.jsonl"))
    created: list[list[int]] = []
    for path in streams:
        days = []
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                match = CREATED_DAY.search(line)
                if match:
                    days.append(int(match.group(1)))
        created.append(days)
    last = max((max(d) for d in created if d), default=0)
    return {day: statistics.fmean(sum(1 for d in days if d <= day) for days in created) for day in range(last + 1)}


def analyse(root: Path, days: int) -> tuple[list[str], dict[int, int]]:
    prompts = prompts_by_day(root)
    counts = memories_per_agent(root)
    largest_by_day: dict[int, int] = {}
    rows = ["| day | prompts | largest prompt (chars) | median prompt (chars) | memories per agent | "
            "reflections in largest |",
            "|---:|---:|---:|---:|---:|---:|"]
    for day in sorted(d for d in prompts if d <= days):
        texts = [path.read_text(encoding="utf-8") for path in prompts[day]]
        if not texts:
            continue
        largest = max(texts, key=len)
        largest_by_day[day] = len(largest)
        if day not in REPORT_DAYS and day != days:
            continue
        share = reflection_chars(largest) / len(largest)
        rows.append(f"| {day} | {len(texts)} | {len(largest):,} | {statistics.median(map(len, texts)):,.0f} | "
                    f"{counts.get(day, float('nan')):,.1f} | {share:.0%} |")
    return rows, largest_by_day


def strategy_list(text: str) -> list[str]:
    names = [s.strip() for s in text.split(",") if s.strip()]
    if not names:
        raise argparse.ArgumentTypeError("expected at least one strategy, comma-separated")
    return names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=120, help="offline days to play per strategy")
    parser.add_argument("--selection", type=strategy_list, default="ranked,seed",
                        help="comma-separated selection strategies (state/world.json `selection`)")
    parser.add_argument("--budget", type=int, help="memory_budget in characters (default: the workspace's own); "
                        "a huge one shows a strategy's growth without the cap")
    parser.add_argument("--keep", type=Path, help="build the workspaces here (one folder per strategy) and keep them")
    args = parser.parse_args()
    if args.days < 1:
        parser.error("--days must be at least 1")

    results = []
    with tempfile.TemporaryDirectory(prefix="gamemaster-growth-") as scratch:
        base = args.keep.resolve() if args.keep else Path(scratch)
        base.mkdir(parents=True, exist_ok=True)
        for strategy in args.selection:
            root = base / strategy
            if root.exists():
                shutil.rmtree(root)
            log(f"{strategy}: playing {args.days} days in {root}")
            seconds = play(root, strategy, args.days, args.budget)
            rows, largest = analyse(root, args.days)
            results.append((strategy, seconds, rows, largest))
            if not args.keep:
                shutil.rmtree(root)

    for strategy, seconds, rows, largest in results:
        budget = f", memory_budget {args.budget:,}" if args.budget is not None else ""
        print(f"\n### selection = {strategy}{budget} ({args.days} days, {seconds:.0f} s, "
              f"{seconds / args.days:.2f} s/day)\n")
        print("\n".join(rows))
    print()
    for strategy, _, _, largest in results:
        last = max(largest)
        if RATIO_FROM in largest and last > RATIO_FROM:
            target = f" (target ≤ {TARGETS[strategy]})" if strategy in TARGETS else ""
            print(f"{strategy}: largest prompt day {last} / day {RATIO_FROM} = "
                  f"{largest[last] / largest[RATIO_FROM]:.2f}{target}")
        else:
            print(f"{strategy}: fewer than {RATIO_FROM + 1} days played; no growth ratio")


if __name__ == "__main__":
    main()
