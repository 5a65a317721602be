"""A fake Anthropic Messages API that applies the documented prompt-caching rules.

It is an ``httpx2.MockTransport`` handler, so the real ``anthropic`` SDK talks to it
(tests and ``bench/caching.py`` alike). What it applies, as Anthropic's prompt-caching
documentation states it:

* the prompt is read in the order tools → system → messages, as a list of content
  blocks; a block with ``cache_control`` is a breakpoint (at most four per request);
* a breakpoint's cache entry is the exact prefix up to and including its block, for
  one model; a request reads the longest prefix that has a live entry, looked up at
  each breakpoint and at the block boundaries up to 20 blocks before it;
* a prefix shorter than the model's minimum cacheable length is not cached at all;
* an entry lives 5 minutes (``ttl`` "5m", the default) or an hour (``"1h"``) from its
  last use; reading it starts its time again;
* an entry exists only once the response that wrote it has begun, so requests in flight
  together with the one writing a prefix miss it (here: until that request is answered);
* ``usage`` is what the API reports: ``input_tokens`` are only the tokens neither read
  from nor written to the cache, ``cache_read_input_tokens`` and
  ``cache_creation_input_tokens`` the others, with ``cache_creation`` splitting the
  written ones by TTL (the part up to a 1-hour breakpoint is written for an hour).

Tokens are counted as ``len(text) // CHARS_PER_TOKEN`` (``gamemaster.costs``, the one
place that approximation is stated), per block. The clock is ``now`` (seconds), set
by the caller, so a test decides how much time passes between calls.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Callable

import anthropic
import httpx2

from gamemaster.pricing import CHARS_PER_TOKEN, STRICTEST_MIN_CACHEABLE, minimum_cacheable

TTL_SECONDS = {"5m": 300, "1h": 3600}
MAX_BREAKPOINTS = 4
#: How many block boundaries before a breakpoint are checked for a hit.
LOOKBACK_BLOCKS = 20


def minimum_tokens(model: str) -> int:
    """Anthropic's minimum cacheable length as the toolkit keeps it (``pricing.MIN_CACHEABLE``);
    a model not listed gets the strictest figure."""
    return minimum_cacheable(model) or STRICTEST_MIN_CACHEABLE


def tokens(text: str) -> int:
    return len(text) // CHARS_PER_TOKEN


@dataclass
class Entry:
    expires: float
    ttl: str


@dataclass
class FakeMessagesAPI:
    """The Messages endpoint with a prompt cache. ``answer(body)`` gives the reply text."""

    answer: Callable[[dict], str]
    now: float = 0.0
    #: Seconds the clock moves on by itself after every call (a call's modelled duration).
    call_seconds: float = 0.0
    cache: dict[tuple[str, str], Entry] = field(default_factory=dict)
    usages: list[dict] = field(default_factory=list)
    bodies: list[dict] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        request.read()
        if request.url.path != "/v1/messages":
            return httpx2.Response(404, json=_error("not_found_error", f"no route {request.url.path}"))
        body = json.loads(request.content)
        written: dict[tuple[str, str], Entry] = {}
        with self._lock:
            try:
                usage = self.usage(body, written)
            except ValueError as exc:
                return httpx2.Response(400, json=_error("invalid_request_error", str(exc)))
            self.bodies.append(body)
            self.usages.append(usage)
            self.now += self.call_seconds
        text = self.answer(body)
        with self._lock:
            self.cache.update(written)  # the response begins: what it wrote can be read from now on
        usage["output_tokens"] = tokens(text)
        message = {"id": f"msg_{len(self.usages):05d}", "type": "message", "role": "assistant",
                   "model": body["model"], "content": [{"type": "text", "text": text}],
                   "stop_reason": "end_turn", "stop_sequence": None, "usage": usage}
        return httpx2.Response(200, json=message)

    def usage(self, body: dict, written: dict | None = None) -> dict:
        """Read and write the cache for one request; its ``usage`` as the API reports it.

        New entries go to ``written`` when given (the caller publishes them once the request
        is answered), else straight into the cache."""
        blocks = prompt_blocks(body)
        breakpoints = [i for i, (_, _, control) in enumerate(blocks) if control is not None]
        if len(breakpoints) > MAX_BREAKPOINTS:
            raise ValueError(f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. Found {len(breakpoints)}.")
        ttls = [_ttl(blocks[i][2]) for i in breakpoints]
        if any(TTL_SECONDS[later] > TTL_SECONDS[earlier] for earlier, later in zip(ttls, ttls[1:])):
            raise ValueError("a ttl='1h' cache_control block must not come after a ttl='5m' one")
        model = body["model"]
        ends, keys, total = [], [], 0
        running = ""
        for where, text, _ in blocks:
            total += tokens(text)
            running += f"\x00{where}\x00{text}"  # where a block sits and its boundaries are part of the prefix
            ends.append(total)
            keys.append((model, running))
        self.cache = {key: entry for key, entry in self.cache.items() if entry.expires > self.now}
        written_to = self.cache if written is None else written
        # The longest live prefix among the breakpoints and the boundaries before each.
        candidates = {j for b in breakpoints for j in range(max(0, b - LOOKBACK_BLOCKS), b + 1)}
        hit = max((j for j in candidates if keys[j] in self.cache), default=-1)
        read = ends[hit] if hit >= 0 else 0
        if hit >= 0:
            entry = self.cache[keys[hit]]
            entry.expires = self.now + TTL_SECONDS[entry.ttl]
        tokens_written = {"5m": 0, "1h": 0}
        done = read
        minimum = minimum_tokens(model)
        for index, ttl in zip(breakpoints, ttls):
            if index <= hit or ends[index] < minimum:
                continue
            tokens_written[ttl] += ends[index] - done
            done = ends[index]
            written_to[keys[index]] = Entry(self.now + TTL_SECONDS[ttl], ttl)
        return {
            "input_tokens": total - done,
            "cache_creation_input_tokens": tokens_written["5m"] + tokens_written["1h"],
            "cache_read_input_tokens": read,
            "cache_creation": {"ephemeral_5m_input_tokens": tokens_written["5m"], "ephemeral_1h_input_tokens": tokens_written["1h"]},
        }

    def client(self) -> anthropic.Anthropic:
        return anthropic.Anthropic(api_key="sk-fake", max_retries=0,
                                   http_client=httpx2.Client(transport=httpx2.MockTransport(self)))


def prompt_blocks(body: dict) -> list[tuple[str, str, dict | None]]:
    """The request's content as (where, text, cache_control) blocks: tools, then system, then messages."""
    blocks: list[tuple[str, str, dict | None]] = []
    for tool in body.get("tools", []):
        blocks.append(("tool", json.dumps({k: v for k, v in tool.items() if k != "cache_control"}, sort_keys=True),
                       tool.get("cache_control")))
    system = body.get("system", [])
    for block in [{"type": "text", "text": system}] if isinstance(system, str) else system:
        blocks.append(("system", block["text"], block.get("cache_control")))
    for message in body.get("messages", []):
        content = message["content"]
        for block in [{"type": "text", "text": content}] if isinstance(content, str) else content:
            blocks.append((message["role"], block.get("text", ""), block.get("cache_control")))
    return blocks


def _ttl(control: dict) -> str:
    ttl = control.get("ttl", "5m")
    if ttl not in TTL_SECONDS:
        raise ValueError(f"cache_control.ttl: Input should be '5m' or '1h', got {ttl!r}")
    return ttl


def _error(kind: str, message: str) -> dict:
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_fake"}


def offline_played(api: FakeMessagesAPI, **options):
    """The anthropic backend on ``api``, the model's answers played by the offline player.

    The offline player reads the structured request, not the prompt, so its reply for each
    request is handed to ``api`` by the prompt the request sends (system blocks and user
    message together are the whole prompt). Lets a day run through the SDK without a key.
    """
    # Imported here: the fake itself needs only the SDK (its own tests build no backend).
    from gamemaster.backends.anthropic_api import AnthropicBackend
    from gamemaster.backends.offline import OfflineBackend

    offline, answers = OfflineBackend(), {}

    class Played(AnthropicBackend):
        def reply(self, request):
            answers[request.prompt] = offline.reply(request)
            return super().reply(request)

    def answer(body: dict) -> str:
        system = body.get("system", [])
        text = system if isinstance(system, str) else "".join(block["text"] for block in system)
        return answers.pop(text + body["messages"][0]["content"])

    api.answer = answer
    return Played(client=api.client(), **options)
