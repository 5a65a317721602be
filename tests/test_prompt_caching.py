"""Prompt caching pays: a day played through the anthropic backend, against a fake API that
applies Anthropic's caching rules, reads most of its input from the cache and costs less
than the same day without caching."""

from __future__ import annotations

from fake_messages_api import FakeMessagesAPI, offline_played
from gamemaster.loop import advance_days
from gamemaster.pricing import cost_usd


def uncached(usage: dict) -> dict:
    """The same call without any cache_control: every prompt token at the input price."""
    prompt = usage["input_tokens"] + usage["cache_read_input_tokens"] + usage["cache_creation_input_tokens"]
    return {"input_tokens": prompt, "output_tokens": usage["output_tokens"]}


def test_a_day_reads_most_of_its_input_from_the_cache_and_costs_less_than_without(gm):
    # Ten seconds a call, one call at a time: the slowest a day of calls goes by.
    api = FakeMessagesAPI(answer=None, call_seconds=10.0)
    backend = offline_played(api, concurrency=1)
    advance_days(gm, backend, days=1)
    usages, model = api.usages, api.bodies[0]["model"]
    assert len(usages) > 30
    prompt = sum(u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"] for u in usages)
    read = sum(u["cache_read_input_tokens"] for u in usages) / prompt
    written = sum(u["cache_creation_input_tokens"] for u in usages) / prompt
    with_cache = sum(cost_usd(model, u) for u in usages)
    without = sum(cost_usd(model, uncached(u)) for u in usages)
    assert read >= 0.60, f"read from cache: {read:.1%} of input tokens (written: {written:.1%})"
    assert with_cache < without * 0.75, f"with caching ${with_cache:.4f}, without ${without:.4f}"


#: character.md as workspaces made before the shared start have it: persona first, two cuts.
OLDER_CHARACTER = """# Du bist $name ($agent_id) im Studio $studio

$persona

## Antwortformat

$contract

## Deine Reflexionen

$reflections

<!-- stable above, scene below -->

## Deine Erinnerungen

$relevant

$recent

<!-- this scene's memories above, this turn below -->

## Die Szene: $scene_type ($scene_ref)

$task

Antworte mit `"agent": "$agent_id"` und `"scene": "$scene_ref"`.
"""


def test_a_workspace_with_the_older_template_still_caches_its_persona_and_memories(gm, workspace):
    from gamemaster.backends.base import prompt_parts

    (workspace.root / "prompts" / "character.md").write_text(OLDER_CHARACTER, encoding="utf-8")
    pending, _ = gm.open_next()
    request = gm.build_request(pending, 0)
    parts, rest = prompt_parts(request)
    assert request.shared_prompt == ""
    assert [name for name, _ in parts] == ["stable_prompt", "memory_prompt"]
    assert parts[0][1].startswith("# Du bist ") and rest.startswith("## Die Szene: ARRIVAL")
    assert "".join(text for _, text in parts) + rest == request.prompt


def test_characters_asked_side_by_side_write_the_shared_start_once(gm):
    import time

    from gamemaster.loop import run_scene

    api = FakeMessagesAPI(answer=None)
    backend = offline_played(api, concurrency=4)
    played = api.answer

    def first_is_slow(body):
        if len(api.usages) == 1:
            time.sleep(0.5)  # the others are sent long before the first answer begins
        return played(body)

    api.answer = first_is_slow
    run_scene(gm, backend)  # ARRIVAL: seven characters, four at a time
    shared = len(api.bodies[0]["system"][0]["text"]) // 4
    writes = [u["cache_creation_input_tokens"] >= shared for u in api.usages]
    assert len(api.usages) == 7 and writes.count(True) == 1, [
        (u["cache_read_input_tokens"], u["cache_creation_input_tokens"]) for u in api.usages]
