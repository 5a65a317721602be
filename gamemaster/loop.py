"""The scene loop: play pending or next scenes through a backend until days end.

Each reply is stored with its pending scene as soon as it is valid, so an
interrupted run resumes at the first turn that has no reply yet.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from .archive import Archived, archive_when_due
from .backends.base import Answer, Backend
from .costs import cost_report, estimate_scene
from .gm import GameMaster
from .lookup import lookup_for, record_lookups
from .pending import Pending, load_batch, record_prompt, record_usage, save_batch
from .problems import GamemasterError
from .recording import Source
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
    #: Days packed after playing, as ``world.archive_after`` asks (``archive.archive_when_due``).
    archived: Archived | None = None


Listener = Callable[[str, dict], None]


def _quiet(event: str, data: dict) -> None:
    pass


def _normalise(answer: str | Answer) -> Answer:
    return answer if isinstance(answer, Answer) else Answer(text=answer)


def _usage_record(answer: Answer) -> dict | None:
    """The call's tokens, with the cost the backend reported where it reports one and the number of
    lookups they include (what ``--budget`` expects of the next scenes)."""
    if answer.usage is None:
        return None
    extra = {"cost_usd": answer.cost_usd} if answer.cost_usd is not None else {}
    return {**answer.usage, **extra, **({"lookups": len(answer.lookups)} if answer.lookups else {})}


def _source(backend: Backend, answer: Answer) -> Source:
    return Source(backend=answer.backend or backend.name, model=answer.model, usage=answer.usage, cost_usd=answer.cost_usd)


def ask(
    gm: GameMaster,
    backend: Backend,
    pending: Pending,
    turn: int,
    listen: Listener = _quiet,
    first: Answer | None = None,
) -> Reply:
    """One valid reply for one turn, asking again with the error where the backend may retry.

    ``first`` is an answer already in hand (from a batch) that counts as the first attempt.
    """
    agent = pending.turns[turn]
    error: str | None = None
    attempts = 1 + max(0, backend.capabilities.retries)
    for attempt in range(attempts):
        if attempt == 0 and first is not None:
            answer = first
        else:
            request = pending.prepared(turn) if error is None else None
            if request is None:
                request = gm.build_request(pending, turn, previous_error=error)
                record_prompt(pending, turn, request)
            if backend.capabilities.lookups:
                request = replace(request, lookup=lookup_for(gm.workspace, agent, request.shown))
            listen("ask", {"agent": agent, "turn": turn, "attempt": attempt, "scene": pending.spec.ref})
            answer = _normalise(backend.reply(request))
            record_usage(gm.workspace, pending, turn, _usage_record(answer), answer.model, batch=False)
            record_lookups(pending, turn, answer.lookups or [])
        if answer.notice:
            listen("notice", {"agent": agent, "turn": turn, "text": answer.notice})
        try:
            return gm.store_reply(pending, turn, answer.text, _source(backend, answer))
        except ReplyError as exc:
            error = "; ".join(exc.problems)
            listen("invalid", {"agent": agent, "turn": turn, "error": str(exc)})
    raise SceneFailed(
        f"scene {pending.spec.ref}: {agent}'s reply is still invalid after "
        f"{attempts} attempt(s), nothing of the scene was written: {error}"
    )


def _ask_all(gm: GameMaster, backend: Backend, pending: Pending, listen: Listener) -> None:
    """Every missing turn: in order for a MEETING, side by side for the other scene types."""
    turns = pending.missing()
    workers = max(1, backend.capabilities.parallel)
    if pending.spec.kind.in_sequence or workers == 1 or len(turns) == 1:
        for turn in turns:
            reply = ask(gm, backend, pending, turn, listen)
            listen("reply", {"agent": pending.turns[turn], "turn": turn, "reply": reply})
        return
    pool = ThreadPoolExecutor(max_workers=min(workers, len(turns)))
    futures = {pool.submit(ask, gm, backend, pending, turn, listen): turn for turn in turns}
    failure = None
    try:
        for future in as_completed(futures):
            turn = futures[future]
            try:
                reply = future.result()
            except Exception as exc:
                failure = exc
                break
            listen("reply", {"agent": pending.turns[turn], "turn": turn, "reply": reply})
    finally:
        # After a failure (or Ctrl-C) calls not yet started are dropped; those in
        # flight finish and keep their replies for the next run.
        for future in futures:
            future.cancel()
        pool.shutdown(wait=True)
    if failure is not None:
        raise failure


def _ask_by_batch(gm: GameMaster, backend, pending: Pending, listen: Listener, poll_seconds: float) -> None:
    """A scene's independent calls as one Message Batch, resumable by its stored id."""
    turns = pending.missing()
    batch = load_batch(pending)
    if batch is None:
        if not backend.capabilities.batches:
            raise GamemasterError(f"backend {backend.name} cannot send batches")
        requests = []
        for turn in turns:
            request = pending.prepared(turn)
            if request is None:
                request = gm.build_request(pending, turn)
                record_prompt(pending, turn, request)
            requests.append((pending.turns[turn], request))  # agent ids are valid custom ids
        batch_id = backend.submit_batch(requests)
        batch = save_batch(gm.workspace, pending, batch_id, {custom: turn for (custom, _), turn in zip(requests, turns)})
        listen("batch", {"id": batch_id, "requests": len(requests), "resumed": False})
    else:
        listen("batch", {"id": batch["id"], "requests": len(batch["turns"]), "resumed": True})
    way_out = (
        f"; to ask these characters one by one instead, delete "
        f"{gm.workspace.rel(pending.dir / 'batch.json')} and run again"
    )
    try:
        while True:
            status = backend.batch_status(batch["id"])
            listen("batch_status", {"id": batch["id"], **status})
            if status["status"] == "ended":
                break
            time.sleep(poll_seconds)
        results = backend.batch_results(batch["id"])
    except GamemasterError as exc:
        raise GamemasterError(f"{exc}{way_out}") from None
    for custom, turn in batch["turns"].items():
        if turn in pending.replies:
            continue
        result = results.get(custom, "missing from the batch results")
        if isinstance(result, Answer):
            record_usage(gm.workspace, pending, turn, result.usage, result.model, batch=True)
            reply = ask(gm, backend, pending, turn, listen, first=result)
        else:
            listen("invalid", {"agent": pending.turns[turn], "turn": turn, "error": f"batch: {result}"})
            reply = ask(gm, backend, pending, turn, listen)
        listen("reply", {"agent": pending.turns[turn], "turn": turn, "reply": reply})


def run_scene(
    gm: GameMaster,
    backend: Backend,
    force: Force | None = None,
    listen: Listener = _quiet,
    batch: bool = False,
    poll_seconds: float = 10.0,
) -> SceneOutcome:
    pending, opened = gm.open_next(force if force is not None and force.pins else _followed(gm, backend, listen))
    listen("scene", {"spec": pending.spec, "opened": opened, "done": len(pending.replies)})
    # A batch already sent for this scene is picked up even without --batch: it is paid for.
    stored_batch = backend.capabilities.batches and load_batch(pending) is not None
    if (batch or stored_batch) and not pending.spec.kind.in_sequence and pending.missing():
        _ask_by_batch(gm, backend, pending, listen, poll_seconds)
    else:
        _ask_all(gm, backend, pending, listen)
    result = gm.apply(pending)
    outcome = SceneOutcome(pending.spec, result, gm.close_day_if_over())
    listen("applied", {"outcome": outcome})
    return outcome


def _followed(gm: GameMaster, backend: Backend, listen: Listener) -> Force | None:
    """The scene a backend that plays a recording asks for next (``follow``), where no scene is
    pending: the one recorded, if the Game Master would now choose another."""
    follow = getattr(backend, "follow", None)
    if follow is None:
        return None
    gm.recover()
    if gm.pending() is not None:
        return None
    gm.close_day_if_over()
    snap = gm.snapshot()
    force, notice = follow(snap.world, snap.agents)
    if notice:
        listen("notice", {"agent": None, "turn": None, "text": notice})
    return force


class BudgetReached(GamemasterError):
    """The next scene would cost more than the budget has left."""


def advance_days(
    gm: GameMaster,
    backend: Backend,
    days: int = 1,
    listen: Listener = _quiet,
    batch: bool = False,
    budget: float | None = None,
    poll_seconds: float = 10.0,
) -> AdvanceReport:
    """Play until ``days`` day ends; a day already under way counts as the first."""
    report = AdvanceReport()
    gm.recover()
    closed = gm.close_day_if_over()
    if closed:
        report.summaries.append(closed)
    while len(report.summaries) < days:
        if budget is not None:
            check_budget(gm, backend, budget, batch)
        outcome = run_scene(gm, backend, listen=listen, batch=batch, poll_seconds=poll_seconds)
        report.scenes.append(outcome)
        if outcome.day_summary:
            report.summaries.append(outcome.day_summary)
    report.archived = _archive_old_days(gm, listen)
    return report


def _archive_old_days(gm: GameMaster, listen: Listener) -> Archived | None:
    """Pack what ``archive_after`` asks; the days just played stand whatever happens here, so a
    day that cannot be packed is a notice, not a failure of the run."""
    try:
        done = archive_when_due(gm.workspace)
    except GamemasterError as exc:
        listen("notice", {"text": f"finished days were not archived: {exc}"})
        return None
    for day, why in done.skipped if done else []:
        listen("notice", {"text": f"scenes/{day}/ not archived: {why}"})
    return done


def check_budget(gm: GameMaster, backend: Backend, budget: float, batch: bool) -> None:
    """Stop before a scene whose estimated cost would take the total past ``budget``."""
    pending, _ = gm.open_next()
    report = cost_report(gm.workspace)
    total = report["total"]["usd"]
    estimate = estimate_scene(gm, backend, pending, report, batch=batch)
    if total + estimate > budget:
        raise BudgetReached(
            f"budget ${budget:.2f}: spent ${total:.2f}, the next scene ({pending.spec.ref} "
            f"{pending.spec.type}) would cost about ${estimate:.2f}; stopped before it"
        )
