"""How long a report's day pages are in a browser, at desktop and phone width.

    python bench/report_length.py [--days 3] [--report DIR ...]

Without ``--report``: plays the bundled studio offline for ``--days`` days in a temporary
folder, builds ``gamemaster report`` and measures that. With ``--report``: measures reports
built elsewhere (e.g. one built by an older gamemaster, for a baseline). Each day page's
document height in headless Chromium (Playwright, Debian's ``chromium``) at 1280 and 390 px,
and how many 900 px / 844 px screens that is.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

WIDTHS = {1280: 900, 390: 844}  # width → the screen height a "screen" is counted in


def build(days: int, folder: Path) -> Path:
    root = folder / "studio"
    for args in (["init", str(root)], ["--root", str(root), "day", "advance", "--days", str(days)],
                 ["--root", str(root), "report"]):
        subprocess.run([sys.executable, "-m", "gamemaster", *args], check=True, capture_output=True)
    return root / "report"


def measure(report: Path) -> dict[str, dict[int, int]]:
    from playwright.sync_api import sync_playwright

    found: dict[str, dict[int, int]] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=shutil.which("chromium") or shutil.which("chromium-headless-shell"))
        for width, height in WIDTHS.items():
            page = browser.new_page(viewport={"width": width, "height": height})
            for day_page in sorted((report / "days").glob("day-*.html")):
                page.goto(day_page.as_uri())
                found.setdefault(day_page.name, {})[width] = page.evaluate("document.documentElement.scrollHeight")
            page.close()
        browser.close()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=3)
    parser.add_argument("--report", type=Path, action="append", help="a report folder to measure (repeatable)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        reports = args.report or [build(args.days, Path(folder))]
        for report in reports:
            print(f"{report}")
            print("| day page | 1280 px | screens | 390 px | screens |")
            print("|---|---:|---:|---:|---:|")
            for name, heights in measure(report).items():
                cells = [f"{heights[w]:,} | {heights[w] / h:.1f}" for w, h in WIDTHS.items()]
                print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
