"""The scene loop: play pending or next scenes through a backend until days end.

Each reply is stored with its pending scene as soon as it is valid, so an
interrupted run resumes at the first turn that has no reply yet.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .backends.base import Backend
from .gm import GameMaster, Pending
from .problems import GamemasterError
from .replies import Reply, ReplyError
from .scenes import Force, SceneSpec
from .writeback import SceneResult


class SceneFailed(GamemasterError):
    """A character's replies stayed invalid; nothing of the scene was written."""


@dataclass
class SceneOutcome:
    spec: SceneSpec
    result: SceneResult
    day_summary: Path | None = None


@dataclass
class AdvanceReport:
    scenes: list[SceneOutcome] = field(default_factory=list)
    summaries: list[Path] = field(default_factory=list)


Listener = Callable[[str, dict], None]


def _quiet(event: str, data: dict) -> None:
    pass


def ask(gm: GameMaster, backend: Backend, pending: Pending, turn: int, listen: Listener = _quiet) -> Reply:
    """One valid reply for one turn, asking again with the error where the backend may retry."""
    agent = pending.turns[turn]
    error: str | None = None
    for attempt in range(1 + max(0, backend.retries)):
        request = gm.build_request(pending, turn, previous_error=error)
        gm.record_prompt(pending, turn, request.prompt)
        listen("ask", {"agent": agent, "turn": turn, "attempt": attempt, "scene": pending.spec.ref})
        text = backend.reply(request)
        try:
            return gm.store_reply(pending, turn, text)
        except ReplyError as exc:
            error = "; ".join(exc.problems)
            listen("invalid", {"agent": agent, "turn": turn, "error": str(exc)})
    raise SceneFailed(
        f"scene {pending.spec.ref}: {agent}'s reply is still invalid after "
        f"{1 + max(0, backend.retries)} attempt(s), nothing of the scene was written: {error}"
    )


def run_scene(gm: GameMaster, backend: Backend, force: Force | None = None, listen: Listener = _quiet) -> SceneOutcome:
    pending, opened = gm.open_next(force)
    listen("scene", {"spec": pending.spec, "opened": opened, "done": len(pending.replies)})
    for turn in pending.missing():
        reply = ask(gm, backend, pending, turn, listen)
        listen("reply", {"agent": pending.turns[turn], "turn": turn, "reply": reply})
    result = gm.apply(pending)
    outcome = SceneOutcome(pending.spec, result, gm.close_day_if_over())
    listen("applied", {"outcome": outcome})
    return outcome


def advance_days(gm: GameMaster, backend: Backend, days: int = 1, listen: Listener = _quiet) -> AdvanceReport:
    """Play until ``days`` day ends; a day already under way counts as the first."""
    report = AdvanceReport()
    gm.recover()
    closed = gm.close_day_if_over()
    if closed:
        report.summaries.append(closed)
    while len(report.summaries) < days:
        outcome = run_scene(gm, backend, listen=listen)
        report.scenes.append(outcome)
        if outcome.day_summary:
            report.summaries.append(outcome.day_summary)
    return report
