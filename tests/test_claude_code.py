"""Claude Code as the Game Master: the SubagentStop hook, reply ingestion, subagent files, commands."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from replies import valid_reply
from gamemaster.backends.scripted import ScriptedBackend
from gamemaster.claude_code import sync_subagents
from gamemaster.cli import app
from gamemaster.gm import GameMaster
from gamemaster.loop import run_scene
from gamemaster.scenes import Force, SceneType
from gamemaster.create import init_workspace
from gamemaster.workspace import Workspace

REPO = Path(__file__).parent.parent


def hook(cli, payload: dict):
    result = cli("hook", "subagent-stop", input=json.dumps(payload, ensure_ascii=False))
    assert result.exit_code == 0, result.output
    return json.loads(result.output) if result.output.strip() else None


def stop_event(agent: str, message: str, **extra) -> dict:
    """The SubagentStop input as Claude Code sends it."""
    return {
        "session_id": "abc123",
        "transcript_path": "/tmp/session.jsonl",
        "cwd": "/tmp",
        "hook_event_name": "SubagentStop",
        "stop_hook_active": False,
        "agent_id": "agent-1",
        "agent_type": agent,
        "agent_transcript_path": "/tmp/agent-1.jsonl",
        "last_assistant_message": message,
        **extra,
    }


@pytest.fixture
def arrival(workspace, cli):
    assert cli("next").exit_code == 0
    gm = GameMaster(workspace)
    pending = gm.pending()
    return gm, {agent: valid_reply(gm.build_request(pending, turn)) for turn, agent in enumerate(pending.turns)}


def stored(workspace, name):
    path = workspace.scenes / "day-001/scene-01/replies" / name
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def test_a_valid_reply_is_stored_and_the_subagent_may_stop(workspace, cli, arrival):
    _, replies = arrival
    assert hook(cli, stop_event("character-vera", json.dumps(replies["vera"], ensure_ascii=False))) is None
    assert stored(workspace, "07-vera.json")["plan"]["text"] == "Heute arbeite ich an den Knochentürmen."


def test_a_fenced_reply_with_prose_around_it_is_stored(workspace, cli, arrival):
    _, replies = arrival
    text = "Guten Morgen! Hier ist meine Antwort:\n\n```json\n" + json.dumps(replies["emre"], ensure_ascii=False, indent=2) + "\n```\nBis später."
    assert hook(cli, stop_event("character-emre", text)) is None
    assert stored(workspace, "02-emre.json")["agent"] == "emre"
    prose = "Also: " + json.dumps(replies["nami"], ensure_ascii=False) + " – so sehe ich das."
    assert hook(cli, stop_event("character-nami", prose)) is None
    assert stored(workspace, "05-nami.json")["agent"] == "nami"


@pytest.mark.parametrize("label,change,reason", [
    ("not json", lambda r: "Ich weiß noch nicht, was ich heute mache.", "reply: no JSON object found"),
    ("importance 11", lambda r: {**r, "memories": [{"description": "x", "importance": 11}]}, "memories.0.importance: Input should be less than or equal to 10"),
    ("wrong agent", lambda r: {**r, "agent": "emre"}, "agent: expected 'vera', got 'emre'"),
    ("scene not pending", lambda r: {**r, "scene": "day-004/scene-02"}, "scene: expected 'day-001/scene-01' (the pending scene), got 'day-004/scene-02'"),
])
def test_an_invalid_reply_blocks_the_subagent_with_the_field(workspace, cli, arrival, label, change, reason):
    _, replies = arrival
    bad = change(replies["vera"])
    answer = hook(cli, stop_event("character-vera", bad if isinstance(bad, str) else json.dumps(bad)))
    assert answer["decision"] == "block"
    assert reason in answer["reason"] and "vera" in answer["reason"]
    assert stored(workspace, "07-vera.json") is None


def test_a_second_rejection_lets_the_subagent_stop_and_tells_the_game_master(workspace, cli, arrival):
    first = hook(cli, stop_event("character-vera", "nichts"))
    second = hook(cli, stop_event("character-vera", "immer noch nichts", stop_hook_active=True))
    assert first["decision"] == "block"
    assert "decision" not in second
    assert "rejected 2 times" in second["systemMessage"] and "Creative Director" in second["systemMessage"]
    assert stored(workspace, "07-vera.json") is None


def test_a_reply_when_no_scene_is_pending_is_not_looped(workspace, cli):
    answer = hook(cli, stop_event("character-vera", "{}"))
    assert "no scene is pending" in answer["systemMessage"] and "decision" not in answer


def test_other_subagents_pass_silently(cli, arrival):
    assert hook(cli, stop_event("Explore", "Found 3 files.")) is None
    assert hook(cli, stop_event("general-purpose", "{}")) is None


def _transcript(path, *messages) -> str:
    path.write_text("".join(json.dumps({"type": m["role"], "message": m}, ensure_ascii=False) + "\n" for m in messages),
                    encoding="utf-8")
    return str(path)


def test_the_reply_can_come_from_the_subagent_transcript(workspace, cli, arrival, tmp_path):
    gm, replies = arrival
    transcript = _transcript(tmp_path / "agent.jsonl", {"role": "user", "content": gm.prompt_text("leo")},
                             {"role": "assistant", "content": [
                                 {"type": "text", "text": json.dumps(replies["leo"], ensure_ascii=False)}]})
    event = stop_event("character-leo", "", agent_transcript_path=transcript)
    del event["last_assistant_message"]
    assert hook(cli, event) is None
    assert stored(workspace, "04-leo.json")["agent"] == "leo"


def test_a_reply_written_without_the_prompt_is_sent_back_to_read_it(workspace, cli, arrival, tmp_path):
    """The character got only the handoff (no hook replaced it) and answered without reading the
    file: its reply, valid as it may look, was not written from its prompt."""
    gm, replies = arrival
    handoff = gm.pending().handoff(gm.pending().turn_of("leo"), "de")
    reply = json.dumps(replies["leo"], ensure_ascii=False)
    unread = _transcript(tmp_path / "unread.jsonl", {"role": "user", "content": handoff},
                         {"role": "assistant", "content": [{"type": "text", "text": reply}]})
    answer = hook(cli, stop_event("character-leo", reply, agent_transcript_path=unread))
    assert answer["decision"] == "block"
    assert "prompt: the reply was written without it; read scenes/day-001/scene-01/prompts/leo.md" in answer["reason"]
    assert stored(workspace, "04-leo.json") is None
    # Read, then answered: taken.
    path = str(workspace.scenes / "day-001" / "scene-01" / "prompts" / "leo.md")
    read = _transcript(tmp_path / "read.jsonl", {"role": "user", "content": handoff},
                       {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Read",
                                                          "input": {"file_path": path}}]},
                       {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "…"}]},
                       {"role": "assistant", "content": [{"type": "text", "text": reply}]})
    assert hook(cli, stop_event("character-leo", reply, agent_transcript_path=read)) is None
    assert stored(workspace, "04-leo.json")["agent"] == "leo"


def test_reply_command_reads_stdin_and_apply_then_writes_the_scene(workspace, cli, arrival):
    _, replies = arrival
    for agent, reply in replies.items():
        result = cli("reply", agent, "-", input="```json\n" + json.dumps(reply, ensure_ascii=False) + "\n```")
        assert result.exit_code == 0, result.output
    assert result.output.endswith("every reply is in: gamemaster apply\n")
    again = cli("reply", "vera", "-", input=json.dumps(replies["vera"]))
    assert again.exit_code == 1 and "vera has already replied" in again.output
    applied = cli("apply")
    assert applied.exit_code == 0 and applied.output.startswith("applied day-001/scene-01 ARRIVAL: 21 memories")


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for folder in ("state", "gallery", "scenes")
        for p in (root / folder).rglob("*")
        if p.is_file() and ".cache" not in p.parts
    }


def test_the_scene_command_sequence_leaves_the_same_state_as_scene_run(tmp_path):
    """What /scene does (next, prompt, subagents, hook, apply) equals `gamemaster scene run`."""
    runner = CliRunner()
    by_commands, by_run = tmp_path / "commands", tmp_path / "run"
    for root in (by_commands, by_run):
        init_workspace(root)
    script = {}
    # ARRIVAL, WORK scenes with artifacts and observations, and a MEETING the Creative Director calls.
    forced = [[], [], ["--type", "MEETING", "--with", "vera,emre", "--topic", "Knochentürme"], []]
    for extra in forced:
        gm = GameMaster(Workspace(by_commands))
        opened = json.loads(runner.invoke(app, ["--root", str(by_commands), "next", "--json", *extra]).output)
        for turn, agent in enumerate(opened["turns"]):
            prompt = runner.invoke(app, ["--root", str(by_commands), "prompt", agent]).output
            if turn:
                assert opened["type"] != "MEETING" or script[opened["turns"][turn - 1]][-1]["says"] in prompt
            reply = valid_reply(gm.build_request(gm.pending(), turn))
            reply["action"] = f"{agent} in {opened['ref']}, Prompt mit {len(prompt)} Zeichen"
            script.setdefault(agent, []).append(reply)
            event = stop_event(f"character-{agent}", json.dumps(reply, ensure_ascii=False))
            result = runner.invoke(app, ["--root", str(by_commands), "hook", "subagent-stop"], input=json.dumps(event))
            last = turn == len(opened["turns"]) - 1
            assert result.exit_code == 0, result.output
            if last:  # the hook writes the scene back itself once its last reply is stored
                assert f"{opened['ref']}: every reply stored, scene written back" in json.loads(result.output)["systemMessage"]
            else:
                assert result.output == "", result.output
        applied = runner.invoke(app, ["--root", str(by_commands), "apply"])
        assert applied.exit_code == 0 and f"scene {opened['ref']} is already applied" in applied.output
    backend = ScriptedBackend(script)
    gm = GameMaster(Workspace(by_run))
    for extra in forced:
        force = Force(type=SceneType.MEETING, participants=["vera", "emre"], topic="Knochentürme") if extra else None
        run_scene(gm, backend, force)
    assert snapshot(by_commands) == snapshot(by_run)
    assert len(list((by_run / "gallery").rglob("*.md"))) >= 3
    vera = (by_run / "state/memories/vera.jsonl").read_text(encoding="utf-8")
    assert '"type": "conversation", "depth": 0' in vera  # the meeting was played turn by turn


def front_matter(path: Path) -> dict[str, str]:
    match = re.match(r"---\n(.*?)\n---\n", path.read_text(encoding="utf-8"), re.S)
    assert match, f"{path} has no front matter"
    fields = {}
    for line in match.group(1).splitlines():
        if line.startswith("#") or not line.strip():
            continue
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields


def test_every_subagent_file_matches_a_state_agent_and_sync_leaves_no_diff():
    workspace = Workspace(REPO)
    agent_ids = workspace.agent_ids()
    files = sorted((REPO / ".claude/agents").glob("*.md"))
    assert [f.stem for f in files] == [f"character-{a}" for a in agent_ids]
    for path in files:
        fields = front_matter(path)
        assert fields["name"] == path.stem
        agent = workspace.load_agent(path.stem.removeprefix("character-"))
        assert json.loads(fields["description"]).startswith(f"{agent.name} ({agent.role})")
        assert fields["tools"] == "Read, Bash" and json.loads(fields["model"]) == (agent.model or "inherit")
        assert agent.persona in path.read_text(encoding="utf-8")
    result = sync_subagents(workspace, check=True)
    assert not result.changed, result


def test_sync_follows_a_persona_change_and_removes_stale_files(workspace, cli):
    assert cli("agents", "sync").exit_code == 0
    vera = json.loads((workspace.agents_dir / "vera.json").read_text(encoding="utf-8"))
    vera["persona"] = "Vera malt jetzt nur noch in Blau."
    vera["model"] = "haiku"
    (workspace.agents_dir / "vera.json").write_text(json.dumps(vera, ensure_ascii=False), encoding="utf-8")
    (workspace.root / ".claude/agents/character-zed.md").write_text("---\nname: character-zed\n---\n", encoding="utf-8")
    check = cli("agents", "sync", "--check")
    assert check.exit_code == 1
    assert "out of date: .claude/agents/character-vera.md" in check.output and "stale: .claude/agents/character-zed.md" in check.output
    assert cli("agents", "sync").exit_code == 0
    text = (workspace.root / ".claude/agents/character-vera.md").read_text(encoding="utf-8")
    assert "Vera malt jetzt nur noch in Blau." in text and 'model: "haiku"' in text
    assert not (workspace.root / ".claude/agents/character-zed.md").exists()


def test_every_command_pre_approves_only_gamemaster_commands_that_exist():
    runner = CliRunner()
    commands = sorted((REPO / ".claude/commands").glob("*.md"))
    # `/status` is a Claude Code built-in, which shadows a command of the same name: ours is `/studio`.
    assert [c.stem for c in commands] == ["ask", "brief", "day", "report", "scene", "studio", "who-knows"]
    for path in commands:
        fields = front_matter(path)
        assert fields["description"]
        rules = [r.strip() for r in fields["allowed-tools"].split(",")]
        for rule in rules:
            words = re.fullmatch(r"Bash\(gamemaster ([a-z -]+):\*\)", rule).group(1).split()
            assert runner.invoke(app, [*words, "--help"]).exit_code == 0, rule
            assert f"gamemaster {' '.join(words)}" in path.read_text(encoding="utf-8"), f"{path.name} never runs {rule}"


def test_settings_register_the_hook_and_allow_the_commands():
    settings = json.loads((REPO / ".claude/settings.json").read_text(encoding="utf-8"))
    groups = settings["hooks"]["SubagentStop"]
    # Only character subagents start the hook (the matcher is the subagent type), through the
    # launcher, so neither `gamemaster` on PATH nor a path of this machine is needed.
    assert [g["matcher"] for g in groups] == ["character-.*"]
    assert re.fullmatch(groups[0]["matcher"], "character-vera") and not re.fullmatch(groups[0]["matcher"], "Explore")
    hooks = [h["command"] for entry in groups for h in entry["hooks"]]
    assert hooks == ['sh "$CLAUDE_PROJECT_DIR/.claude/gamemaster.sh" hook subagent-stop']
    # Claude Code warns at every start that Write(...) deny rules never match; Edit(...) covers writes.
    assert settings["permissions"]["deny"] == ["Edit(state/**)", "Edit(scenes/**)", "Edit(gallery/**)"]
    # Auto mode (the default of newer Claude Code) stops at the first character behind a gateway.
    assert settings["permissions"]["defaultMode"] == "default"
    assert settings["enabledMcpjsonServers"] == ["gamemaster"]
    allowed = set(settings["permissions"]["allow"])
    for command in ("report", "scene run", "day advance", "config", "cost", "doctor", "next", "apply"):
        assert f"Bash(gamemaster {command}:*)" in allowed, command
    runner = CliRunner()
    for rule in settings["permissions"]["allow"]:
        if rule.startswith("Bash("):
            words = re.fullmatch(r"Bash\(gamemaster ([a-z -]+):\*\)", rule).group(1).split()
            assert runner.invoke(app, [*words, "--help"]).exit_code == 0, rule
    mcp = json.loads((REPO / ".mcp.json").read_text(encoding="utf-8"))
    assert mcp["mcpServers"]["gamemaster"]["command"] == "sh"
    assert mcp["mcpServers"]["gamemaster"]["args"] == ["${CLAUDE_PROJECT_DIR:-.}/.claude/gamemaster.sh", "mcp"]


def test_only_the_creative_director_starts_a_day_or_gives_a_brief():
    for name, manual in (("day", True), ("brief", True), ("scene", False), ("studio", False)):
        fields = front_matter(REPO / ".claude" / "commands" / f"{name}.md")
        assert (fields.get("disable-model-invocation") in (True, "true")) is manual, name


def test_claude_md_is_short_and_names_only_real_commands():
    text = (REPO / "CLAUDE.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) < 200
    runner = CliRunner()
    for command in sorted(set(re.findall(r"`gamemaster ([a-z]+(?: sync| subagent-stop)?)", text))):
        assert runner.invoke(app, [*command.split(), "--help"]).exit_code == 0, command


def test_internal_agents_with_an_empty_type_pass(cli, arrival):
    assert hook(cli, stop_event("", "Zusammenfassung.")) is None
    assert hook(cli, stop_event(None, "x")) is None


def test_the_hook_finds_the_workspace_from_a_subfolder(workspace, arrival, monkeypatch):
    _, replies = arrival
    monkeypatch.chdir(workspace.root / "gallery")
    runner = CliRunner()
    event = stop_event("character-vera", json.dumps(replies["vera"], ensure_ascii=False), cwd=str(workspace.root / "gallery"))
    result = runner.invoke(app, ["hook", "subagent-stop"], input=json.dumps(event))
    assert result.exit_code == 0 and result.output == ""
    assert stored(workspace, "07-vera.json")["agent"] == "vera"


def test_outside_any_workspace_a_character_is_told_and_others_pass(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    runner = CliRunner()
    lost = runner.invoke(app, ["hook", "subagent-stop"], input=json.dumps(stop_event("character-vera", "{}", cwd=str(tmp_path))))
    assert "no gamemaster workspace found" in json.loads(lost.output)["systemMessage"]
    other = runner.invoke(app, ["hook", "subagent-stop"], input=json.dumps(stop_event("Explore", "x", cwd=str(tmp_path))))
    assert other.exit_code == 0 and other.output == ""


def test_what_a_character_cannot_fix_never_blocks(workspace, cli, arrival):
    _, replies = arrival
    text = json.dumps(replies["vera"], ensure_ascii=False)
    assert hook(cli, stop_event("character-vera", text)) is None
    again = hook(cli, stop_event("character-vera", text))
    assert "decision" not in again and "vera has already replied" in again["systemMessage"]


def test_rejections_show_in_status_and_clear_once_a_reply_is_stored(workspace, cli, arrival):
    _, replies = arrival
    hook(cli, stop_event("character-vera", '{"agent": "vera"}'))
    pending = json.loads(cli("status", "--json").output)["pending"]
    assert list(pending["rejections"]) == ["vera"] and "scene: Field required" in pending["rejections"]["vera"][0]
    assert hook(cli, stop_event("character-vera", json.dumps(replies["vera"], ensure_ascii=False))) is None
    assert json.loads(cli("status", "--json").output)["pending"]["rejections"] == {}


def test_a_corrected_reply_that_quotes_its_old_mistake_is_taken(workspace, cli, arrival):
    _, replies = arrival
    bad = {**replies["vera"], "memories": [{"description": "x", "importance": 11}]}
    text = ("Meine erste Antwort war falsch:\n```json\n" + json.dumps(bad) + "\n```\nKorrigiert:\n```json\n"
            + json.dumps(replies["vera"], ensure_ascii=False) + "\n```")
    assert hook(cli, stop_event("character-vera", text)) is None
    assert stored(workspace, "07-vera.json")["memories"][0]["importance"] == 5


@pytest.mark.parametrize("transcript", [7, "/nonexistent/file.jsonl", "binary"])
def test_a_broken_transcript_is_a_rejection_not_a_traceback(workspace, cli, arrival, tmp_path, transcript):
    if transcript == "binary":
        path = tmp_path / "t.jsonl"
        path.write_bytes(b'{"message": {"role": "assistant", "content": 5}}\n\xff\xfe')
        transcript = str(path)
    event = stop_event("character-vera", "", agent_transcript_path=transcript)
    del event["last_assistant_message"]
    answer = hook(cli, event)
    assert answer["decision"] == "block" and "no JSON object found" in answer["reason"]


def test_an_interview_answer_passes_the_hook_even_with_a_scene_pending(cli, arrival):
    answer = '{"answer": "Die Türme wachsen.", "memories": ["vera-002"]}'
    assert hook(cli, stop_event("character-vera", answer)) is None
    assert cli("status", "--json").exit_code == 0
    assert "07-vera" in json.loads(cli("status", "--json").output)["pending"]["waiting"]


def test_a_day_completes_through_the_hook_alone_and_apply_only_reports(workspace, cli):
    """Background subagents: the Game Master may never run `apply` itself; the scenes still land."""
    closed = None
    for _ in range(20):
        opened = json.loads(cli("next", "--json").output)
        gm = GameMaster(workspace)
        for turn, agent in enumerate(opened["turns"]):
            reply = valid_reply(gm.build_request(gm.pending(), turn))
            hook(cli, stop_event(f"character-{agent}", json.dumps(reply, ensure_ascii=False)))
        assert gm.pending() is None, f"{opened['ref']} is still pending after its last reply"
        report = json.loads(cli("apply", "--json").output)
        assert report["already_applied"] == opened["ref"] and report["written"]
        if report["day_summary"]:
            closed = report["day_summary"]
            break
    assert closed == "scenes/day-001/summary.md" and (workspace.root / closed).exists()
    assert cli("validate").exit_code == 0


def test_agents_sync_check_reports_claude_code_files_older_than_the_toolkits(workspace, cli, monkeypatch):
    from gamemaster import claude_files

    assert cli("agents", "sync", "--check").exit_code == 0  # a fresh init is current
    ours = dict(claude_files.shipped())
    newer = {**ours, ".claude/commands/scene.md": ours[".claude/commands/scene.md"] + b"\nEine neue Zeile.\n",
             "CLAUDE.md": ours["CLAUDE.md"] + b"\nNeu im Toolkit.\n"}
    monkeypatch.setattr(claude_files, "shipped", lambda mode=claude_files.COMMANDS: newer)
    mine = "# Mein eigenes CLAUDE.md\n"
    (workspace.root / "CLAUDE.md").write_text(mine, encoding="utf-8")  # the user's own version

    check = cli("agents", "sync", "--check")
    assert check.exit_code == 1
    assert "out of date (the installed toolkit ships a newer one): .claude/commands/scene.md" in check.output
    assert "changed here (kept; the installed toolkit ships another version): CLAUDE.md" in check.output

    assert cli("agents", "sync").exit_code == 0
    assert (workspace.root / ".claude/commands/scene.md").read_bytes() == newer[".claude/commands/scene.md"]
    assert (workspace.root / "CLAUDE.md").read_text(encoding="utf-8") == mine
    again = cli("agents", "sync", "--check")
    assert again.exit_code == 0 and "out of date" not in again.output
