"""Replies handed in from outside: a reply file, a folder of ``<agent>.json``, or JSON on standard input.

Only the shape is checked here; the Game Master validates each reply against its scene.
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from . import jsontext
from .problems import GamemasterError


def read_reply(source: str, stdin: TextIO) -> str:
    """One reply's text: from the file ``source``, or from ``stdin`` for ``-``."""
    return stdin.read() if source == "-" else _read_text(Path(source))


def read_replies(source: str, stdin: TextIO) -> dict:
    """Agent id → reply, from a folder of ``<agent>.json`` or, for ``-``, one JSON object on
    ``stdin``: a single reply (it names its agent and scene) or an object keyed by agent id."""
    if source == "-":
        text = stdin.read()
        try:
            data = jsontext.loads(text)
        except jsontext.JSONDecodeError as exc:
            raise GamemasterError(f"stdin:{exc.lineno}: not valid JSON: {exc.msg}") from None
        if isinstance(data, dict) and "agent" in data and "scene" in data:
            return {data["agent"]: data}
        if not isinstance(data, dict):
            raise GamemasterError("stdin: expected an object mapping agent ids to replies")
        return data
    folder = Path(source)
    if not folder.is_dir():
        raise GamemasterError(f"{folder}: not a folder of replies")
    given = {}
    for path in sorted(folder.glob("*.json")):
        try:
            given[path.stem] = jsontext.loads(_read_text(path))
        except jsontext.JSONDecodeError as exc:
            raise GamemasterError(f"{path}:{exc.lineno}: not valid JSON: {exc.msg}; nothing stored") from None
    if not given:
        raise GamemasterError(f"{folder}: no <agent>.json files")
    return given


def _read_text(path: Path) -> str:
    """A reply file's text; what cannot be one is rejected by name, and nothing is stored."""
    try:
        return path.read_text(encoding="utf-8")
    except IsADirectoryError:
        raise GamemasterError(f"{path}: a folder, not a reply file; nothing stored") from None
    except UnicodeDecodeError as exc:
        raise GamemasterError(f"{path}: not UTF-8 (byte {exc.start}); nothing stored") from None
    except OSError as exc:
        raise GamemasterError(f"{path}: {exc.strerror or exc}; nothing stored") from None
