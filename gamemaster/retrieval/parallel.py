"""The search indexes of a scene's participants built side by side, one process per core.

A `next` after ``state/.cache/`` is gone builds one index per participant (three for a
WORK scene). A build is Python analysing its stream line by line and cannot use a second
core, so when two or more large streams need building, the streams are shared out by size
among at most one process more than there are cores, and all but one share are built by child processes (``python -I -c``, calling ``main``)
while this process builds the first. Each build is an ordinary one (``SearchIndex.refresh``):
its own side file, renamed into place when complete, so a child that is killed leaves at
most a side file that the next build goes on from. A child's errors are not reported by the
child: an index it did not finish is found stale and built again by the selection that
needs it, which reports what goes wrong as every build does.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from ..notices import announced, notice
from .index import open_index

#: A stream smaller than this is built where it is needed: starting a child process
#: (some 0.2 s of CPU for its imports) would cost more than the core it adds.
PARALLEL_BYTES = 8 << 20


def build_side_by_side(root: Path, agents: list[str], language: str) -> None:
    """Build the stale search indexes of ``agents`` at once, if there are several large ones."""
    stale: list[tuple[int, str]] = []
    streams: list[Path] = []
    for agent in dict.fromkeys(agents):
        index = open_index(root, agent, language)
        try:
            if index.stream_path.stat().st_size < PARALLEL_BYTES:
                continue
        except OSError:
            continue
        # What a build would analyse, not the stream's size: a copied studio's index is reused.
        size = index.to_index()
        if size >= PARALLEL_BYTES:
            stale.append((size, agent))
            streams.append(index.stream_path)
    # One process more than there are cores: three streams on two cores take one and a half
    # builds' time as three processes, two as two. Each holds a piece and SQLite's page cache.
    processes = min(len(stale), _cores() + 1)
    if processes < 2 or _cores() < 2:
        return
    shares: list[tuple[int, list[str]]] = [(0, []) for _ in range(processes)]
    for size, agent in sorted(stale, reverse=True):  # the largest first, each to the lightest share
        load, names = min(shares, key=lambda share: share[0])
        shares[shares.index((load, names))] = (load + size, names + [agent])
    named = ", ".join(agent for _, agent in sorted(stale, reverse=True))
    notice(f"building the search indexes of {named} ({sum(size for size, _ in stale) / 1e6:,.0f} MB of memories) "
           f"in {processes} processes …")
    for stream in streams:  # said for all of them here, not again by each build
        announced(str(stream))
    children = [_start(root, language, names) for _, names in shares[1:]]
    finished = False
    try:
        _build(root, language, shares[0][1])
        finished = True
    finally:
        for child in children:
            if not finished:
                child.kill()  # this process failed or was interrupted: no builds left running behind it
            child.wait()


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))  # the cores this process may run on
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


#: A child imports exactly what this process imports: isolated (-I: no current folder, no
#: PYTHON* variables, no user site), with this process's module search path handed over.
_CHILD = ("import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
          "from gamemaster.retrieval.parallel import main; main(sys.argv[2:])")


def _start(root: Path, language: str, agents: list[str]):
    if sys.platform == "linux" and threading.active_count() == 1:
        return _Forked(root, language, agents)
    return subprocess.Popen([sys.executable, "-I", "-c", _CHILD, json.dumps(sys.path), str(root), language, *agents],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class _Forked:
    """A child forked from this process: it has the modules imported already (a new interpreter
    spends some 0.2 s of CPU importing them, a fifth of a 100,000-memory build). Only where
    forking is safe: on Linux, from a process running no other thread."""

    def __init__(self, root: Path, language: str, agents: list[str]):
        self.pid = os.fork()
        if self.pid == 0:  # the child: build, and leave without running this process's exit code
            status = 1
            try:
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
                _build(root, language, agents)
                status = 0
            finally:
                os._exit(status)

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def wait(self) -> int:
        return os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])


def _build(root: Path, language: str, agents: list[str]) -> None:
    for agent in agents:
        open_index(root, agent, language).refresh().close()


def main(args: list[str]) -> None:
    """A child of build_side_by_side: ROOT LANGUAGE AGENT..."""
    try:
        _build(Path(args[0]), args[1], args[2:])
    except Exception:
        sys.exit(1)  # the index is built again where it is needed, and what went wrong is reported there
