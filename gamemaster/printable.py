"""Text from files and models, made safe to show: printed as it is, never interpreted.

Control characters (a NUL, an escape sequence that would move the cursor or set
the window title) are shown as ``\\x1b``-style escapes; for rich output the
markup brackets are escaped too, so ``[/x]`` in a reply is printed, not parsed.
"""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, and C1 controls.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: object) -> str:
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", str(text))


def without_controls(text: str) -> str:
    """For what is written into a file's header (front matter): the controls simply go."""
    return _CONTROL.sub("", text)


def markup_safe(text: object) -> str:
    from rich.markup import escape

    return escape(printable(text))
