"""What a character hears others say is remembered: the listener recalls the line, attributed
to its speaker, in `gamemaster recall` and in the next prompt, within the memory budget."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from replies import valid_reply
from gamemaster.backends.scripted import ScriptedBackend
from gamemaster.cli import app
from gamemaster.kinds.heard import tables
from gamemaster.kinds.settings import settings_of
from gamemaster.loop import run_scene
from gamemaster.models import Agent, World
from gamemaster.retrieval import recall
from gamemaster.scenes import Force, SceneSpec, SceneType

NEWS = "Der Verlag hat den Quittenbaum im Innenhof verkauft, morgen wird er gefällt."
QUERY = "Quittenbaum Innenhof gefällt"


def saying(text: str, who: str):
    """A valid reply in which ``who`` says ``text`` (everyone else says the usual)."""

    def reply(request):
        body = valid_reply(request)
        if request.agent.id == who:
            body["says"] = text
        return body

    return reply


def lines(workspace, agent):
    path = workspace.memories_dir / f"{agent}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def cli(workspace, *args):
    return CliRunner().invoke(app, ["--root", str(workspace.root), *args], env={"COLUMNS": "400"})


def arrive(gm, says=None):
    return run_scene(gm, ScriptedBackend([says or valid_reply] * 7))


def test_a_line_said_in_a_meeting_is_recalled_by_the_listener_with_its_speaker(gm, workspace):
    arrive(gm)
    turns = 2 * settings_of(gm.world(), "meeting").rounds
    outcome = run_scene(gm, ScriptedBackend([saying(NEWS, "vera")] * turns),
                        Force(type=SceneType.MEETING, participants=["vera", "darius"], topic="Knochentürme"))
    before = len(lines(workspace, "darius"))
    selection = recall(workspace, "darius", QUERY)
    hit = next(p for p in selection.picked if p.memory.created == outcome.spec.ref and p.memory.type == "conversation")
    assert hit.heard and all(h.strip().startswith("Vera hat erzählt: „") for h in hit.heard)
    assert "Quittenbaum im Innenhof verkauft" in hit.heard[0]
    # The meeting added no memory beyond each participant's conversation memory.
    assert len(lines(workspace, "darius")) == before
    shown = cli(workspace, "recall", "darius", QUERY)
    assert shown.exit_code == 0, shown.output
    assert "Vera hat erzählt:" in shown.output and "Quittenbaum" in shown.output
    # vera's own line is hers, not something she heard.
    own = recall(workspace, "vera", QUERY)
    assert not any("Vera hat erzählt" in h for p in own.picked for h in p.heard)


def test_the_listener_sees_the_line_in_the_next_prompt_on_that_topic(gm, workspace):
    arrive(gm)
    turns = 2 * settings_of(gm.world(), "meeting").rounds
    run_scene(gm, ScriptedBackend([saying(NEWS, "vera")] * turns),
              Force(type=SceneType.MEETING, participants=["vera", "darius"], topic="Knochentürme"))
    backend = ScriptedBackend([valid_reply] * 2 * settings_of(gm.world(), "meeting").rounds)
    run_scene(gm, backend, Force(type=SceneType.MEETING, participants=["darius", "emre"], topic="Der Quittenbaum im Innenhof"))
    prompt = backend.prompts_for("darius")[0]
    assert "Vera hat erzählt: „Der Verlag hat den Quittenbaum im Innenhof verkauft" in prompt


def test_what_is_said_at_arrival_reaches_the_table_as_one_memory_each(gm, workspace):
    outcome = arrive(gm, saying(NEWS, "vera"))
    world, agents = gm.world(), gm.agents()
    table = next(t for t in tables(outcome.spec, agents, world) if "vera" in t)
    others = [a for a in agents if a not in table]
    assert 2 <= len(table) <= settings_of(world, "meeting").max and others
    for listener in table:
        heard = [m for m in lines(workspace, listener) if m["metadata"].get("source") == "heard"]
        assert len(heard) == 1  # one memory per listener per scene, however many spoke
        said = {h["speaker"]: h["says"] for h in heard[0]["metadata"]["heard"]}
        # The listener's own line is kept too, so its stream knows whom it told what (news.py).
        assert set(said) == set(table) and set(heard[0]["metadata"]["with"]) == set(table) - {listener}
        if listener != "vera":
            assert said["vera"] == NEWS
            assert heard[0]["description"].startswith("Gehört: ")
            # Shown whole: quoted in full by the description, or under it when the description cut it.
            shown = [p for p in recall(workspace, listener, QUERY).picked if p.memory.id == heard[0]["id"]]
            assert shown and NEWS in " ".join([shown[0].memory.description, *shown[0].heard])
    for outsider in others:
        assert not any(NEWS in json.dumps(m, ensure_ascii=False) for m in lines(workspace, outsider))


def test_what_is_said_in_a_work_room_reaches_only_that_room(gm, workspace):
    arrive(gm)
    outcome = run_scene(gm, ScriptedBackend([saying(NEWS, "vera")] * 7), Force(type=SceneType.WORK))
    room = outcome.spec.room_of("vera")
    for agent_id in gm.agents():
        got = [m for m in lines(workspace, agent_id)
               if m["created"] == outcome.spec.ref and m["metadata"].get("source") == "heard"
               and any(h["speaker"] == "vera" for h in m["metadata"]["heard"])]
        # vera's own heard memory keeps her line too (news.py), as her own, never as heard.
        assert len(got) == (1 if agent_id in room and (agent_id != "vera" or len(room) > 1) else 0), agent_id


def test_heard_lines_are_bounded_and_counted_in_the_budget(gm, workspace):
    arrive(gm)
    long_news = " ".join([NEWS] * 12)
    turns = 2 * settings_of(gm.world(), "meeting").rounds
    run_scene(gm, ScriptedBackend([saying(long_news, "vera")] * turns),
              Force(type=SceneType.MEETING, participants=["vera", "darius"], topic="Knochentürme"))
    selection = recall(workspace, "darius", QUERY, budget=3000)
    hit = next(p for p in selection.picked if p.heard)
    assert len(hit.heard) <= 2
    # Shortened visibly: a line that just stops reads as finished, and a model fills in the rest.
    assert all(len(h.strip()) <= 300 + len("Vera hat erzählt: „ [gekürzt]“") and h.rstrip("“").endswith("… [gekürzt]")
               for h in hit.heard)
    assert selection.chars <= 3000


def test_tables_at_arrival_follow_teams_and_stay_small():
    agents = {f"a{n:02d}": Agent(id=f"a{n:02d}", name=f"A{n}", role="r", persona="p", team=("x" if n < 10 else None))
              for n in range(40)}
    world = World(studio="Test", day=3)
    spec = SceneSpec(type="ARRIVAL", day=3, scene=1, participants=sorted(agents), reason="test")
    seated = tables(spec, agents, world)
    assert sorted(a for t in seated for a in t) == sorted(agents)
    assert all(1 <= len(t) <= settings_of(world, "meeting").max for t in seated)
    assert all(len({agents[a].team for a in t}) == 1 for t in seated)
    tomorrow = tables(spec.model_copy(update={"day": 4}), agents, world)
    assert tomorrow != seated  # the tables change from day to day


def test_an_english_studio_hears_in_english(gm, workspace):
    data = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    workspace.world_path.write_text(json.dumps({**data, "language": "en"}), encoding="utf-8")
    outcome = arrive(gm, saying("The publisher sold the quince tree in the courtyard.", "vera"))
    table = next(t for t in tables(outcome.spec, gm.agents(), gm.world()) if "vera" in t)
    listener = next(a for a in table if a != "vera")
    heard = next(m for m in lines(workspace, listener) if m["metadata"].get("source") == "heard")
    assert heard["description"].startswith("Heard: ") and "Vera: “The publisher sold the quince tree" in heard["description"]
    # The description quotes the short line whole: it is not shown a second time under it.
    picked = [p for p in recall(workspace, listener, "quince tree courtyard").picked if p.memory.id == heard["id"]]
    assert picked and picked[0].heard == ()
    assert "Vera: “The publisher sold the quince tree in the courtyard.”" in picked[0].memory.description


def test_a_line_naming_the_listeners_topic_is_recalled_among_its_many_notes_on_that_topic(gm, workspace):
    """A line that names a topic („Vertical Slice“) the listener has hundreds of tagged notes on
    is still recalled: the query's phrase finds those notes by their tag first, so the heard
    memory carries the topics its lines name as tags too, and its words decide among them."""
    line = "Guten Morgen! Der Verlag will im Vertical Slice eine Szene mit dem Quittenbaum im Innenhof sehen."

    def reply(request):  # whoever sits at Darius' table says it
        return {**valid_reply(request), "says": line if request.agent.id != "darius" else ""}

    outcome = arrive(gm, reply)
    # Then many notes on that topic, newer than the line, so it is not among the newest memories.
    path = workspace.memories_dir / "darius.jsonl"
    with path.open("a", encoding="utf-8") as handle:
        for n in range(150):  # more than fill the memory budget, fewer than a search's candidates
            handle.write(json.dumps({"id": f"darius-{900 + n}", "created": outcome.spec.ref, "type": "observation",
                                     "description": f"Notiz {n} zum Vertical Slice: Umfang der Ebene {n} prüfen, "
                                                    "bevor die Termine für den Turm feststehen.",
                                     "importance": 5, "tags": ["vertical-slice", "scope"], "metadata": {}},
                                    ensure_ascii=False) + "\n")
    ids = json.loads((workspace.root / "state/memory_ids.json").read_text(encoding="utf-8")) \
        if (workspace.root / "state/memory_ids.json").exists() else {}
    ids["darius"] = 1199
    (workspace.root / "state/memory_ids.json").write_text(json.dumps(ids), encoding="utf-8")
    heard = [m for m in lines(workspace, "darius") if m["created"] == outcome.spec.ref and m["metadata"].get("source") == "heard"]
    assert len(heard) == 1
    picked = recall(workspace, "darius", line).picked
    assert heard[0]["id"] in [p.memory.id for p in picked]
    assert "vertical-slice" in heard[0]["tags"]
