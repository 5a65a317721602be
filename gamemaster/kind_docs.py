"""The lists of scene kinds in the Game Master's own files, written from the registry.

CLAUDE.md and the /scene command (and so the plugin's scene skill, made from it) tell the
Game Master which kinds run side by side and which one turn after another. Those lists stand
between markers, ``<!--kinds:WHICH-->ARRIVAL, WORK<!--/kinds-->``, and ``with_kinds`` writes
them anew from the kinds there are: when a workspace gets the files (``claude_files.shipped``)
and when the plugin is rendered (``claude_plugin.rendered``). ``tests/test_kind_docs.py``
fails when a committed copy is not what this writes.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from .kinds import SceneKind, all_kinds

#: Which kinds each marker lists.
SELECTIONS = {
    "all": lambda kind: True,
    "side-by-side": lambda kind: not kind.in_sequence,
    "in-sequence": lambda kind: kind.in_sequence,
}

_SPAN = re.compile(r"<!--kinds:(?P<which>[a-z-]+)-->(?P<names>.*?)<!--/kinds-->")


def kinds_listed(which: str) -> list[SceneKind]:
    if which not in SELECTIONS:
        raise ValueError(f"<!--kinds:{which}-->: not a list of kinds (choose {', '.join(SELECTIONS)})")
    return [kind for kind in all_kinds().values() if SELECTIONS[which](kind)]


def with_kinds(text: str) -> str:
    """``text`` with every marked list of kinds as the registry has them now."""
    return _SPAN.sub(lambda m: f"<!--kinds:{m['which']}-->{', '.join(k.name for k in kinds_listed(m['which']))}<!--/kinds-->",
                     text)


def rewrite(paths: list[str]) -> list[str]:
    """Write the lists anew in these files; the ones that changed."""
    changed = []
    for name in paths:
        path = Path(name)
        text = path.read_text(encoding="utf-8")
        if with_kinds(text) != text:
            path.write_text(with_kinds(text), encoding="utf-8")
            changed.append(name)
    return changed


if __name__ == "__main__":  # python -m gamemaster.kind_docs FILE…
    print("\n".join(rewrite(sys.argv[1:])))
