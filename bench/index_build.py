"""CPU and peak memory of the first `gamemaster next` after ``state/.cache`` is gone, against a warm one;
of `validate`; of `memories --tag` and `--type`. "µs a memory" is (CPU cold − CPU warm) / the memories
of the three streams the cold `next` indexed.

    python bench/index_build.py [--sizes 100000,1000000] [--repeat 3] [--keep DIR] [--profile] [--no-validate]
                                [--side-by-side] [--in-process | --inserts | --analysis | --killed FRACTION]

The studio is ``bench/run.py``'s synthetic one (the bundled seven on the morning of their last day,
``N`` memories per character); `next` opens a WORK scene for three of them, so a cold `next` builds
three search indexes. Each `next` is its own process; CPU is user + system seconds of that process
and its children (``os.wait4``), RSS its peak. ``--profile`` prints a cProfile of one cold build of
one index in-process and the peak of Python allocations (``tracemalloc``) during it. ``--in-process``
only builds one index, in a fresh process each of ``--repeat`` times, and reports the CPU of the
build alone; ``--inserts`` builds it in-process from rows analysed beforehand (what is left when
the analysis costs nothing); ``--analysis`` the other part, in-process: the analysis of every piece of
one stream (``retrieval/analyse.py``: lines read, memories taken apart, words found and turned
into terms, rows put together), and of it the words alone (``Analyzer.joined_terms_many`` over
the memories' texts), with nothing inserted. ``--killed FRACTION`` builds one index in a fresh process, kills it
(SIGKILL) once FRACTION of an uninterrupted build's wall time has passed, and builds it again in
another: the CPU of each part against the uninterrupted build's. ``--side-by-side`` builds the indexes of three characters in-process,
one after the other and then side by side (``retrieval/parallel.py``), alternately, and reports CPU
(this process and its children) and wall seconds of each, with the load average when it ended.
Tables go to stdout, progress to stderr.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import platform
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import Snapshot, opened_scene  # noqa: E402

from gamemaster import jsontext  # noqa: E402
from gamemaster.workspace import Workspace  # noqa: E402


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def next_scene(root: Path, *args: str, ok: tuple[int, ...] = (0,)) -> tuple[float, float, float]:
    """CPU seconds, wall seconds and peak RSS (MB) of one `gamemaster next` (or ARGS) and its children."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "gamemaster", "--root", str(root), *(args or ("next",))],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if proc.returncode not in ok:
        raise RuntimeError(f"`gamemaster {' '.join(args or ('next',))}` exited {proc.returncode}: {proc.stderr.read().decode()}")
    rss = usage.ru_maxrss / 1024
    return usage.ru_utime + usage.ru_stime, wall, rss


def measure(root: Path, repeat: int) -> dict[str, tuple[float, float, float]]:
    workspace = Workspace(root)
    cache = workspace.state / ".cache"
    result = {}
    for kind in ("cold", "warm"):
        runs = []
        for _ in range(repeat):
            if kind == "cold":
                shutil.rmtree(cache, ignore_errors=True)
            snapshot = Snapshot(workspace, cache=False)
            runs.append(next_scene(root))
            opened_scene(workspace)
            snapshot.restore()
        result[kind] = tuple(statistics.median(r[i] for r in runs) for i in range(3))
    return result


def profile_build(root: Path) -> str:
    import tracemalloc

    from gamemaster.retrieval.index import index_path_for, open_index
    from gamemaster.retrieval.pieces import remove_files as remove_stale

    workspace = Workspace(root)
    agent = workspace.agent_ids()[0]
    remove_stale(index_path_for(root, agent))
    index = open_index(root, agent, workspace.load_world().language)
    profiler = cProfile.Profile()
    tracemalloc.start()
    profiler.enable()
    index.refresh()
    profiler.disable()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    index.close()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(15)
    return f"peak Python allocations (tracemalloc): {peak / 1e6:.0f} MB\n\n" + out.getvalue()


#: One index built in a fresh process (the analyser's cache of words starts empty, as in a `next`);
#: prints the CPU seconds of the build alone, imports left out.
_ONE_INDEX = ("import sys, time; from pathlib import Path; from gamemaster.retrieval.index import open_index; "
              "index = open_index(Path(sys.argv[1]), sys.argv[2], sys.argv[3]); start = time.process_time(); "
              "index.refresh().close(); print(time.process_time() - start)")


def in_process(root: Path, repeat: int) -> str:
    from gamemaster.retrieval.index import index_path_for
    from gamemaster.retrieval.pieces import remove_files as remove_stale

    agent, language, times = "vera", Workspace(root).load_world().language, []
    for _ in range(repeat):
        remove_stale(index_path_for(root, agent))
        out = subprocess.run([sys.executable, "-c", _ONE_INDEX, str(root), agent, language],
                             check=True, capture_output=True, text=True).stdout
        times.append(float(out))
        log(f"one index in-process: {times[-1]:.2f} s")
    return (f"one index ({agent}) built in a fresh process, CPU of the build: best {min(times):.2f} s, "
            f"median {statistics.median(times):.2f} s of {repeat}")


def killed_build(root: Path, fraction: float, repeat: int) -> str:
    """An uninterrupted build, then one killed part way and the build after it, ``repeat`` times."""
    import signal

    from gamemaster.retrieval.index import index_path_for

    agent, language = "vera", Workspace(root).load_world().language
    command = [sys.executable, "-c", _ONE_INDEX, str(root), agent, language]

    def run(kill_after: float | None) -> tuple[float, float]:
        start = time.perf_counter()
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        if kill_after is not None:
            try:
                proc.wait(timeout=kill_after)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
        _, status, usage = os.wait4(proc.pid, 0)
        if kill_after is None and os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError("the build failed")
        return usage.ru_utime + usage.ru_stime, time.perf_counter() - start

    cache = index_path_for(root, agent).parent
    rows = []
    for _ in range(repeat):
        shutil.rmtree(cache, ignore_errors=True)
        whole_cpu, whole_wall = run(None)
        shutil.rmtree(cache, ignore_errors=True)
        killed_cpu, _ = run(fraction * whole_wall)
        left = sorted(p.name for p in cache.glob("*.building-*"))
        after_cpu, _ = run(None)
        rows.append(f"| {whole_cpu:.2f} | {killed_cpu:.2f} | {after_cpu:.2f} | {killed_cpu + after_cpu - whole_cpu:.2f} | "
                    f"{', '.join(left) or '—'} |")
        log(rows[-1])
    return (f"one index ({agent}) built whole, then killed after {fraction:.0%} of that build's wall time and built "
            "again (CPU seconds of each process):\n\n| whole | killed part | build after it | lost | left by the kill |\n"
            "|---:|---:|---:|---:|---|\n" + "\n".join(rows))


def inserts_only(root: Path, repeat: int) -> str:
    """CPU of building one index whose rows were all analysed beforehand: the build reads, checks
    and inserts as always, but each piece's analysis is replayed from memory."""
    from gamemaster.retrieval import index as index_module
    from gamemaster.retrieval.analyse import Rows, analyse
    from gamemaster.retrieval.index import index_path_for, open_index
    from gamemaster.retrieval.pieces import remove_files as remove_stale
    from gamemaster.retrieval.pieces import pieces

    agent, language = "vera", Workspace(root).load_world().language
    analysed, rows, size = [], Rows(), 0
    with open(root / "state" / "memories" / f"{agent}.jsonl", "rb") as handle:
        for data in pieces(handle):
            rows.start_piece()
            analyse(data, size, language, rows)
            size += len(data)
            analysed.append((rows.docs, rows.tags, rows.texts, rows.seq, rows.line, rows.day, rows.scene, rows.dated))

    def replay(data, base, language, rows):
        rows.docs, rows.tags, rows.texts, rows.seq, rows.line, rows.day, rows.scene, rows.dated = next(queue)

    times, built = [], index_module.analyse
    try:
        index_module.analyse = replay
        for _ in range(repeat):
            queue = iter(analysed)
            remove_stale(index_path_for(root, agent))
            start = time.process_time()
            open_index(root, agent, language).refresh().close()
            times.append(time.process_time() - start)
    finally:
        index_module.analyse = built
    return (f"one index ({agent}) with its rows analysed beforehand (inserts, reading, commit), CPU: best "
            f"{min(times):.2f} s, {min(times) / rows.seq * 1e6:.1f} µs a memory, median {statistics.median(times):.2f} s of {repeat}")


def analysis_only(root: Path, repeat: int) -> str:
    """CPU of analysing one stream as a build does, inserting nothing; and of finding its words alone."""
    from gamemaster.retrieval.analyse import Rows, _body, _memory, analyse
    from gamemaster.retrieval.pieces import pieces
    from gamemaster.retrieval.text import analyzer

    agent, language = "vera", Workspace(root).load_world().language
    with open(root / "state" / "memories" / f"{agent}.jsonl", "rb") as handle:
        chunks = list(pieces(handle))
    bodies = [_body(*_memory(jsontext.loads(line))) for chunk in chunks for line in chunk.splitlines()]
    analyzer(language).joined_terms_many(bodies)  # every word met once: its term is known, as from the second piece on
    whole, words = [], []
    for _ in range(repeat):
        rows, base, start = Rows(), 0, time.process_time()
        for data in chunks:
            rows.start_piece()
            analyse(data, base, language, rows)
            base += len(data)
        whole.append(time.process_time() - start)
        start = time.process_time()
        analyzer(language).joined_terms_many(bodies)
        words.append(time.process_time() - start)
    return (f"one stream ({agent}, {len(bodies):,} memories) analysed as a build does, nothing inserted, CPU: best "
            f"{min(whole):.2f} s, {min(whole) / len(bodies) * 1e6:.1f} µs a memory; of it its words turned into terms: "
            f"best {min(words):.2f} s, {min(words) / len(bodies) * 1e6:.1f} µs a memory")


def side_by_side(root: Path, repeat: int) -> list[str]:
    from gamemaster.retrieval.index import open_index
    from gamemaster.retrieval.parallel import build_side_by_side

    agents, language = ["vera", "leo", "nami"], Workspace(root).load_world().language
    rows = []
    for _ in range(repeat):
        for mode in ("one after the other", "side by side"):
            shutil.rmtree(root / "state" / ".cache", ignore_errors=True)
            times, start = os.times(), time.perf_counter()
            if mode == "side by side":
                build_side_by_side(root, agents, language)
            else:
                for agent in agents:
                    open_index(root, agent, language).refresh().close()
            wall, after = time.perf_counter() - start, os.times()
            cpu = sum(after[:4]) - sum(times[:4])
            rows.append(f"| {mode} | {cpu:.2f} | {wall:.2f} | {os.getloadavg()[0]:.1f} |")
            log(rows[-1])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000", help="memories per character, comma-separated")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="build the workspaces here and keep them (reused if there)")
    parser.add_argument("--profile", action="store_true", help="cProfile + tracemalloc of one cold index build")
    parser.add_argument("--no-validate", action="store_true", help="skip `validate` and `memories`")
    parser.add_argument("--side-by-side", action="store_true", help="three indexes one by one and side by side")
    parser.add_argument("--in-process", action="store_true", help="only the CPU of building one index, each time in a fresh process")
    parser.add_argument("--inserts", action="store_true", help="only the CPU of building one index from rows analysed beforehand")
    parser.add_argument("--analysis", action="store_true", help="only the CPU of analysing one stream, nothing inserted")
    parser.add_argument("--killed", type=float, metavar="FRACTION", help="one index killed part way, then built again")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows, other_rows, profiles = [], [], []
    with tempfile.TemporaryDirectory(prefix="gamemaster-bench-") as scratch:
        base = args.keep.resolve() if args.keep else Path(scratch)
        for size in sizes:
            root = base / f"memories-{size}"
            if not (root / "state" / "world.json").exists():
                log(f"{size}: building {root}")
                # In a process of its own: a child forked from this one would report this
                # process's peak RSS as its own (Linux keeps ru_maxrss across exec).
                subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                                "from run import synthetic_workspace; from pathlib import Path; "
                                "synthetic_workspace(Path(sys.argv[2]), int(sys.argv[3]))",
                                str(Path(__file__).resolve().parent), str(root), str(size)], check=True)
            if args.killed is not None:
                profiles.append((size, killed_build(root, args.killed, args.repeat)))
                continue
            if args.in_process or args.inserts or args.analysis:
                measured = in_process if args.in_process else inserts_only if args.inserts else analysis_only
                profiles.append((size, measured(root, args.repeat)))
                continue
            log(f"{size}: measuring")
            result = measure(root, args.repeat)
            (cold_cpu, cold_wall, cold_rss), (warm_cpu, warm_wall, warm_rss) = result["cold"], result["warm"]
            cache = sum(p.stat().st_size for p in (root / "state" / ".cache").glob("*.sqlite"))
            # `next` opens a WORK scene for three characters: three streams of ``size`` memories indexed.
            per_memory = (cold_cpu - warm_cpu) / (3 * size) * 1e6
            rows.append(f"| {size:,} | {cold_cpu:.2f} | {warm_cpu:.2f} | {per_memory:.1f} | {cold_cpu / warm_cpu:.1f}× | "
                        f"{cold_rss:.0f} | {warm_rss:.0f} | {cold_wall:.2f} | {cache / 1e6:.0f} |")
            log(rows[-1])
            if not args.no_validate:
                # validate exits 1 on problems (the synthetic studio's agents carry plans for an
                # earlier day); its CPU and memory are what is measured.
                valid = next_scene(root, "validate", ok=(0, 1))
                next_scene(root, "memories", "vera", "--type", "plan")  # vera's search index, if `next` did not build it
                tag = next_scene(root, "memories", "vera", "--tag", "lore", "--json")
                kind = next_scene(root, "memories", "vera", "--type", "reflection", "--json")
                other_rows.append(f"| {size:,} | {valid[0]:.2f} | {valid[2]:.0f} | {tag[0]:.2f} | {tag[1]:.2f} | "
                                  f"{kind[0]:.2f} | {kind[2]:.0f} |")
                log(other_rows[-1])
            if args.profile:
                profiles.append((size, profile_build(root)))
            if args.side_by_side:
                builds = side_by_side(root, args.repeat)
                profiles.append((size, "three indexes built in-process, CPU with children:\n\n"
                                 "| built | CPU (s) | wall (s) | load average |\n|---|---:|---:|---:|\n" + "\n".join(builds)))
    print(f"{platform.platform()} · Python {platform.python_version()} · {os.cpu_count()} CPUs · "
          f"median of {args.repeat}")
    if rows:
        print("\n| memories per character | CPU cold (s) | CPU warm (s) | µs a memory | cold / warm | RSS cold (MB) "
              "| RSS warm (MB) | wall cold (s) | indexes (MB) |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        print("\n".join(rows))
    if other_rows:
        print("\n| memories per character | validate CPU (s) | validate RSS (MB) | memories --tag CPU (s) | "
              "--tag wall (s) | memories --type CPU (s) | --type RSS (MB) |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
        print("\n".join(other_rows))
    for size, text in profiles:
        print(f"\nAt {size:,} memories, in-process:\n\n{text.rstrip()}")


if __name__ == "__main__":
    main()
