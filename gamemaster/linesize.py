"""How long a memory line may be: the one limit every reader and writer of a stream keeps.

A stream is read line by line on every prompt, so one enormous line (an import, a hand
edit, a runaway reply) would make every command that reads it slow or stop it outright.
A line longer than ``MAX_LINE_BYTES`` is reported with its file and line, never parsed,
indexed or shown; no writer writes one.
"""

from __future__ import annotations

from typing import Any

from . import jsontext

#: The longest memory line, in bytes of UTF-8 without its line end.
MAX_LINE_BYTES = 1_048_576

#: The most one text from outside (a reply's field, its tags, an interview's answer, a
#: meeting's transcript) may hold once written as JSON. A memory line carries a few of them
#: side by side (a conversation's summary, tags, topic and the meeting's transcript), so each
#: gets an eighth of a line and the line always fits.
MAX_TEXT_BYTES = MAX_LINE_BYTES // 8


#: What is wrong with such a line (its exact size is not known without reading all of it).
LINE_TOO_LONG = f"longer than {MAX_LINE_BYTES:,} bytes, the most a memory line may hold"


def line_too_long() -> str:
    """Why a stream line is missing from prompts, recall and ``memories``."""
    return f"{LINE_TOO_LONG}; left out (shorten it by hand)"


def json_size(value: Any) -> int:
    """Bytes ``value`` takes in a memory line (JSON, UTF-8)."""
    return len(jsontext.dumps(value).encode("utf-8"))


def memory_too_long(memory) -> str | None:
    """Why ``memory`` cannot be written as one line (naming its largest field), or None."""
    size = len(memory.to_line().encode("utf-8"))
    if size <= MAX_LINE_BYTES:
        return None
    data = memory.model_dump(mode="json")
    metadata = data.pop("metadata", None) or {}
    sizes = {**{name: json_size(value) for name, value in data.items()},
             **{f"metadata.{key}": json_size(value) for key, value in metadata.items()}}
    largest = max(sizes, key=sizes.__getitem__)
    return (f"{memory.id} would be a memory line of {size:,} bytes, more than {MAX_LINE_BYTES:,} "
            f"({largest} alone is {sizes[largest]:,} bytes)")


def text_too_long(value: Any) -> str | None:
    """Why ``value`` cannot go into a memory line, or None when it fits."""
    size = json_size(value)
    if size <= MAX_TEXT_BYTES:
        return None
    return (f"{size:,} bytes as JSON, more than the {MAX_TEXT_BYTES:,} one text may hold "
            f"(a memory line holds at most {MAX_LINE_BYTES:,} bytes); shorten it")
