"""Prompt caching pays: a day played through the anthropic backend, against a fake API that
applies Anthropic's caching rules, reads most of its input from the cache and costs less
than the same day without caching."""

from __future__ import annotations

import json
import re

import pytest

from fake_messages_api import FakeMessagesAPI, offline_played
from gamemaster.loop import advance_days, run_scene
from gamemaster.scenes import Force, SceneType
from gamemaster.workspace import Workspace
from gamemaster.pricing import cost_usd


def uncached(usage: dict) -> dict:
    """The same call without any cache_control: every prompt token at the input price."""
    prompt = usage["input_tokens"] + usage["cache_read_input_tokens"] + usage["cache_creation_input_tokens"]
    return {"input_tokens": prompt, "output_tokens": usage["output_tokens"]}


def test_every_day_reads_most_of_its_input_from_the_cache_and_costs_less_than_without(gm):
    # Ten seconds a call, one call at a time: the slowest a day of calls goes by. The second day
    # is the one that shows whether memories are shared: the first has few to choose from.
    api = FakeMessagesAPI(answer=None, call_seconds=10.0)
    backend = offline_played(api, concurrency=1)
    for day in (1, 2):
        first = len(api.usages)
        advance_days(gm, backend, days=1)
        usages, model = api.usages[first:], api.bodies[0]["model"]
        assert len(usages) > 30
        prompt = sum(u["input_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"] for u in usages)
        read = sum(u["cache_read_input_tokens"] for u in usages) / prompt
        written = sum(u["cache_creation_input_tokens"] for u in usages) / prompt
        with_cache = sum(cost_usd(model, u) for u in usages)
        without = sum(cost_usd(model, uncached(u)) for u in usages)
        assert read >= 0.60, f"day {day}: read from cache: {read:.1%} of input tokens (written: {written:.1%})"
        assert with_cache < without * 0.75, f"day {day}: with caching ${with_cache:.4f}, without ${without:.4f}"


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


def test_after_the_call_that_writes_the_shared_start_the_other_six_of_an_arrival_go_at_once(gm):
    """The ARRIVAL of the bundled seven: one call alone, then six in flight together (with the
    backend's default concurrency), so the scene takes two call latencies, not three."""
    import threading

    from gamemaster.loop import run_scene

    api = FakeMessagesAPI(answer=None)
    backend = offline_played(api)
    played, gate, in_flight, most = api.answer, threading.Barrier(6, timeout=120), [0], [0]
    lock = threading.Lock()

    def together(body):
        if len(api.bodies) > 1:  # every call after the first waits until six are in flight
            with lock:
                in_flight[0] += 1
                most[0] = max(most[0], in_flight[0])
            try:
                gate.wait()  # four at once (the old default) never get here six: the barrier breaks
            finally:
                with lock:
                    in_flight[0] -= 1
        return played(body)

    api.answer = together
    run_scene(gm, backend)
    assert len(api.usages) == 7 and most[0] == 6 and not gate.broken


MEMORY_LINE = re.compile(r"^- \[([a-z][a-z0-9_]*-\d{3,}) · ", re.M)


def read_blocks(body: dict, usage: dict) -> str:
    """The system blocks a call read from the cache (a hit always ends at a block boundary); the
    tools come before them in the cached prefix (``fake_messages_api.prompt_blocks``)."""
    from fake_messages_api import prompt_blocks

    read, text = usage["cache_read_input_tokens"], ""
    read -= sum(len(block) // 4 for where, block, _ in prompt_blocks(body) if where == "tool")
    for block in body["system"]:
        if read <= 0:
            break
        read -= len(block["text"]) // 4
        text += block["text"]
    return text


def test_two_prompts_of_one_character_on_one_day_share_the_memories_chosen_for_the_day(gm):
    api = FakeMessagesAPI(answer=None, call_seconds=10.0)
    backend = offline_played(api, concurrency=1)
    run_scene(gm, backend)  # ARRIVAL: each character declares its plan for the day
    for who in (["vera", "emre"], ["vera", "leo"]):
        run_scene(gm, backend, Force(type=SceneType.WORK, participants=who))
    vera = [(body, usage) for body, usage in zip(api.bodies, api.usages)
            if body["system"][1]["text"].startswith("# Du bist Vera")][1:]
    assert len(vera) == 2
    (first, _), (second, usage) = vera
    read = read_blocks(second, usage)
    # Her second scene of the day reads more than the shared start and her persona: memories of
    # earlier days, the same lines in both prompts.
    day_part = read.split("## Deine Erinnerungen", 1)[1] if "## Deine Erinnerungen" in read else ""
    remembered = MEMORY_LINE.findall(day_part)
    assert len(remembered) >= 5, f"read from the cache: {usage['cache_read_input_tokens']} tokens, {remembered}"
    assert day_part in "".join(block["text"] for block in first["system"])
    stream = gm.workspace.stream("vera").find(remembered)
    assert all(stream[i].scene_key[0] < 1 for i in remembered)  # chosen before day 1 began


def test_the_days_memories_and_a_scenes_are_each_shown_once_and_stay_within_the_budget(gm, workspace):
    from gamemaster.backends.offline import OfflineBackend

    run_scene(gm, OfflineBackend())  # ARRIVAL
    world = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    workspace.world_path.write_text(json.dumps({**world, "memory_budget": 4000}), encoding="utf-8")
    pending, _ = gm.open_next(Force(type=SceneType.MEETING, participants=["vera", "emre"], topic="Türme"))
    for turn in range(len(pending.turns)):
        request = gm.build_request(pending, turn)
        ids = MEMORY_LINE.findall(request.prompt)
        assert MEMORY_LINE.findall(request.day_prompt), "the day's memories are shown"
        assert len(ids) == len(set(ids)), "a memory shown twice"
        # Every memory line and the heard lines under it, as a selection counts them.
        sections = request.prompt.split("## Deine Reflexionen", 1)[1].split("## Die Szene:", 1)[0]
        shown = [line for line in sections.splitlines() if line.startswith(("- [", "  "))]
        assert sum(len(line) + 1 for line in shown) <= 4000
        assert set(ids) <= set(request.shown)


def test_the_days_memories_are_stored_with_the_character_and_the_same_after_a_restart(gm, workspace):
    from gamemaster.backends.offline import OfflineBackend
    from gamemaster.gm import GameMaster

    run_scene(gm, OfflineBackend())  # ARRIVAL
    stored = json.loads((workspace.agents_dir / "nami.json").read_text(encoding="utf-8"))["day_memories"]
    assert stored["day"] == 1 and stored["ids"]
    pending, _ = gm.open_next(Force(type=SceneType.WORK, participants=["nami"]))
    before = gm.build_request(pending, 0).day_prompt
    # Read back by a new process (after a crash, say): the same lines, those stored, all of them
    # from before the day began.
    again = GameMaster(Workspace(workspace.root)).build_request(pending, 0).day_prompt
    assert before == again and MEMORY_LINE.findall(before) == stored["ids"]
    found = workspace.stream("nami").find(stored["ids"])
    assert all(found[i].scene_key[0] < 1 for i in stored["ids"])


def test_a_template_without_the_days_memories_chooses_each_scene_from_the_whole_budget(gm, workspace):
    from gamemaster.backends.offline import OfflineBackend
    from gamemaster.gm import GameMaster

    run_scene(gm, OfflineBackend())  # ARRIVAL: the day's memories are chosen and stored
    (workspace.root / "prompts" / "character.md").write_text(OLDER_CHARACTER, encoding="utf-8")
    pending, _ = gm.open_next(Force(type=SceneType.WORK, participants=["nami"]))
    request = gm.build_request(pending, 0)
    assert request.day_prompt == ""
    # The stored day's memories change nothing: without them the prompt is the same.
    path = workspace.agents_dir / "nami.json"
    agent = json.loads(path.read_text(encoding="utf-8"))
    assert agent.pop("day_memories")["ids"]
    path.write_text(json.dumps(agent, ensure_ascii=False), encoding="utf-8")
    assert GameMaster(Workspace(workspace.root)).build_request(pending, 0).prompt == request.prompt


def test_a_reflection_written_during_the_day_leaves_the_part_cached_above_the_scene_unchanged(gm, workspace):
    from gamemaster.backends.offline import OfflineBackend

    run_scene(gm, OfflineBackend())  # ARRIVAL
    pending, _ = gm.open_next(Force(type=SceneType.WORK, participants=["vera"]))
    before = gm.build_request(pending, 0)
    run_scene(gm, OfflineBackend())
    run_scene(gm, OfflineBackend(), Force(type=SceneType.REFLECTION, participants=["vera"]))
    found, _ = workspace.stream("vera").tail(40)
    new = [m.memory for m in found if m.memory.type == "reflection" and m.memory.scene_key[0] == 1]
    assert new, "the reflection scene wrote a reflection"
    pending, _ = gm.open_next(Force(type=SceneType.WORK, participants=["vera"]))
    after = gm.build_request(pending, 0)
    assert (after.stable_prompt, after.day_prompt) == (before.stable_prompt, before.day_prompt)
    # The new reflection is still shown, with this scene's memories.
    assert new[-1].id in after.shown and new[-1].id in after.prompt.split(after.day_prompt, 1)[1]


def test_with_no_share_for_the_day_every_scene_chooses_from_the_whole_budget(gm, workspace, cli):
    from gamemaster.backends.offline import OfflineBackend

    assert cli("config", "day_memory_share", "0").exit_code == 0
    run_scene(gm, OfflineBackend())  # ARRIVAL
    assert "day_memories" not in json.loads((workspace.agents_dir / "vera.json").read_text(encoding="utf-8"))
    pending, _ = gm.open_next(Force(type=SceneType.WORK, participants=["vera"]))
    request = gm.build_request(pending, 0)
    assert not MEMORY_LINE.findall(request.day_prompt)
    assert MEMORY_LINE.findall(request.memory_prompt) and MEMORY_LINE.findall(request.stable_prompt)


def test_the_days_memories_are_looked_up_by_the_index_and_shown_as_the_stream_has_them_now(gm, workspace, monkeypatch):
    from gamemaster.backends.offline import OfflineBackend
    from gamemaster.streams import MemoryStream

    run_scene(gm, OfflineBackend())  # ARRIVAL
    ids = json.loads((workspace.agents_dir / "nami.json").read_text(encoding="utf-8"))["day_memories"]["ids"]
    # A hand edit of one of them, and a line put before all (every offset after it moves).
    path = workspace.memories_dir / "nami.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    at = next(n for n, line in enumerate(lines) if json.loads(line)["id"] == ids[0])
    edited = json.loads(lines[at])
    edited["description"] = "Von Hand neu geschrieben: die Türme aus Knochen."
    lines[at] = json.dumps(edited, ensure_ascii=False)
    path.write_text("\n".join(["", *lines]) + "\n", encoding="utf-8")
    # Every prompt of the day asks for them: not by reading the whole stream.
    monkeypatch.setattr(MemoryStream, "find", lambda self, wanted: pytest.fail("the whole stream read"))
    pending, _ = gm.open_next(Force(type=SceneType.WORK, participants=["nami"]))
    day_prompt = gm.build_request(pending, 0).day_prompt
    assert MEMORY_LINE.findall(day_prompt) == ids
    assert "Von Hand neu geschrieben: die Türme aus Knochen." in day_prompt


def test_a_share_lowered_during_the_day_shortens_the_days_memories(gm, workspace, cli):
    from gamemaster.backends.offline import OfflineBackend

    run_scene(gm, OfflineBackend())  # ARRIVAL: chosen with 40 % of the budget
    pending, _ = gm.open_next(Force(type=SceneType.WORK, participants=["vera"]))
    full = MEMORY_LINE.findall(gm.build_request(pending, 0).day_prompt)
    assert cli("config", "day_memory_share", "0.05").exit_code == 0
    shortened = gm.build_request(pending, 0)
    kept = MEMORY_LINE.findall(shortened.day_prompt)
    assert kept == full[: len(kept)] and len(kept) < len(full)
    budget = json.loads(workspace.world_path.read_text(encoding="utf-8"))["memory_budget"]
    # What stays the same all day: the reflections beside the persona and the day's memories.
    day_lines = [line for line in (shortened.stable_prompt + shortened.day_prompt).splitlines()
                 if line.startswith(("- [", "  "))]
    assert sum(len(line) + 1 for line in day_lines) <= int(budget * 0.05)


def test_memories_for_a_day_chosen_during_it_are_of_the_days_before_only(gm, workspace):
    from gamemaster import day_memories
    from gamemaster.backends.offline import OfflineBackend

    run_scene(gm, OfflineBackend())  # ARRIVAL of day 1
    run_scene(gm, OfflineBackend(), Force(type=SceneType.WORK, participants=["vera"]))
    world, agents = gm.world(), gm.agents()
    written_today = [m.memory.id for m in workspace.stream("vera").tail(40)[0] if m.memory.scene_key[0] == 1]
    assert written_today
    # A first plan made later in the day (the share raised after the ARRIVAL, say) chooses from
    # the stream as it is then: the day's own memories are left out, whatever they match.
    names = {a: agents[a].name for a in agents}
    chosen = day_memories.choose(workspace.stream("vera"), world, agents["vera"], 1, [], names, lambda agent: names[agent])
    found = workspace.stream("vera").find(chosen.ids + chosen.reflections)
    assert chosen.ids and all(m.scene_key is None or m.scene_key[0] < 1 for m in found.values())
    assert not set(written_today) & set(chosen.ids)


def test_a_memory_quoting_the_cache_markers_is_shown_as_written_and_cuts_nothing(gm, workspace):
    from gamemaster.prompts import CACHE_MARKERS

    quoted = "Notiz zum Prompt: " + " ".join(CACHE_MARKERS)
    path = workspace.memories_dir / "vera.jsonl"
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"id": "vera-700", "created": "day-000/scene-00", "type": "observation",
                                 "description": quoted, "importance": 9, "tags": ["bone-towers"]},
                                ensure_ascii=False) + "\n")
    pending, _ = gm.open_next()  # ARRIVAL: her newest memories are shown
    request = gm.build_request(pending, pending.turns.index("vera"))
    assert quoted in request.prompt
    # The cuts are the template's: the shared start ends before the persona, the scene's part
    # before the turn, and the memory stands whole after the last cut.
    assert request.shared_prompt and "# Du bist Vera" not in request.shared_prompt
    assert request.stable_prompt.startswith("# Du bist Vera")
    assert quoted not in request.shared_prompt + request.stable_prompt + request.day_prompt
    assert request.prompt.startswith(request.shared_prompt + request.stable_prompt + request.day_prompt
                                      + request.memory_prompt)
    assert quoted in request.memory_prompt


def test_every_turn_of_a_meeting_shows_a_character_the_same_memories(gm):
    """The lines said lately are weighed in a character's first turn only, so its later turns'
    paragraph is shorter; the memories must not fill the room it leaves, or the memory segment
    (cached, and what a kept claude was started with) would change from turn to turn."""
    from gamemaster.backends import get_backend
    from gamemaster.backends.base import prompt_parts
    from gamemaster.loop import ask

    offline = get_backend("offline")
    run_scene(gm, offline)  # the arrival: greetings everyone heard, new to the meeting
    pending, _ = gm.open_next(Force(type=SceneType.MEETING, participants=["emre", "vera"]))
    firsts = {agent: gm.build_request(pending, turn) for turn, agent in enumerate(pending.turns[:2])}
    ask(gm, offline, pending, 0)
    ask(gm, offline, pending, 1)
    for turn, agent in enumerate(pending.turns[2:], start=2):
        later = gm.build_request(pending, turn)
        assert later.prompt != firsts[agent].prompt
        assert "*neu*" in firsts[agent].prompt and "*neu*" not in later.prompt  # weighed once
        assert prompt_parts(later)[0] == prompt_parts(firsts[agent])[0]
