"""How the studio behaves with 7, 25 and 100 characters over a few offline days.

    python bench/scale.py [--sizes 7,25,100] [--days 5] [--no-teams]

For each size: a fresh workspace with the bundled studio (in a temporary folder),
grown by copies of the bundled agents (``vera_2``, ``vera_3``, ... with their own
copy of the memory stream, ids rewritten) and checked with ``validate``. Each size
above 7 is played twice: without teams (what copying agent files gives: one studio
in which everyone hears of every meeting) and in teams of 7 (the bundled seven are
``studio-1``, the copies numbered n are ``studio-n``). Then
``--days`` offline days, one ``advance_days`` call per day, and ``validate`` again. Per day: scenes by
kind, the share of characters idle that day (in no WORK, MEETING or ENCOUNTER),
wall and CPU seconds (``time.process_time``: this process only, no children),
CPU per character, ``os.fsync`` calls, memories written and the notice share
(memories with ``metadata.source == "meeting"``: "X und Y hatten eine Besprechung"),
the characters who reflected and those still over the reflection threshold when the day ended.

Then the all-hands brief: in a copy of the studio as it was after day 1,
``give_brief("Alle: ...")`` without ``to``, scenes played until the one
that answers the brief is applied; reported are its participants, turns and
largest prompt in characters (from ``scenes/day-XXX/scene-YY/prompts/``).

One Markdown table per size, then a summary table. Tables go to stdout, progress to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path

ACTING_KINDS = {"WORK", "MEETING", "ENCOUNTER"}
KIND_ORDER = ("ARRIVAL", "WORK", "MEETING", "ENCOUNTER", "EVENT", "REFLECTION")
#: When the all-hands brief is given: scenes played after day 1 before it.
BRIEF_MOMENTS = {"between days": 0, "mid-day": 1}
#: Scenes played after the brief before the bench gives up on it.
BRIEF_SCENES_MAX = 200
ALL_HANDS_BRIEF = "Alle: Bis Freitag braucht jede Abteilung eine spielbare Ecke der Knochentürme für die Vertical Slice."


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# -- building a studio of N characters ----------------------------------------


def copy_agent(workspace, source_id: str, copy_id: str, number: int, team: str | None = None) -> None:
    """``state/agents/<copy_id>.json`` and its memory stream, from ``source_id``'s, ids rewritten."""
    agent = json.loads(workspace.agent_path(source_id).read_text(encoding="utf-8"))
    first, _, rest = agent["name"].partition(" ")
    agent["id"] = copy_id
    if team:
        agent["team"] = team
    # A nickname in quotes is what colleagues call someone (lang.short_name), so
    # copies stay distinguishable in prompts and notices: Vera „Vera 2“ Kowalski.
    agent["name"] = f"{first} „{first} {number}“ {rest}".strip()
    workspace.agent_path(copy_id).write_text(json.dumps(agent, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    own_id = re.compile(r'"' + re.escape(source_id) + r'-(\d{3,})"')
    stream = (workspace.memories_dir / f"{source_id}.jsonl").read_text(encoding="utf-8")
    rewritten = own_id.sub(lambda m: f'"{copy_id}-{m.group(1)}"', stream)
    (workspace.memories_dir / f"{copy_id}.jsonl").write_text(rewritten, encoding="utf-8")


def build_studio(root: Path, size: int, teams: bool = False):
    from gamemaster.create import init_workspace
    from gamemaster.validate import validate_workspace

    workspace = init_workspace(root)
    bundled = workspace.agent_ids()
    if size < len(bundled):
        raise SystemExit(f"--sizes: {size} is smaller than the bundled studio ({len(bundled)} characters)")
    copies = 0
    number = 2
    while len(bundled) + copies < size:
        for source_id in bundled:
            if len(bundled) + copies >= size:
                break
            copy_agent(workspace, source_id, f"{source_id}_{number}", number, f"studio-{number}" if teams else None)
            copies += 1
        number += 1
    if teams:
        for agent_id in bundled:
            path = workspace.agent_path(agent_id)
            agent = json.loads(path.read_text(encoding="utf-8"))
            path.write_text(json.dumps({**agent, "team": "studio-1"}, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    errors = [p for p in validate_workspace(workspace) if not p.warning]
    if errors:
        raise SystemExit(f"studio of {size}: validate found {len(errors)} problem(s), first: {errors[0]}")
    if len(workspace.agent_ids()) != size:
        raise SystemExit(f"studio of {size}: built {len(workspace.agent_ids())} characters")
    return workspace


# -- playing and measuring ----------------------------------------------------


class FsyncCounter:
    """Counts ``os.fsync`` calls while installed (fsio looks ``os.fsync`` up at call time)."""

    def __init__(self) -> None:
        self.calls = 0
        self.original = os.fsync

    def __enter__(self) -> FsyncCounter:
        def counted(fd):
            self.calls += 1
            return self.original(fd)

        os.fsync = counted
        return self

    def __exit__(self, *exc) -> None:
        os.fsync = self.original


@dataclass
class DayStats:
    day: int
    scenes: Counter
    idle_share: float
    wall: float
    cpu: float
    cpu_per_character: float
    fsyncs: int
    memories: int
    notices: int
    actors: set[str] = field(default_factory=set)
    #: Characters who reflected that day, and those still over the threshold when it ended.
    reflected: int = 0
    waiting: int = 0
    #: CPU seconds of packing finished days (``archive_after``) at the day's end, part of ``cpu``.
    archiving: float = 0.0

    @property
    def notice_share(self) -> float:
        return self.notices / self.memories if self.memories else 0.0


def measure_day(outcomes, size: int, wall: float, cpu: float, fsyncs: int, waiting: int = 0) -> DayStats:
    days = {o.spec.day for o in outcomes}
    if len(days) != 1:
        raise RuntimeError(f"one advance_days call played scenes of days {sorted(days)}")
    actors = {p for o in outcomes if o.spec.type in ACTING_KINDS for p in o.spec.participants}
    memories = sum(len(o.result.written) for o in outcomes)
    appended = [m for o in outcomes for ms in o.result.transaction.appends.values() for m in ms]
    if len(appended) != memories:
        raise RuntimeError(f"written lists {memories} memories, the transactions append {len(appended)}")
    notices = sum(1 for m in appended if m.metadata.get("source") == "meeting")
    return DayStats(
        day=days.pop(), scenes=Counter(o.spec.type for o in outcomes), idle_share=1 - len(actors) / size,
        wall=wall, cpu=cpu, cpu_per_character=cpu / size, fsyncs=fsyncs, memories=memories, notices=notices,
        actors=actors, waiting=waiting,
        reflected=sum(len(o.spec.participants) for o in outcomes if o.spec.type == "REFLECTION"),
    )


@dataclass
class BriefStats:
    kind: str
    #: Every scene that showed the brief to someone: "REFLECTION 1 → MEETING 24".
    reached: str
    participants: int
    turns: int
    largest_prompt: int
    scenes_played: int
    wall: float


def collapse_repeats(steps: list[str]) -> list[str]:
    """["REFLECTION 1", "REFLECTION 1", "MEETING 9"] → ["REFLECTION 1 ×2", "MEETING 9"]."""
    collapsed = []
    for step, repeats in groupby(steps):
        count = len(list(repeats))
        collapsed.append(f"{step} ×{count}" if count > 1 else step)
    return collapsed


def all_hands_brief(snapshot: Path, scenes_before: int) -> BriefStats:
    """Play ``scenes_before`` scenes in ``snapshot``, brief everyone, and play until the scene
    the brief opened is applied, or until everyone saw it in other scenes (an ARRIVAL, say).
    Reported is the brief's own scene, else the last scene that showed it to someone."""
    from gamemaster.backends.offline import OfflineBackend
    from gamemaster.briefs import give_brief
    from gamemaster.gm import GameMaster
    from gamemaster.loop import run_scene
    from gamemaster.workspace import Workspace

    workspace = Workspace(snapshot)
    gm = GameMaster(workspace)
    backend = OfflineBackend()
    for _ in range(scenes_before):
        run_scene(gm, backend)
    brief = give_brief(gm.workspace, ALL_HANDS_BRIEF)
    start = time.perf_counter()
    seen: set[str] = set()
    reached: list[str] = []
    played_types: list[str] = []
    # Reflections that fall due come first, and at 100 characters many fall due at once.
    for played in range(1, BRIEF_SCENES_MAX + 1):
        outcome = run_scene(gm, backend)
        played_types.append(outcome.spec.type)
        waiting = next((b for b in workspace.load_world().briefs if b.id == brief.id), None)
        now_seen = set(waiting.seen_by) if waiting else set(workspace.agent_ids())
        if now_seen - seen:
            reached.append(f"{outcome.spec.type} {len(now_seen - seen)}")
            shown = outcome
        seen = now_seen
        if brief.id in outcome.spec.brief_ids or waiting is None:
            break
    else:
        raise RuntimeError(f"{brief.id} was still unseen by some after {BRIEF_SCENES_MAX} scenes: "
                           f"{', '.join(f'{t} {n}' for t, n in Counter(played_types).items())}")
    wall = time.perf_counter() - start
    outcome = shown
    prompts = workspace.scenes / outcome.spec.ref / "prompts"
    sizes = [len(p.read_text(encoding="utf-8")) for p in prompts.iterdir() if p.is_file()]
    return BriefStats(
        kind=outcome.spec.type + ("" if brief.id in outcome.spec.brief_ids else " (no brief scene)"),
        reached=" → ".join(collapse_repeats(reached)), participants=len(outcome.spec.participants), turns=len(outcome.spec.turns),
        largest_prompt=max(sizes, default=0), scenes_played=played, wall=wall,
    )


@dataclass
class SizeRun:
    size: int
    #: "100" or "100 in teams of 7".
    label: str
    days: list[DayStats]
    #: "between days": the brief right after day 1; "mid-day": after day 2's first scene.
    briefs: dict[str, BriefStats]
    build_seconds: float
    play_seconds: float


def run_size(size: int, days: int, tmp: Path, teams: bool = False) -> SizeRun:
    from gamemaster.backends.offline import OfflineBackend
    from gamemaster.gm import GameMaster
    from gamemaster.loop import advance_days
    from gamemaster.scenes import due_for_reflection

    label = f"{size} in teams of 7" if teams else str(size)
    start = time.perf_counter()
    workspace = build_studio(tmp / f"studio-{label}", size, teams)
    build_seconds = time.perf_counter() - start
    log(f"{label} characters: studio built and validated in {build_seconds:.1f} s")
    gm = GameMaster(workspace)
    backend = OfflineBackend()
    archiving = [0.0]
    import gamemaster.loop as loop_module

    packing = loop_module.archive_when_due

    def timed_packing(workspace):
        start = time.process_time()
        try:
            return packing(workspace)
        finally:
            archiving[0] += time.process_time() - start

    loop_module.archive_when_due = timed_packing
    snapshot = tmp / f"brief-{label}"
    stats: list[DayStats] = []
    play_start = time.perf_counter()
    for _ in range(days):
        with FsyncCounter() as fsyncs:
            wall_start, cpu_start, archiving[0] = time.perf_counter(), time.process_time(), 0.0
            outcomes = advance_days(gm, backend, 1).scenes
            cpu, wall = time.process_time() - cpu_start, time.perf_counter() - wall_start
        waiting = len(due_for_reflection(gm.world(), gm.agents()))
        stats.append(measure_day(outcomes, size, wall, cpu, fsyncs.calls, waiting))
        stats[-1].archiving = archiving[0]
        log(f"  day {stats[-1].day}: {len(outcomes)} scenes, {wall:.1f} s wall, {cpu:.1f} s CPU "
            f"({archiving[0]:.1f} s of it packing finished days)")
        if len(stats) == 1:
            shutil.copytree(workspace.root, snapshot, symlinks=True)
    play_seconds = time.perf_counter() - play_start
    from gamemaster.validate import validate_workspace

    errors = [p for p in validate_workspace(workspace) if not p.warning]
    if errors:
        raise SystemExit(f"{label} characters after {days} days: validate found {len(errors)} problem(s), first: {errors[0]}")
    log(f"  validate after {days} days: no errors")
    briefs = {}
    for moment, scenes_before in BRIEF_MOMENTS.items():
        copy = shutil.copytree(snapshot, tmp / f"brief-{label}-{scenes_before}", symlinks=True)
        brief = briefs[moment] = all_hands_brief(copy, scenes_before)
        log(f"  all-hands brief {moment}: seen in {brief.reached}; {brief.kind} with {brief.participants} participants, {brief.turns} turns, "
            f"largest prompt {brief.largest_prompt} chars, {brief.wall:.1f} s")
    return SizeRun(size, label, stats, briefs, build_seconds, play_seconds)


# -- tables -------------------------------------------------------------------


def percent(value: float) -> str:
    return f"{100 * value:.0f} %"


def scene_counts(counter: Counter) -> str:
    kinds = [k for k in KIND_ORDER if counter[k]] + sorted(k for k in counter if k not in KIND_ORDER)
    return ", ".join(f"{counter[k]} {k}" for k in kinds)


def print_size_table(run: SizeRun) -> None:
    print(f"### {run.label} characters")
    print()
    print("| day | scenes | idle | wall s | CPU s | of it packing days s | CPU ms / character | fsyncs | memories "
          "| notice share | reflected | over the threshold at day end |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for d in run.days:
        print(f"| {d.day} | {sum(d.scenes.values())}: {scene_counts(d.scenes)} | {percent(d.idle_share)} "
              f"| {d.wall:.2f} | {d.cpu:.2f} | {d.archiving:.2f} | {1000 * d.cpu_per_character:.1f} | {d.fsyncs} | {d.memories} "
              f"| {percent(d.notice_share)} | {d.reflected} | {d.waiting} |")
    days = run.days

    def mean(attr):
        return statistics.fmean(getattr(d, attr) for d in days)

    scenes = statistics.fmean(sum(d.scenes.values()) for d in days)
    print(f"| mean | {scenes:.1f} | {percent(mean('idle_share'))} | {mean('wall'):.2f} | {mean('cpu'):.2f} "
          f"| {mean('archiving'):.2f} "
          f"| {1000 * mean('cpu_per_character'):.1f} | {mean('fsyncs'):.0f} | {mean('memories'):.0f} "
          f"| {percent(pooled_notice_share(days))} |")
    print()


def pooled_notice_share(days: list[DayStats]) -> float:
    memories = sum(d.memories for d in days)
    return sum(d.notices for d in days) / memories if memories else 0.0


def brief_cells(brief: BriefStats) -> str:
    return (f"{brief.kind}: {brief.participants} ({brief.turns} turns); seen in {brief.reached} "
            f"| {brief.largest_prompt:,}")


def print_summary(runs: list[SizeRun], days: int) -> None:
    print("### Summary")
    print()
    moments = list(BRIEF_MOMENTS)
    brief_heads = "".join(f" all-hands brief {m}: scene, participants | largest prompt chars |" for m in moments)
    print(f"| size | idle share (mean) | never acted in {days} days | CPU ms per character per day "
          f"| fsyncs per day | notice share |{brief_heads}")
    print("|---|---|---|---|---|---|" + "---|---|" * len(moments))
    for run in runs:
        acted = set().union(*(d.actors for d in run.days))
        never = run.size - len(acted)
        idle = statistics.fmean(d.idle_share for d in run.days)
        cpu = statistics.fmean(d.cpu_per_character for d in run.days)
        fsyncs = statistics.fmean(d.fsyncs for d in run.days)
        briefs = "".join(f" {brief_cells(run.briefs[m])} |" for m in moments)
        print(f"| {run.label} | {percent(idle)} | {never} ({percent(never / run.size)}) | {1000 * cpu:.1f} "
              f"| {fsyncs:.0f} | {percent(pooled_notice_share(run.days))} |{briefs}")
    print()
    brief_heads = "".join(f" brief {m}: s (scenes played) |" for m in moments)
    print(f"| size | build + validate s | {days} days played s |{brief_heads}")
    print("|---|---|---|" + "---|" * len(moments))
    for run in runs:
        briefs = "".join(f" {run.briefs[m].wall:.1f} ({run.briefs[m].scenes_played}) |" for m in moments)
        print(f"| {run.label} | {run.build_seconds:.1f} | {run.play_seconds:.1f} |{briefs}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="7,25,100", help="comma-separated studio sizes (at least 7 each)")
    parser.add_argument("--days", type=int, default=5, help="offline days played per size")
    parser.add_argument("--no-teams", action="store_true",
                        help="skip the second run of each size above 7 in which every copy of the bundled seven is a team")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if args.days < 1 or not sizes:
        parser.error("need --days of at least 1 and at least one size")

    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            runs.append(run_size(size, args.days, Path(tmp)))
            if size > 7 and not args.no_teams:
                runs.append(run_size(size, args.days, Path(tmp), teams=True))
    print(f"## Studio size, {args.days} offline day(s) each")
    print()
    for run in runs:
        print_size_table(run)
    print_summary(runs, args.days)


if __name__ == "__main__":
    main()
