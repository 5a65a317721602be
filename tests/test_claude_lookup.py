"""Claude looking into its own memory (``fixtures/claude_lookup``, README there): the prompt and the
tool are still what the toolkit builds for that state, the lookups the model wrote find what they
found then, and replayed through the API backend's tool loop its answer is taken."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2

from conftest import memory, write_lines
from test_anthropic_backend import FakeAPI, message_body
from test_anthropic_loop import USAGE
from test_lookup import tool_use
from gamemaster.backends.lookup_loop import recall_tool
from gamemaster.backends.offline import OfflineBackend
from gamemaster.lookup import lookup_for
from gamemaster.loop import ask, run_scene
from gamemaster.scenes import Force, SceneType

FIXTURE = Path(__file__).parent / "fixtures" / "claude_lookup"
PROMISE = "Ich habe Leo versprochen, ihm die Skizze vom Nordturm bis Freitag zu geben."
NOTES = ["Leo hat im Playtest-Kanal neue Screenshots der Aschen-Einöden gepostet.",
         "Leo fragt, ob die Türme auf Distanz lesbar genug sind.",
         "Mit Leo kurz über die Farbpalette der Einöden gesprochen.",
         "Leo sammelt Community-Fragen zum Titanen."]


def recorded_state(gm, workspace) -> None:
    """The state the model played: see the fixture's README."""
    rows = [json.loads(line) for line in (workspace.memories_dir / "vera.jsonl").read_text(encoding="utf-8").splitlines()]
    count = len(rows)
    rows.append(memory("vera", count + 1, created="day-000/scene-00", description=PROMISE, importance=3, tags=["sketch"]))
    rows += [memory("vera", count + 2 + k, created="day-000/scene-00", importance=5, tags=["leo", "playtest"],
                    description=f"{NOTES[k % 4]} (Notiz {k + 1})") for k in range(60)]
    write_lines(workspace, "vera", rows)
    world = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    workspace.world_path.write_text(json.dumps({**world, "memory_budget": 1500}, ensure_ascii=False), encoding="utf-8")
    run_scene(gm, OfflineBackend())  # day 1's ARRIVAL
    pending, _ = gm.open_next(Force(type=SceneType.MEETING, participants=["leo", "vera"], topic="Wochenplanung"))
    reply = json.loads(OfflineBackend().reply(gm.build_request(pending, 0)))
    reply["says"] = "Vera, bevor wir planen: Du hattest mir doch etwas versprochen – was war das noch mal, und bis wann?"
    gm.submit_reply("leo", reply)


def test_claude_looks_up_a_promise_its_prompt_lacks_rewords_a_miss_and_answers_from_what_it_found(gm, workspace, cli):
    recorded_state(gm, workspace)
    shown = cli("prompt", "vera")
    assert shown.exit_code == 0 and shown.output == (FIXTURE / "vera.prompt.md").read_text(encoding="utf-8")
    assert PROMISE not in shown.output  # the prompt does not hold it
    assert recall_tool("de") == json.loads((FIXTURE / "tool.json").read_text(encoding="utf-8"))
    promise = next(row["id"] for row in map(json.loads, (workspace.memories_dir / "vera.jsonl").read_text(
        encoding="utf-8").splitlines()) if row["description"] == PROMISE)
    # The model's two lookups, as it wrote them: the first („Versprechen“, „zugesagt“) shares no
    # stem with the memory („versprochen“) and misses; the second, reworded, finds it first.
    recorded = [json.loads(line) for line in (FIXTURE / "lookups.jsonl").read_text(encoding="utf-8").splitlines()]
    pending = gm.pending()
    lookup = lookup_for(workspace, "vera", gm.build_request(pending, 1).shown)
    now = [list(lookup(entry["query"]).ids) for entry in recorded]
    assert promise not in recorded[0]["memories"] and recorded[1]["memories"][0] == promise  # what the model got …
    assert promise not in now[0] and now[1][0] == promise  # … and what the same queries get now
    # Since a lookup leaves out what says what the prompt says, one routine note the model was
    # given (a near-duplicate of the notes its prompt showed) is no longer among the first's.
    assert set(now[0]) <= set(recorded[0]["memories"]) and len(recorded[0]["memories"]) - len(now[0]) <= 1
    # Replayed through the API backend: two tool uses, then the answer as written.
    answer = (FIXTURE / "vera.answer.json").read_text(encoding="utf-8")

    def respond(request, call, number):
        asked = sum(1 for m in call.body["messages"] if m["role"] == "assistant")
        if asked < len(recorded):
            return httpx2.Response(200, json=tool_use(recorded[asked]["query"], number, call.body["model"]))
        return httpx2.Response(200, json=message_body(answer, call.body["model"], USAGE))

    reply = ask(gm, FakeAPI(respond).backend(concurrency=1), pending, 1)  # her turn of the MEETING
    assert reply.says.startswith("Die Skizze vom Nordturm – bis Freitag, hab ich dir versprochen.")
    kept = json.loads((pending.dir / "lookups" / "02-vera.json").read_text(encoding="utf-8"))["lookups"]
    assert kept == [{"query": entry["query"], "memories": ids} for entry, ids in zip(recorded, now)]
