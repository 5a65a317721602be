"""The studio calendar: the date of each day number, and the dates a text names.

Day 1 falls on ``World.start_date``; a studio whose world.json gives none starts on the first
date from ``CALENDAR_FROM`` that falls on its ``first_weekday``, so its weekdays stay the ones
it always had. ``resolve`` finds what a brief or an event says about days (heute, morgen,
„am Donnerstag“, „in zwei Wochen“, „12. Dezember“; today, next Friday, December 12) and
reads it against the day the text was given: the text itself is never changed, the
resolution is shown beside it (``annotate``), because a character reading „in zwei Wochen“
three days later cannot know from when.

Pure: no files, no clock; a world is only asked for the date of a day.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any, Callable

from .ids import parse_scene_ref
from .lang import phrase
from .schedule import WEEKDAYS

if TYPE_CHECKING:
    from .models import Brief, World

#: Day 1 of a studio without a ``start_date`` is the first date from here that falls on its first_weekday.
CALENDAR_FROM = date(2026, 11, 2)
#: The years a ``start_date`` may lie in: the day numbers after it must still be dates.
START_YEARS = (1000, 6999)
DAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}")
#: Resolutions shown beside one text at most: a text naming more days is a timetable, and each
#: shown one lengthens every prompt and memory that carries the text.
SHOWN_MAX = 12


def default_start(first_weekday: str) -> date:
    """The date of day 1 when world.json gives none."""
    return on_or_after(CALENDAR_FROM, first_weekday)


def on_or_after(when: date, weekday: str) -> date:
    """The first date from ``when`` on that falls on ``weekday`` (``mon`` … ``sun``)."""
    return when + timedelta(days=(WEEKDAYS.index(weekday) - when.weekday()) % 7)


def day_date(start: date, day: int) -> date:
    """The date of day number ``day`` when day 1 is ``start`` (``OverflowError`` past year 9999)."""
    return start + timedelta(days=day - 1)


def day_number(start: date, when: date) -> int:
    return (when - start).days + 1


def parse_iso(value: Any) -> date | None:
    """A ``date``, or text of the form YYYY-MM-DD that is one; else None."""
    if isinstance(value, date) and not isinstance(value, datetime):
        return value
    if isinstance(value, str) and _ISO.fullmatch(value.strip()):
        try:
            return date.fromisoformat(value.strip())
        except ValueError:
            return None
    return None


def start_problem(value: Any, first_weekday: str | None) -> str | None:
    """Why ``value`` cannot be the ``start_date`` of a world whose day 1 is ``first_weekday``."""
    if value is None:
        return None
    start = parse_iso(value)
    if start is None:
        # Only the ISO form: pydantic would read a bare number as seconds since 1970.
        return f"{value!r} is not a date of the form YYYY-MM-DD, e.g. 2026-11-02"
    if not START_YEARS[0] <= start.year <= START_YEARS[1]:
        return f"a year from {START_YEARS[0]} to {START_YEARS[1]}: every day number after it must stay a date"
    if first_weekday in WEEKDAYS and WEEKDAYS[start.weekday()] != first_weekday:
        return f"{start.isoformat()} is a {DAY_NAMES[start.weekday()]}, but first_weekday is {first_weekday}"
    return None


def weekday_of(value: Any) -> str | None:
    """``mon`` … ``sun`` of a date given as in world.json; None when it is not one."""
    when = parse_iso(value)
    return WEEKDAYS[when.weekday()] if when else None


def time_words(language: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The words that name a day in ``language`` (English where it has none): weekdays, and the
    full month names."""
    words = _WORDS.get(language, _WORDS["en"])
    return tuple(words["weekdays"]), tuple(_MONTHS_DE if words is _WORDS["de"] else _MONTHS_EN)


def date_text(language: str, when: date) -> str:
    """„Dienstag, 3. November 2026“ / “Tuesday, 3 November 2026”."""
    return phrase(language, "date", weekday=phrase(language, f"weekday_{WEEKDAYS[when.weekday()]}"),
                  day=when.day, month=phrase(language, f"month_{when.month}"), year=when.year)


def brief_day(brief: Brief, otherwise: int) -> int:
    """The day a brief was given (the scene it was received in), which its „morgen“ is read from."""
    try:
        return parse_scene_ref(brief.created)[0]
    except ValueError:
        return otherwise


def next_day_on(world: World, weekday: str, first: int) -> int:
    """The first day from day ``first`` on that falls on ``weekday`` (``mon`` … ``sun``)."""
    return first + (WEEKDAYS.index(weekday) - WEEKDAYS.index(world.weekday(first))) % 7


def day_text(language: str, world: World, day: int) -> str:
    """The date phrase of day ``day``; only the weekday where the day lies past the last date there is."""
    try:
        return date_text(language, world.date(day))
    except OverflowError:
        return phrase(language, f"weekday_{world.weekday(day)}")


@dataclass(frozen=True)
class Resolved:
    """Words of a text that name a day, and the day they name."""

    text: str
    day: int
    date: date


def resolve(text: str, language: str, world: World, day: int) -> list[Resolved]:
    """What ``text`` says about days, read on day ``day``: each naming once, in the order written."""
    start = world.date(1)
    try:
        today = day_date(start, day)
    except OverflowError:
        return []
    found: dict[Resolved, None] = {}
    reached = 0
    # At each place the longest naming: „nächsten Donnerstag“ once, not again as „Donnerstag“.
    for begin, end, when in sorted(_hits(text, _rules(language), today), key=lambda h: (h[0], -h[1])):
        if begin < reached:
            continue
        reached = end
        found.setdefault(Resolved(" ".join(text[begin:end].split()), day_number(start, when), when))
    return list(found)


def annotate(text: str, language: str, world: World, day: int) -> str:
    """`` (am Donnerstag = Tag 004, Donnerstag, 5. November 2026; …)`` for ``text`` read on
    ``day``, to stand right after it; empty when it names no day."""
    found = resolve(text, language, world, day)
    if not found:
        return ""
    shown = [f"{item.text} = {_when(language, item)}" for item in found[:SHOWN_MAX]]
    return " (" + "; ".join(shown + (["…"] if len(found) > SHOWN_MAX else [])) + ")"


def _when(language: str, item: Resolved) -> str:
    shown = date_text(language, item.date)
    if item.day >= 1:
        return phrase(language, "date_day", day=f"{item.day:03d}", date=shown)
    before = 1 - item.day
    return phrase(language, "date_before_start_one" if before == 1 else "date_before_start", date=shown, days=before)


def summary(found: list[Resolved]) -> str:
    """One line for the operator: ``dates: "am Donnerstag" = day 004 (Thu 2026-11-05); …``."""
    parts = []
    for item in found[:SHOWN_MAX]:
        weekday = DAY_NAMES[item.date.weekday()][:3]
        if item.day >= 1:
            parts.append(f'"{item.text}" = day {item.day:03d} ({weekday} {item.date.isoformat()})')
        else:
            parts.append(f'"{item.text}" = {weekday} {item.date.isoformat()}, {1 - item.day} day(s) before day 001')
    return "dates: " + "; ".join(parts + ([f"and {len(found) - SHOWN_MAX} more"] if len(found) > SHOWN_MAX else []))


# -- what a text says about days --------------------------------------------------------------

#: A rule: a pattern, and the date a match of it names, read on a day (a ValueError: no date after all).
Rule = tuple["re.Pattern[str]", Callable[["re.Match[str]", date], date]]


def _hits(text: str, rules: list[Rule], today: date) -> list[tuple[int, int, date]]:
    hits = []
    for pattern, reading in rules:
        for match in pattern.finditer(text):
            try:
                hits.append((match.start(), match.end(), reading(match, today)))
            except (OverflowError, ValueError):
                pass  # a day past the calendar's end, or „31. Februar“: not a date
    return hits


def _after(today: date, weekday: int) -> date:
    """The next such weekday after ``today`` (a week on when today is one)."""
    return today + timedelta(days=(weekday - today.weekday() - 1) % 7 + 1)


def _on_or_after(today: date, weekday: int) -> date:
    """That weekday this week from ``today`` on: „am Freitag“ said on a Friday is that day."""
    return today + timedelta(days=(weekday - today.weekday()) % 7)


def _before(today: date, weekday: int) -> date:
    """The last such weekday before ``today`` (a week back when today is one)."""
    return today - timedelta(days=(today.weekday() - weekday - 1) % 7 + 1)


def _next_week(today: date, weekday: int) -> date:
    """That weekday in the week after this one (weeks run Monday to Sunday)."""
    return today + timedelta(days=7 - today.weekday() + weekday)


def _month_days(year: int, month: int) -> int:
    after = date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1)
    return (after - timedelta(days=1)).day


def _plus_months(today: date, months: int) -> date:
    month = today.month - 1 + months
    year, month = today.year + month // 12, month % 12 + 1
    return date(year, month, min(today.day, _month_days(year, month)))


def _nearest(today: date, day: int, month: int) -> date:
    """A date written without its year: the one of last, this or next year nearest to today
    (a later one when two are as near), so „12. Dezember“ in January is the past December."""
    options = [date(year, month, day) for year in (today.year - 1, today.year, today.year + 1)
               if day <= _month_days(year, month)]
    if not options:
        raise ValueError("no such date")
    return min(options, key=lambda d: (abs((d - today).days), d < today))


def _dated(match: re.Match[str], today: date, months: dict[str, int]) -> date:
    day = int(match["d"])
    month = months[match["m"].lower().rstrip(".")] if match["m"].rstrip(".").isalpha() else int(match["m"])
    return date(int(match["y"]), month, day) if match["y"] else _nearest(today, day, month)


def _offset(match: re.Match[str], today: date, numbers: dict[str, int], units: dict[str, int]) -> date:
    count = numbers.get(match["n"].lower()) if not match["n"].isdigit() else int(match["n"])
    unit = units[match["u"].lower()]
    return _plus_months(today, count) if unit == 0 else today + timedelta(days=count * unit)


def _alternatives(words) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


def _rules(language: str) -> list[Rule]:
    """The patterns of ``language`` (English for a language without its own), built once."""
    key = language if language in _WORDS else "en"
    if key not in _RULES:
        _RULES[key] = _build_rules(key)
    return _RULES[key]


def _build_rules(language: str) -> list[Rule]:
    table = _WORDS[language]
    weekdays, months, numbers, units = table["weekdays"], table["months"], table["numbers"], table["units"]
    wd, num, unit = _alternatives(weekdays), _alternatives(numbers), _alternatives(units)
    i = re.IGNORECASE
    # English month names only with their capital: "may" and "march" are verbs as well.
    mo = _alternatives(months) if language == "de" else _alternatives(m.capitalize() for m in months)
    mo_flags = i if language == "de" else 0
    rules: list[Rule] = [
        (re.compile(rf"(?<![\w-])(?P<y>\d{{4}})-(?P<m>\d{{2}})-(?P<d>\d{{2}})(?![\w-])"),
         lambda m, t: date(int(m["y"]), int(m["m"]), int(m["d"]))),
        (re.compile(rf"\b{table['in']}\s+(?P<n>\d{{1,4}}|{num})\s+(?P<u>{unit})\b", i),
         lambda m, t: _offset(m, t, numbers, units)),
        (re.compile(rf"\b(?:{table['next_week']})\s+(?:{table['on']}\s+)?(?P<w>{wd})\b", i),
         lambda m, t: _next_week(t, weekdays[m["w"].lower()])),
        (re.compile(rf"\b(?P<w>{wd})\s+(?:{table['of_next_week']})\b", i),
         lambda m, t: _next_week(t, weekdays[m["w"].lower()])),
        (re.compile(rf"\b(?:{table['past_weekday']})\s+(?P<w>{wd})\b", i),
         lambda m, t: _before(t, weekdays[m["w"].lower()])),
        (re.compile(rf"\b(?:(?P<pre>{table['before_weekday']})\s+)?(?P<w>{wd})\b", i),
         lambda m, t: (_after if (m["pre"] or "").lower() in table["strictly_next"] else _on_or_after)(
             t, weekdays[m["w"].lower()])),
    ]
    for pattern, offset, flags in table["relative"]:
        rules.append((re.compile(pattern, flags), lambda m, t, offset=offset: t + timedelta(days=offset)))
    for pattern in table["dates"]:
        rules.append((re.compile(pattern.format(mo=mo), mo_flags), lambda m, t: _dated(m, t, months)))
    return rules


_RULES: dict[str, list[Rule]] = {}

_NUMBERS_DE = {"ein": 1, "eine": 1, "einem": 1, "einer": 1, "zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6,
               "sieben": 7, "acht": 8, "neun": 9, "zehn": 10, "elf": 11, "zwölf": 12, "vierzehn": 14}
_NUMBERS_EN = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
               "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fourteen": 14}
_MONTHS_DE = ["januar", "februar", "märz", "april", "mai", "juni", "juli", "august", "september", "oktober",
              "november", "dezember"]
_MONTHS_EN = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
              "november", "december"]


def _month_names(full: list[str], extra: dict[str, int]) -> dict[str, int]:
    names = {name: number for number, name in enumerate(full, 1)}
    names.update({name[:3] + ".": number for number, name in enumerate(full, 1) if len(name) > 4})
    names.update({name[:3]: number for number, name in enumerate(full, 1) if len(name) > 4})
    names.update(extra)
    return names


_WORDS: dict[str, dict[str, Any]] = {
    "de": {
        "weekdays": {"montag": 0, "dienstag": 1, "mittwoch": 2, "donnerstag": 3, "freitag": 4, "samstag": 5,
                     "sonnabend": 5, "sonntag": 6},
        "months": _month_names(_MONTHS_DE, {"jänner": 1, "sept": 9, "sept.": 9, "mär": 3, "mär.": 3}),
        "numbers": _NUMBERS_DE,
        "units": {"tag": 1, "tage": 1, "tagen": 1, "woche": 7, "wochen": 7, "monat": 0, "monate": 0, "monaten": 0},
        "in": "in",
        "on": "am",
        "next_week": r"nächste\s+woche|kommende\s+woche",
        "of_next_week": r"nächster\s+woche|kommender\s+woche",
        "before_weekday": r"am|bis|ab|nächsten|nächster|kommenden|kommender|diesen|diesem",
        "strictly_next": ("nächsten", "nächster", "kommenden", "kommender"),
        "past_weekday": r"seit|(?:am\s+)?letzten|letzter|(?:am\s+)?vergangenen|vergangener",
        # „Morgen“ with a capital is the morning or a greeting („Morgen zusammen!“), only
        # „morgen“ is tomorrow; and „guten morgen“ typed in lower case is a greeting still.
        "relative": [(r"\bübermorgen\b", 2, re.IGNORECASE), (r"(?<![Gg]uten\s)(?<![Hh]eute\s)(?<![Gg]estern\s)\bmorgen\b", 1, 0),
                     (r"\bheute\b", 0, re.IGNORECASE),
                     (r"\bvorgestern\b", -2, re.IGNORECASE), (r"\bgestern\b", -1, re.IGNORECASE)],
        "dates": [r"(?<![\w.])(?P<d>\d{{1,2}})\.\s*(?P<m>{mo})(?![\wäöü])(?:\s+(?P<y>\d{{4}})(?!\d))?",
                  r"(?<![\w.])(?P<d>\d{{1,2}})\.(?P<m>\d{{1,2}})\.(?P<y>\d{{4}})(?!\d)",
                  # Without a year only after a word that makes it a date: „Abschnitt 3.4.“ is none.
                  r"(?:(?<=\bam\s)|(?<=\bbis\s)|(?<=\bab\s)|(?<=\bvom\s)|(?<=\bzum\s)|(?<=\bden\s)|(?<=\bdem\s)|(?<=\bseit\s)|(?<=\balso\s))(?P<d>\d{{1,2}})\.(?P<m>\d{{1,2}})\.(?P<y>)(?![\d.])"],
    },
    "en": {
        "weekdays": {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5,
                     "sunday": 6},
        "months": _month_names(_MONTHS_EN, {"sept": 9, "sept.": 9}),
        "numbers": _NUMBERS_EN,
        "units": {"day": 1, "days": 1, "week": 7, "weeks": 7, "month": 0, "months": 0},
        "in": "in",
        "on": "on",
        "next_week": r"next\s+week",
        "of_next_week": r"next\s+week",
        "before_weekday": r"on|by|until|from|next|this|coming|this\s+coming",
        "strictly_next": ("next",),
        "past_weekday": r"since|(?:on\s+)?last|(?:on\s+)?past",
        "relative": [(r"\b(?:the\s+)?day\s+after\s+tomorrow\b", 2, re.IGNORECASE), (r"\btomorrow\b", 1, re.IGNORECASE),
                     (r"\btoday\b", 0, re.IGNORECASE),
                     (r"\b(?:the\s+)?day\s+before\s+yesterday\b", -2, re.IGNORECASE), (r"\byesterday\b", -1, re.IGNORECASE)],
        "dates": [r"\b(?P<m>{mo})\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(?P<y>\d{{4}})(?!\d))?",
                  r"\b(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m>{mo})(?![\w])(?:,?\s+(?P<y>\d{{4}})(?!\d))?"],
    },
}
