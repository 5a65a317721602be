"""Plays the characters with Claude, through the official ``anthropic`` SDK.

Only this module imports ``anthropic``; ``get_backend("anthropic")`` loads it
on demand, so the offline default never needs the SDK or a key.

Every call has the same shape, for replies and for Message Batches alike:

* the start of the prompt is the system prompt, in up to four blocks
  (``cache_breakpoints`` says which are marked ``cache_control``): what every
  character shares (reply contract, roster, studio bible), then the character's
  own stable part (persona, reflections), then the memories of earlier days chosen
  for its day, then this scene's memories;
* the scene-specific rest is the one user message;
* ``output_config`` carries the reply's JSON Schema, so the API returns a
  JSON object the loop parses without scraping (and still validates).

Rate limits (429), overloads (529), server errors and timeouts are retried by
the SDK itself (``max_retries``, with backoff that honours ``retry-after``);
what still fails becomes a ``BackendError`` naming the agent, the HTTP status
and the API's message. The API key never appears in it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import re
import threading
import typing
from typing import Any

import anthropic
from anthropic.resources.messages import DEPRECATED_MODELS
from anthropic.types.model_param import ModelParam

from ..pricing import USAGE_FIELDS
from ..problems import GamemasterError
from ..sections import reply_model_for
from .base import Answer, Capabilities, ReplyRequest, chosen_model, prompt_parts
from .lookup_loop import with_lookups
from .registry import API_KEY_VARIABLE, MISSING_KEY
from .schema import interview_output_schema, output_config, reply_output_schema

log = logging.getLogger(__name__)

#: What the Message Batches API accepts as a request's ``custom_id``.
CUSTOM_ID_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


class BackendError(GamemasterError):
    """An API call that failed for good (after the SDK's retries), or a backend set up wrong."""


def known_models() -> list[str]:
    """The model ids the installed SDK lists in ``ModelParam``, in the SDK's order."""
    ids: list[str] = []
    for member in typing.get_args(ModelParam):
        ids += [value for value in typing.get_args(member) if isinstance(value, str)]
    return ids


def default_model(family: str = "sonnet") -> str:
    """The first model of a family the SDK lists and does not mark deprecated.

    Taken from the SDK rather than written here, so upgrading ``anthropic``
    moves the default forward and never onto a model near its end of life.
    """
    current = [model for model in known_models() if model not in DEPRECATED_MODELS]
    for model in current:
        if model.startswith(f"claude-{family}-"):
            return model
    if current and family == "sonnet":
        return current[0]
    raise BackendError(f"anthropic {anthropic.__version__} lists no current {family} model; set \"model\" in state/world.json")


#: Claude Code's subagent aliases, which an agent's ``model`` may hold since the same
#: field feeds ``.claude/agents``; the API needs a model id.
FAMILY_ALIASES = ("sonnet", "opus", "haiku")


DEFAULT_MODEL = default_model()


#: Every breakpoint uses the default five-minute TTL. A day through the API makes its calls
#: seconds apart and the shared block is read by every call, which starts its five minutes
#: again; a character's own block is read at its next scene, which comes within minutes
#: (bench/caching.py measures the gaps). A one-hour entry costs 2x the input price to write
#: instead of 1.25x, which pays only for gaps of 5 to 60 minutes, and a day has few of those.
CACHE_CONTROL = {"type": "ephemeral"}


def cache_breakpoints(request: ReplyRequest) -> set[str]:
    """The prompt segments (``ReplyRequest`` field names) worth a cache breakpoint.

    Writing a block to the cache costs 1.25x its input price and reading it 0.1x, so a
    breakpoint pays when the same prefix is sent again within the TTL: the shared start
    by every other call, the character's stable part and the memories chosen for its day
    at its next scene. This scene's memories are the same for every turn of the character
    in this scene, so they are marked where it has more than one (a MEETING of more rounds:
    written at the first, read at the others, the last included); elsewhere marking them
    would be a write never read. That makes four at most, as many as the API allows.
    """
    marked = {"shared_prompt", "stable_prompt", "day_prompt"}
    if request.spec.turns.count(request.agent.id) > 1:
        marked.add("memory_prompt")
    return marked


class AnthropicBackend:
    """Claude through the Messages API (and the Message Batches API for ``--batch``)."""

    name = "anthropic"
    #: Eight at once: an ARRIVAL of the bundled seven sends its first call alone (it writes the
    #: shared start to the cache) and the other six together, two call latencies for the scene
    #: instead of three at four (``bench/api_day.py``). The SDK retries a 429 with backoff, and
    #: reads from the cache do not count towards the input tokens a minute of current models.
    capabilities = Capabilities(batches=True, usage=True, pricing=True, parallel=8, interviews=True, retries=1,
                                lookups=True)

    def __init__(
        self,
        model: str | None = None,
        concurrency: int = capabilities.parallel,
        retries: int = capabilities.retries,
        max_tokens: int = 4096,
        max_retries: int = 4,
        timeout: float = 120.0,
        client: Any = None,
    ):
        self.model = model or None
        self.capabilities = dataclasses.replace(
            type(self).capabilities, parallel=max(1, int(concurrency)), retries=max(0, int(retries))
        )
        self.max_tokens = int(max_tokens)
        self.max_retries = max(0, int(max_retries))
        self.timeout = float(timeout)
        if client is None:
            key = os.environ.get(API_KEY_VARIABLE)
            if not key:
                raise BackendError(MISSING_KEY)
            client = anthropic.Anthropic(api_key=key, max_retries=self.max_retries, timeout=self.timeout)
        else:
            # The backend's retry and timeout settings apply to a client handed in as well,
            # so the CLI options mean the same thing whoever built the client.
            client = client.with_options(max_retries=self.max_retries, timeout=self.timeout)
        self._client = client
        # (model, shared start) → set once the first call that sends it has its answer.
        self._warm: dict[tuple[str, str], threading.Event] = {}
        self._warm_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"AnthropicBackend(model={self.model!r}, concurrency={self.capabilities.parallel}, max_retries={self.max_retries})"

    # -- one call ----------------------------------------------------------

    def model_for(self, request: ReplyRequest) -> str:
        """CLI override, then the agent's own model, then the world's, then the SDK-derived default."""
        chosen = chosen_model(self.model, request)
        if chosen in FAMILY_ALIASES:
            return default_model(chosen)
        return chosen or DEFAULT_MODEL

    def params(self, request: ReplyRequest) -> dict[str, Any]:
        """The Messages API parameters for ``request`` (also the ``params`` of a batch entry)."""
        parts, turn = prompt_parts(request)
        params: dict[str, Any] = {"model": self.model_for(request), "max_tokens": self.max_tokens}
        if parts:
            marked = cache_breakpoints(request)
            params["system"] = [
                {"type": "text", "text": text, **({"cache_control": CACHE_CONTROL} if name in marked else {})}
                for name, text in parts
            ]
        params["messages"] = [{"role": "user", "content": turn}]
        # The kind's own reply model: a kind with fields of its own gets them in the schema.
        params["output_config"] = output_config(reply_model_for(request.spec.kind))
        return params

    def reply(self, request: ReplyRequest) -> Answer:
        """One turn; where the request can look things up (``lookup.py``), a bounded tool-use loop."""
        params = self.params(request)
        with self._warmed(params["model"], request.shared_prompt):
            try:
                if request.lookup is None:
                    return self.answer(self._client.messages.create(**params), params["model"], request.agent.id)
                message, usage, found = with_lookups(lambda p: self._client.messages.create(**p), params, request)
            except anthropic.AnthropicError as exc:
                raise BackendError(self.describe(exc, request.agent.id)) from exc
        answer = self.answer(message, params["model"], request.agent.id)
        return dataclasses.replace(answer, usage=usage, lookups=found)

    @contextlib.contextmanager
    def _warmed(self, model: str, shared: str):
        """Let the first call that sends a shared start go alone.

        A cache entry can be read only once the response that wrote it has begun, so calls
        sent side by side before that all miss and all write the shared start. The first call
        per model and shared start is sent alone; calls with the same start wait for its
        answer (at most the timeout) and then read it. This costs the wait for one call, once.
        """
        if not shared:
            yield
            return
        with self._warm_lock:
            event = self._warm.get((model, shared))
            first = event is None
            if first:
                event = self._warm[(model, shared)] = threading.Event()
        if not first:
            event.wait(self.timeout)
            yield
            return
        try:
            yield
        finally:
            event.set()

    def answer(self, message: Any, model: str | None = None, agent: str = "") -> Answer:
        """The reply text (the JSON of the first text block), its token usage and the model that served it."""
        try:
            text = next((block.text for block in message.content if getattr(block, "type", None) == "text"), "")
        except TypeError:
            raise BackendError(f"anthropic: {agent or 'batch'}: the API answered without message content") from None
        if message.stop_reason in ("max_tokens", "refusal"):
            # The loop sees an invalid reply and asks again; the log says why.
            log.warning("anthropic: %s: reply ended with stop_reason %s", agent or message.id, message.stop_reason)
        return Answer(text=text, usage=usage_of(message), model=message.model or model)

    def interview(self, request) -> Answer:
        """An answer to ``gamemaster ask``: one call, the interview answer's schema as output format."""
        model = self.model_for(request)
        schema = interview_output_schema()
        params = {
            "model": model,
            "max_tokens": self.max_tokens,
            "messages": [{"role": "user", "content": request.prompt}],
            "output_config": {"format": {"type": "json_schema", "schema": schema}},
        }
        try:
            message = self._client.messages.create(**params)
        except anthropic.AnthropicError as exc:
            raise BackendError(self.describe(exc, request.agent.id)) from exc
        return self.answer(message, model, request.agent.id)

    # -- Message Batches ---------------------------------------------------

    def submit_batch(self, requests: list[tuple[str, ReplyRequest]]) -> str:
        """Send ``(custom_id, request)`` pairs as one Message Batch; returns its id."""
        seen: set[str] = set()
        for custom_id, _ in requests:
            if not CUSTOM_ID_RE.match(custom_id):
                raise BackendError(f"anthropic: batch: custom id {custom_id!r} must match {CUSTOM_ID_RE.pattern}")
            if custom_id in seen:
                raise BackendError(f"anthropic: batch: custom id {custom_id!r} is used twice")
            seen.add(custom_id)
        entries = [{"custom_id": custom_id, "params": self.params(request)} for custom_id, request in requests]
        try:
            batch = self._client.messages.batches.create(requests=entries)
        except anthropic.AnthropicError as exc:
            raise BackendError(self.describe(exc, "batch")) from exc
        return batch.id

    def batch_status(self, batch_id: str) -> dict[str, Any]:
        """``{"status": "in_progress" | "canceling" | "ended", "counts": {"processing": n, ...}}``."""
        try:
            batch = self._client.messages.batches.retrieve(batch_id)
        except anthropic.AnthropicError as exc:
            raise BackendError(self.describe(exc, f"batch {batch_id}")) from exc
        counts = batch.request_counts
        return {
            "status": batch.processing_status,
            "counts": {name: int(getattr(counts, name, 0) or 0) for name in _COUNT_FIELDS},
        }

    def batch_results(self, batch_id: str) -> dict[str, Answer | str]:
        """custom id → ``Answer`` for a succeeded request, else why it has none."""
        results: dict[str, Answer | str] = {}
        try:
            for item in self._client.messages.batches.results(batch_id):
                outcome = item.result
                if outcome.type == "succeeded":
                    results[item.custom_id] = self.answer(outcome.message, agent=item.custom_id)
                elif outcome.type == "errored":
                    error = getattr(outcome.error, "error", None)
                    kind = getattr(error, "type", None) or "error"
                    message = getattr(error, "message", None) or ""
                    results[item.custom_id] = self._scrub(f"errored: {kind}: {message}".rstrip(": "))
                else:
                    results[item.custom_id] = outcome.type
        except anthropic.AnthropicError as exc:
            raise BackendError(self.describe(exc, f"batch {batch_id}")) from exc
        return results

    # -- errors ------------------------------------------------------------

    def describe(self, exc: BaseException, who: str) -> str:
        """``anthropic: <who>: <status> <type>: <message> (after N retries)``, without the key."""
        request = None
        if isinstance(exc, anthropic.APIStatusError):
            message = exc.api_message or _plain(exc.body) or exc.message
            what = f"{exc.status_code} {exc.type}: {message}" if exc.type else f"{exc.status_code}: {message}"
            request = exc.response.request
        elif isinstance(exc, anthropic.APITimeoutError):
            what = f"no answer within {self.timeout:g}s (timeout)"
            request = exc.request
        elif isinstance(exc, anthropic.APIConnectionError):
            cause = f" ({exc.__cause__})" if exc.__cause__ else ""
            what = f"connection error: {exc.message}{cause}"
            request = exc.request
        else:
            what = str(exc) or type(exc).__name__
        retries = _retries_taken(request)
        suffix = f" (after {retries} {'retry' if retries == 1 else 'retries'})" if retries else ""
        return self._scrub(f"anthropic: {who}: {what}{suffix}")

    def _scrub(self, text: str) -> str:
        for secret in (getattr(self._client, "api_key", None), getattr(self._client, "auth_token", None)):
            if isinstance(secret, str) and secret:
                text = text.replace(secret, "[redacted]")
        return text


_COUNT_FIELDS = ("processing", "succeeded", "errored", "canceled", "expired")


def usage_of(message: Any) -> dict[str, int]:
    """The four counters ``gamemaster cost`` prices; a counter the API leaves out is 0."""
    usage = getattr(message, "usage", None)
    return {name: int(getattr(usage, name, None) or 0) for name in USAGE_FIELDS}


def _retries_taken(request: Any) -> int:
    # The SDK stamps every attempt with the number of retries before it.
    try:
        return int(request.headers.get("x-stainless-retry-count", 0))
    except (AttributeError, TypeError, ValueError):
        return 0


def _plain(body: object) -> str:
    text = body if isinstance(body, str) else ""
    return " ".join(text.split())[:300]


__all__ = [
    "AnthropicBackend",
    "BackendError",
    "CACHE_CONTROL",
    "DEFAULT_MODEL",
    "cache_breakpoints",
    "default_model",
    "known_models",
    "output_config",
    "reply_output_schema",
    "usage_of",
]
