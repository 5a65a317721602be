"""What a drift is, and the tolerant readings every file kind shares.

A drift is a difference from the canonical format that the doctor can repair without
losing a value. An error is something it cannot repair (a line that is not JSON): it is
reported and the text is kept exactly as it is. A warning needs no repair (an artifact
file that is not in the folder).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path

from .. import jsontext
from ..ids import SCENE_REF_RE
from ..models import WEEKDAYS, scene_ref

DRIFT, WARNING, ERROR = "drift", "warning", "error"


@dataclass(frozen=True)
class Drift:
    file: str
    line: int | None
    what: str
    fix: str
    kind: str = DRIFT
    #: The fix wrote a value that was not in the files (a persona, a role): a person should read it.
    draft: bool = False

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        label = {WARNING: "warning: ", ERROR: "error: "}.get(self.kind, "")
        mark = " (DRAFT: please read and rewrite)" if self.draft else ""
        return f"{where}: {label}{self.what} — {self.fix}{mark}"

    def as_json(self) -> dict:
        return asdict(self)


class Finding:
    """Drifts found in one file before their place (file, line) is known."""

    def __init__(self) -> None:
        self.items: list[tuple[str, str, str, bool]] = []

    def drift(self, what: str, fix: str, draft: bool = False) -> None:
        self.items.append((what, fix, DRIFT, draft))

    def warning(self, what: str, fix: str) -> None:
        self.items.append((what, fix, WARNING, False))

    def error(self, what: str, fix: str = "left as it is; correct it by hand") -> None:
        self.items.append((what, fix, ERROR, False))

    @property
    def changes(self) -> bool:
        return any(kind == DRIFT for _, _, kind, _ in self.items)

    @property
    def failed(self) -> bool:
        return any(kind == ERROR for _, _, kind, _ in self.items)

    def located(self, file: str, line: int | None) -> list[Drift]:
        return [Drift(file, line, what, fix, kind, draft) for what, fix, kind, draft in self.items]


def read_json_object(path: Path, display: str) -> tuple[dict | None, list[Drift]]:
    """A JSON object from a file, or the error that names file and line (the file is kept)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        return None, [Drift(display, None, f"not UTF-8 (byte {exc.start})", "left as it is; correct it by hand", ERROR)]
    try:
        data = jsontext.loads(text)
    except jsontext.JSONDecodeError as exc:
        return None, [Drift(display, exc.lineno, f"not valid JSON: {exc.msg}", "left as it is; correct it by hand", ERROR)]
    if not isinstance(data, dict):
        return None, [Drift(display, 1, f"expected a JSON object, found {type_name(data)}",
                            "left as it is; correct it by hand", ERROR)]
    return data, []


def type_name(value: object) -> str:
    return {list: "a list", str: "a string", int: "a number", float: "a number", bool: "true/false",
            type(None): "null"}.get(type(value), type(value).__name__)


_LOOSE_REF = re.compile(r"^\s*day[-_ ]?(\d{1,18})\s*/\s*scene[-_ ]?(\d{1,18})\s*([A-Za-z]*)\s*$", re.IGNORECASE)


def canonical_ref(value: object) -> str | None:
    """``day-002/scene-01b`` → ``day-002/scene-01``: the scene a sub-scene belongs to.

    Lines keep their order in the file, so two memories of one scene stay in the order
    they were written; what the suffix said is kept beside them by the caller."""
    if not isinstance(value, str):
        return None
    match = _LOOSE_REF.match(value)
    return scene_ref(int(match.group(1)), int(match.group(2))) if match else None


def is_scene_ref(value: object) -> bool:
    return isinstance(value, str) and bool(SCENE_REF_RE.match(value))


def day_number(value: object) -> int | None:
    """A day as written by hand: ``3``, ``"3"``, ``"day-003"``, ``"Tag 3"``."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float) and value.is_integer() and value >= 0:
        return int(value)
    if isinstance(value, str):
        match = re.fullmatch(r"\s*(?:day|tag)?[-_ ]?(\d{1,18})\s*", value, re.IGNORECASE)
        if match:
            return int(match.group(1))
    return None


_WEEKDAY_NAMES = {
    "mon": ("mon", "monday", "montag", "mo"),
    "tue": ("tue", "tuesday", "dienstag", "di"),
    "wed": ("wed", "wednesday", "mittwoch", "mi"),
    "thu": ("thu", "thursday", "donnerstag", "do"),
    "fri": ("fri", "friday", "freitag", "fr"),
    "sat": ("sat", "saturday", "samstag", "sonnabend", "sa"),
    "sun": ("sun", "sunday", "sonntag", "so"),
}


def weekday_of(value: object) -> str | None:
    """``Freitag``, ``friday``, ``Fri`` → ``fri``."""
    if not isinstance(value, str):
        return None
    word = value.strip().lower().rstrip(".")
    return next((short for short, names in _WEEKDAY_NAMES.items() if word in names), None)


def first_weekday(current_weekday: str, day: int) -> str:
    """The weekday of day 1, when day ``day`` is ``current_weekday``."""
    return WEEKDAYS[(WEEKDAYS.index(current_weekday) - (max(day, 1) - 1)) % 7]


def keep_under(target: dict, key: str, value: object) -> str:
    """Put ``value`` into ``target`` under ``key``, never over a different value already there.

    Returns the key used, so a report can say where the value went."""
    candidate, number = key, 1
    while candidate in target and target[candidate] != value:
        number += 1
        candidate = f"{key}_{number}"
    target[candidate] = value
    return candidate


def shorten(text: str, limit: int = 60) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
