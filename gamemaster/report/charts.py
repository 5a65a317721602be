"""Charts as inline SVG: nothing to load, readable without JavaScript. The numbers are
computed here, ``charts.html`` draws them; the kinds' colours are CSS (``kind_css``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..kinds import all_kinds
from ..kinds.reflection import triggered_value
from ..models import parse_scene_ref

_COLOUR = re.compile(r"^#[0-9a-fA-F]{3,8}$")
_DEFAULT_COLOUR = "#6b6b6b"


def type_order() -> list[str]:
    """The scene kinds in the order legends and stacked bars list them: the kinds' own order."""
    return list(all_kinds())


def type_class(kind: str) -> str:
    """The CSS class of a kind's badges and bars."""
    return "t-" + re.sub(r"[^a-z0-9-]", "-", kind.lower())


def kind_css() -> str:
    """Each kind's colour (``SceneKind.colour``) as a CSS variable, with its badge and bar
    rules; appended to style.css, so a kind from another package is drawn in its colour."""
    lines = ["", "/* Scene kinds: each kind's colour (SceneKind.colour), written by report/charts.py. */", ":root {"]
    rules = []
    for name, kind in all_kinds().items():
        css = type_class(name)[2:]
        colour = kind.colour if _COLOUR.match(kind.colour) else _DEFAULT_COLOUR
        lines.append(f"  --{css}: {colour};")
        rules.append(f".badge.t-{css} {{ background: var(--{css}); color: #fff; }} .bar.t-{css} {{ fill: var(--{css}); }}")
    return "\n".join(lines + ["}"] + rules) + "\n"


@dataclass
class AccumulatorPoint:
    ref: str
    type: str
    value: int  # the count after the scene, or at the moment it was reset by a reflection
    reflected: bool


def accumulator_points(studio, agent_id: str) -> list[AccumulatorPoint]:
    """The accumulator replayed from the memory stream, read after each scene the character was in.

    The stream is in the order things happened (a scene's memories are appended together, a
    brief's when it is given), so each memory adds its importance in that order, as the
    write-back does, and the end of a REFLECTION the character took part in sets it to 0.
    """
    present = [r for day in studio.days for r in studio.records[day] if agent_id in r.participants]
    reflected = {r.ref for r in present if r.type == "REFLECTION"}
    value, previous, after = 0, None, []  # after: (scene, the count after that scene's last memory so far)
    first_reset = None  # how many entries of ``after`` come before the first reflection's reset
    for memory in studio.memories.get(agent_id, []):
        ref = memory.created or "day-000/scene-00"
        if previous is not None and ref != previous and previous in reflected:
            value = 0
            first_reset = len(after) if first_reset is None else first_reset
        value += memory.importance
        after.append((ref, value))
        previous = ref
    start = _starting_count(studio, agent_id, present, after)
    until = len(after) if first_reset is None else first_reset
    after = [(ref, v + start) for ref, v in after[:until]] + after[until:]
    reached = dict(after)
    points = []
    for record in present:
        if record.ref in reached:
            count = reached[record.ref]
        else:  # nothing written for the character in this scene: the count as it stood before
            key = (record.day, record.scene)
            count = next((v for ref, v in reversed(after) if parse_scene_ref(ref) <= key), 0)
        points.append(AccumulatorPoint(record.ref, record.type, count, record.ref in reflected))
    return points


def _starting_count(studio, agent_id: str, present, after: list[tuple[str, int]]) -> int:
    """What the count held before the stream's first memory: a studio's characters may start
    with a history that is not all in their streams (the bundled ones do). Read from the value
    that triggered the first REFLECTION, or without one from the agent file's count now."""
    first = next((r for r in present if r.type == "REFLECTION"), None)
    if first is None:
        agent = studio.agents.get(agent_id)
        return agent.importance_accumulator - after[-1][1] if agent is not None and after else 0
    triggered = triggered_value(first.reason, agent_id)
    if triggered is None:
        return 0
    key = (first.day, first.scene)
    return triggered - next((v for ref, v in reversed(after) if parse_scene_ref(ref) < key), 0)


@dataclass
class Box:
    """A chart's size and the margins its axes take, in SVG units."""

    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int


@dataclass
class Mark:
    point: AccumulatorPoint
    x: float
    y: float
    radius: float


@dataclass
class AccumulatorChart:
    """The accumulator over the scenes, in SVG units: ``line`` the count (down to 0 at each
    reflection), a mark per scene, a tick where each day begins (x, day)."""

    box: Box
    line: list[tuple[float, float]]
    marks: list[Mark]
    days: list[tuple[float, int]]
    threshold: int
    limit: float  # the threshold's height
    zero: float
    label: str


def accumulator_chart(points: list[AccumulatorPoint], threshold: int, label: str,
                      width: int = 760, height: int = 220) -> AccumulatorChart | None:
    """``charts.html`` draws it; None without a point."""
    if not points:
        return None
    box = Box(width, height, 40, 12, 14, 28)
    peak = max([threshold, *(p.value for p in points)]) * 1.1
    span = max(len(points) - 1, 1)

    def x(i: int) -> float:
        return box.left + (width - box.left - box.right) * (i / span if len(points) > 1 else 0.5)

    def y(v: float) -> float:
        return box.top + (height - box.top - box.bottom) * (1 - v / peak)

    line, marks, days = [], [], []
    previous_day = None
    for i, point in enumerate(points):
        line.append((x(i), y(point.value)))
        if point.reflected:
            line.append((x(i), y(0)))
        marks.append(Mark(point, x(i), y(point.value), 5 if point.reflected else 3.5))
        day = parse_scene_ref(point.ref)[0]
        if day != previous_day:
            days.append((x(i), day))
            previous_day = day
    return AccumulatorChart(box, line, marks, days, threshold, y(threshold), y(0), label)


@dataclass
class Bar:
    kind: str
    x: float
    y: float
    width: float
    height: float
    amount: int


@dataclass
class ScenesChart:
    """Stacked bars: one bar per day (its bars and where its label stands), one colour per scene type."""

    box: Box
    days: list[tuple[int, list[Bar], float]]
    label: str  # the word for a day


def scenes_chart(counts: dict[int, dict[str, int]], label_day: str, width: int = 760, height: int = 150) -> ScenesChart | None:
    """``charts.html`` draws it; None without a day."""
    if not counts:
        return None
    box = Box(width, height, 30, 10, 10, 26)
    days = sorted(counts)
    most = max(sum(c.values()) for c in counts.values()) or 1
    slot = (width - box.left - box.right) / len(days)
    bar = min(slot * 0.7, 60)
    order = type_order()
    columns = []
    for i, day in enumerate(days):
        x = box.left + slot * i + (slot - bar) / 2
        base = height - box.bottom
        bars = []
        for kind in sorted(counts[day], key=lambda k: (order.index(k) if k in order else 99, k)):
            amount = counts[day][kind]
            h = (height - box.top - box.bottom) * amount / most
            base -= h
            bars.append(Bar(kind, x, base, bar, h, amount))
        columns.append((day, bars, x + bar / 2))
    return ScenesChart(box, columns, label_day)
