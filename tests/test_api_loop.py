"""The loop with an API-like backend: parallel calls, usage and cost, batches, budget."""

from __future__ import annotations

import json
import threading
import time

import pytest

from replies import valid_reply
from gamemaster.backends.base import Answer, Capabilities
from gamemaster.backends.scripted import ScriptedBackend
from gamemaster.costs import cost_report
from gamemaster.loop import BudgetReached, advance_days, run_scene
from gamemaster.pending import record_usage
from gamemaster.pricing import cost_usd
from gamemaster.scenes import Force, SceneType

USAGE = {"input_tokens": 1000, "output_tokens": 200, "cache_creation_input_tokens": 500, "cache_read_input_tokens": 0}


class FakeAPI(ScriptedBackend):
    """Answers like an API backend: with usage, side by side, and by batch."""

    name = "fake-api"

    def __init__(self, concurrency=3, barrier=None, barrier_type=SceneType.WORK):
        super().__init__([valid_reply] * 500)
        self.capabilities = Capabilities(batches=True, usage=True, pricing=True, parallel=concurrency, retries=1)
        self.barrier = barrier
        self.barrier_type = barrier_type
        self.batches: dict[str, list] = {}
        self.polls = 0

    def model_for(self, request):
        return request.agent.model or "claude-sonnet-test"

    def reply(self, request):
        if self.barrier is not None and request.spec.type == self.barrier_type:
            self.barrier.wait(timeout=120)  # only passes when every worker is in flight at once (a wait, not a deadline)
        return Answer(text=super().reply(request), usage=dict(USAGE), model=self.model_for(request))

    def submit_batch(self, requests):
        batch_id = f"msgbatch_{len(self.batches) + 1:03d}"
        self.batches[batch_id] = requests
        return batch_id

    def batch_status(self, batch_id):
        self.polls += 1
        done = self.polls % 2 == 0
        return {"status": "ended" if done else "in_progress", "counts": {"processing": 0 if done else 1}}

    def batch_results(self, batch_id):
        return {custom: Answer(text=json.dumps(valid_reply(r)), usage=dict(USAGE), model="claude-sonnet-test")
                for custom, r in self.batches[batch_id]}


def scene_record(workspace, ref):
    return json.loads((workspace.scenes / ref / "scene.json").read_text(encoding="utf-8"))


def test_the_workers_of_a_scene_are_in_flight_together(gm, workspace):
    run_scene(gm, FakeAPI())  # ARRIVAL
    backend = FakeAPI(concurrency=3, barrier=threading.Barrier(3))
    outcome = run_scene(gm, backend, Force(type=SceneType.WORK, participants=["vera", "emre", "nami"]))
    assert sorted(r.agent.id for r in backend.requests) == ["emre", "nami", "vera"]
    assert len(outcome.result.artifacts) == 3


def test_reflections_due_at_once_are_asked_side_by_side(gm, workspace):
    run_scene(gm, FakeAPI())  # ARRIVAL
    for n, agent_id in enumerate(["vera", "tobi", "emre"]):
        path = workspace.agent_path(agent_id)
        data = json.loads(path.read_text(encoding="utf-8"))
        data["importance_accumulator"] = 150 - n
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    backend = FakeAPI(concurrency=3, barrier=threading.Barrier(3), barrier_type=SceneType.REFLECTION)
    outcome = run_scene(gm, backend)  # one REFLECTION scene for all three, its calls in flight at once
    assert (outcome.spec.type, outcome.spec.participants) == (SceneType.REFLECTION, ["vera", "tobi", "emre"])
    assert sorted(r.agent.id for r in backend.requests) == ["emre", "tobi", "vera"]
    assert all(gm.agents()[a].importance_accumulator == 0 for a in ["vera", "tobi", "emre"])


def test_meeting_turns_stay_in_order_even_with_concurrency(gm, workspace):
    run_scene(gm, FakeAPI())
    backend = FakeAPI(concurrency=4)
    run_scene(gm, backend, Force(type=SceneType.MEETING, participants=["vera", "emre"], topic="Türme"))
    assert [r.agent.id for r in backend.requests] == ["vera", "emre", "vera", "emre"]
    assert [len(r.transcript) for r in backend.requests] == [0, 1, 2, 3]


def test_usage_lands_in_the_scene_record_and_the_cost_report(gm, workspace):
    outcome = run_scene(gm, FakeAPI())
    record = scene_record(workspace, outcome.spec.ref)
    assert set(record["usage"]) == {f"{i:02d}-{a}" for i, a in enumerate(outcome.spec.participants, 1)}
    assert record["usage"]["07-vera"] == [{"model": "claude-sonnet-test", "batch": False, **USAGE}]
    report = cost_report(workspace)
    per_call = cost_usd("claude-sonnet-test", USAGE)
    assert report["total"]["calls"] == 7 and report["total"]["input_tokens"] == 7000
    assert report["days"]["day-001"]["usd"] == pytest.approx(7 * per_call)
    assert report["agents"]["vera"]["usd"] == pytest.approx(per_call)
    assert per_call == pytest.approx((1000 * 3 + 200 * 15 + 500 * 3 * 1.25) / 1e6)


def test_a_scene_by_batch_is_created_polled_and_applied(gm, workspace):
    backend = FakeAPI()
    outcome = run_scene(gm, backend, batch=True, poll_seconds=0)
    assert list(backend.batches) == ["msgbatch_001"] and len(backend.batches["msgbatch_001"]) == 7
    assert backend.requests == []  # nothing asked one by one
    record = scene_record(workspace, outcome.spec.ref)
    assert record["batch"] == "msgbatch_001" and record["usage"]["01-darius"][0]["batch"] is True
    assert cost_report(workspace)["total"]["usd"] == pytest.approx(7 * cost_usd("claude-sonnet-test", USAGE) / 2)


def test_an_interrupted_batch_resumes_from_its_stored_id(gm, workspace):
    class Interrupted(FakeAPI):
        def batch_status(self, batch_id):
            raise KeyboardInterrupt  # the user presses Ctrl-C while the batch runs

    first = Interrupted()
    with pytest.raises(KeyboardInterrupt):
        run_scene(gm, first, batch=True, poll_seconds=0)
    stored = json.loads((workspace.scenes / "day-001/scene-01/batch.json").read_text(encoding="utf-8"))
    assert stored["id"] == "msgbatch_001"
    second = FakeAPI()
    second.batches = first.batches  # the API still holds the batch
    events = []
    # Even without --batch the stored batch is picked up: it is already paid for.
    run_scene(gm, second, batch=False, poll_seconds=0, listen=lambda e, d: events.append((e, d)))
    assert list(second.batches) == ["msgbatch_001"] and second.requests == []  # no new batch, no single calls
    assert ("batch", {"id": "msgbatch_001", "requests": 7, "resumed": True}) in events
    assert gm.world().scene == 1


def test_budget_stops_before_a_scene_that_would_exceed_it(gm, workspace):
    backend = FakeAPI()
    run_scene(gm, backend)  # ARRIVAL: 7 calls spent
    spent = cost_report(workspace)["total"]["usd"]
    with pytest.raises(BudgetReached, match=r"spent \$0\.\d\d, the next scene \(day-001/scene-02 WORK\)"):
        advance_days(gm, backend, budget=spent + 0.001)
    assert gm.world().scene == 1  # nothing more was played
    advance_days(gm, backend, budget=100.0)
    assert gm.world().day == 1 and (workspace.scenes / "day-001/summary.md").exists()


def test_cost_counts_abandoned_scenes_names_unpriced_models_and_reports_bad_files(gm, workspace, cli):
    run_scene(gm, FakeAPI())
    gm.open_next(Force(type=SceneType.WORK, participants=["vera"]))
    pending = gm.pending()
    record_usage(gm.workspace, pending, 0, dict(USAGE), "claude-fable-5-2", batch=False)
    world = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    world["pending"] = None  # the Creative Director drops the scene; its call was paid all the same
    workspace.world_path.write_text(json.dumps(world), encoding="utf-8")
    gm.open_next(Force(type=SceneType.WORK, participants=["emre"]))
    report = json.loads(cli("cost", "--json").output)
    assert report["total"]["calls"] == 8 and report["agents"]["vera"]["calls"] == 2
    assert report["unpriced"] == ["claude-fable-5-2"]
    assert "no list price for claude-fable-5-2" in cli("cost").output
    usage = workspace.scenes / "day-001/scene-01/scene.json"
    record = json.loads(usage.read_text(encoding="utf-8"))
    record["usage"]["07-vera"][0]["input_tokens"] = "viele"
    usage.write_text(json.dumps(record), encoding="utf-8")
    broken = cli("cost")
    assert broken.exit_code == 1
    assert "scenes/day-001/scene-01/scene.json: usage of 07-vera: every token count must be a whole number" in broken.output


def test_a_batch_that_cannot_be_read_says_how_to_go_on(gm, workspace):
    from gamemaster.problems import GamemasterError

    class Gone(FakeAPI):
        def batch_status(self, batch_id):
            raise GamemasterError(f"anthropic: batch {batch_id}: 404 not_found_error: no such batch")

    with pytest.raises(GamemasterError, match=r"404 not_found_error.*delete scenes/day-001/scene-01/batch\.json and run again"):
        run_scene(gm, Gone(), batch=True, poll_seconds=0)
    (workspace.scenes / "day-001/scene-01/batch.json").unlink()
    backend = FakeAPI()
    run_scene(gm, backend)  # one by one now
    assert len(backend.requests) == 7 and gm.world().scene == 1


def test_a_failed_worker_drops_the_calls_not_yet_started(gm, workspace):
    run_scene(gm, FakeAPI())

    class FailsFast(FakeAPI):
        def reply(self, request):
            if request.agent.id == "darius":
                raise RuntimeError("connection reset")
            time.sleep(0.05)  # a call takes a while, so the queue is still full when darius fails
            return super().reply(request)

    backend = FailsFast(concurrency=2)
    with pytest.raises(RuntimeError, match="connection reset"):
        run_scene(gm, backend, Force(type=SceneType.WORK, participants=["darius", "emre", "finn", "leo", "nami", "tobi", "vera"]))
    assert len(backend.requests) < 7  # the queue was cancelled after the failure
    assert gm.world().pending == "day-001/scene-02"
