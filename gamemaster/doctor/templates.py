"""A workspace's prompt templates from an earlier version of the toolkit.

``init`` copies the templates into the workspace's ``prompts/``, and a workspace's own template
wins over the bundled one, so a workspace keeps the templates of the version that made it. Two
of them went stale in ways a prompt shows: ``contract.md`` once wrote the kinds' rules out by
hand („`artifacts` (nur WORK)“), naming only the kinds of its day; and the current contract
points to the roster („Wer wer ist“) that only the current ``character.md`` holds, with the
studio bible that all characters share at the start of their prompts (the part the API caches).

A copy that is byte for byte one the toolkit shipped (``shipped_templates.py``) was never
edited: ``doctor --fix`` replaces it with the current one — every such template of the
workspace together, so a contract and the character template it goes with move as one. A copy
that differs from every shipped one holds the user's own edits: it is kept, with a warning where
it lacks what the current toolkit places there.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..workspace import Workspace, bundled_dir
from .drift import DRIFT, WARNING, Drift
from .shipped_templates import SHIPPED

#: What the current contract places the kinds' rules with; a copy without it writes them out.
GENERATED_MARK = b"$rule_"
#: What the current character template holds at its start, shared by every character.
SHARED_MARKS = (b"$roster", b"$bible")


def check_templates(workspace: Workspace) -> tuple[list[Drift], dict[Path, bytes]]:
    """What is stale about the workspace's templates, and the new bytes of those the fix replaces."""
    drifts: list[Drift] = []
    writes: dict[Path, bytes] = {}
    for name, shipped in SHIPPED.items():
        path = workspace.root / "prompts" / name
        if not path.is_file() or path.is_symlink():
            continue  # none of its own (prompts use the bundled one), or not the workspace's to rewrite
        raw = path.read_bytes()
        current = (bundled_dir("prompts") / name).read_bytes()
        if raw == current:
            continue
        shown = workspace.rel(path)
        if hashlib.sha256(raw).hexdigest() in shipped:
            drifts.append(Drift(shown, None, _stale(name, raw), _replaced(name, raw), DRIFT))
            writes[path] = current
        elif name == "contract.md" and GENERATED_MARK not in raw:
            drifts.append(Drift(shown, None, "a reply contract of your own with the kinds' rules written out: a kind "
                                "added since is not named where it allows a section",
                                "kept; to have them written from the kinds, use $rule_<section> and $kind_lines as "
                                "`gamemaster/bundled/prompts/contract.md` does", WARNING))
        elif name == "character.md" and not all(mark in raw for mark in SHARED_MARKS):
            drifts.append(Drift(shown, None, "a character template of your own without $roster and $bible: its "
                                "prompts show no roster of who is who (the contract points to it) and no studio "
                                "bible, and share no start between characters for caching",
                                "kept; `gamemaster/bundled/prompts/character.md` shows where they go", WARNING))
    return drifts, writes


def _stale(name: str, raw: bytes) -> str:
    if name == "contract.md" and GENERATED_MARK not in raw:
        return "the reply contract as an earlier version shipped it, its kinds' rules written out"
    return f"the template {name} as an earlier version shipped it"


def _replaced(name: str, raw: bytes) -> str:
    if name == "contract.md" and GENERATED_MARK not in raw:
        return "replaced by the current one, which takes them from the kinds"
    return "replaced by the current one"
