"""The lists of scene kinds, and the table of their settings, in the Game Master's own files and
the reference page of the state files (docs/reference/state-files.md), written from the registry.

CLAUDE.md and the /scene command (and so the plugin's scene skill, made from it) tell the
Game Master which kinds run side by side and which one turn after another. Those lists stand
between markers, ``<!--kinds:WHICH-->ARRIVAL, WORK<!--/kinds-->``, and ``with_kinds`` writes
them anew from the kinds there are: when a workspace gets the files (``claude_files.shipped``)
and when the plugin is rendered (``claude_plugin.rendered``). ``tests/test_kind_docs.py``
fails when a committed copy is not what this writes.

The kinds' settings (``SceneKind.settings``) stand as a table between ``<!--kind-settings-->``
and ``<!--/kind-settings-->``, each on a line of its own: name, default, what is allowed (with
the reason for the upper bound) and what it means, from the settings model itself.
"""

from __future__ import annotations

import json
import re
import sys
import typing
from pathlib import Path

from annotated_types import Ge, Gt, Le, Lt

from .kinds import SceneKind, all_kinds
from .kinds.settings import configurable

#: Which kinds each marker lists.
SELECTIONS = {
    "all": lambda kind: True,
    "side-by-side": lambda kind: not kind.in_sequence,
    "in-sequence": lambda kind: kind.in_sequence,
}

_SPAN = re.compile(r"<!--kinds:(?P<which>[a-z-]+)-->(?P<names>.*?)<!--/kinds-->")
_TABLE = re.compile(r"(?P<open><!--kind-settings-->\n).*?(?P<close><!--/kind-settings-->)", re.S)


def kinds_listed(which: str) -> list[SceneKind]:
    if which not in SELECTIONS:
        raise ValueError(f"<!--kinds:{which}-->: not a list of kinds (choose {', '.join(SELECTIONS)})")
    return [kind for kind in all_kinds().values() if SELECTIONS[which](kind)]


def with_kinds(text: str) -> str:
    """``text`` with every marked list of kinds, and the table of their settings, as the registry has them now."""
    text = _SPAN.sub(lambda m: f"<!--kinds:{m['which']}-->{', '.join(k.name for k in kinds_listed(m['which']))}<!--/kinds-->",
                     text)
    return _TABLE.sub(lambda m: m["open"] + settings_table() + m["close"], text)


def settings_table() -> str:
    """Every kind's settings as Markdown table rows, in listing order."""
    rows = ["| setting | default | allowed | meaning |", "|---|---|---|---|"]
    for name, model in configurable().items():
        for field, info in model.model_fields.items():
            default = "unset" if info.default is None else f"`{json.dumps(info.default, ensure_ascii=False)}`"
            rows.append(f"| `kinds.{name}.{field}` | {default} | {_allowed(info.annotation, info.metadata)} | "
                        f"{info.description or ''} |")
    return "\n".join(rows) + "\n"


def _allowed(annotation, metadata) -> str:
    """What a field allows, from its type and constraints: ``2 to 50 (why)``, ``team, all, none``."""
    low = high = why = None
    unset = False
    choices: list = []
    pending = [(annotation, list(metadata))]
    while pending:
        kind, meta = pending.pop()
        for item in meta:
            low = item.ge if isinstance(item, Ge) else item.gt + 1 if isinstance(item, Gt) else low
            high = item.le if isinstance(item, Le) else item.lt - 1 if isinstance(item, Lt) else high
            bound = getattr(getattr(item, "func", None), "at_most", None)
            if bound:
                high, why = bound
            pending += [(None, getattr(item, "metadata", []))]  # a FieldInfo inside Annotated
        origin = typing.get_origin(kind)
        if origin is typing.Annotated:
            pending.append((kind.__origin__, list(kind.__metadata__)))
        elif origin is typing.Literal:
            choices += typing.get_args(kind)
        elif kind is not None and typing.get_args(kind):  # Optional[...]
            unset = type(None) in typing.get_args(kind)
            pending += [(arg, []) for arg in typing.get_args(kind) if arg is not type(None)]
    text = ", ".join(f"`{c}`" for c in choices) if choices else (
        f"{low:,} to {high:,}" if low is not None and high is not None else f"at least {low:,}" if low is not None else "any")
    return text + (", or unset" if unset else "") + (f" ({why})" if why else "")


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
