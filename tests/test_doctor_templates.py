"""Every prompt template the repository ever shipped is the current one or listed as shipped, so
``doctor --fix`` recognises an unedited copy of it in a workspace made by that version."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest

from gamemaster.doctor.shipped_templates import SHIPPED
from gamemaster.workspace import bundled_dir

REPO = Path(__file__).resolve().parent.parent


def _history(path: str) -> list[tuple[str, bytes]]:
    log = subprocess.run(["git", "-C", str(REPO), "log", "--format=%h", "--", path],
                         capture_output=True, text=True, check=True).stdout.split()
    versions = []
    for commit in log:
        shown = subprocess.run(["git", "-C", str(REPO), "show", f"{commit}:{path}"], capture_output=True)
        if shown.returncode == 0:  # the commit that deleted or moved it has none
            versions.append((commit, shown.stdout))
    return versions


def test_every_template_in_the_history_is_current_or_listed_as_shipped():
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs the repository's git history (not an installed copy)")
    if subprocess.run(["git", "-C", str(REPO), "rev-parse", "--is-shallow-repository"],
                      capture_output=True, text=True).stdout.strip() == "true":
        pytest.skip("a shallow clone has no full history of the templates")
    missing = []
    for template in sorted(p.name for p in bundled_dir("prompts").glob("*.md")):
        current = hashlib.sha256((bundled_dir("prompts") / template).read_bytes()).hexdigest()
        for path in (f"prompts/{template}", f"gamemaster/bundled/prompts/{template}"):
            for commit, content in _history(path):
                digest = hashlib.sha256(content).hexdigest()
                if digest != current and digest not in SHIPPED.get(template, {}):
                    missing.append(f"{path} at {commit}: {digest}")
    assert missing == [], "add these to gamemaster/doctor/shipped_templates.py:\n" + "\n".join(missing)
