"""The Anthropic backend through the real SDK client, against an in-process HTTP mock.

No network and no real key: every request goes through ``anthropic.Anthropic``
and its ``httpx2`` transport, which is an ``httpx2.MockTransport`` here, so
what is asserted is what the API would actually receive.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import traceback
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

import anthropic  # noqa: E402
import httpx2  # noqa: E402

from anthropic.resources.messages import DEPRECATED_MODELS  # noqa: E402
from replies import valid_reply  # noqa: E402

from gamemaster.backends import BackendChoiceError, get_backend  # noqa: E402
from gamemaster.backends.anthropic_api import (  # noqa: E402
    DEFAULT_MODEL,
    AnthropicBackend,
    BackendError,
    default_model,
    known_models,
)
from gamemaster.backends.base import Answer  # noqa: E402
from gamemaster.pricing import USAGE_FIELDS  # noqa: E402
from gamemaster.replies import Reply, parse_reply  # noqa: E402

KEY = "sk-test"
BASE = "https://api.anthropic.com"


# -- the mock API ----------------------------------------------------------


@dataclass
class Call:
    method: str
    path: str
    url: str
    body: dict | None
    headers: dict


class FakeAPI:
    """Answers with ``respond(call, number)`` and keeps every request it saw."""

    def __init__(self, respond):
        self.respond = respond
        self.calls: list[Call] = []

    def __call__(self, request):
        request.read()
        body = json.loads(request.content) if request.content else None
        call = Call(request.method, request.url.path, str(request.url), body, dict(request.headers))
        self.calls.append(call)
        return self.respond(request, call, len(self.calls))

    def client(self, max_retries: int = 4):
        transport = httpx2.MockTransport(self)
        return anthropic.Anthropic(api_key=KEY, http_client=httpx2.Client(transport=transport), max_retries=max_retries)

    def backend(self, **options) -> AnthropicBackend:
        return AnthropicBackend(client=self.client(), **options)

    @property
    def bodies(self) -> list[dict]:
        return [c.body for c in self.calls]


def message_body(text: str, model: str, usage: dict | None = None, stop_reason: str = "end_turn") -> dict:
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage or {"input_tokens": 10, "output_tokens": 20},
    }


def error_body(kind: str, message: str) -> dict:
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_01"}


USAGE = {
    "input_tokens": 812,
    "output_tokens": 377,
    "cache_creation_input_tokens": 1450,
    "cache_read_input_tokens": 2900,
}


def replying(request_, usage=None):
    """A responder that answers every Messages call with a valid reply for ``request_``."""

    def respond(request, call, number):
        text = json.dumps(valid_reply(request_), ensure_ascii=False)
        return httpx2.Response(200, json=message_body(text, call.body["model"], usage or USAGE))

    return respond


# -- requests from a real workspace ---------------------------------------


@pytest.fixture
def scene(gm):
    """The first scene of the bundled studio (an ARRIVAL of everyone), opened."""
    gm.open_next()
    return gm.pending()


def request_for(gm, pending, agent_id: str = "vera", **options):
    return gm.build_request(pending, pending.turn_of(agent_id), **options)


@pytest.fixture
def no_sleep(monkeypatch):
    """The SDK's retry backoff without the waiting; returns the delays it asked for."""
    delays: list[float] = []
    monkeypatch.setattr(anthropic._base_client.time, "sleep", delays.append)
    return delays


# -- 1. a structured reply -------------------------------------------------


def test_structured_reply_parses_and_carries_usage(gm, scene):
    request = request_for(gm, scene)
    api = FakeAPI(replying(request))

    answer = api.backend().reply(request)

    assert isinstance(answer, Answer)
    reply = parse_reply(answer.text, "vera")
    assert isinstance(reply, Reply)
    assert (reply.agent, reply.scene) == ("vera", scene.spec.ref)
    assert reply.plan is not None and reply.plan.text.startswith("Heute")
    assert answer.usage == USAGE
    assert answer.model == DEFAULT_MODEL
    assert len(api.calls) == 1 and api.calls[0].path == "/v1/messages" and api.calls[0].method == "POST"


def test_reply_is_accepted_by_the_scene_checks(gm, scene):
    request = request_for(gm, scene, "emre")
    answer = FakeAPI(replying(request)).backend().reply(request)

    stored = gm.store_reply(scene, scene.turn_of("emre"), answer.text)

    assert stored.agent == "emre"


def test_missing_usage_counters_count_as_zero(gm, scene):
    request = request_for(gm, scene)
    usage = {"input_tokens": 5, "output_tokens": 7, "cache_creation_input_tokens": None}
    answer = FakeAPI(replying(request, usage)).backend().reply(request)

    assert answer.usage == {"input_tokens": 5, "output_tokens": 7,
                            "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    assert tuple(answer.usage) == USAGE_FIELDS


# -- 2. the request: cache layout, model, schema ---------------------------


def test_the_shared_start_and_the_persona_are_cached_system_blocks_and_the_scene_the_user_message(gm, scene):
    request = request_for(gm, scene)
    assert request.shared_prompt and request.prompt.startswith(request.shared_prompt + request.stable_prompt)
    api = FakeAPI(replying(request))

    api.backend().reply(request)

    body = api.bodies[0]
    # An ARRIVAL is one turn: its memories are sent once, so they get no breakpoint of their own;
    # the memories chosen for the day (none yet on the first) are read again all day.
    assert request.stable_prompt and request.day_prompt and request.memory_prompt and body["system"] == [
        {"type": "text", "text": request.shared_prompt, "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": request.stable_prompt, "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": request.day_prompt, "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": request.memory_prompt},
    ]
    assert len(body["messages"]) == 1
    message = body["messages"][0]
    assert message["role"] == "user"
    # Nothing of the prompt is lost or sent twice.
    assert "".join(b["text"] for b in body["system"]) + message["content"] == request.prompt
    assert "Deine Erinnerungen" in body["system"][2]["text"]
    assert "Zum Thema dieser Szene" in body["system"][3]["text"]
    assert "Vera" not in body["system"][0]["text"].split("## Wer wer ist")[0]  # the contract names no one
    assert body["system"][1]["text"].startswith("# Du bist Vera Kowalski (vera)")
    assert message["content"].startswith("## Die Szene: ARRIVAL")
    assert body["max_tokens"] == 4096


def test_every_character_and_scene_kind_shares_the_same_start(gm, workspace):
    from gamemaster.loop import run_scene
    from gamemaster.scenes import Force, SceneType
    from gamemaster.backends.offline import OfflineBackend

    run_scene(gm, OfflineBackend())  # ARRIVAL: plans and memories to work from
    starts = set()
    for kind, who in ((SceneType.WORK, ["vera", "emre"]), (SceneType.MEETING, ["leo", "finn"]),
                      (SceneType.REFLECTION, ["nami"])):
        gm.open_next(Force(type=kind, participants=who))
        pending = gm.pending()
        for turn in range(len(pending.turns)):
            request = gm.build_request(pending, turn)
            assert request.prompt.startswith(request.shared_prompt)
            starts.add(request.shared_prompt)
        run_scene(gm, OfflineBackend())
    assert len(starts) == 1
    shared = starts.pop()
    assert "## Studio-Bibel" in shared and "#### Die Knochentürme" in shared and "`nami`" in shared


def test_validation_error_goes_into_the_scene_part(gm, scene):
    request = request_for(gm, scene, previous_error="plan: an ARRIVAL reply must declare today's plan")
    api = FakeAPI(replying(request))

    api.backend().reply(request)

    body = api.bodies[0]
    assert "an ARRIVAL reply must declare today's plan" in body["messages"][0]["content"]
    assert [b["text"] for b in body["system"]] == [request.shared_prompt, request.stable_prompt, request.day_prompt,
                                                   request.memory_prompt]
    assert all("ARRIVAL reply must" not in b["text"] for b in body["system"])


def test_prompt_without_stable_prefix_is_sent_whole(gm, scene):
    request = replace(request_for(gm, scene), shared_prompt="", stable_prompt="", day_prompt="", memory_prompt="")
    api = FakeAPI(replying(request))

    api.backend().reply(request)

    body = api.bodies[0]
    assert "system" not in body
    assert body["messages"] == [{"role": "user", "content": request.prompt}]


def _walk_objects(schema):
    if isinstance(schema, dict):
        if schema.get("type") == "object":
            yield schema
        for value in schema.values():
            yield from _walk_objects(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _walk_objects(value)


def test_request_carries_the_reply_schema_as_structured_output(gm, scene):
    request = request_for(gm, scene)
    api = FakeAPI(replying(request))

    api.backend().reply(request)

    fmt = api.bodies[0]["output_config"]["format"]
    assert fmt["type"] == "json_schema"
    schema = fmt["schema"]
    assert set(schema["properties"]) == {f.alias or name for name, f in Reply.model_fields.items()}
    assert {"agent", "scene", "action"} <= set(schema["required"])
    assert "with" in schema["$defs"]["TalkWishDraft"]["properties"]
    objects = list(_walk_objects(schema))
    assert len(objects) >= 7
    assert all(obj["additionalProperties"] is False for obj in objects)
    # Keywords structured outputs reject are not sent as keywords.
    text = json.dumps(schema)
    for keyword in ('"pattern"', '"minLength"', '"maxLength"', '"minimum"', '"maximum"'):
        assert keyword not in text


def _set_agent_model(workspace, agent_id, model):
    agent = workspace.load_agent(agent_id)
    agent.model = model
    workspace.save_agent(agent)


def _set_world_model(workspace, model):
    world = workspace.load_world()
    world.model = model
    workspace.save_world(world)


def test_model_comes_from_the_agent_state_file(gm, workspace, scene):
    _set_agent_model(workspace, "vera", "claude-haiku-4-5")
    request = request_for(gm, scene)
    assert request.agent.model == "claude-haiku-4-5"
    api = FakeAPI(replying(request))

    answer = api.backend().reply(request)

    assert api.bodies[0]["model"] == "claude-haiku-4-5"
    assert answer.model == "claude-haiku-4-5"


def test_cli_override_beats_the_agent_model(gm, workspace, scene):
    _set_agent_model(workspace, "vera", "claude-haiku-4-5")
    request = request_for(gm, scene)
    api = FakeAPI(replying(request))

    backend = api.backend(model="claude-opus-4-6")
    backend.reply(request)

    assert api.bodies[0]["model"] == "claude-opus-4-6"
    assert backend.model_for(request) == "claude-opus-4-6"


def test_world_default_when_the_agent_names_none(gm, workspace, scene):
    _set_world_model(workspace, "claude-opus-4-7")
    _set_agent_model(workspace, "emre", "claude-haiku-4-5")
    vera = request_for(gm, scene, "vera")
    emre = request_for(gm, scene, "emre")
    assert vera.agent.model is None and vera.default_model == "claude-opus-4-7"
    api = FakeAPI(replying(vera))
    backend = api.backend()

    backend.reply(vera)
    backend.reply(emre)

    assert [b["model"] for b in api.bodies] == ["claude-opus-4-7", "claude-haiku-4-5"]


def test_sdk_default_when_nobody_names_a_model(gm, scene):
    request = request_for(gm, scene)
    assert request.agent.model is None and request.default_model is None
    api = FakeAPI(replying(request))

    api.backend().reply(request)

    assert api.bodies[0]["model"] == DEFAULT_MODEL


# -- 3. retries ------------------------------------------------------------


@pytest.mark.parametrize(
    "status, kind, message",
    [(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
     (529, "overloaded_error", "Overloaded")],
)
def test_transient_error_then_success(gm, scene, status, kind, message, no_sleep):
    request = request_for(gm, scene)
    ok = replying(request)

    def respond(req, call, number):
        if number == 1:
            return httpx2.Response(status, headers={"retry-after-ms": "1"}, json=error_body(kind, message))
        return ok(req, call, number)

    api = FakeAPI(respond)
    answer = api.backend().reply(request)

    assert no_sleep == [0.001]  # waited as long as retry-after-ms said, not the SDK's own backoff
    assert len(api.calls) == 2
    assert [c.headers["x-stainless-retry-count"] for c in api.calls] == ["0", "1"]
    assert api.bodies[0] == api.bodies[1]
    assert parse_reply(answer.text, "vera").agent == "vera"
    assert answer.usage == USAGE


def test_overload_without_retry_after_backs_off_and_succeeds(gm, scene, no_sleep):
    request = request_for(gm, scene)
    ok = replying(request)

    def respond(req, call, number):
        if number == 1:
            return httpx2.Response(529, json=error_body("overloaded_error", "Overloaded"))
        return ok(req, call, number)

    api = FakeAPI(respond)
    answer = api.backend().reply(request)

    assert len(api.calls) == 2
    assert len(no_sleep) == 1 and 0 < no_sleep[0] <= 8
    assert parse_reply(answer.text, "vera").scene == scene.spec.ref


def test_timeout_then_success(gm, scene, no_sleep):
    request = request_for(gm, scene)
    ok = replying(request)

    def respond(req, call, number):
        if number == 1:
            raise httpx2.ReadTimeout("timed out", request=req)
        return ok(req, call, number)

    api = FakeAPI(respond)
    answer = api.backend().reply(request)

    assert len(api.calls) == 2
    assert len(no_sleep) == 1
    assert answer.usage == USAGE


# -- 4. failures -----------------------------------------------------------


def _assert_no_key(exc: BaseException) -> None:
    assert KEY not in str(exc)
    assert KEY not in repr(exc)
    assert KEY not in "".join(traceback.format_exception(exc))


def test_persistent_overload_raises_a_clear_error_without_the_key(gm, scene, no_sleep):
    request = request_for(gm, scene)
    api = FakeAPI(lambda req, call, number: httpx2.Response(529, json=error_body("overloaded_error", "Overloaded")))
    backend = api.backend()

    with pytest.raises(BackendError) as caught:
        backend.reply(request)

    assert sum(no_sleep) <= 4 * 8  # each backoff within the SDK's cap; none of them waited for real
    assert str(caught.value) == "anthropic: vera: 529 overloaded_error: Overloaded (after 4 retries)"
    assert len(api.calls) == 5 and len(no_sleep) == 4
    assert all(c.headers["authorization"] == f"Bearer {KEY}" for c in api.calls)  # the key was in play
    _assert_no_key(caught.value)
    assert KEY not in repr(backend)


def test_max_retries_is_the_backends(gm, scene, no_sleep):
    request = request_for(gm, scene)
    api = FakeAPI(lambda req, call, number: httpx2.Response(529, json=error_body("overloaded_error", "Overloaded")))

    with pytest.raises(BackendError, match=r"\(after 1 retry\)$"):
        api.backend(max_retries=1).reply(request)

    assert len(api.calls) == 2


def test_bad_request_is_not_retried(gm, scene, no_sleep):
    request = request_for(gm, scene, "emre")
    api = FakeAPI(lambda req, call, number: httpx2.Response(
        400, json=error_body("invalid_request_error", "output_config.format.schema: unsupported keyword")))

    with pytest.raises(BackendError) as caught:
        api.backend().reply(request)

    assert str(caught.value) == (
        "anthropic: emre: 400 invalid_request_error: output_config.format.schema: unsupported keyword"
    )
    assert len(api.calls) == 1 and no_sleep == []


def test_key_echoed_by_the_server_is_redacted(gm, scene):
    request = request_for(gm, scene)
    api = FakeAPI(lambda req, call, number: httpx2.Response(
        401, json=error_body("authentication_error", f"invalid x-api-key {KEY}")))

    with pytest.raises(BackendError) as caught:
        api.backend().reply(request)

    assert str(caught.value) == "anthropic: vera: 401 authentication_error: invalid x-api-key [redacted]"
    assert KEY not in str(caught.value) and KEY not in repr(caught.value)


def test_persistent_timeout_names_the_agent(gm, scene, no_sleep):
    request = request_for(gm, scene, "finn")

    def respond(req, call, number):
        raise httpx2.ReadTimeout("timed out", request=req)

    with pytest.raises(BackendError) as caught:
        FakeAPI(respond).backend(max_retries=2, timeout=30).reply(request)

    assert str(caught.value) == "anthropic: finn: no answer within 30s (timeout) (after 2 retries)"
    _assert_no_key(caught.value)


def test_missing_key_names_the_variable(monkeypatch):
    with pytest.raises(BackendError, match="ANTHROPIC_API_KEY"):
        AnthropicBackend()
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret-value")
    backend = AnthropicBackend(max_retries=3, timeout=42)
    assert backend._client.max_retries == 3
    assert "sk-ant-secret-value" not in repr(backend)


# -- 5. the default model --------------------------------------------------


def test_default_model_is_a_current_sonnet_from_the_sdk():
    listed = known_models()
    assert default_model() == DEFAULT_MODEL
    assert DEFAULT_MODEL in listed
    assert DEFAULT_MODEL not in DEPRECATED_MODELS
    assert DEFAULT_MODEL.startswith("claude-sonnet-")
    first_current_sonnet = next(m for m in listed if m.startswith("claude-sonnet-") and m not in DEPRECATED_MODELS)
    assert DEFAULT_MODEL == first_current_sonnet


# -- 6. Message Batches ----------------------------------------------------


def batch_body(batch_id: str, status: str, counts: dict, results_url: str | None = None) -> dict:
    return {
        "id": batch_id,
        "type": "message_batch",
        "processing_status": status,
        "request_counts": {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0, **counts},
        "created_at": "2026-05-01T10:00:00Z",
        "expires_at": "2026-05-02T10:00:00Z",
        "ended_at": "2026-05-01T10:05:00Z" if status == "ended" else None,
        "cancel_initiated_at": None,
        "archived_at": None,
        "results_url": results_url,
    }


def test_batch_submit_poll_results(gm, workspace, scene):
    _set_agent_model(workspace, "emre", "claude-haiku-4-5")
    ids = {"vera": "s01-vera", "emre": "s01-emre", "finn": "s01-finn", "leo": "s01-leo"}
    requests = {agent: request_for(gm, scene, agent) for agent in ids}
    batch_id = "msgbatch_013Zva2CMHLNnXjNJJKqJ2EF"
    results_url = f"{BASE}/v1/messages/batches/{batch_id}/results"
    polls = []

    def respond(req, call, number):
        if call.method == "POST" and call.path == "/v1/messages/batches":
            return httpx2.Response(200, json=batch_body(batch_id, "in_progress", {"processing": 4}))
        if call.method == "GET" and call.path == f"/v1/messages/batches/{batch_id}":
            polls.append(number)
            if len(polls) == 1:
                return httpx2.Response(200, json=batch_body(batch_id, "in_progress", {"processing": 4}))
            counts = {"succeeded": 1, "errored": 1, "expired": 1, "canceled": 1}
            return httpx2.Response(200, json=batch_body(batch_id, "ended", counts, results_url))
        if call.method == "GET" and call.url == results_url:
            vera = json.dumps(valid_reply(requests["vera"]), ensure_ascii=False)
            lines = [
                {"custom_id": "s01-emre", "result": {"type": "errored", "error": error_body(
                    "invalid_request_error", "max_tokens: too large")}},
                {"custom_id": "s01-vera", "result": {"type": "succeeded", "message": message_body(
                    vera, "claude-sonnet-5-5", USAGE)}},
                {"custom_id": "s01-finn", "result": {"type": "expired"}},
                {"custom_id": "s01-leo", "result": {"type": "canceled"}},
            ]
            text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
            return httpx2.Response(200, content=text.encode("utf-8"), headers={"content-type": "application/binary"})
        return httpx2.Response(404, json=error_body("not_found_error", f"no route {call.method} {call.url}"))

    api = FakeAPI(respond)
    backend = api.backend()

    submitted = backend.submit_batch([(ids[agent], request) for agent, request in requests.items()])

    assert submitted == batch_id
    created = api.calls[0]
    assert (created.method, created.path) == ("POST", "/v1/messages/batches")
    entries = created.body["requests"]
    assert [e["custom_id"] for e in entries] == list(ids.values())
    by_id = {e["custom_id"]: e["params"] for e in entries}
    assert by_id["s01-emre"]["model"] == "claude-haiku-4-5"
    assert by_id["s01-vera"]["model"] == DEFAULT_MODEL
    for agent, custom_id in ids.items():
        params = by_id[custom_id]
        assert [(b["text"], b.get("cache_control")) for b in params["system"]] == [
            (requests[agent].shared_prompt, {"type": "ephemeral"}),
            (requests[agent].stable_prompt, {"type": "ephemeral"}),
            (requests[agent].day_prompt, {"type": "ephemeral"}),
            (requests[agent].memory_prompt, None),
        ]
        cached = len(requests[agent].shared_prompt + requests[agent].stable_prompt + requests[agent].day_prompt
                     + requests[agent].memory_prompt)
        assert params["messages"][0]["content"] == requests[agent].prompt[cached:]
        assert params["output_config"]["format"]["type"] == "json_schema"
        assert "talk_wishes" in params["output_config"]["format"]["schema"]["properties"]
        assert params["max_tokens"] == 4096
    # A batch entry is exactly what a direct call would send.
    assert by_id["s01-vera"] == backend.params(requests["vera"])

    first = backend.batch_status(batch_id)
    second = backend.batch_status(batch_id)

    assert first == {"status": "in_progress",
                     "counts": {"processing": 4, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}}
    assert second == {"status": "ended",
                      "counts": {"processing": 0, "succeeded": 1, "errored": 1, "canceled": 1, "expired": 1}}

    results = backend.batch_results(batch_id)

    assert set(results) == set(ids.values())
    vera = results["s01-vera"]
    assert isinstance(vera, Answer)
    assert parse_reply(vera.text, "vera").agent == "vera"
    assert vera.usage == USAGE and vera.model == "claude-sonnet-5-5"
    assert results["s01-emre"] == "errored: invalid_request_error: max_tokens: too large"
    assert results["s01-finn"] == "expired"
    assert results["s01-leo"] == "canceled"
    assert api.calls[-1].url == results_url
    assert all(c.path != "/v1/messages" for c in api.calls)


def test_batch_rejects_bad_custom_ids_before_sending(gm, scene):
    request = request_for(gm, scene)
    api = FakeAPI(lambda req, call, number: httpx2.Response(500))
    backend = api.backend()

    with pytest.raises(BackendError, match="custom id"):
        backend.submit_batch([("day-001/scene-01", request)])
    with pytest.raises(BackendError, match="used twice"):
        backend.submit_batch([("a", request), ("a", request)])
    assert api.calls == []


def test_batch_results_before_the_end_is_a_backend_error(gm, scene):
    batch_id = "msgbatch_01"
    api = FakeAPI(lambda req, call, number: httpx2.Response(
        200, json=batch_body(batch_id, "in_progress", {"processing": 2})))

    with pytest.raises(BackendError, match=r"^anthropic: batch msgbatch_01: .*in_progress"):
        api.backend().batch_results(batch_id)


def test_batch_status_of_an_unknown_batch(gm, scene):
    api = FakeAPI(lambda req, call, number: httpx2.Response(
        404, json=error_body("not_found_error", "batch not found")))

    with pytest.raises(BackendError) as caught:
        api.backend().batch_status("msgbatch_gone")

    assert str(caught.value) == "anthropic: batch msgbatch_gone: 404 not_found_error: batch not found"


# -- 7. registry and lazy import ------------------------------------------


def test_registry_builds_the_backend_with_options(gm, scene):
    request = request_for(gm, scene)
    api = FakeAPI(replying(request))

    backend = get_backend("anthropic", client=api.client(), concurrency=6, model="claude-haiku-4-5")

    assert isinstance(backend, AnthropicBackend)
    assert backend.name == "anthropic" and backend.capabilities.batches is True
    assert backend.capabilities.parallel == 6 and backend.capabilities.retries == 1
    backend.reply(request)
    assert api.bodies[0]["model"] == "claude-haiku-4-5"


def test_registry_refuses_api_options_for_a_local_backend_and_unknown_names():
    assert get_backend("offline", model=None, concurrency=None).name == "offline"  # None: not given
    with pytest.raises(BackendChoiceError, match="^--model, --concurrency only apply to API backends$"):
        get_backend("offline", model="claude-haiku-4-5", concurrency=2)
    with pytest.raises(KeyError, match="unknown backend 'nope'; choose from offline, anthropic"):
        get_backend("nope")


def test_registry_without_a_key_says_which_variable():
    from gamemaster.backends.registry import MissingKey

    with pytest.raises(MissingKey, match="ANTHROPIC_API_KEY"):
        get_backend("anthropic")
    with pytest.raises(BackendError, match="ANTHROPIC_API_KEY"):  # built by hand, the backend says the same
        AnthropicBackend()


def test_a_missing_key_is_said_before_the_sdk_is_imported(tmp_path):
    """The SDK takes seconds to import: a run without a key says so at once."""
    code = (
        "import sys\n"
        "from gamemaster.backends import get_backend\n"
        "try:\n"
        "    get_backend('anthropic')\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, exc)\n"
        "print('anthropic' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.stdout.splitlines() == [
        "MissingKey backend anthropic needs an API key: set ANTHROPIC_API_KEY (or play offline with --backend offline)",
        "False"]


def test_cli_and_gm_do_not_import_anthropic():
    code = (
        "import sys, gamemaster.cli, gamemaster.gm, gamemaster.loop, gamemaster.backends; "
        "print(sorted(m for m in ('anthropic', 'httpx2') if m in sys.modules))"
    )
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True)
    assert done.stdout.strip() == "[]"


def test_a_claude_code_alias_in_the_agent_state_becomes_a_current_model_id(gm, scene):
    request = request_for(gm, scene)
    request = replace(request, agent=request.agent.model_copy(update={"model": "haiku"}))
    model = AnthropicBackend(client=FakeAPI(replying(request)).client()).model_for(request)
    assert model.startswith("claude-haiku-") and model in known_models() and model not in DEPRECATED_MODELS


def test_an_interview_through_the_sdk_answers_from_the_recalled_memories(workspace):
    from gamemaster import interview

    answer = {"answer": "Die Türme sind gewachsen, nicht gebaut.", "memories": ["vera-002", "emre-001"]}
    api = FakeAPI(lambda request, call, number: httpx2.Response(
        200, json=message_body(json.dumps(answer, ensure_ascii=False), call.body["model"])))
    built = interview.build(workspace, "vera", "Was weißt du über die Knochentürme?")
    result = interview.run(built, api.backend())
    assert result.answer == answer["answer"]
    assert result.memories == ["vera-002"]  # emre's memory was never in vera's prompt
    assert result.usage["output_tokens"] == 20
    body = api.bodies[0]
    assert body["messages"] == [{"role": "user", "content": built.prompt}]
    assert "vera-002" in built.prompt and "Knochentürme" in built.prompt
    assert set(body["output_config"]["format"]["schema"]["properties"]) == {"answer", "memories"}
    assert body["model"] == DEFAULT_MODEL


def test_a_kind_with_a_reply_model_of_its_own_sends_that_schema(gm, scene, monkeypatch):
    """Structured output closes every object, so the schema sent must be the scene kind's own
    reply model: a field only that kind allows would otherwise be refused every time."""

    class ArrivalReply(Reply):
        mood: str | None = None

    monkeypatch.setattr(type(scene.spec.kind), "reply_model", ArrivalReply)
    request = request_for(gm, scene)
    api = FakeAPI(replying(request))
    api.backend().reply(request)
    properties = api.bodies[0]["output_config"]["format"]["schema"]["properties"]
    assert "mood" in properties and "talk_wishes" in properties
