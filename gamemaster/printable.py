"""Text from files and models, made safe to show: printed as it is, never interpreted.

Control characters (a NUL, an escape sequence that would move the cursor or set
the window title) are shown as ``\\x1b``-style escapes, invisible format characters that
reorder or hide text (a right-to-left override) as ``\\u202e``; for rich output the
markup brackets are escaped too, so ``[/x]`` in a reply is printed, not parsed.
"""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, and C1 controls.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Invisible format characters that change what a terminal shows: the bidirectional marks,
# embeddings, overrides and isolates (a right-to-left override reorders the rest of the line),
# zero-width space and word joiners, a byte order mark inside text, interlinear annotation.
# Zero-width joiners (U+200C, U+200D) stay: emoji and several scripts are written with them.
_FORMAT = "\u061c\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb"
_SHOWN = re.compile(f"[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f{_FORMAT}]")


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object) -> str:
    return _SHOWN.sub(_escape, str(text))


def without_controls(text: str) -> str:
    """For what is written into a file's header (front matter): the controls simply go."""
    return _CONTROL.sub("", text)


def markup_safe(text: object) -> str:
    from rich.markup import escape

    return escape(printable(text))
