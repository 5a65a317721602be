"""The fake Messages API applies Anthropic's documented caching rules (through the real SDK)."""

from __future__ import annotations

import anthropic
import pytest

from fake_messages_api import FakeMessagesAPI, minimum_tokens
from gamemaster.costs import CHARS_PER_TOKEN

MODEL = "claude-sonnet-5-5"  # minimum cacheable length: 1,024 tokens


def text_of(tokens: int, letter: str = "a") -> str:
    return letter * (tokens * CHARS_PER_TOKEN)


def call(api, *system: tuple[str, dict | None], user: str = "Was jetzt?", model: str = MODEL) -> dict:
    blocks = [{"type": "text", "text": text, **({"cache_control": c} if c else {})} for text, c in system]
    message = api.client().messages.create(model=model, max_tokens=100, system=blocks,
                                           messages=[{"role": "user", "content": user}])
    return message.usage.model_dump()


EPHEMERAL = {"type": "ephemeral"}


@pytest.fixture
def api():
    return FakeMessagesAPI(answer=lambda body: "Gut.")


def test_a_prefix_is_written_once_then_read_and_input_tokens_exclude_both(api):
    first = call(api, (text_of(1500), EPHEMERAL), user=text_of(100, "u"))
    second = call(api, (text_of(1500), EPHEMERAL), user=text_of(80, "v"))
    assert (first["cache_creation_input_tokens"], first["cache_read_input_tokens"], first["input_tokens"]) == (1500, 0, 100)
    assert first["cache_creation"] == {"ephemeral_5m_input_tokens": 1500, "ephemeral_1h_input_tokens": 0}
    assert (second["cache_creation_input_tokens"], second["cache_read_input_tokens"], second["input_tokens"]) == (0, 1500, 80)


def test_a_prefix_below_the_models_minimum_is_not_cached(api):
    assert minimum_tokens(MODEL) == 1024 and minimum_tokens("claude-haiku-4-5") == 4096
    for _ in range(2):
        usage = call(api, (text_of(1000), EPHEMERAL))
        assert (usage["cache_creation_input_tokens"], usage["cache_read_input_tokens"]) == (0, 0)
        assert usage["input_tokens"] == 1000 + len("Was jetzt?") // CHARS_PER_TOKEN
    # The same 1,500 tokens are enough for Sonnet and too few for Haiku 4.5.
    assert call(api, (text_of(1500), EPHEMERAL), model="claude-haiku-4-5")["cache_creation_input_tokens"] == 0


def test_a_changed_first_byte_misses_and_the_longest_cached_prefix_is_read(api):
    shared, own = text_of(1200), text_of(300, "p")
    call(api, (shared, EPHEMERAL), (own, EPHEMERAL))
    changed = call(api, ("b" + shared[1:], EPHEMERAL), (own, EPHEMERAL))
    assert (changed["cache_read_input_tokens"], changed["cache_creation_input_tokens"]) == (0, 1500)
    # Another character: the same shared block, a persona of its own. The shared part is read,
    # the rest written up to the second breakpoint.
    other = call(api, (shared, EPHEMERAL), (text_of(300, "q"), EPHEMERAL))
    assert (other["cache_read_input_tokens"], other["cache_creation_input_tokens"]) == (1200, 300)
    # A block without a breakpoint after the shared one: read up to the shared one only.
    plain = call(api, (shared, EPHEMERAL), (own, None))
    assert (plain["cache_read_input_tokens"], plain["cache_creation_input_tokens"], plain["input_tokens"]) == (1200, 0, 302)


def test_entries_expire_after_their_ttl_unless_read_and_one_hour_writes_are_reported_apart(api):
    block = (text_of(1500), EPHEMERAL)
    call(api, block)
    api.now += 299
    assert call(api, block)["cache_read_input_tokens"] == 1500  # read at 4:59 …
    api.now += 299
    assert call(api, block)["cache_read_input_tokens"] == 1500  # … which started its five minutes again
    api.now += 301
    expired = call(api, block)
    assert (expired["cache_read_input_tokens"], expired["cache_creation_input_tokens"]) == (0, 1500)
    hour = (text_of(1500, "h"), {"type": "ephemeral", "ttl": "1h"})
    written = call(api, hour)
    assert written["cache_creation"] == {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 1500}
    api.now += 3000
    assert call(api, hour)["cache_read_input_tokens"] == 1500


def test_the_documented_limits_are_refused_as_the_api_refuses_them(api):
    five = [(text_of(300, letter), EPHEMERAL) for letter in "abcde"]
    with pytest.raises(anthropic.BadRequestError, match="maximum of 4 blocks with cache_control"):
        call(api, *five)
    with pytest.raises(anthropic.BadRequestError, match="ttl='1h' cache_control block must not come after"):
        call(api, (text_of(1200), EPHEMERAL), (text_of(10, "x"), {"type": "ephemeral", "ttl": "1h"}))


def test_a_request_in_flight_while_another_writes_the_prefix_misses_it(api):
    import threading

    started, release = threading.Event(), threading.Event()

    def slow_first(body):
        if not started.is_set():
            started.set()
            release.wait(timeout=120)  # the first response has not begun yet
        return "Gut."

    api.answer = slow_first
    block = (text_of(1500), EPHEMERAL)
    first: dict = {}
    writer = threading.Thread(target=lambda: first.update(call(api, block)))
    writer.start()
    started.wait(timeout=120)
    meanwhile = call(api, block)
    release.set()
    writer.join()
    assert first["cache_creation_input_tokens"] == 1500
    assert (meanwhile["cache_read_input_tokens"], meanwhile["cache_creation_input_tokens"]) == (0, 1500)
    assert call(api, block)["cache_read_input_tokens"] == 1500  # once answered, the entry is there
