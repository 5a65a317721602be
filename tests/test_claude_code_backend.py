"""The claude-code backend through the real Agent SDK, against a fake ``claude`` (``fake_claude.py``).

What the character is shown (its persona as the system prompt, the scene as the one
message, no tools but its reply's and its own memory's, nothing of the workspace), that an invalid answer is asked
again with the error, that replies land in the streams and that tokens and Claude Code's
own dollar figure are recorded.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("claude_agent_sdk", reason="the [claude-code] extra (claude-agent-sdk) is part of [test]")

from gamemaster.backends import get_backend  # noqa: E402
from gamemaster.backends.base import split_prompt  # noqa: E402
from gamemaster.costs import cost_report  # noqa: E402
from gamemaster.create import init_workspace  # noqa: E402
from gamemaster.gm import GameMaster  # noqa: E402
from gamemaster.loop import run_scene  # noqa: E402

from replies import valid_reply  # noqa: E402

BUNDLED_AGENTS = Path(__file__).parent.parent / "gamemaster" / "bundled" / "state" / "agents"


@pytest.fixture
def studio(tmp_path):
    workspace = init_workspace(tmp_path / "two", empty=True)
    for agent in ("emre", "vera"):
        shutil.copy(BUNDLED_AGENTS / f"{agent}.json", workspace.agents_dir / f"{agent}.json")
    return workspace


def _queue(fake: Path, agent: str, *answers) -> None:
    texts = [a if isinstance(a, str) else json.dumps(a, ensure_ascii=False) for a in answers]
    (fake / "replies" / f"{agent}.json").write_text(json.dumps(texts, ensure_ascii=False), encoding="utf-8")


def _call(fake: Path, agent: str, n: int) -> dict:
    return json.loads((fake / "calls" / f"{agent}-{n}.json").read_text(encoding="utf-8"))


def _option(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def _prepare(gm: GameMaster, fake: Path) -> dict:
    """Open the next scene and queue a valid reply per character: emre answers prose first."""
    pending, _ = gm.open_next()
    requests = {pending.turns[t]: gm.build_request(pending, t) for t in pending.missing()}
    replies = {agent: valid_reply(request) for agent, request in requests.items()}
    replies["emre"]["says"] = "Ich habe heute früh einen Knochen am Fluss gefunden."
    _queue(fake, "emre", "Guten Morgen! Ich fange gleich an.", replies["emre"])
    _queue(fake, "vera", replies["vera"])
    return requests


def test_each_character_sees_its_persona_and_the_scene_and_nothing_else(studio, fake):
    gm = GameMaster(studio)
    requests = _prepare(gm, fake)
    backend = get_backend("claude-code")
    outcome = run_scene(gm, backend)
    assert outcome.spec.type == "ARRIVAL"

    request = requests["emre"]
    segments, turn = split_prompt(request)
    call = _call(fake, "emre", 0)
    argv = call["argv"]
    # The persona and the reply contract are the system prompt, in place of Claude Code's own, in a
    # file: on the command line a long one would keep `claude` from starting ("Argument list too long").
    assert "--system-prompt" not in argv and _option(argv, "--system-prompt-file")
    assert call["system"] == "".join(segments) == (request.shared_prompt + request.stable_prompt
                                                   + request.day_prompt + request.memory_prompt)
    assert "Emre hat Ur- und Frühgeschichte studiert" in call["system"]
    assert not Path(_option(argv, "--system-prompt-file")).exists()  # removed after the call
    # Claude Code's own retries are bounded, so an API that stays overloaded is one line soon.
    assert call["env"]["CLAUDE_CODE_MAX_RETRIES"] == "2"
    assert "--include-partial-messages" in argv
    # The scene is the one message; the persona is not sent twice.
    assert call["messages"] == [turn]
    assert 'Antworte mit `"agent": "emre"` und `"scene": "day-001/scene-01"`' in turn
    assert "Emre hat Ur- und Frühgeschichte" not in turn
    # No tools but the reply's own, as the API backend's output format: Claude Code offers the model
    # a tool of the kind's reply schema (the kind's own fields in it) and checks what it is given.
    from gamemaster.backends.schema import reply_output_schema

    assert json.loads(_option(argv, "--json-schema")) == reply_output_schema(request.spec.kind.reply_model)
    assert "plan" in json.loads(_option(argv, "--json-schema"))["properties"]
    # Three turns: the answer, Claude Code's reminder where the model wrote text instead, the end;
    # and one more per lookup in its own memory (``recall``, the one tool it may call,
    # tests/test_claude_code_lookup.py). No built-in tools, settings, other MCP servers, skills or
    # saved session, a folder of its own.
    assert _option(argv, "--tools") == ""
    assert _option(argv, "--max-turns") == "6"
    assert _option(argv, "--thinking") == "disabled"
    assert "--setting-sources=" in argv and "--strict-mcp-config" in argv and "--no-session-persistence" in argv
    assert _option(argv, "--allowedTools") == "mcp__memory__recall"
    assert list(json.loads(_option(argv, "--mcp-config"))["mcpServers"]) == ["memory"]
    assert Path(call["cwd"]).resolve() != studio.root.resolve()
    assert not list(Path(call["cwd"]).iterdir())


def test_an_invalid_answer_is_asked_again_and_the_replies_land_in_the_streams(studio, fake):
    gm = GameMaster(studio)
    _prepare(gm, fake)
    run_scene(gm, get_backend("claude-code"))

    again = _call(fake, "emre", 1)["messages"][0]
    assert "reply: " in again and "Guten Morgen" not in again  # the validation error, not the old answer
    assert not (fake / "calls" / "vera-1.json").exists()
    stream = (studio.memories_dir / "emre.jsonl").read_text(encoding="utf-8")
    assert "Ich habe heute früh einen Knochen am Fluss gefunden." in stream  # what vera heard emre say
    assert "Notiz von emre in day-001/scene-01" in stream
    heard = (studio.memories_dir / "vera.jsonl").read_text(encoding="utf-8")
    assert "Ich habe heute früh einen Knochen am Fluss gefunden." in heard


def test_tokens_and_claude_codes_dollars_are_recorded_with_the_scene(studio, fake):
    gm = GameMaster(studio)
    _prepare(gm, fake)
    run_scene(gm, get_backend("claude-code"))

    usage = json.loads((studio.scenes / "day-001" / "scene-01" / "usage" / "01-emre.json").read_text(encoding="utf-8"))
    assert usage["calls"] == [
        {"model": "claude-sonnet-4-5-20250929", "batch": False, "cost_usd": 0.0125, "input_tokens": 1000,
         "output_tokens": 200, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 300},
    ] * 2  # the invalid answer cost as much as the valid one
    report = cost_report(studio)
    assert report["total"]["calls"] == 3
    assert report["total"]["usd"] == pytest.approx(3 * 0.0125)
    assert report["agents"]["emre"]["input_tokens"] == 2000
    assert report["unpriced"] == []


def test_model_and_concurrency_from_the_command_line(studio, fake, cli):
    gm = GameMaster(studio)
    _prepare(gm, fake)
    result = cli("scene", "run", "--backend", "claude-code", "--model", "opus", "--concurrency", "1", "--json",
                 root=studio.root)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["scene"] == "day-001/scene-01"
    assert _option(_call(fake, "vera", 0)["argv"], "--model") == "opus"
    usage = json.loads((studio.scenes / "day-001" / "scene-01" / "usage" / "02-vera.json").read_text(encoding="utf-8"))
    assert usage["calls"][0]["model"] == "opus"  # the model Claude Code reported


def test_the_model_of_the_agent_or_world_goes_to_claude_code(studio, fake):
    world = json.loads(studio.world_path.read_text(encoding="utf-8"))
    world["model"] = "haiku"
    studio.world_path.write_text(json.dumps(world), encoding="utf-8")
    gm = GameMaster(studio)
    _prepare(gm, fake)
    run_scene(gm, get_backend("claude-code"))
    assert _option(_call(fake, "vera", 0)["argv"], "--model") == "haiku"


def test_a_prompt_that_starts_like_a_command_is_sent_verbatim(fake):
    """A ``/`` or ``@`` at the start of a message is text for the character, never a slash command."""
    from gamemaster.backends.claude_code import ClaudeCodeBackend

    backend = ClaudeCodeBackend()
    _queue(fake, "x", "ok")
    answer = backend.ask("Du spielst X.", '/day @state/world.json "agent": "x"', None, "x")
    assert answer.text == "ok"
    call = _call(fake, "x", 0)
    assert call["messages"] == ['/day @state/world.json "agent": "x"']
    assert call["composed"] == [True]


def test_no_claude_anywhere_is_one_line_saying_how_to_install_it(tmp_path, monkeypatch, cli):
    from gamemaster.backends import claude_cli

    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("GAMEMASTER_CLAUDE_CLI", raising=False)
    monkeypatch.setattr(claude_cli, "bundled_cli", lambda: None)
    result = cli("day", "advance", "--backend", "claude-code")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "error: backend claude-code: Claude Code is not installed (no `claude` on PATH): install it with "
        "`npm install -g @anthropic-ai/claude-code` and log in by running `claude`"
    ]


def test_the_budget_stops_before_a_scene_claude_code_would_take_past_it(studio, fake, cli):
    gm = GameMaster(studio)
    _prepare(gm, fake)
    run_scene(gm, get_backend("claude-code"))  # 3 calls at $0.0125, as Claude Code reported them
    asked = sorted(p.name for p in (fake / "calls").iterdir())
    result = cli("day", "advance", "--backend", "claude-code", "--budget", "0.04", root=studio.root)
    assert result.exit_code == 1
    assert "error: budget $0.04: spent $0.04, the next scene (day-001/scene-02 " in result.output
    assert sorted(p.name for p in (fake / "calls").iterdir()) == asked  # nobody asked


def test_the_run_says_which_claude_code_plays_and_on_what_login(studio, fake, cli):
    gm = GameMaster(studio)
    _prepare(gm, fake)
    result = cli("scene", "run", "--backend", "claude-code", root=studio.root)
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert f"claude-code backend: characters are played by Claude Code ({fake.parent / 'bin' / 'claude'}) with the " \
           "model each agent or the world names, else Claude Code's default (priced as opus until its first answer " \
           "says which), on your Claude login: calls count against your plan's usage" in said
    assert "API cost so far: $0.04 over 3 calls" in said
    # No model asked for: the first answer names the one Claude Code plays, once.
    assert said.count("note: Claude Code plays claude-sonnet-4-5-20250929 (its default: no model named for") == 1


def test_an_interview_through_claude_code(studio, fake, cli):
    _queue(fake, "unknown", "Die Türme wachsen nachts, das habe ich selbst gesehen.")
    result = cli("ask", "vera", "Was weißt du über die Türme?", "--backend", "claude-code", root=studio.root)
    assert result.exit_code == 0, result.output
    assert "Die Türme wachsen nachts, das habe ich selbst gesehen." in result.output
    call = _call(fake, "unknown", 0)
    assert "Was weißt du über die Türme?" in call["messages"][0]
    assert _option(call["argv"], "--tools") == ""


def test_a_call_claude_code_reports_as_free_is_priced_from_the_table(studio, fake):
    """Claude Code reports $0 for a model it has no price for; the tokens still cost money."""
    (fake / "mode").write_text("unpriced", encoding="utf-8")
    gm = GameMaster(studio)
    _prepare(gm, fake)
    run_scene(gm, get_backend("claude-code"))
    usage = json.loads((studio.scenes / "day-001" / "scene-01" / "usage" / "02-vera.json").read_text(encoding="utf-8"))
    assert "cost_usd" not in usage["calls"][0]
    # 1,000 input, 200 output, 300 cache-read tokens of Sonnet at list prices
    assert cost_report(studio)["agents"]["vera"]["usd"] == pytest.approx((1000 * 3 + 200 * 15 + 300 * 0.3) / 1e6)


def test_an_unset_model_is_priced_as_the_dearest_until_claude_code_names_the_one_it_plays(studio, fake):
    """With no model asked for, Claude Code plays its own default (Opus on some plans): the budget
    prices Opus until the first answer names the model, then that one."""
    from gamemaster.backends.claude_code import ClaudeCodeBackend

    gm = GameMaster(studio)
    requests = _prepare(gm, fake)
    backend = ClaudeCodeBackend()
    assert backend.model_for(requests["vera"]) == "opus"
    run_scene(gm, backend)
    assert backend.model_for(requests["vera"]) == "claude-sonnet-4-5-20250929"  # what the fake played
    assert "--model" not in _call(fake, "vera", 0)["argv"]  # nothing was forced on Claude Code
    assert ClaudeCodeBackend(model="haiku").model_for(requests["vera"]) == "haiku"


def test_a_system_prompt_too_long_for_a_command_line_still_reaches_claude(fake):
    from gamemaster.backends.claude_code import ClaudeCodeBackend

    _queue(fake, "x", "ok")
    system = "Du spielst X. " * 20_000  # 280,000 characters: more than one argument may hold
    assert ClaudeCodeBackend().ask(system, '"agent": "x"', None, "x").text == "ok"
    assert _call(fake, "x", 0)["system"] == system


def test_no_login_is_said_before_the_sdk_is_imported(fake, tmp_path):
    """The Claude Agent SDK takes over a second to import: a run Claude Code cannot play says so at once."""
    import os
    import subprocess
    import sys

    (fake / "login").write_text("none", encoding="utf-8")
    code = (
        "import sys\n"
        "from gamemaster.backends import get_backend\n"
        "try:\n"
        "    get_backend('claude-code')\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, exc)\n"
        "print('claude_agent_sdk' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ), cwd=tmp_path)
    said, imported = done.stdout.splitlines()
    assert said.startswith("ClaudeCodeError backend claude-code: Claude Code (") and "is not logged in" in said
    assert imported == "False"


def test_a_login_that_expires_mid_run_is_one_line_and_the_scene_stays_pending(studio, fake, cli):
    gm = GameMaster(studio)
    _prepare(gm, fake)
    (fake / "login").write_text("expired", encoding="utf-8")  # `auth status` still says logged in
    result = cli("scene", "run", "--backend", "claude-code")
    assert result.exit_code == 1
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in result.output
    assert errors[0].startswith("error: backend claude-code: Claude Code (") and "is not logged in" in errors[0]
    assert GameMaster(studio).pending() is not None
