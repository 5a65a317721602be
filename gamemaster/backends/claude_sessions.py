"""A character's ``claude`` kept running between its turns of one scene, and the event loop
every call of the claude-code backend runs on.

Starting ``claude`` costs about half a second before the first request (measured in
``bench/claude_code_backend.py``). In a scene played in turns (a MEETING: every participant
speaks once per round) a character answers several times with the same system prompt, the same
reply schema and a prompt that only grows by what was said since; its ``claude`` is kept for
its next turn, and that turn sends only the part of the prompt that changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

import anyio

from ..lang import phrase

#: Seconds closing one ``claude`` may take (the SDK bounds its own waits at about 20).
CLOSE_TIMEOUT = 30.0


class EventLoop:
    """One asyncio loop in a daemon thread, started on first use.

    A ``claude`` kept for a character's next turn belongs to the loop that started it, so every
    call runs here, whichever thread asks. The loop is never closed while the program runs: a
    pipe the SDK lets go of unclosed (a ``claude`` whose helper held it open) is closed when it is
    collected, and a closed loop would print a traceback for it.
    """

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    def run(self, coro: Coroutine[Any, Any, Any], wait: bool = True) -> Any:
        """Run ``coro`` on the loop and wait for it; an interrupt of the waiting thread ends it.
        On the loop's own thread (a finalizer run there) it is only scheduled: waiting would
        block the loop it waits for."""
        future = asyncio.run_coroutine_threadsafe(coro, self._started())
        if not wait:
            return None
        try:
            return future.result()
        except BaseException:
            future.cancel()
            raise

    def is_current(self) -> bool:
        """Whether this is the loop's own thread."""
        try:
            return asyncio.get_running_loop() is self._loop
        except RuntimeError:
            return False

    @property
    def running(self) -> bool:
        return self._loop is not None and self._loop.is_running()

    def _started(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                threading.Thread(target=self._loop.run_forever, name="gamemaster-claude-code", daemon=True).start()
            return self._loop


@dataclass
class Place:
    """Where a turn is played: the scene and character a kept ``claude`` is looked up by."""

    scene: str
    agent: str
    language: str
    #: The character speaks again in this scene: its ``claude`` is kept for that turn.
    keep: bool


@dataclass
class Session:
    """One character's ``claude``, connected, with what it was started with and last sent."""

    client: Any
    #: The system prompt, model and reply schema it was started with: a turn needs all three the same.
    fitted: tuple
    system_file: str
    stderr: list[str] = field(default_factory=list)
    place: Place | None = None
    #: The last prompt it was sent in full: the next turn sends what changed since.
    sent: str = ""
    #: What Claude Code said this ``claude`` cost so far (it reports a running total).
    spent: float = 0.0
    #: What its ``recall`` tool answers from (``claude_recall.Desk``), if it has the tool.
    desk: Any = None

    async def close(self) -> None:
        """End the ``claude`` (bounded, and not cut short by the caller's cancellation; a task
        cancelled by an interrupt still removes the system prompt's file)."""
        try:
            with anyio.CancelScope(shield=True), anyio.move_on_after(CLOSE_TIMEOUT):
                with contextlib.suppress(Exception):
                    await self.client.disconnect()
        finally:
            with contextlib.suppress(OSError):
                os.unlink(self.system_file)


class Sessions:
    """The ``claude`` runs kept for a next turn, by scene and character; used on the loop only."""

    def __init__(self) -> None:
        self._kept: dict[tuple[str, str], Session] = {}

    async def take(self, place: Place | None, fitted: tuple) -> Session | None:
        """The ``claude`` kept for this turn, if it was started with ``fitted``. Runs kept for
        another scene are ended first: a scene that failed half-way does not leave them behind."""
        if place is None:
            return None
        for key in [key for key in self._kept if key[0] != place.scene]:
            stale = self._kept.pop(key, None)
            if stale is not None:
                await stale.close()
        session = self._kept.pop((place.scene, place.agent), None)
        if session is not None and session.fitted != fitted:
            await session.close()
            return None
        return session

    def keep(self, session: Session, place: Place, sent: str) -> None:
        session.place, session.sent = place, sent
        self._kept[(place.scene, place.agent)] = session

    async def close_all(self) -> None:
        while self._kept:
            await self._kept.popitem()[1].close()

    def __len__(self) -> int:
        return len(self._kept)


def continued(previous: str, now: str, language: str) -> str:
    """What a kept ``claude`` is sent for the next turn: ``now`` from the line after the last one
    it shares with ``previous`` at the start, after one sentence naming that line. The line is
    one that occurs once in the shared start, so it marks one place; with none, ``now`` whole."""
    old, new = previous.splitlines(keepends=True), now.splitlines(keepends=True)
    shared = 0
    for before, after in zip(old, new):
        if before != after:
            break
        shared += 1
    # The line named must mark one place in what the character holds: count it in all of it.
    counts: dict[str, int] = {}
    for line in old:
        counts[line.strip()] = counts.get(line.strip(), 0) + 1
    for index in range(shared - 1, -1, -1):
        line = new[index].strip()
        rest = "".join(new[index + 1:]).lstrip("\n")
        if line and counts[line] == 1 and rest.strip():
            return phrase(language, "prompt_continued", line=line) + "\n\n" + rest
    return now


__all__ = ["EventLoop", "Place", "Session", "Sessions", "continued"]
