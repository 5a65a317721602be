"""The command line: workspace, scene cycle, memories, briefs, validation, exit codes."""

from __future__ import annotations

import re

import json
import os
import subprocess
import sys

import pytest

from replies import valid_reply
from gamemaster.force import force_from_text
from gamemaster.gm import GameMaster
from gamemaster.scenes import Force


def test_init_creates_the_bundled_studio_and_status_reports_it(tmp_path, cli):
    target = tmp_path / "neu"
    result = cli("init", str(target))
    assert result.exit_code == 0, result.output
    assert sorted(p.stem for p in (target / "state/agents").glob("*.json")) == ["darius", "emre", "finn", "leo", "nami", "tobi", "vera"]
    assert (target / "prompts/character.md").exists()
    # Ready for Claude Code too: instructions, commands, settings, MCP, one subagent per character.
    for name in ("CLAUDE.md", ".claude/commands/scene.md", ".claude/settings.json", ".mcp.json", ".claude/agents/character-vera.md"):
        assert (target / name).is_file(), name
    assert cli("agents", "sync", "--check", root=target).output == "subagents are up to date\n"
    status = cli("status", "--json", root=target)
    data = json.loads(status.output)
    assert (data["day"], data["scene"], data["pending"]) == (0, 0, None)
    vera = next(a for a in data["agents"] if a["id"] == "vera")
    assert vera["memories"] == len((target / "state/memories/vera.jsonl").read_text(encoding="utf-8").splitlines())
    assert cli("init", str(target)).exit_code == 1  # never over an existing workspace


def test_init_empty_has_no_agents(tmp_path, cli):
    assert cli("init", "--empty", str(tmp_path / "leer")).exit_code == 0
    assert list((tmp_path / "leer/state/agents").glob("*")) == []


def test_next_is_stable_until_applied(cli, workspace):
    first = json.loads(cli("next", "--json").output)
    assert first["opened"] is True and first["type"] == "ARRIVAL" and first["ref"] == "day-001/scene-01"
    assert (workspace.scenes / "day-001/scene-01/prompts/vera.md").exists()
    again = json.loads(cli("next", "--json").output)
    assert again["opened"] is False and again["ref"] == first["ref"]
    human = cli("next")
    assert human.output.startswith("still pending:\nday-001/scene-01 ARRIVAL\n")


def test_prompt_prints_the_participants_prompt(cli):
    cli("next")
    result = cli("prompt", "vera")
    assert result.exit_code == 0
    # What every character shares comes first (it is cached once for all), then who she is.
    assert result.output.startswith("# Studio GenSoftworks\n")
    assert "\n# Du bist Vera Kowalski (vera) im Studio GenSoftworks\n" in result.output
    assert "vera-008" in result.output  # her reflection is among the selected memories
    assert cli("prompt", "nobody").exit_code == 1


def test_forced_next_and_usage_errors(cli):
    cli("next")
    assert cli("next", "--type", "WORK").exit_code == 1  # a scene is pending
    assert cli("next", "--type", "PARTY").exit_code == 2
    assert cli("frobnicate").exit_code == 2


def test_a_forced_scene_from_the_command_line():
    force = force_from_text("meeting", " vera, ,emre ", "Türme")
    assert (force.type, force.participants, force.topic) == ("MEETING", ["vera", "emre"], "Türme")
    assert force_from_text(None, None, None) == Force()
    with pytest.raises(ValueError, match="^'PARTY': choose ARRIVAL, WORK, MEETING, REFLECTION"):
        force_from_text("PARTY", None, None)


def test_backend_choice_errors_are_usage_errors(cli):
    result = cli("scene", "run", "--backend", "offline", "--model", "claude-haiku-4-5")
    assert result.exit_code == 2 and "--model only apply to API backends" in result.output
    result = cli("day", "advance", "--backend", "nope")
    assert result.exit_code == 2 and "unknown backend 'nope'" in result.output


def test_apply_from_stdin_and_a_rejected_reply_writes_nothing(cli, workspace):
    cli("next", "--type", "ARRIVAL")
    gm = GameMaster(workspace)
    pending = gm.pending()
    replies = {agent: valid_reply(gm.build_request(pending, turn)) for turn, agent in enumerate(pending.turns)}
    broken = json.loads(json.dumps(replies))
    broken["nami"]["memories"][0]["importance"] = 11
    del broken["tobi"]["plan"]
    before = (workspace.memories_dir / "nami.jsonl").read_bytes()
    rejected = cli("apply", "--replies", "-", input=json.dumps(broken))
    assert rejected.exit_code == 1
    assert "nami: memories.0.importance: Input should be less than or equal to 10" in rejected.output
    assert "tobi: plan: an ARRIVAL reply must declare today's plan" in rejected.output
    assert (workspace.memories_dir / "nami.jsonl").read_bytes() == before
    assert not list((workspace.scenes / "day-001/scene-01").glob("replies/*"))
    accepted = cli("apply", "--replies", "-", "--json", input=json.dumps(replies))
    data = json.loads(accepted.output)
    assert data["applied"] is True and len(data["written"]) == 21


def test_apply_without_replies_says_who_is_missing(cli):
    cli("next")
    result = cli("apply")
    assert result.exit_code == 1
    assert "still waits for replies from: darius (turn 1)" in result.output


def test_memories_filters(cli):
    result = cli("memories", "vera", "--tag", "bone-towers", "--type", "observation", "--json")
    found = json.loads(result.output)["memories"]
    assert found and all("bone-towers" in m["tags"] and m["type"] == "observation" for m in found)
    last = json.loads(cli("memories", "vera", "--last", "2", "--json").output)["memories"]
    assert [m["id"] for m in last] == ["vera-007", "vera-008"]
    grep = json.loads(cli("memories", "vera", "--grep", "silhouette", "--json").output)["memories"]
    assert grep and all("silhouette" in m["description"].lower() for m in grep)
    assert cli("memories", "nobody").exit_code == 1


def test_brief_is_a_high_importance_observation_for_its_addressees(cli, workspace):
    before = GameMaster(workspace).agents()["emre"].importance_accumulator
    result = cli("brief", "Die Türme brauchen Biologie.", "--to", "emre", "--json")
    brief = json.loads(result.output)
    assert brief["id"] == "brief-001" and brief["to"] == ["emre"] and brief["created"] == "day-001/scene-01"
    last = json.loads((workspace.memories_dir / "emre.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    assert last["description"] == "Der Creative Director gibt vor: „Die Türme brauchen Biologie.“"
    assert (last["importance"], last["metadata"]["source"]) == (9, "brief")
    assert GameMaster(workspace).agents()["emre"].importance_accumulator == before + 9
    assert cli("brief", "x", "--to", "nobody").exit_code == 1


def test_schema_prints_the_reply_contract(cli):
    schema = json.loads(cli("schema").output)
    assert schema["title"] == "Reply"
    assert {"agent", "scene", "action", "memories", "artifacts", "insights"} <= set(schema["properties"])


def test_root_from_environment_and_python_dash_m(workspace):
    env = {"GAMEMASTER_ROOT": str(workspace.root), "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-m", "gamemaster", "status", "--json"], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["studio"] == "GenSoftworks"


def test_outside_a_workspace_is_a_reported_problem(tmp_path, cli):
    result = cli("status", root=tmp_path)
    assert result.exit_code == 1
    assert "is not a gamemaster workspace" in result.output


def imported_by(*commands: list[str], packages: tuple[str, ...]) -> list[str]:
    """The modules of ``packages`` a fresh interpreter has imported after running ``commands``."""
    code = (
        "import json, sys\n"
        "from gamemaster.cli import app\n"
        f"for args in {list(commands)!r}:\n"
        "    try:\n"
        "        app(args)\n"
        "    except SystemExit as exit:\n"
        "        assert exit.code == 0, exit.code\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {packages!r})))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_hot_commands_do_not_import_anthropic_or_rich(workspace):
    root = ["--root", str(workspace.root)]
    assert imported_by([*root, "next"], [*root, "prompt", "vera"],
                       packages=("anthropic", "rich", "httpx", "mcp")) == []


def test_help_does_not_import_a_backend_or_the_mcp_server():
    assert imported_by(["--help"], ["scene", "run", "--help"], packages=("anthropic", "httpx", "mcp", "sqlite3")) == []


def test_status_for_people_shows_the_pending_scene_and_every_agent(cli):
    cli("next")
    cli("brief", "Mehr Licht.", "--to", "vera")
    output = cli("status").output
    assert output.startswith("GenSoftworks · day 000 · scene 00\npending:\nday-001/scene-01 ARRIVAL\n")
    assert "replies: 0/7" in output and "│ emre   │ 81/100" in output
    assert "brief brief-001 waiting: Mehr Licht." in output


def _plain(text: str) -> str:
    """Rich's boxes and line breaks out of the way: the words as a reader takes them in."""
    return " ".join(re.sub(r"[│╭╮╰╯─┃━]", " ", text).split())


def test_a_choice_out_of_range_is_a_usage_error_naming_the_option_and_the_choices(cli):
    wrong = cli("recall", "vera", "Türme", "--strategy", "hybird")
    assert wrong.exit_code == 2
    assert "Invalid value for '--strategy': 'hybird': choose hybrid, ranked, seed" in _plain(wrong.output)
    assert "world.json" not in wrong.output  # it is the command line that is wrong, not the state
    kind = cli("next", "--type", "PARTY")
    assert kind.exit_code == 2
    assert "Invalid value for '--type': 'PARTY': choose ARRIVAL, WORK, MEETING, REFLECTION" in _plain(kind.output)
    opened = cli("next", "--type", "arrival", "--json")  # the choice is not case-sensitive
    assert opened.exit_code == 0 and json.loads(opened.output)["type"] == "ARRIVAL"


def test_help_shows_the_choices_and_what_each_argument_is(cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")  # a wide terminal: each option on one line
    recall = _plain(cli("recall", "--help").output)
    assert "recall [OPTIONS] {AGENT} {QUERY}" in recall
    assert "--strategy <hybrid|ranked|seed>" in recall
    nxt = _plain(cli("next", "--help").output)
    assert "--type <ARRIVAL|WORK|MEETING|REFLECTION|ENCOUNTER|EVENT|GATHERING> Force the scene type: ARRIVAL," in nxt


def test_shell_completion_completes_commands_choices_and_agent_ids(workspace, monkeypatch):
    from typer.testing import CliRunner

    from gamemaster.cli import app

    # As typed in bash: the shell is detected from the process's ancestors, which a test run
    # started in the background (its shell gone) does not have.
    import shellingham

    monkeypatch.setattr(shellingham, "detect_shell", lambda *a, **k: ("bash", "/bin/bash"))
    script = CliRunner().invoke(app, ["--show-completion"], prog_name="gamemaster")
    assert script.exit_code == 0 and "_GAMEMASTER_COMPLETE=complete_bash" in script.output

    def complete(words: str) -> list[str]:
        monkeypatch.setenv("_GAMEMASTER_COMPLETE", "complete_bash")
        monkeypatch.setenv("COMP_WORDS", words)
        monkeypatch.setenv("COMP_CWORD", str(len(words.split()) - (0 if words.endswith(" ") else 1)))
        monkeypatch.setenv("GAMEMASTER_ROOT", str(workspace.root))
        done = CliRunner().invoke(app, [], prog_name="gamemaster")
        return done.output.split()

    assert complete("gamemaster who") == ["who-knows"]
    assert complete("gamemaster next --type MEE") == ["MEETING"]
    assert complete("gamemaster recall v") == ["vera"]
    assert complete("gamemaster memories ") == sorted(p.stem for p in workspace.agents_dir.glob("*.json"))


def test_a_reader_that_stops_early_gets_no_error_and_the_workspace_is_not_blamed(workspace):
    # `gamemaster prompt vera | head`: the reader closes the pipe before the prompt is written.
    env = {"GAMEMASTER_ROOT": str(workspace.root), "PATH": "/usr/bin:/bin"}
    subprocess.run([sys.executable, "-m", "gamemaster", "next"], capture_output=True, env=env, check=True)
    read, write = os.pipe()
    os.close(read)
    try:
        result = subprocess.run([sys.executable, "-m", "gamemaster", "prompt", "vera"], stdout=write,
                                stderr=subprocess.PIPE, text=True, env=env)
    finally:
        os.close(write)
    assert result.stderr == ""
    assert result.returncode == 1  # click's convention for a broken pipe
