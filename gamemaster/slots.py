"""The time of day: a day's scenes fall into slots, and events and gatherings happen at theirs.

The slot of a point in the day follows from how many of the day's ``scenes_per_day``
counted scenes (ARRIVAL included) have been played, ``done``:

- ARRIVAL (``done`` = 0) and the scenes before the middle of the day are the **morning**;
- the scene at the middle (``done`` = ``scenes_per_day // 2``) is **lunch** (where the lunch
  ENCOUNTER has always been);
- the day's last scene (``done`` = ``scenes_per_day - 1``) is the **evening**;
- what lies between lunch and the last scene is the **afternoon**.

With the default six scenes: ARRIVAL and the next two in the morning, the fourth at lunch,
the fifth in the afternoon, the sixth in the evening. A short day skips slots (two scenes:
morning and evening). An event or a gathering set for a slot comes before the first counted
scene at or past that slot, so whatever is set for a day comes before its last scene.
Where the studio is now is ``scenes.current_slot`` (it counts the day's scenes).
"""

from __future__ import annotations

import re
from typing import Literal

from .lang import phrase

SLOTS = ("morning", "lunch", "afternoon", "evening")
Slot = Literal["morning", "lunch", "afternoon", "evening"]

#: Words that name a slot (German and English labels, and how people write them in passing).
_WORDS = {
    "morning": ("morning", "vormittag", "vormittags", "morgens", "morgen"),
    "lunch": ("lunch", "noon", "midday", "mittag", "mittags", "mittagspause"),
    "afternoon": ("afternoon", "nachmittag", "nachmittags"),
    "evening": ("evening", "abend", "abends", "night"),
}


def slot_index(slot: str) -> int:
    return SLOTS.index(slot)


def parse_slot(text: str) -> str | None:
    """The slot a word names (``lunch``, ``Mittag``, ``mittags`` …), or None."""
    word = str(text).strip().lower()
    return next((slot for slot, words in _WORDS.items() if word in words), None)


def slot_words(slot: str) -> tuple[str, ...]:
    return _WORDS[slot]


_WORD = re.compile(r"\w+")
#: German „morgen“ alone is tomorrow; it is the morning only as „am/jeden/den Morgen“.
_THE_MORNING = re.compile(r"\b(?:am|jeden|den)\s+morgen\b", re.IGNORECASE)


def named_slots(text: str) -> set[str]:
    """The slots a text names in passing („Mittwoch mittags“, „am Abend“, „lunch“)."""
    words = {w.lower() for w in _WORD.findall(text)}
    found = {slot for slot, names in _WORDS.items() if words & (set(names) - {"morgen"})}
    if _THE_MORNING.search(text):
        found.add("morning")
    return found


def lunch_position(scenes_per_day: int) -> int:
    """Counted scenes played before the lunch scene."""
    return scenes_per_day // 2


def slot_at(done: int, scenes_per_day: int) -> str:
    """The slot of the counted scene that comes after ``done`` counted scenes of the day."""
    if done <= 0:
        return "morning"
    if done >= scenes_per_day - 1:
        return "evening"
    lunch = lunch_position(scenes_per_day)
    if done < lunch:
        return "morning"
    return "lunch" if done == lunch else "afternoon"


def slot_label(language: str, slot: str) -> str:
    return phrase(language, f"slot_{slot}")
