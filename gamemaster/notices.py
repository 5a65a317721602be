"""Progress a user waits for, as one line on stderr: standard output stays what the command
prints (JSON for scripts, the MCP protocol), and a notice is never part of it.

Only work that takes seconds says so: a cold search index build of a large stream (after
``state/.cache/`` was deleted, on a fresh clone, after a stream was edited outside the tool)."""

from __future__ import annotations

import sys

#: Texts already shown by this process: a build announced for several indexes at once is not
#: announced again by each of them.
_shown: set[str] = set()


def notice(text: str, key: str | None = None) -> None:
    """Print ``gamemaster: TEXT`` on stderr, once per ``key`` (default: the text) in a process."""
    key = text if key is None else key
    if key in _shown:
        return
    _shown.add(key)
    print(f"gamemaster: {text}", file=sys.stderr, flush=True)


def said(key: str) -> bool:
    """Whether a notice with ``key`` was shown (or counted as shown) in this process."""
    return key in _shown


def announced(key: str) -> None:
    """Count ``key`` as shown: a notice for several has said it."""
    _shown.add(key)
