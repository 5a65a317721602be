"""A workspace's ``prompts/contract.md`` from an earlier version of the toolkit.

``init`` copies the prompt templates into the workspace, and a workspace's own template wins
over the bundled one. Before the kinds declared their contract rules, ``contract.md`` wrote
them out by hand („`artifacts` (nur WORK)“); such a copy names only the kinds of its day and
contradicts a kind added since (a LUNCH prompt forbidding the `conversation` it asks for).
The current one takes the rules from the registry (``$rule_<section>``, ``$kind_lines``).

A copy that is byte for byte one the toolkit shipped was never edited: ``doctor --fix``
replaces it with the current one, and nothing is lost. A copy that differs from every shipped
one holds the user's own edits: it is kept, with a warning if its rules are still written out.
"""

from __future__ import annotations

import hashlib

from ..workspace import Workspace, bundled_dir
from .drift import DRIFT, WARNING, Drift

#: sha256 of every ``contract.md`` shipped before the current one (``git log -p --
#: prompts/contract.md gamemaster/bundled/prompts/contract.md``) → the commit that shipped it.
#: When the bundled contract changes, the hash of the one it replaces belongs here.
SHIPPED: dict[str, str] = {
    "5102828c82290a9bb47152953e11b0b3e92322a564e86aca3bdd35436159bea3": "5ad35d3 2026-11-25",
    "b64078524800cf3fadb5eb0d0775e506899b7c93deb2cd14b37ddf307e17f447": "6c2b8fe 2026-11-25",
    "28988c16cb210094bac1428822f74875ce055df28852860a340d70c90d17b3ae": "b12dd6c 2026-11-25",
    "0f76b3184cca49d1bca04bb8f44bbeb1a5233df58eb5e6d6ebf1eaff4f3c87c2": "ec6869f 2026-11-23",
    "6d5b824becbdbd0acbf662cc2e531b46752927d587d222c023e4e68b7916b142": "bd5c97b 2026-11-22",
    "a8b44c71f7321a9dad16958ed0c3724bdf11e854c9253a156592bea6e6091a4f": "ec8fd28 2026-11-22",
}
#: What the current contract places the kinds' rules with; a copy without it writes them out.
GENERATED_MARK = b"$rule_"


def check_contract(workspace: Workspace) -> tuple[list[Drift], bytes | None]:
    """What is stale about the workspace's contract, and its new bytes if the fix replaces it."""
    path = workspace.root / "prompts" / "contract.md"
    if not path.is_file() or path.is_symlink():
        return [], None  # none of its own: prompts use the bundled one
    raw = path.read_bytes()
    current = (bundled_dir("prompts") / "contract.md").read_bytes()
    if raw == current:
        return [], None
    shown = workspace.rel(path)
    if hashlib.sha256(raw).hexdigest() in SHIPPED:
        return [Drift(shown, None, "the reply contract as an earlier version shipped it, its kinds' rules written out",
                      "replaced by the current one, which takes them from the kinds", DRIFT)], current
    if GENERATED_MARK not in raw:
        return [Drift(shown, None, "a reply contract of your own with the kinds' rules written out: a kind added "
                      "since is not named where it allows a section",
                      "kept; to have them written from the kinds, use $rule_<section> and $kind_lines as "
                      "`gamemaster/bundled/prompts/contract.md` does", WARNING)], None
    return [], None
