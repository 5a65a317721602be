"""Whole scenes through the anthropic backend and the real SDK, against an in-process API mock."""

from __future__ import annotations

import json
import re
import threading

import httpx2
import pytest
from typer.testing import CliRunner

from test_anthropic_backend import BASE, FakeAPI, batch_body, error_body, message_body
from gamemaster.cli import app
from gamemaster.costs import cost_report
from gamemaster.loop import run_scene
from gamemaster.scenes import Force, SceneType

USAGE = {"input_tokens": 900, "output_tokens": 300, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


def reply_for(body: dict, workspace) -> dict:
    """A valid reply to the prompt in a Messages request, read the way a model reads it."""
    text = body["messages"][0]["content"]
    agent = re.search(r'Antworte mit `"agent": "([a-z_0-9]+)"`', text).group(1)
    scene = re.search(r'"scene": "(day-\d+/scene-\d+)"', text).group(1)
    kind = re.search(r"## Die Szene: (\w+)", text).group(1)
    data = {"agent": agent, "scene": scene, "action": f"{agent} arbeitet.", "says": "Los geht's.",
            "memories": [{"description": f"{agent} merkt sich etwas.", "importance": 4, "tags": ["api"]}]}
    if kind == "ARRIVAL":
        data["plan"] = {"text": "Heute die Türme.", "tags": ["bone-towers"], "importance": 4}
    if kind == "WORK":
        artifact_kind = json.loads((workspace.agents_dir / f"{agent}.json").read_text(encoding="utf-8"))["artifact_kind"]
        data["artifacts"] = [{"title": f"Notiz von {agent}", "kind": artifact_kind, "content": "# Notiz\n\nText.",
                              "summary": f"{agent} hat eine Notiz geschrieben.", "importance": 6, "tags": ["api"]}]
    return data


def answering(workspace, barrier=None, broken=()):
    """A Messages endpoint that answers validly, except for agents in ``broken`` (first try)."""
    seen: dict[str, int] = {}

    def respond(request, call, number):
        reply = reply_for(call.body, workspace)
        seen[reply["agent"]] = seen.get(reply["agent"], 0) + 1
        if barrier is not None:
            barrier.wait(timeout=120)  # passes only while every worker's request is open at once (a wait, not a deadline)
        text = json.dumps(reply, ensure_ascii=False)
        if reply["agent"] in broken and seen[reply["agent"]] == 1:
            text = json.dumps({**reply, "memories": [{"description": "x", "importance": 11}]})
        return httpx2.Response(200, json=message_body(text, call.body["model"], USAGE))

    return respond


def batch_results(submitted: list[dict], workspace) -> httpx2.Response:
    """The JSONL results file: a valid reply for every request the batch was created with."""
    lines = [
        {"custom_id": entry["custom_id"], "result": {"type": "succeeded", "message": message_body(
            json.dumps(reply_for(entry["params"], workspace), ensure_ascii=False), entry["params"]["model"], USAGE)}}
        for entry in submitted
    ]
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    return httpx2.Response(200, content=text.encode("utf-8"), headers={"content-type": "application/binary"})


def arrival(gm, workspace):
    run_scene(gm, FakeAPI(answering(workspace)).backend())


def test_a_work_scene_calls_its_characters_together_and_records_usage(gm, workspace):
    work, plain = answering(workspace, barrier=threading.Barrier(3)), answering(workspace)

    def respond(request, call, number):
        return (work if "## Die Szene: WORK" in call.body["messages"][0]["content"] else plain)(request, call, number)

    # One backend for both scenes, as `day advance` has: the ARRIVAL's first call was sent
    # alone (so the others could read its shared start); from then on calls go together.
    api = FakeAPI(respond)
    backend = api.backend(concurrency=3)
    run_scene(gm, backend)
    outcome = run_scene(gm, backend, Force(type=SceneType.WORK, participants=["vera", "emre", "nami"]))
    assert len(api.calls) == 7 + 3 and len(outcome.result.artifacts) == 3
    record = json.loads((workspace.scenes / outcome.spec.ref / "scene.json").read_text(encoding="utf-8"))
    assert record["usage"]["01-vera"] == [{"model": api.calls[7].body["model"], "batch": False, **USAGE}]
    result = CliRunner().invoke(app, ["--root", str(workspace.root), "cost", "--json"])
    report = json.loads(result.output)
    assert report["total"]["calls"] == 10 and report["total"]["input_tokens"] == 9000
    assert report["agents"]["vera"]["calls"] == 2 and report["days"]["day-001"]["usd"] > 0


def test_an_invalid_reply_is_asked_again_with_the_error(gm, workspace):
    arrival(gm, workspace)
    api = FakeAPI(answering(workspace, broken={"vera"}))
    run_scene(gm, api.backend(), Force(type=SceneType.WORK, participants=["vera"]))
    assert len(api.calls) == 2
    second = api.calls[1].body["messages"][0]["content"]
    assert "memories.0.importance: Input should be less than or equal to 10" in second
    record = json.loads((workspace.scenes / "day-001/scene-02/scene.json").read_text(encoding="utf-8"))
    assert len(record["usage"]["01-vera"]) == 2  # the failed attempt cost tokens too


def test_a_failing_api_leaves_the_scene_unapplied_and_a_rerun_resumes(gm, workspace, monkeypatch):
    import anthropic

    monkeypatch.setattr(anthropic._base_client.time, "sleep", lambda seconds: None)
    arrival(gm, workspace)
    healthy = answering(workspace)

    def overloaded_for_emre(request, call, number):
        if '"agent": "emre"' in call.body["messages"][0]["content"]:
            return httpx2.Response(529, json=error_body("overloaded_error", "Overloaded"))
        return healthy(request, call, number)

    before = (workspace.memories_dir / "vera.jsonl").read_bytes()
    failing = FakeAPI(overloaded_for_emre)
    with pytest.raises(Exception, match=r"anthropic: emre: 529 overloaded_error: Overloaded") as failure:
        run_scene(gm, failing.backend(concurrency=2), Force(type=SceneType.WORK, participants=["vera", "emre"]))
    assert "sk-test" not in str(failure.value)
    assert (workspace.memories_dir / "vera.jsonl").read_bytes() == before
    assert gm.world().pending == "day-001/scene-02"
    resumed = FakeAPI(healthy)
    outcome = run_scene(gm, resumed.backend())
    assert outcome.spec.ref == "day-001/scene-02"
    assert len(resumed.calls) == 1 and '"agent": "emre"' in resumed.calls[0].body["messages"][0]["content"]


def test_a_scene_goes_through_a_message_batch_and_is_applied(gm, workspace):
    batch_id = "msgbatch_01E2E"
    results_url = f"{BASE}/v1/messages/batches/{batch_id}/results"
    submitted: list[dict] = []
    polls = []

    def respond(request, call, number):
        if call.method == "POST" and call.path == "/v1/messages/batches":
            submitted.extend(call.body["requests"])
            return httpx2.Response(200, json=batch_body(batch_id, "in_progress", {"processing": 7}))
        if call.method == "GET" and call.path == f"/v1/messages/batches/{batch_id}":
            polls.append(number)
            if len(polls) == 1:
                return httpx2.Response(200, json=batch_body(batch_id, "in_progress", {"processing": 7}))
            return httpx2.Response(200, json=batch_body(batch_id, "ended", {"succeeded": 7}, results_url))
        if call.method == "GET" and call.url == results_url:
            return batch_results(submitted, workspace)
        return httpx2.Response(404, json=error_body("not_found_error", call.url))

    api = FakeAPI(respond)
    outcome = run_scene(gm, api.backend(), batch=True, poll_seconds=0)
    assert outcome.spec.type == SceneType.ARRIVAL and len(submitted) == 7
    assert [c.path for c in api.calls if c.path == "/v1/messages"] == []  # nothing asked one by one
    record = json.loads((workspace.scenes / "day-001/scene-01/scene.json").read_text(encoding="utf-8"))
    assert record["batch"] == batch_id
    report = cost_report(workspace)
    assert report["total"]["calls"] == 7
    assert all(call["batch"] for calls in record["usage"].values() for call in calls)


def test_an_interrupted_batch_is_picked_up_again_by_its_stored_id(gm, workspace):
    batch_id = "msgbatch_01RESUME"
    results_url = f"{BASE}/v1/messages/batches/{batch_id}/results"
    submitted: list[dict] = []
    state = {"interrupt": True}

    def respond(request, call, number):
        if call.method == "POST" and call.path == "/v1/messages/batches":
            submitted.extend(call.body["requests"])
            return httpx2.Response(200, json=batch_body(batch_id, "in_progress", {"processing": 7}))
        if call.method == "GET" and call.path == f"/v1/messages/batches/{batch_id}":
            if state.pop("interrupt", False):
                raise KeyboardInterrupt  # Ctrl-C while waiting for the batch
            return httpx2.Response(200, json=batch_body(batch_id, "ended", {"succeeded": 7}, results_url))
        if call.method == "GET" and call.url == results_url:
            return batch_results(submitted, workspace)
        return httpx2.Response(404, json=error_body("not_found_error", call.url))

    first = FakeAPI(respond)
    with pytest.raises(KeyboardInterrupt):
        run_scene(gm, first.backend(), batch=True, poll_seconds=0)
    assert gm.world().pending == "day-001/scene-01"
    second = FakeAPI(respond)
    run_scene(gm, second.backend(), batch=True, poll_seconds=0)
    assert [c.method for c in second.calls if c.path == "/v1/messages/batches"] == []  # no new batch
    assert second.calls[0].path == f"/v1/messages/batches/{batch_id}"
    assert gm.world().scene == 1 and len(submitted) == 7


def test_day_advance_on_the_api_uses_the_key_from_the_environment_and_reports_cost(workspace, monkeypatch):
    import anthropic

    api = FakeAPI(answering(workspace))
    real = anthropic.Anthropic

    def through_mock(**kwargs):
        assert kwargs["api_key"] == "sk-test"
        return real(**kwargs, http_client=httpx2.Client(transport=httpx2.MockTransport(api)))

    monkeypatch.setattr(anthropic, "Anthropic", through_mock)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    result = CliRunner().invoke(app, ["--root", str(workspace.root), "scene", "run", "--model", "claude-haiku-4-5"])
    assert result.exit_code == 0, result.output
    assert "offline backend" not in result.output
    assert re.search(r"API cost so far: \$0\.\d\d over 7 calls", result.output)
    assert {c.body["model"] for c in api.calls} == {"claude-haiku-4-5"}
    written = "".join(p.read_text(encoding="utf-8") for p in workspace.scenes.rglob("*") if p.is_file())
    assert "sk-test" not in written


def test_a_characters_meeting_turns_share_their_cached_blocks(gm, workspace):
    arrival(gm, workspace)

    def meeting_reply(request, call, number):
        reply = reply_for(call.body, workspace)
        reply["says"] = f"Beitrag {number}"
        if "Das ist dein letzter Beitrag" in call.body["messages"][0]["content"]:
            reply["conversation"] = {"summary": "Wir sind uns einig.", "importance": 5, "tags": ["api"]}
        return httpx2.Response(200, json=message_body(json.dumps(reply, ensure_ascii=False), call.body["model"], USAGE))

    api = FakeAPI(meeting_reply)
    run_scene(gm, api.backend(), Force(type=SceneType.MEETING, participants=["vera", "emre"], topic="Türme"))
    vera_first, _, vera_second, _ = [c.body for c in api.calls]
    assert vera_first["system"] == vera_second["system"]  # identical prefix: the second turn reads the cache
    # Shared start, persona, the memories chosen for her day and those she is sent in both of her
    # turns: four breakpoints, as many as the API allows.
    assert [b["cache_control"] for b in vera_first["system"]] == [{"type": "ephemeral"}] * 4
    assert vera_first["messages"] != vera_second["messages"]  # the transcript differs
    assert "Beitrag 2" in vera_second["messages"][0]["content"]
