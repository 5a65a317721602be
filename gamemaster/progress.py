"""How far long derived work has come, on stderr: the first embedding of a stream, a large
search index build, archiving many days.

On a terminal it is a rich progress bar, as the rest of the command line looks; anywhere else
(a pipe, a log, CI) one ``gamemaster:`` line when it starts, one at each tenth of the way and
one when it is done (``notices``). Standard output is never touched: it is what the command
prints (JSON for scripts, the MCP protocol).
"""

from __future__ import annotations

import sys
from typing import Any, Callable

from .notices import notice

Update = Callable[[int], None]


def progress(started: str, label: str, finished: str, total: int, key: str) -> Update:
    """``update(done)`` for work of ``total`` steps: ``started`` is said first, ``label`` names
    the work beside the bar or in each tenth's line, ``finished`` is said when ``done`` reaches
    ``total``. ``key`` names the run: a later run in the same process says so again."""
    notice(f"{started} …", key=key)
    if sys.stderr.isatty():
        return _bar(label, finished, total, key)

    def update(done: int) -> None:
        tenth = done * 10 // max(1, total)
        if done >= total:
            notice(finished, key=f"{key}:done")
        elif tenth:
            notice(f"{label}: {done:,} of {total:,} ({tenth * 10} %)", key=f"{key}:{tenth}")
    return update


def _bar(label: str, finished: str, total: int, key: str) -> Update:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    # No refresh thread: the bar is drawn when the work reports, so an interrupted run leaves none behind.
    bar: Any = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                        console=Console(stderr=True), transient=True, auto_refresh=False)
    task = bar.add_task(label.replace("[", "\\["), total=total)
    bar.start()

    def update(done: int) -> None:
        bar.update(task, completed=min(done, total), refresh=True)
        if done >= total:
            bar.stop()
            notice(finished, key=f"{key}:done")
    return update
