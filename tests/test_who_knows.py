"""`gamemaster who-knows`: who would recall a piece of news, since when and from whom."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from replies import valid_reply
from gamemaster.backends.scripted import ScriptedBackend
from gamemaster.cli import app
from gamemaster.loop import run_scene
from gamemaster.kinds.settings import settings_of
from gamemaster.scenes import Force, SceneType
from gamemaster.who_knows import holds, who_knows

NEWS = "Der Verlag hat den Quittenbaum im Innenhof verkauft, morgen wird er gefällt."
QUERY = "Quittenbaum im Innenhof verkauft"


def cli(workspace, *args):
    return CliRunner().invoke(app, ["--root", str(workspace.root), *args], env={"COLUMNS": "400"})


def plant(workspace, agent: str, text: str, created: str) -> str:
    """An importance-9 observation at the end of ``agent``'s stream; its id."""
    path = workspace.memories_dir / f"{agent}.jsonl"
    count = sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    memory_id = f"{agent}-{count + 1:03d}"
    line = {"id": memory_id, "created": created, "type": "observation", "depth": 0, "description": text,
            "importance": 9, "tags": ["news"], "evidence": [], "metadata": {}}
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line, ensure_ascii=False) + "\n")
    return memory_id


def told_in_a_meeting(gm, workspace):
    """vera knows the news; in a meeting she tells darius."""
    run_scene(gm, ScriptedBackend([valid_reply] * 7))
    planted = plant(workspace, "vera", NEWS, "day-001/scene-01")

    def reply(request):
        body = valid_reply(request)
        if request.agent.id == "vera":
            body["says"] = f"Habt ihr es schon gehört? {NEWS}"
        return body

    turns = 2 * settings_of(gm.world(), "meeting").rounds
    outcome = run_scene(gm, ScriptedBackend([reply] * turns),
                        Force(type=SceneType.MEETING, participants=["vera", "darius"], topic="Knochentürme"))
    return planted, outcome.spec.ref


def test_the_carrier_knows_it_herself_and_the_listener_from_her(gm, workspace):
    planted, meeting = told_in_a_meeting(gm, workspace)
    rows = {row.agent: row for row in who_knows(workspace, QUERY).rows}
    assert (rows["vera"].knows, rows["vera"].source, rows["vera"].memory, rows["vera"].since) == (
        True, "self", planted, "day-001/scene-01")
    assert (rows["darius"].knows, rows["darius"].source, rows["darius"].since) == (True, "vera", meeting)
    assert "Quittenbaum im Innenhof verkauft" in rows["darius"].text
    for other in ("emre", "finn", "leo", "nami", "tobi"):
        assert not rows[other].knows and rows[other].since is None and rows[other].source is None


def test_json_for_programs_and_a_table_for_people(gm, workspace):
    told_in_a_meeting(gm, workspace)
    result = cli(workspace, "who-knows", QUERY, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["know"], data["of"]) == (2, 7)
    darius = next(c for c in data["characters"] if c["agent"] == "darius")
    assert darius["from"] == "vera" and darius["knows"] is True
    table = cli(workspace, "who-knows", QUERY)
    assert table.exit_code == 0
    assert "2 of 7 characters know it" in table.output
    darius_line = next(line for line in table.output.splitlines() if "darius" in line)
    assert "yes" in darius_line and "vera" in darius_line


def test_text_from_memories_is_shown_as_it_is(gm, workspace):
    run_scene(gm, ScriptedBackend([valid_reply] * 7))
    plant(workspace, "vera", "[bold]Quittenbaum[/bold] im Innenhof \x1b[2J verkauft", "day-001/scene-01")
    table = cli(workspace, "who-knows", "Quittenbaum Innenhof verkauft")
    assert table.exit_code == 0
    assert "[bold]Quittenbaum[/bold]" in table.output and "\\x1b[2J" in table.output and "\x1b" not in table.output


def test_a_query_without_words_is_one_clear_error(gm, workspace):
    result = cli(workspace, "who-knows", "und die")
    assert result.exit_code == 1
    assert "who-knows: 'und die' has no word to search for" in result.output


def test_holds_means_two_thirds_of_the_query_words():
    wanted = {"quittenbaum", "innenhof", "verkauft"}
    assert holds({"quittenbaum", "innenhof"}, wanted)
    assert not holds({"quittenbaum"}, wanted)
    assert not holds({"quittenbaum"}, set())


def test_an_invitation_is_known_from_its_host(gm, workspace):
    # What a gathering is about is what its host wrote: its guests know it from the host, the host itself.
    run_scene(gm, ScriptedBackend([valid_reply] * 7))
    draft = {"what": f"Kurze Runde im Innenhof: {NEWS}", "day": gm.world().day + 1, "slot": "morning",
             "place": "Innenhof", "invite": ["darius"]}
    run_scene(gm, ScriptedBackend([lambda request: {**valid_reply(request), "gathering": draft}]),
              Force(type=SceneType.WORK, participants=["vera"]))
    rows = {row.agent: row for row in who_knows(workspace, QUERY).rows}
    assert (rows["darius"].knows, rows["darius"].source) == (True, "vera")
    assert (rows["vera"].knows, rows["vera"].source) == (True, "self")
    assert not rows["emre"].knows
