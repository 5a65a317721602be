"""An API day against its critical path: how much longer a day takes than its model.

    python bench/api_day.py [--days 1] [--latency 1.0] [--concurrency N] [--repeat 3]

Plays the bundled studio (a fresh ``gamemaster init``) through the anthropic backend and the real
SDK against ``tests/fake_messages_api.py`` (the offline player's answers; no key, no network),
where every call takes ``--latency`` seconds of real time, in the calling thread, as a model's
answer does. The wall time runs from before ``import anthropic`` (a command imports the SDK
before its first request) to the end of the last day.

The critical path is the longest chain of calls that depend on each other, in call latencies:
a scene waits for the one before it; the turns of a MEETING (and any kind ``in_sequence``) wait
for each other; in other kinds the calls are independent, except that calls sharing a start no
call has been answered with yet wait for the first of them (``AnthropicBackend._warmed``: the
cache entry it writes can be read only once its answer has begun). A retry waits for the call it
repeats. So a scene counts its calls if in sequence, else one, plus one where its calls waited
for a first. Wall / critical path is 1 where the toolkit adds nothing to the model's time: the
rest is the toolkit's own work (deciding, building prompts, writing back) and calls that could
have gone together but waited for a free slot of ``--concurrency``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


def play(days: int, latency: float, concurrency: int | None) -> dict:
    started = time.perf_counter()
    cpu = time.process_time()
    from fake_messages_api import FakeMessagesAPI, offline_played  # imports anthropic: timed

    from gamemaster.create import init_workspace
    from gamemaster.gm import GameMaster
    from gamemaster.loop import advance_days

    api = FakeMessagesAPI(answer=None)
    answer_of = None

    def slow(body: dict) -> str:
        time.sleep(latency)  # the model's time, outside the fake's lock: calls in flight overlap
        return answer_of(body)

    backend = offline_played(api, **({"concurrency": concurrency} if concurrency else {}))
    answer_of, api.answer = api.answer, slow
    calls: list[tuple[str, bool, str, float, float]] = []
    lock = threading.Lock()
    played = backend.reply

    def reply(request):
        begun = time.perf_counter()
        answer = played(request)
        with lock:
            calls.append((request.spec.ref, request.spec.kind.in_sequence, request.shared_prompt, begun,
                          time.perf_counter()))
        return answer

    backend.reply = reply
    with tempfile.TemporaryDirectory() as folder:
        gm = GameMaster(init_workspace(Path(folder) / "studio"))
        advance_days(gm, backend, days=days)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    return {"wall": wall, "cpu": cpu, "calls": calls, "critical": critical_path(calls)}


def critical_path(calls: list[tuple[str, bool, str, float, float]]) -> int:
    """Calls on the longest chain of dependent calls (see the module's docstring)."""
    scenes: dict[str, list[tuple[bool, str, float, float]]] = {}
    for ref, in_sequence, shared, begun, ended in sorted(calls, key=lambda call: call[3]):
        scenes.setdefault(ref, []).append((in_sequence, shared, begun, ended))
    answered: set[str] = set()  # shared starts some call has had its answer for
    length = 0
    for ref in sorted(scenes):
        scene = scenes[ref]
        if scene[0][0]:
            length += len(scene)
        else:
            starts = [shared for _, shared, _, _ in scene]
            waited = any(shared and shared not in answered and starts.count(shared) > 1 for shared in set(starts))
            length += 2 if waited else 1
        answered.update(shared for _, shared, _, _ in scene)
    return length


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=1)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds a call takes")
    parser.add_argument("--concurrency", type=int, default=0, help="calls at once (default: the backend's)")
    parser.add_argument("--repeat", type=int, default=3, help="runs, each in a fresh process")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)  # a single run, printed as numbers
    args = parser.parse_args()
    if args.one:
        run = play(args.days, args.latency, args.concurrency)
        print(run["wall"], run["cpu"], len(run["calls"]), run["critical"], len({c[0] for c in run["calls"]}))
        return
    import subprocess

    rows = []
    for _ in range(args.repeat):  # a fresh process each time: the import of the SDK is part of a day
        out = subprocess.run([sys.executable, __file__, "--one", "--days", str(args.days), "--latency", str(args.latency),
                              "--concurrency", str(args.concurrency)], check=True, capture_output=True, text=True).stdout
        wall, cpu, calls, critical, scenes = out.split()
        rows.append((float(wall), float(cpu), int(calls), int(critical), int(scenes), os.getloadavg()[0]))
        print(f"wall {float(wall):.1f} s, critical path {critical} calls", file=sys.stderr)
    print(f"{platform.platform()} · Python {platform.python_version()} · {os.cpu_count()} CPUs · "
          f"latency {args.latency} s · concurrency {args.concurrency or 'the backend default'} · {args.days} day(s)\n")
    print("| run | scenes | calls | critical path (calls) | wall (s) | CPU (s) | wall / critical path | load |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for number, (wall, cpu, calls, critical, scenes, load) in enumerate(rows, start=1):
        print(f"| {number} | {scenes} | {calls} | {critical} | {wall:.1f} | {cpu:.1f} | "
              f"{wall / (critical * args.latency):.2f} | {load:.1f} |")
    ratios = [wall / (critical * args.latency) for wall, _, _, critical, _, _ in rows]
    print(f"\nmedian wall / critical path: {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
