"""A character looks into its own memory mid-scene (issue 38, item 1): through the Anthropic API's
tool use, on the real SDK against an in-process API mock. What it finds is its own, whole and not
already in its prompt; a few lookups at most; every call is paid for; the report shows them."""

from __future__ import annotations

import json

import httpx2
import pytest

from conftest import memory, write_lines
from test_anthropic_backend import FakeAPI, message_body
from test_anthropic_loop import USAGE, answering, reply_for
from gamemaster.loop import run_scene
from gamemaster.lookup import MAX_LOOKUPS
from gamemaster.scenes import Force, SceneType

PROMISE = "Ich habe Leo versprochen, ihm die Skizze vom Nordturm bis Freitag zu geben."
QUERY = "Wann habe ich die Pinsel gereinigt, Runde 37?"
#: Sixty routine notes come after the promise: the prompt's small memory budget shows a few of them.
ROUTINE = "Routine: Pinsel gereinigt und Ablage sortiert, Runde {n}."


def tool_use(query: str, number: int, model: str) -> dict:
    body = message_body("", model, USAGE, stop_reason="tool_use")
    body["content"] = [{"type": "text", "text": "Ich schaue kurz nach."},
                       {"type": "tool_use", "id": f"toolu_{number:02d}", "name": "recall", "input": {"query": query}}]
    return body


def with_a_long_past(workspace) -> None:
    """Vera's stream: her promise, then many routine notes, and a memory budget that shows few."""
    stream = json.loads(json.dumps([json.loads(line) for line in
                                    (workspace.memories_dir / "vera.jsonl").read_text(encoding="utf-8").splitlines()]))
    count = len(stream)
    rows = stream + [memory("vera", count + 1, created="day-000/scene-00", description=PROMISE, importance=4,
                            tags=["leo", "sketch"])]
    rows += [memory("vera", count + 2 + n, created="day-000/scene-00", importance=2, tags=["routine"],
                    description=ROUTINE.format(n=n)) for n in range(60)]
    write_lines(workspace, "vera", rows)
    world = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    workspace.world_path.write_text(json.dumps({**world, "memory_budget": 1500}, ensure_ascii=False), encoding="utf-8")


def looking_up(workspace, queries: list[str], who: tuple[str, ...] = ("vera",)):
    """Vera (or ``who``) looks up each of ``queries`` in turn, then replies; everyone else replies at once."""
    plain = answering(workspace)

    def respond(request, call, number):
        body = call.body
        if not any(f'"agent": "{agent}"' in body["messages"][0]["content"] for agent in who):
            return plain(request, call, number)
        asked = sum(1 for m in body["messages"] if m["role"] == "assistant")
        if asked < len(queries) and "tool_choice" not in body:
            return httpx2.Response(200, json=tool_use(queries[asked], number, body["model"]))
        text = json.dumps(reply_for(body, workspace), ensure_ascii=False)
        return httpx2.Response(200, json=message_body(text, body["model"], USAGE))

    return respond


def test_a_character_looks_up_what_its_prompt_lacks_and_gets_its_own_whole_memories(gm, workspace):
    with_a_long_past(workspace)
    api = FakeAPI(looking_up(workspace, [QUERY]))
    run_scene(gm, api.backend(concurrency=1))  # ARRIVAL
    outcome = run_scene(gm, api.backend(concurrency=1), Force(type=SceneType.WORK, participants=["vera"]))
    vera = [c.body for c in api.calls if '"agent": "vera"' in c.body["messages"][0]["content"]][-2:]
    assert [t["name"] for t in vera[0]["tools"]] == ["recall"]
    assert "Schlag in deinem eigenen Gedächtnis nach" in vera[0]["tools"][0]["description"]
    folder = workspace.scene_dir(outcome.spec.ref)
    [label] = [p.stem for p in (folder / "lookups").glob("*.json")]
    shown = set(json.loads((folder / "shown" / f"{label}.json").read_text(encoding="utf-8"))["memories"])
    stream = {row["id"]: row["description"] for row in map(json.loads, (workspace.memories_dir / "vera.jsonl").read_text(
        encoding="utf-8").splitlines())}
    wanted = next(i for i, text in stream.items() if text == ROUTINE.format(n=37))
    assert wanted not in shown  # the prompt did not show it …
    [result] = vera[1]["messages"][-1]["content"]
    assert result["type"] == "tool_result" and result["tool_use_id"] == "toolu_%02d" % (len(api.calls) - 1)
    lines = result["content"].splitlines()
    assert f"- [{wanted} · day-000/scene-00] {ROUTINE.format(n=37)}" == lines[0]  # … the lookup did, first, whole
    found = [line.split(" · ")[0][3:] for line in lines]
    assert all(i in stream and i not in shown for i in found)  # her own mind, and nothing she was shown
    [entry] = json.loads((folder / "lookups" / f"{label}.json").read_text(encoding="utf-8"))["lookups"]
    assert entry == {"query": QUERY, "memories": found}
    # Both calls are paid for: one usage record for the turn, the two calls' tokens summed.
    [call] = json.loads((folder / "usage" / f"{label}.json").read_text(encoding="utf-8"))["calls"]
    assert call["input_tokens"] == 2 * USAGE["input_tokens"] and call["output_tokens"] == 2 * USAGE["output_tokens"]


def test_after_a_few_lookups_the_character_is_asked_to_reply(gm, workspace):
    with_a_long_past(workspace)
    api = FakeAPI(looking_up(workspace, [QUERY] * 10))
    run_scene(gm, api.backend(concurrency=1))
    outcome = run_scene(gm, api.backend(concurrency=1), Force(type=SceneType.WORK, participants=["vera"]))
    vera = [c.body for c in api.calls if '"agent": "vera"' in c.body["messages"][0]["content"]]
    work = vera[-(MAX_LOOKUPS + 1):]
    assert ["tool_choice" in body for body in work] == [False] * MAX_LOOKUPS + [True]
    assert work[-1]["tool_choice"] == {"type": "none"}
    folder = workspace.scene_dir(outcome.spec.ref)
    [path] = (folder / "lookups").glob("*.json")
    assert len(json.loads(path.read_text(encoding="utf-8"))["lookups"]) == MAX_LOOKUPS


def test_the_report_shows_what_a_character_looked_up_beside_its_prompt(gm, workspace, tmp_path):
    from gamemaster.report.build import build_report
    from gamemaster.report.html import scene_file

    with_a_long_past(workspace)
    api = FakeAPI(looking_up(workspace, [QUERY, "<b>Quitten</b>"]))
    run_scene(gm, api.backend(concurrency=1))
    outcome = run_scene(gm, api.backend(concurrency=1), Force(type=SceneType.WORK, participants=["vera"]))
    build_report(workspace, tmp_path / "site")
    page = (tmp_path / "site" / scene_file(outcome.spec.ref)).read_text(encoding="utf-8")
    looked = page.split("Im eigenen Gedächtnis nachgeschlagen</h4>")[1].split("</ul>")[0]
    assert f"<q>{QUERY}</q>" in looked and "vera-" in looked
    assert "<q>&lt;b&gt;Quitten&lt;/b&gt;</q>" in looked  # what the model wrote, escaped


def test_characters_asked_side_by_side_look_up_at_the_same_time(gm, workspace):
    with_a_long_past(workspace)
    three = ("vera", "leo", "nami")
    api = FakeAPI(looking_up(workspace, [QUERY, "Türme"], who=three))
    run_scene(gm, api.backend(concurrency=3))  # the ARRIVAL: seven characters, three at a time, all looking up
    outcome = run_scene(gm, api.backend(concurrency=3), Force(type=SceneType.WORK, participants=list(three)))
    folder = workspace.scene_dir(outcome.spec.ref)
    found = {p.stem.split("-", 1)[1]: json.loads(p.read_text(encoding="utf-8"))["lookups"]
             for p in (folder / "lookups").glob("*.json")}
    assert sorted(found) == sorted(three)
    for agent, lookups in found.items():
        assert [entry["query"] for entry in lookups] == [QUERY, "Türme"]
        assert all(i.startswith(f"{agent}-") for entry in lookups for i in entry["memories"])


def test_a_lookup_near_the_prompt_still_finds_what_the_prompt_left_out(workspace):
    """The prompt showed the best matches of a query; looking that up again gives the next ones,
    not „nothing found“ (the lookup's budget goes to memories the character has not seen)."""
    from gamemaster.lookup import lookup_for

    rows = [json.loads(line) for line in (workspace.memories_dir / "vera.jsonl").read_text(encoding="utf-8").splitlines()]
    things = ["Nordturm", "Brücke", "Quitten", "Asche", "Laterne", "Fähre", "Mühle", "Kran", "Wolke", "Glocke",
              "Schmiede", "Tor", "Ruder", "Spiegel", "Treppe", "Anker", "Kessel", "Fackel", "Gitter", "Hafen",
              "Krone", "Zelt", "Schild", "Pfeil", "Rad", "Feder", "Kerze", "Leiter", "Mauer", "Netz"]
    count = len(rows)
    # Sixty sketches, no two saying most of the same, among three hundred other notes: more
    # sketches than one lookup holds.
    notes = [memory("vera", count + 1 + n, created=f"day-000/scene-{n // 10:02d}", importance=4,
                    description=f"Notiz {n}: {things[n % 30]} vermessen.") for n in range(300)]
    notes += [memory("vera", count + 301 + n, created=f"day-000/scene-{30 + n // 10:02d}", importance=4,
                     description=f"Skizze {n} mit dem Pinsel: {things[n % 30]}.") for n in range(60)]
    write_lines(workspace, "vera", rows + notes)
    sketches = [n["id"] for n in notes[300:]]
    query = "Skizze mit dem Pinsel"
    shown = lookup_for(workspace, "vera", ())(query).ids  # the prompt showed what this query finds best
    assert len(set(shown) & set(sketches)) >= 20
    found = lookup_for(workspace, "vera", shown)(query)
    assert len(set(found.ids) & set(sketches)) >= 10  # the next sketches, not „nothing found“ …
    assert not set(found.ids) & set(shown)  # … and nothing it showed


def test_outside_a_turn_a_lookup_reads_the_whole_own_stream_and_keeps_nothing(gm, workspace, cli):
    """An interview (``ask``) has no turn in a pending scene: a lookup then reads the character's
    whole stream, and no scene keeps it."""
    from gamemaster.backends.offline import OfflineBackend

    run_scene(gm, OfflineBackend())  # the ARRIVAL, written back: nothing is pending
    assert gm.pending() is None
    found = cli("lookup", "vera", "Türme Skizzen")
    assert found.exit_code == 0, found.output
    ids = [line.split(" · ")[0][3:] for line in found.output.splitlines() if line.startswith("- [")]
    assert ids and all(i.startswith("vera-") for i in ids)
    assert not list(workspace.scenes.glob("day-*/scene-*/lookups/*.json"))
    refused = cli("lookup", "nobody", "Türme")
    assert refused.exit_code != 0 and "nobody" in refused.output


def test_a_reflection_may_cite_what_the_character_looked_up(gm, workspace):
    """The prompt did not show a note; the character looked it up and cites it as evidence of an
    insight. It has read that memory, so the reply is taken (it was refused as „not in your
    prompt“)."""
    with_a_long_past(workspace)
    stream = [json.loads(line) for line in (workspace.memories_dir / "vera.jsonl").read_text(encoding="utf-8").splitlines()]
    wanted = next(row["id"] for row in stream if row["description"] == ROUTINE.format(n=37))
    plain = answering(workspace)

    def respond(request, call, number):
        body = call.body
        if '"agent": "vera"' not in body["messages"][0]["content"] or "REFLECTION" not in body["messages"][0]["content"]:
            return plain(request, call, number)
        if not any(m["role"] == "assistant" for m in body["messages"]):
            return httpx2.Response(200, json=tool_use(QUERY, number, body["model"]))
        reply = reply_for(body, workspace)
        reply["insights"] = [{"description": f"Einsicht {n}: Ordnung hält die Pinsel gut.", "importance": 6,
                              "tags": ["routine"], "evidence": [wanted]} for n in range(3)]
        return httpx2.Response(200, json=message_body(json.dumps(reply, ensure_ascii=False), body["model"], USAGE))

    api = FakeAPI(respond)
    run_scene(gm, api.backend(concurrency=1))  # ARRIVAL
    outcome = run_scene(gm, api.backend(concurrency=1), Force(type=SceneType.REFLECTION, participants=["vera"]))
    folder = workspace.scene_dir(outcome.spec.ref)
    shown = set(json.loads((folder / "shown" / "01-vera.json").read_text(encoding="utf-8"))["memories"])
    assert wanted not in shown  # not in her prompt …
    [entry] = json.loads((folder / "lookups" / "01-vera.json").read_text(encoding="utf-8"))["lookups"]
    assert wanted in entry["memories"]  # … she looked it up …
    reflections = [json.loads(line) for line in (workspace.memories_dir / "vera.jsonl").read_text(
        encoding="utf-8").splitlines() if json.loads(line)["type"] == "reflection"]
    assert len(reflections) >= 3 and all(r["evidence"] == [wanted] for r in reflections[-3:])  # … cited it, taken


def test_the_budget_expects_as_many_lookups_as_the_studio_makes(gm, workspace, cli):
    """Each lookup sends the prompt again with what was found: ``--budget`` estimates a scene with
    the lookups a turn made so far (recorded with each answer's tokens), one before the first."""
    from gamemaster.costs import ASSUMED_LOOKUPS, CHARS_PER_TOKEN, DEFAULT_OUTPUT_TOKENS, cost_report, estimate_scene
    from gamemaster.lookup import LOOKUP_CHARS
    from gamemaster.pricing import cost_usd

    def expected(pending, looks: float, output: float, batch: bool = False) -> float:
        total = 0.0
        for turn in pending.missing():
            request = gm.build_request(pending, turn)
            prompt = len(request.prompt) // CHARS_PER_TOKEN
            total += cost_usd(backend.model_for(request), {
                "input_tokens": int(prompt * (1 + looks) + looks * LOOKUP_CHARS / CHARS_PER_TOKEN),
                "output_tokens": int(output)}, batch=batch)
        return total

    with_a_long_past(workspace)
    backend = FakeAPI(looking_up(workspace, [QUERY, "Türme"])).backend(concurrency=1)
    pending, _ = gm.open_next()
    assert ASSUMED_LOOKUPS == 1.0
    before = estimate_scene(gm, backend, pending, cost_report(workspace))
    assert before == pytest.approx(expected(pending, 1.0, DEFAULT_OUTPUT_TOKENS))
    assert before > expected(pending, 0.0, DEFAULT_OUTPUT_TOKENS)
    run_scene(gm, backend)  # the ARRIVAL: vera looks up twice, six others not at all
    report = cost_report(workspace)
    assert report["total"]["lookups"] == 2 and report["agents"]["vera"]["lookups"] == 2
    record = json.loads((workspace.scenes / "day-001/scene-01/scene.json").read_text(encoding="utf-8"))
    assert [call.get("lookups") for calls in record["usage"].values() for call in calls] == [None] * 6 + [2]
    table = cli("cost").output
    assert "lookups" in table and [line for line in table.splitlines() if line.strip("│ ").startswith("vera")
                                   and "│ 1 " in line and "│ 2 " in line]
    pending, _ = gm.open_next(Force(type=SceneType.WORK, participants=["vera"]))
    total = report["total"]
    looks, output = 2 / total["calls"], total["output_tokens"] / total["calls"]
    assert estimate_scene(gm, backend, pending, report) == pytest.approx(expected(pending, looks, output))
    # A batch offers no tool: its calls are estimated without lookups.
    assert estimate_scene(gm, backend, pending, report, batch=True) == pytest.approx(expected(pending, 0, output, True))
