"""Disk per year with and without ``gamemaster day archive``, 7 characters, offline player.

    python bench/archive.py [--days 10] [--keep DIR]

A fresh bundled studio plays ``--days`` offline days (``day advance``); then the disk use of
``scenes/`` and of the whole workspace is taken (bytes of the files, and blocks on disk as
``du`` counts them), every finished day is archived, and it is taken again. Per-day growth
(the studio as it was after init subtracted) is extrapolated to 365 days; with archiving, a
year is 364 archived days (the mean archive), today's folder, and the growth of everything else
(memory streams, the gallery) per day × 365. Also: CPU seconds
of the archiving and of one `report` and one `cost` before and after (archived days are read
back from their archives). The Markdown table goes to stdout, progress to stderr.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def gm(root: Path, *args: str) -> float:
    """CPU seconds (user + system) of one `gamemaster` process."""
    proc = subprocess.Popen([sys.executable, "-m", "gamemaster", "--root", str(root), *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"gamemaster {' '.join(args)} failed: {proc.stderr.read().decode()}")
    return usage.ru_utime + usage.ru_stime


def disk(folder: Path) -> tuple[int, int]:
    """(bytes of the files, bytes of the blocks they take) under ``folder``."""
    size = blocks = 0
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            stat = path.stat()
            size += stat.st_size
            blocks += stat.st_blocks * 512
    return size, blocks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=10)
    parser.add_argument("--keep", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gamemaster-bench-") as scratch:
        root = (args.keep.resolve() if args.keep else Path(scratch)) / "studio"
        subprocess.run([sys.executable, "-m", "gamemaster", "--root", str(root), "init"], check=True, capture_output=True)
        gm(root, "config", "archive_after", "0")  # the folders as played: packed below, all at once
        start = disk(root)
        log(f"playing {args.days} offline days in {root}")
        began = time.perf_counter()
        gm(root, "day", "advance", "--days", str(args.days), "--backend", "offline")
        log(f"played in {time.perf_counter() - began:.0f} s")
        scenes_before, whole_before = disk(root / "scenes"), disk(root)
        report_before = gm(root, "report", "--out", str(Path(scratch) / "report-before"))
        cost_before = gm(root, "cost")
        archive_cpu = gm(root, "day", "archive")
        scenes_after, whole_after = disk(root / "scenes"), disk(root)
        report_after = gm(root, "report", "--out", str(Path(scratch) / "report-after"))
        cost_after = gm(root, "cost")
        folders = sorted(p.name for p in (root / "scenes").iterdir())
        archives = [p.stat().st_blocks * 512 for p in (root / "scenes").glob("*.tar.xz")]
        today = [root / "scenes" / s for s in folders if not s.endswith(".tar.xz")]
        today_disk = sum(disk(p)[1] for p in today)
    days = args.days
    year_folders = (whole_before[1] - start[1]) / days * 365
    others = whole_after[1] - scenes_after[1] - start[1]  # streams, agents, gallery: what archiving leaves
    year_archived = (sum(archives) / len(archives) * 364 + today_disk + others / days * 365) if archives else float("nan")
    print(f"{platform.platform()} · Python {platform.python_version()} · {os.cpu_count()} CPUs (shared) · "
          f"7 characters, {days} offline days, {len(archives)} archived (today stays a folder)\n")
    print("| | scenes/ files (MB) | scenes/ on disk (MB) | workspace on disk (MB) | a year on disk (MB) |")
    print("|---|---:|---:|---:|---:|")
    print(f"| folders | {scenes_before[0] / 1e6:.2f} | {scenes_before[1] / 1e6:.2f} | {whole_before[1] / 1e6:.2f} | "
          f"{year_folders / 1e6:.0f} |")
    print(f"| archived | {scenes_after[0] / 1e6:.2f} | {scenes_after[1] / 1e6:.2f} | {whole_after[1] / 1e6:.2f} | "
          f"{year_archived / 1e6:.0f} |")
    print(f"\nA day's archive: {sum(archives) / len(archives) / 1e3:.0f} kB on disk; scenes/ packed to "
          f"{scenes_after[0] / scenes_before[0]:.1%} of its bytes ({scenes_after[1] / scenes_before[1]:.1%} on disk); "
          f"everything else grows {others / days / 1e6:.2f} MB a day. CPU: `day archive` {archive_cpu:.2f} s for "
          f"{len(archives)} days; `report` {report_before:.2f} s before, {report_after:.2f} s after "
          f"({report_after / report_before:.2f}×); `cost` {cost_before:.2f} s before, {cost_after:.2f} s after "
          f"({cost_after / cost_before:.2f}×).")


if __name__ == "__main__":
    main()
