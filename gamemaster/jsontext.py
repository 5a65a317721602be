"""JSON as the tool reads and writes it: strict, bounded, in one place.

Python's ``json`` reads more than JSON and fails on hostile input with errors its
callers do not expect: ``NaN`` and ``Infinity`` are accepted, ``1e999`` silently
becomes ``inf`` (which ``json.dumps`` then writes as ``Infinity``, and ``jq`` or
node reject the file), a number of more than 4300 digits raises a bare
``ValueError`` and deep nesting a ``RecursionError``. ``loads`` turns each of them
into a ``json.JSONDecodeError`` with its line and a reason, so every reader that
reports invalid JSON as ``file:line: reason`` reports these the same way.
``dumps`` never writes NaN or an infinity.
"""

from __future__ import annotations

import json
import math
import re
import sys
from typing import Any, Callable

JSONDecodeError = json.JSONDecodeError

#: Arrays and objects inside each other, at most. Python's parser recurses once per level,
#: so a line of a few thousand brackets exhausts its stack; no state file or reply needs more
#: than a handful of levels, and the limit keeps well below what any caller's stack leaves.
MAX_DEPTH = 100

# A JSON string (escapes included), or a number or one of the words Python would take for one.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|-?(?:Infinity|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|NaN', re.S)
_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[{]|[\]}]', re.S)


class _Refused(Exception):
    def __init__(self, token: str, reason: str):
        self.token, self.reason = token, reason


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _Refused(text, f"{text} is out of range (not a finite number)")
    return value


def _constant(text: str) -> float:
    raise _Refused(text, f"{text} is not a JSON number")


def _encoding(raw: bytes | bytearray) -> str:
    """``json.detect_encoding(raw)``, answered at once for a line that starts as every object does.

    ``{`` followed by a byte other than zero is no byte-order mark and no UTF-16/32 text: UTF-8.
    ``detect_encoding`` is a Python function; a listing or a scan calls this once per line."""
    if raw[:1] == b"{" and raw[1:2] not in (b"\x00", b""):
        return "utf-8"
    return json.detect_encoding(raw)


# One decoder for every call: ``json.loads`` with hooks would build a new one each time.
_DECODER = json.JSONDecoder(parse_float=_finite, parse_constant=_constant)


def loads(text: str | bytes | bytearray) -> Any:
    """``json.loads`` that accepts only strict JSON within the limits above.

    Raises ``json.JSONDecodeError`` (with ``lineno``, ``colno`` and ``msg``) for
    whatever is not; a bytes argument that is no text raises ``UnicodeDecodeError``.
    """
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode(_encoding(text), "surrogatepass")
    elif text.startswith("\ufeff"):  # as json.loads says it
        raise JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    deep = _too_deep(text)
    if deep is not None:
        raise JSONDecodeError(f"nested deeper than {MAX_DEPTH} levels", text, deep)
    try:
        return _DECODER.decode(text)
    except _Refused as exc:
        refused = exc.token
        raise JSONDecodeError(exc.reason, text, _find(text, lambda token: token == refused)) from None
    except JSONDecodeError:
        raise
    except RecursionError:
        # Below MAX_DEPTH this needs a caller that has used up nearly all of the stack itself.
        raise JSONDecodeError("nested too deep to read here", text, 0) from None
    except ValueError:
        limit = sys.get_int_max_str_digits()
        position = _find(text, lambda token: token.lstrip("-").isdigit() and len(token.lstrip("-")) > limit)
        raise JSONDecodeError(f"a number with more than {limit} digits", text, position) from None


#: What ``loads_line`` returns for a line it leaves to ``loads``.
UNREAD = object()
_SCAN = _DECODER.scan_once
try:  # the `fast` extra: a parser in C, as strict as ``loads`` (no NaN, no infinity, no 1e999)
    from orjson import loads as _compiled
except ImportError:  # pragma: no cover - without the extra
    _compiled = None


def loads_line(text: str) -> Any:
    """``loads(text)`` for a line that is one JSON value, read with one call into a decoder (a
    cold index build reads a million); ``UNREAD`` for any other line, which ``loads`` then reads
    or refuses. With the ``fast`` extra (orjson) an integer beyond 64 bits comes back as a float:
    the one value it reads otherwise, which the index never takes for a number it keeps."""
    if text.count("[") + text.count("{") > MAX_DEPTH:
        return UNREAD  # may be nested too deep: ``loads`` tells
    if _compiled is not None:
        try:
            return _compiled(text)
        except Exception:  # orjson refuses more than strict JSON (a lone surrogate): ``loads`` decides
            return UNREAD
    try:
        value, end = _SCAN(text, 0)
    except Exception:  # not JSON, a refused number, nested beyond the stack: ``loads`` says which
        return UNREAD
    return value if end == len(text) else UNREAD


def _too_deep(text: str) -> int | None:
    """Where the nesting first goes past ``MAX_DEPTH``, if it does."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return None  # the common case, counted in C
    depth = 0
    for match in _BRACKET.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return match.start()
        elif token in "]}":
            depth -= 1
    return None


def _find(text: str, wanted: Callable[[str], bool]) -> int:
    """The position of the first number-like token outside strings that ``wanted`` picks."""
    for match in _TOKEN.finditer(text):
        token = match.group()
        if not token.startswith('"') and wanted(token):
            return match.start()
    return 0


def dumps(data: Any, **options: Any) -> str:
    """``json.dumps`` that refuses NaN and infinities instead of writing what is not JSON."""
    options.setdefault("ensure_ascii", False)
    return json.dumps(data, allow_nan=False, **options)


class Encoded(str):
    """An item already written as JSON (a model's ``model_dump_json()``): ``dumps_rows`` puts it in as it is."""


def dumps_rows(data: dict[str, Any]) -> str:
    """An object whose lists hold one item per line: ``{"memories": [...]}`` as a listing prints it.

    The same JSON as ``dumps(data, indent=2)``, laid out like a stream (a memory a line, which
    ``grep`` and ``jq`` read alike); written by the C encoder, which ``indent`` would turn off —
    tens of thousands of memories take a tenth of the time."""
    parts = []
    for key, value in data.items():
        if type(value) is list and value:
            rows = ",\n    ".join(item if type(item) is Encoded else dumps(item) for item in value)
            parts.append(f"  {dumps(key)}: [\n    {rows}\n  ]")
        else:
            parts.append(f"  {dumps(key)}: {dumps(value)}")
    return "{\n" + ",\n".join(parts) + "\n}\n" if parts else "{}\n"


BOM = b"\xef\xbb\xbf"


def without_bom(raw: bytes | str) -> bytes | str:
    """A line without the byte-order mark some Windows editors put at the start of a file.

    Offsets and line numbers still count it; the tool itself never writes one.
    """
    if isinstance(raw, bytes):
        return raw[3:] if raw.startswith(BOM) else raw
    return raw[1:] if raw.startswith("\ufeff") else raw
