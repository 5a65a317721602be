"""A scene's reason in the studio's language.

Scene records and the CLI keep reasons in English, as written from the templates of the
toolkit's own (``lang.REASONS``) and of each kind (its ``reasons`` table, ``kinds/base.py``);
the report and the prompts read one back through those English templates and show it in
the studio's language. The tables are read from the kind registry when a reason is translated,
so a kind's wording is translated as it is now, and a kind from another package is too.
"""

from __future__ import annotations

import functools
import re

from .kinds import all_kinds
from .lang import PHRASES, REASONS, phrase, short_name

#: Fields that hold character ids (shown as first names when names are given).
REASON_IDS = ("who", "first", "second", "partners", "host")
_SLOTS = ("morning", "lunch", "afternoon", "evening")


@functools.lru_cache(maxsize=None)  # by the template itself: a kind's changed wording is a new pattern
def _pattern(template: str) -> re.Pattern:
    parts = re.split(r"\{(\w+)\}", template)
    out = []
    for n, part in enumerate(parts):
        if n % 2 == 0:
            out.append(re.escape(part))
        elif part in REASON_IDS:
            out.append(rf"(?P<{part}>[\w.-]+(?:, [\w.-]+)*)")
        elif part == "slot" and "{slot}:" not in template:  # an event's ", afternoon" (none in the morning)
            out.append(rf"(?P<slot>(?:, (?:{'|'.join(_SLOTS)}))?)")
        elif part == "slot":
            out.append(rf"(?P<slot>{'|'.join(_SLOTS)})")
        elif part in ("day", "next", "count", "rooms", "value", "threshold", "came", "invited"):
            out.append(rf"(?P<{part}>\d+)")
        elif part == "what":  # a gathering's; the attendance follows after "; "
            out.append(r"(?P<what>[^;]+?)")
        else:
            out.append(rf"(?P<{part}>.+?)")
    return re.compile("".join(out) + r"\Z", re.S)


def _templates() -> list[dict[str, str]]:
    """Every reason's templates: the toolkit's, then each kind's as its ``reasons`` table says now."""
    return [t for _, t in REASONS] + [t for kind in all_kinds().values() for t in kind.reasons.values()]


def reason(language: str, text: str, names: dict[str, str] | None = None) -> str:
    """A scene's reason in ``language`` (ids as first names when ``names`` are given); a reason
    no template knows is kept as written, part by part (``; ``)."""
    if language == "en" or language not in PHRASES:
        return text
    head, _, last = text.rpartition("; ")
    if head and _pattern(dict(REASONS)["deferred"]["en"]).match(last):  # a note added to a scene's reason
        return f"{reason(language, head, names)}; {_translate(language, last, names or {})}"
    whole = _translate(language, text, names or {})
    if whole is not None:
        return whole
    return "; ".join(_translate(language, part, names or {}) or part for part in text.split("; "))


def _translate(language: str, text: str, names: dict[str, str]) -> str | None:
    for templates in _templates():
        match = _pattern(templates["en"]).match(text)
        if not match or language not in templates:
            continue
        values = dict(match.groupdict())
        for field in REASON_IDS:
            if field in values:
                values[field] = ", ".join(short_name(names[i]) if i in names else i for i in values[field].split(", "))
        if "slot" in values:
            slot = values["slot"].lstrip(", ")
            shown = phrase(language, f"slot_{slot}") if slot in _SLOTS else slot
            values["slot"] = (", " + shown) if values["slot"].startswith(", ") else shown
        if "weekday" in values and f"weekday_{values['weekday'][:3].lower()}" in PHRASES[language]:
            values["weekday"] = phrase(language, f"weekday_{values['weekday'][:3].lower()}")
        if "why" in values:
            values["why"] = _translate(language, values["why"], names) or values["why"]
        return templates[language].format(**values)
    return None
