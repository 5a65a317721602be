"""The PreToolUse hook: the Game Master hands a character a short task and the toolkit puts the
prompt in its place; a character reads its own prompt and memories, gallery/ and library/ only.

The hook's answers are checked as Claude Code gets them (``gamemaster hook pre-tool-use`` with
the event on stdin); that Claude Code acts on them is the end-to-end tests' part."""

from __future__ import annotations

import json
import os
import re

import pytest

from gamemaster.claude_plugin import workspace_settings
from gamemaster.gm import GameMaster

REPO_SETTINGS = os.path.join(os.path.dirname(__file__), "..", ".claude", "settings.json")


def event(workspace, tool: str, tool_input: dict, agent: str | None = None) -> dict:
    """The PreToolUse input as Claude Code sends it; ``agent``: the calling subagent's type."""
    payload = {"session_id": "s1", "transcript_path": "/tmp/s1.jsonl", "cwd": str(workspace.root),
               "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input, "tool_use_id": "toolu_1"}
    if agent:
        payload.update(agent_id="a1b2", agent_type=agent)
    return payload


def run_hook(cli, payload: dict, *args: str):
    result = cli("hook", "pre-tool-use", *args, input=json.dumps(payload, ensure_ascii=False))
    assert result.exit_code == 0, result.output
    return json.loads(result.output) if result.output.strip() else None


def refused(answer) -> str:
    assert answer is not None, "the call was let through"
    out = answer["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny", out
    return out["permissionDecisionReason"]


@pytest.fixture
def arrival(workspace, cli):
    opened = cli("next", "--json")
    assert opened.exit_code == 0, opened.output
    return json.loads(opened.output)


def spawn(workspace, agent: str, prompt: str) -> dict:
    return event(workspace, "Agent", {"description": f"{agent} answers", "prompt": prompt,
                                      "subagent_type": f"character-{agent}"})


def test_the_handoff_is_short_and_the_hook_puts_the_prompt_file_in_its_place(workspace, cli, arrival):
    handoff = arrival["handoff"]["01-vera"] if "01-vera" in arrival["handoff"] else next(
        text for label, text in arrival["handoff"].items() if label.endswith("-vera"))
    assert set(arrival["handoff"]) == set(arrival["waiting"])
    assert len(handoff) < 300 and "scenes/day-001/scene-01/prompts/vera.md" in handoff
    answer = run_hook(cli, spawn(workspace, "vera", handoff))
    given = answer["hookSpecificOutput"]["updatedInput"]
    prompt_file = workspace.scenes / "day-001" / "scene-01" / "prompts" / "vera.md"
    assert given["prompt"] == prompt_file.read_text(encoding="utf-8")
    assert '"agent": "vera"' in given["prompt"]
    assert given["subagent_type"] == "character-vera" and given["description"] == "vera answers"
    assert "permissionDecision" not in answer["hookSpecificOutput"]  # Claude Code's own rules still apply


def test_a_pasted_prompt_that_was_altered_is_replaced_by_the_toolkits(workspace, cli, arrival):
    prompt = GameMaster(workspace).prompt_text("emre")
    altered = prompt.replace("Emre", "Emre der Große")
    answer = run_hook(cli, spawn(workspace, "emre", altered))
    assert answer["hookSpecificOutput"]["updatedInput"]["prompt"] == prompt


def test_an_interview_and_other_subagents_pass_unchanged(workspace, cli, arrival):
    built = cli("ask", "vera", "Was weißt du über die Knochentürme?", "--prompt")
    assert built.exit_code == 0, built.output
    interview = built.output
    assert run_hook(cli, spawn(workspace, "vera", interview)) is None
    other = event(workspace, "Agent", {"description": "look", "prompt": "scenes/day-001/scene-01/prompts/vera.md",
                                        "subagent_type": "general-purpose"})
    assert run_hook(cli, other) is None


def test_a_handoff_for_another_scene_or_out_of_turn_is_refused_with_the_reason(workspace, cli, arrival):
    stale = arrival["handoff"][arrival["waiting"][0]].replace("day-001/scene-01", "day-000/scene-09")
    agent = arrival["waiting"][0].split("-", 1)[1]
    reason = refused(run_hook(cli, spawn(workspace, agent, stale)))
    assert "day-000/scene-09" in reason and "day-001/scene-01" in reason
    # A MEETING goes turn by turn: the second speaker's handoff before the first has answered.
    for step in (["scene", "run", "--backend", "offline"], ["next", "--type", "MEETING", "--with", "vera,emre"]):
        assert cli(*step).exit_code == 0
    meeting = json.loads(cli("status", "--json").output)["pending"]
    second = meeting["waiting"][1]
    reason = refused(run_hook(cli, spawn(workspace, second.split("-", 1)[1], meeting["handoff"][second])))
    assert "turn" in reason


def test_with_no_scene_pending_a_handoff_is_refused(workspace, cli):
    task = "Dein Zug 01-vera in Szene day-001/scene-01. Dein Prompt steht in `scenes/day-001/scene-01/prompts/vera.md`."
    assert "no scene is pending" in refused(run_hook(cli, spawn(workspace, "vera", task)))


def test_a_character_reads_its_own_stream_prompt_gallery_and_library(workspace, cli, arrival):
    own = [
        ("Read", {"file_path": str(workspace.memories_dir / "vera.jsonl")}),
        ("Read", {"file_path": "state/memories/vera.jsonl"}),
        ("Read", {"file_path": str(workspace.scenes / "day-001/scene-01/prompts/vera.md")}),
        ("Grep", {"pattern": "Turm", "path": "gallery"}),
        ("Grep", {"pattern": "Turm", "path": str(workspace.root / "library"), "glob": "*.md"}),
        ("Read", {"file_path": str(workspace.root / "library" / "nothing-here.md")}),
    ]
    for tool, tool_input in own:
        assert run_hook(cli, event(workspace, tool, tool_input, "character-vera")) is None, (tool, tool_input)


@pytest.mark.parametrize("tool, tool_input, shown", [
    ("Read", {"file_path": "state/memories/leo.jsonl"}, "state/memories/leo.jsonl"),
    ("Read", {"file_path": "state/world.json"}, "state/world.json"),
    ("Read", {"file_path": "state/agents/leo.json"}, "state/agents/leo.json"),
    ("Read", {"file_path": "scenes/day-001/scene-01/prompts/leo.md"}, "scenes/day-001/scene-01/prompts/leo.md"),
    ("Read", {"file_path": "CLAUDE.md"}, "CLAUDE.md"),
    ("Read", {"file_path": "/etc/passwd"}, "/etc/passwd"),
    ("Read", {"file_path": "gallery/../state/memories/leo.jsonl"}, "state/memories/leo.jsonl"),
    ("Grep", {"pattern": "importance"}, "the workspace"),
    ("Grep", {"pattern": "x", "path": "state"}, "state"),
    ("Grep", {"pattern": "x", "path": "gallery", "glob": "../state/**"}, "pattern"),
    ("Glob", {"pattern": "state/**/*.jsonl"}, "the workspace"),
    ("Glob", {"pattern": "../state/*", "path": "gallery"}, "pattern"),
])
def test_a_character_is_refused_every_other_mind(workspace, cli, arrival, tool, tool_input, shown):
    reason = refused(run_hook(cli, event(workspace, tool, tool_input, "character-vera")))
    assert "vera may read only its own prompt and memories, gallery/ and library/" in reason
    if shown == "the workspace":
        assert str(workspace.root) in reason
    elif shown != "pattern":
        assert shown in reason


def test_a_link_in_the_gallery_to_another_mind_is_refused(workspace, cli, arrival):
    link = workspace.gallery / "notes.md"
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(workspace.memories_dir / "leo.jsonl")
    reason = refused(run_hook(cli, event(workspace, "Read", {"file_path": str(link)}, "character-vera")))
    assert "state/memories/leo.jsonl" in reason


def test_the_game_master_and_other_subagents_read_as_claude_code_allows(workspace, cli, arrival):
    for agent in (None, "general-purpose", "Explore"):
        payload = event(workspace, "Read", {"file_path": "state/memories/leo.jsonl"}, agent)
        assert run_hook(cli, payload) is None, agent


def test_a_meeting_speaker_reads_its_prompt_before_anyone_wrote_it(workspace, cli):
    for step in (["scene", "run", "--backend", "offline"], ["next", "--type", "MEETING", "--with", "vera,emre"]):
        assert cli(*step).exit_code == 0
    meeting = json.loads(cli("status", "--json").output)["pending"]
    first = meeting["waiting"][0]
    path = re.search(r"`([^`]+)`", meeting["handoff"][first]).group(1)
    if os.path.exists(path):
        os.unlink(path)  # as when the handoff was passed before anyone ran `prompt`
    speaker = first.split("-", 1)[1]
    assert run_hook(cli, event(workspace, "Read", {"file_path": path}, f"character-{speaker}")) is None
    assert f'"agent": "{speaker}"' in open(path, encoding="utf-8").read()
    other = "emre" if speaker == "vera" else "vera"
    assert "may read only" in refused(run_hook(cli, event(workspace, "Read", {"file_path": path}, f"character-{other}")))


def test_a_fence_that_cannot_decide_refuses_and_says_why(workspace, cli, arrival):
    workspace.world_path.write_text("{ broken", encoding="utf-8")
    prompt = "scenes/day-001/scene-01/prompts/vera.md"
    reason = refused(run_hook(cli, event(workspace, "Read", {"file_path": prompt}, "character-vera")))
    assert "could not check this read" in reason and "world.json" in reason


def test_the_workspace_settings_run_the_hook_for_spawns_and_reads():
    settings = json.loads(open(REPO_SETTINGS, encoding="utf-8").read())
    [group] = settings["hooks"]["PreToolUse"]
    for tool in ("Agent", "Task", "Read", "Grep", "Glob", "Bash"):
        assert re.fullmatch(group["matcher"], tool), tool
    assert not re.fullmatch(group["matcher"], "Write")
    assert [h["command"] for h in group["hooks"]] == ['sh "$CLAUDE_PROJECT_DIR/.claude/gamemaster.sh" hook pre-tool-use']


def test_a_plugin_workspace_keeps_the_fence_and_leaves_the_spawns_to_the_plugin(workspace, cli, arrival):
    settings = json.loads(workspace_settings())
    [group] = settings["hooks"]["PreToolUse"]
    assert re.fullmatch(group["matcher"], "Read") and not re.fullmatch(group["matcher"], "Agent")
    assert "SubagentStop" not in settings["hooks"]
    handoff = arrival["handoff"][arrival["waiting"][0]]
    agent = arrival["waiting"][0].split("-", 1)[1]
    # This workspace runs its own handoff hook: the plugin's steps aside, or the prompt is handed twice.
    assert run_hook(cli, spawn(workspace, agent, handoff), "--from-plugin") is None
    (workspace.root / ".claude" / "settings.json").write_bytes(workspace_settings())
    answer = run_hook(cli, spawn(workspace, agent, handoff), "--from-plugin")
    assert f'"agent": "{agent}"' in answer["hookSpecificOutput"]["updatedInput"]["prompt"]


def test_character_files_keep_the_game_masters_instructions_out_and_bound_the_turns(workspace):
    text = (workspace.root / ".claude" / "agents" / "character-vera.md").read_text(encoding="utf-8")
    head = text.split("---", 2)[1]
    assert "\nomitClaudeMd: true\n" in head and re.search(r"\nmaxTurns: \d+\n", head)
    assert "\ntools: Read, Bash\n" in head  # Bash for its lookup only: the hook refuses the rest
    assert 'gamemaster lookup "wonach du suchst"' in text


def test_claude_given_only_the_handoff_read_its_prompt_and_its_reply_is_taken(workspace, cli, arrival):
    """tests/fixtures/claude_handoff: Claude, handed only the handoff, read the prompt file it names
    and answered; the same turn of a fresh bundled studio still gets that handoff and takes the reply."""
    fixture = os.path.join(os.path.dirname(__file__), "fixtures", "claude_handoff")
    handoff = open(os.path.join(fixture, "handoff.txt"), encoding="utf-8").read().strip()
    assert arrival["handoff"]["07-vera"] == handoff.replace("<workspace>", str(workspace.root))
    reply = open(os.path.join(fixture, "vera.reply.txt"), encoding="utf-8").read()
    stored = cli("reply", "vera", "-", input=reply)
    assert stored.exit_code == 0, stored.output
    kept = json.loads((workspace.scenes / "day-001" / "scene-01" / "replies" / "07-vera.json").read_text(encoding="utf-8"))
    assert kept["agent"] == "vera" and kept["plan"]["text"]


def test_claude_as_game_master_handed_each_character_its_handoff_word_for_word(workspace, arrival):
    """tests/fixtures/claude_handoff/game_master_calls.json: Claude as the Game Master, shown CLAUDE.md,
    /scene and `next --json`, spawned every open turn at once with exactly its handoff."""
    fixture = os.path.join(os.path.dirname(__file__), "fixtures", "claude_handoff", "game_master_calls.json")
    calls = json.loads(open(fixture, encoding="utf-8").read().replace("<workspace>", str(workspace.root)))
    assert [c["input"]["subagent_type"] for c in calls] == [f"character-{l.split('-', 1)[1]}" for l in arrival["waiting"]]
    assert [c["input"]["prompt"] for c in calls] == [arrival["handoff"][label] for label in arrival["waiting"]]
    assert all(c["tool"] == "Agent" and c["input"]["run_in_background"] is False for c in calls)


def lookup_call(workspace, command: str, agent: str | None = "character-vera") -> dict:
    return event(workspace, "Bash", {"command": command, "description": "nachschlagen"}, agent)


def test_a_characters_one_command_is_a_lookup_in_its_own_memory(workspace, cli, arrival):
    import shlex
    import subprocess
    import sys

    answer = run_hook(cli, lookup_call(workspace, 'gamemaster lookup "Leos Skizze vom Nordturm – bis wann?"'))
    out = answer["hookSpecificOutput"]
    assert out["permissionDecision"] == "allow"
    command = out["updatedInput"]["command"]
    words = shlex.split(command)
    assert words[:3] == [sys.executable, "-m", "gamemaster"] and words[-3:] == [
        "lookup", "vera", "Leos Skizze vom Nordturm – bis wann?"]
    assert out["updatedInput"]["description"] == "nachschlagen"
    # The command as rebuilt runs: the lookup is kept with the scene, under Vera's turn.
    done = subprocess.run(command, shell=True, capture_output=True, text=True, cwd=workspace.root,
                          env={**os.environ, "PYTHONPATH": os.path.join(os.path.dirname(__file__), "..")})
    assert done.returncode == 0, done.stderr
    [path] = (workspace.scenes / "day-001" / "scene-01" / "lookups").glob("*-vera.json")
    [entry] = json.loads(path.read_text(encoding="utf-8"))["lookups"]
    assert entry["query"] == "Leos Skizze vom Nordturm – bis wann?"
    assert all(i.startswith("vera-") for i in entry["memories"])


@pytest.mark.parametrize("command, reason", [
    ("cat state/memories/leo.jsonl", "may run only `gamemaster lookup"),
    ("gamemaster recall leo Nordturm", "may run only `gamemaster lookup"),
    ('gamemaster lookup "x"; cat state/world.json', "without ` $ ;"),
    ('gamemaster lookup "$(cat state/memories/leo.jsonl)"', "without ` $ ;"),
    ("gamemaster lookup `id`", "without ` $ ;"),
    ('gamemaster lookup "Nordturm\ncat x"', "without ` $ ;"),
    ("gamemaster lookup 'unclosed", "does not parse"),
])
def test_every_other_command_of_a_character_is_refused_with_the_reason(workspace, cli, arrival, command, reason):
    assert reason in refused(run_hook(cli, lookup_call(workspace, command)))


def test_a_lookup_naming_another_character_is_still_the_callers_own(workspace, cli, arrival):
    import shlex

    answer = run_hook(cli, lookup_call(workspace, "gamemaster lookup leo Nordturm"))
    assert shlex.split(answer["hookSpecificOutput"]["updatedInput"]["command"])[-2:] == ["vera", "leo Nordturm"]
    answer = run_hook(cli, lookup_call(workspace, "gamemaster lookup vera Nordturm"))
    assert shlex.split(answer["hookSpecificOutput"]["updatedInput"]["command"])[-2:] == ["vera", "Nordturm"]


def test_the_game_masters_commands_pass_the_hook_untouched(workspace, cli, arrival):
    assert run_hook(cli, lookup_call(workspace, "gamemaster status", agent=None)) is None
    assert run_hook(cli, event(workspace, "Bash", {"command": "ls"}, "Explore")) is None


def test_the_game_masters_bash_calls_are_let_through_before_the_cli_loads(workspace, arrival):
    """The hook runs for every Bash call of the session; one the Game Master makes has nothing to
    decide and is answered before the CLI is imported (the launcher runs ``python -m gamemaster``)."""
    import subprocess
    import sys

    probe = ("import runpy, sys; sys.argv = ['gamemaster', 'hook', 'pre-tool-use']\n"
             "try:\n    runpy.run_module('gamemaster', run_name='__main__')\n"
             "finally:\n    print('CLI LOADED' if 'gamemaster.cli' in sys.modules else 'CLI NOT LOADED')")
    env = {**os.environ, "PYTHONPATH": os.path.join(os.path.dirname(__file__), "..")}

    def run(payload: dict) -> str:
        done = subprocess.run([sys.executable, "-c", probe], input=json.dumps(payload), capture_output=True, text=True,
                              cwd=workspace.root, env=env)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert run(lookup_call(workspace, "gamemaster status", agent=None)).strip() == "CLI NOT LOADED"
    out = run(lookup_call(workspace, "cat state/world.json"))
    assert out.rstrip().endswith("CLI LOADED") and '"permissionDecision": "deny"' in out
