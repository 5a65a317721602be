"""Charts as inline SVG: nothing to load, readable without JavaScript."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..kinds import all_kinds
from ..kinds.reflection import triggered_value
from ..models import parse_scene_ref
from .html import esc

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


def accumulator_svg(points: list[AccumulatorPoint], threshold: int, label_threshold: str, width: int = 760, height: int = 220) -> str:
    if not points:
        return ""
    left, right, top, bottom = 40, 12, 14, 28
    peak = max([threshold, *(p.value for p in points)]) * 1.1
    span = max(len(points) - 1, 1)

    def x(i: int) -> float:
        return left + (width - left - right) * (i / span if len(points) > 1 else 0.5)

    def y(v: float) -> float:
        return top + (height - top - bottom) * (1 - v / peak)

    line, marks, days = [], [], []
    previous_day = None
    for i, point in enumerate(points):
        line.append(f"{x(i):.1f},{y(point.value):.1f}")
        if point.reflected:
            line.append(f"{x(i):.1f},{y(0):.1f}")
        css = "point trigger" if point.reflected else "point"
        marks.append(f'<circle class="{css}" cx="{x(i):.1f}" cy="{y(point.value):.1f}" r="{5 if point.reflected else 3.5}">'
                     f"<title>{esc(point.ref)} {esc(point.type)}: {point.value}</title></circle>")
        day = parse_scene_ref(point.ref)[0]
        if day != previous_day:
            days.append(f'<line class="daytick" x1="{x(i):.1f}" x2="{x(i):.1f}" y1="{top}" y2="{height - bottom}"/>'
                        f'<text class="axis" x="{x(i) + 3:.1f}" y="{height - 10}">{day}</text>')
            previous_day = day
    limit = y(threshold)
    return (
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" preserveAspectRatio="xMidYMid meet">'
        + "".join(days)
        + f'<line class="threshold" x1="{left}" x2="{width - right}" y1="{limit:.1f}" y2="{limit:.1f}"/>'
        f'<text class="axis" x="{width - right}" y="{limit - 4:.1f}" text-anchor="end">{esc(label_threshold)} {threshold}</text>'
        f'<line class="axisline" x1="{left}" x2="{width - right}" y1="{y(0):.1f}" y2="{y(0):.1f}"/>'
        f'<text class="axis" x="{left - 6}" y="{y(0) + 4:.1f}" text-anchor="end">0</text>'
        f'<polyline class="series" points="{" ".join(line)}"/>'
        + "".join(marks)
        + "</svg>"
    )


def scenes_per_day_svg(counts: dict[int, dict[str, int]], label_day: str, width: int = 760, height: int = 150) -> str:
    """Stacked bars: one bar per day, one colour per scene type."""
    if not counts:
        return ""
    left, right, top, bottom = 30, 10, 10, 26
    days = sorted(counts)
    most = max(sum(c.values()) for c in counts.values()) or 1
    slot = (width - left - right) / len(days)
    bar = min(slot * 0.7, 60)
    order = type_order()
    parts = []
    for i, day in enumerate(days):
        x = left + slot * i + (slot - bar) / 2
        base = height - bottom
        for kind in sorted(counts[day], key=lambda k: (order.index(k) if k in order else 99, k)):
            amount = counts[day][kind]
            h = (height - top - bottom) * amount / most
            base -= h
            parts.append(f'<rect class="bar {esc(type_class(kind))}" x="{x:.1f}" y="{base:.1f}" width="{bar:.1f}" height="{h:.1f}">'
                         f"<title>{esc(label_day)} {day} · {esc(kind)}: {amount}</title></rect>")
        parts.append(f'<text class="axis" x="{x + bar / 2:.1f}" y="{height - 8}" text-anchor="middle">{day}</text>')
    return f'<svg class="chart" viewBox="0 0 {width} {height}" role="img">{"".join(parts)}</svg>'
