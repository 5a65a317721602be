"""End to end: `gamemaster day advance --backend claude-code` plays a day through the real
Claude Code CLI (from npm), against the loopback fake Messages API, in a private network
namespace (``backend_inside.py``; the same install cache and namespace as
``test_claude_code_e2e.py``).

It checks what a user cares about: the day is played to its end, every scene written back,
the characters' replies are in their memory streams, an invalid first answer was asked
again, each character saw its persona as the system prompt and the scene as its one
message with no tools but the reply's and its own memory's (which it used), and every call's tokens and Claude Code's dollars are recorded.
"""

from __future__ import annotations

import json
import re
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gamemaster.create import init_workspace
from test_claude_code_e2e import VERSIONS, _install, _tail, unshare  # noqa: F401 (unshare is a fixture)

pytest.importorskip("claude_agent_sdk", reason="the [claude-code] extra (claude-agent-sdk) is part of [test]")

HERE = Path(__file__).parent
REPO = HERE.parent.parent
INSIDE = HERE / "backend_inside.py"
MODEL = "claude-sonnet-4-5"
#: The character's own memory, as Claude Code names gamemaster's MCP tool.
RECALL = "mcp__memory__recall"

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not (os.environ.get("GAMEMASTER_E2E") == "1" or os.environ.get("CI")),
                       reason="end-to-end test with the real Claude Code CLI: set GAMEMASTER_E2E=1 to run it"),
]


def _studio(tmp_path: Path):
    workspace = init_workspace(tmp_path / "studio", empty=True)
    for agent in ("emre", "vera"):
        shutil.copy(REPO / "gamemaster" / "bundled" / "state" / "agents" / f"{agent}.json",
                    workspace.agents_dir / f"{agent}.json")
    return workspace


def _play_a_day(tmp_path: Path, unshare: list[str], claude: Path, workspace, plays: tuple[str, ...] = (),
                look_up: bool = False) -> dict:
    home = tmp_path / "home"
    home.mkdir()
    out = tmp_path / "result.json"
    timeout = 300
    try:
        subprocess.run([*unshare, sys.executable, str(INSIDE), "--claude", str(claude), "--workspace",
                        str(workspace.root), "--home", str(home), "--out", str(out), "--model", MODEL,
                        "--timeout", str(timeout), *[arg for play in plays for arg in ("--play", play)],
                        *(["--look-up"] if look_up else [])],
                       check=True, timeout=timeout + 60, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(REPO)})
    except subprocess.CalledProcessError as exc:
        pytest.fail(f"backend_inside.py failed: {_tail(exc.stdout)}\n{_tail(exc.stderr, 3000)}")
    result = json.loads(out.read_text(encoding="utf-8"))
    kinds = [r.get("kind") for r in result["requests"] if r.get("method") == "POST"]
    print(f"Claude Code {claude.parent.parent.parent.name}: exit {result['returncode']} after {result['seconds']} s, "
          f"{kinds.count('character')} character requests, {kinds.count('other')} other")
    assert not result.get("timeout"), _tail(result.get("stderr"), 3000)
    assert result["returncode"] == 0, f"{_tail(result['stdout'], 3000)}\n{_tail(result['stderr'], 3000)}"
    return result


def _gamemaster(workspace, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gamemaster", "--root", str(workspace.root), *args],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})


@pytest.mark.parametrize("version", VERSIONS)
def test_a_day_through_claude_code(tmp_path, unshare, version):  # noqa: F811
    claude = _install(version)
    workspace = _studio(tmp_path)
    result = _play_a_day(tmp_path, unshare, claude, workspace, look_up=True)

    # The day was played to its end and every scene written back.
    played = json.loads(result["stdout"])
    assert len(played["scenes"]) >= 4 and len(played["summaries"]) == 1, played
    world = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    assert world["pending"] is None
    assert (workspace.scenes / "day-001" / "summary.md").is_file()
    records = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(workspace.scenes.glob("day-001/scene-*/scene.json"))]
    assert [r["ref"] for r in records] == [s["scene"] for s in played["scenes"]]
    assert all(r["status"] == "applied" for r in records), [r["status"] for r in records]

    # What the characters answered is in their streams: each scene's note, and what was said aloud.
    for agent in ("emre", "vera"):
        stream = (workspace.memories_dir / f"{agent}.jsonl").read_text(encoding="utf-8")
        for scene in played["scenes"]:
            if agent in scene["participants"]:
                assert f"E2E-Notiz von {agent} zu {scene['scene']}" in stream, (agent, scene["scene"])
    first = played["scenes"][0]
    heard = (workspace.memories_dir / "vera.jsonl").read_text(encoding="utf-8")
    assert f"emre in {first['scene']}: Ich glaube, die Türme wachsen nur" in heard

    # Each character's first answer was prose: Claude Code reminded it of the reply's tool in the
    # same run, and it answered through the tool; no second `claude` process was needed for it.
    characters = [r for r in result["requests"] if r.get("kind") == "character"]
    runs = [r for r in characters if len(r["body"]["messages"]) == 1]  # a run's first request
    said = [run_inside_text(r["body"]["messages"][0]["content"]) for r in runs]
    assert not [text for text in said if "Deine letzte Antwort war ungültig" in text]
    for agent in ("emre", "vera"):
        reminded = [r for r in characters if f"Ich ({agent}) fange gleich an." in json.dumps(r["body"]["messages"],
                                                                                           ensure_ascii=False)]
        assert reminded and len(reminded[-1]["body"]["messages"]) >= 3, agent
    answered = [b for r in characters for b in r["answer"] if b["type"] == "tool_use"]
    assert answered and {b["name"] for b in answered} == {"StructuredOutput", RECALL}

    # Each character looked into its own memory once a scene, through the recall tool Claude Code
    # offered it (gamemaster's in-process MCP server): Claude Code called it and gave the model what
    # it answered, its own memories or „nothing new“.
    recalls = {b["id"]: r for r in characters for b in r["answer"] if b.get("name") == RECALL}
    assert len(recalls) == sum(len(s["participants"]) for s in played["scenes"]), len(recalls)
    results = {b["tool_use_id"]: run_inside_text(b.get("content")) for r in characters for m in r["body"]["messages"]
               if m["role"] == "user" and isinstance(m["content"], list)
               for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"
               and b.get("tool_use_id") in recalls}
    assert set(results) == set(recalls), (len(results), len(recalls))
    nothing = "Nichts gefunden, was nicht schon in deinem Prompt steht."
    for use, text in results.items():
        agent = "emre" if '"agent": "emre"' in run_inside_text(recalls[use]["body"]["messages"][0]["content"]) else "vera"
        text = text.split("<system-reminder>")[0].strip()  # what Claude Code adds to a tool's result
        lines = text.splitlines()
        assert text == nothing or (lines and all(line.startswith(f"- [{agent}-") for line in lines)), (agent, text)

    # What a character is shown: its persona as the system prompt, the scene as its first message,
    # no tools but the reply's own.
    for request in characters:
        body = request["body"]
        system = run_inside_text(body.get("system"))
        messages = body["messages"]
        scene_text = run_inside_text(messages[0]["content"])
        agent = "emre" if '"agent": "emre"' in scene_text else "vera"
        persona = {"emre": "Emre hat Ur- und Frühgeschichte studiert", "vera": "# Du bist Vera Kowalski"}[agent]
        assert persona in system, system[:2000]
        assert persona not in scene_text
        assert messages[0]["role"] == "user", messages
        assert "Antworte mit" in scene_text
        tools = {t.get("name") for t in body.get("tools") or []}
        assert {"StructuredOutput", RECALL} <= tools <= {"StructuredOutput", RECALL, "DeferredToolPlaceholder"}, tools
        assert body.get("thinking", {"type": "disabled"}).get("type") == "disabled", body["thinking"]
        assert body["model"] == MODEL
    # The claude that answered is the one on PATH (the npm install), not the one the SDK bundles.
    assert result["user_agents"] and all(f"claude-cli/{version}" in ua for ua in result["user_agents"]), \
        set(result["user_agents"])

    # Every call's tokens and Claude Code's own dollar figure are recorded with its scene.
    calls = [call for path in sorted(workspace.scenes.glob("day-001/scene-*/usage/*.json"))
             for call in json.loads(path.read_text(encoding="utf-8"))["calls"]]
    assert len(calls) == len(runs), (len(calls), len(runs))
    for call in calls:
        assert call["model"].startswith(MODEL) and call["input_tokens"] > 0 and call["output_tokens"] > 0, call
        assert isinstance(call.get("cost_usd"), float) and call["cost_usd"] > 0, call
    cost = _gamemaster(workspace, "cost", "--json")
    assert cost.returncode == 0, cost.stderr
    total = json.loads(cost.stdout)["total"]
    assert total["calls"] == len(calls)
    assert total["usd"] == pytest.approx(sum(c["cost_usd"] for c in calls))
    validate = _gamemaster(workspace, "validate")
    assert validate.returncode == 0, validate.stdout + validate.stderr


def run_inside_text(content) -> str:
    import run_inside

    return run_inside._text_of(content)


@pytest.mark.parametrize("status", [529, 429, 500])
def test_an_api_that_stays_down_is_one_line_within_about_a_minute(tmp_path, unshare, status):  # noqa: F811
    """Every Messages request fails with ``status``: the real Claude Code retries (bounded by the
    backend), the loop asks once more, and the day ends with one `error:` line naming a character,
    no traceback, the scene kept pending for a resume."""
    claude = _install(VERSIONS[-1])
    workspace = _studio(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    out = tmp_path / "result.json"
    subprocess.run([*unshare, sys.executable, str(INSIDE), "--claude", str(claude), "--workspace",
                    str(workspace.root), "--home", str(home), "--out", str(out), "--model", MODEL,
                    "--timeout", "400", "--fail-status", str(status)],
                   check=True, timeout=460, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    result = json.loads(out.read_text(encoding="utf-8"))
    print(f"HTTP {status}: exit {result['returncode']} after {result['seconds']} s: {result['stderr'][-400:]}")
    assert result["returncode"] == 1, result
    lines = [line for line in result["stderr"].splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1 and re.match(r"error: claude-code: (emre|vera): ", errors[0]), lines
    assert "Traceback" not in result["stderr"], result["stderr"]
    assert result["seconds"] < 120, result["seconds"]
    world = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    assert world["pending"] == "day-001/scene-01"


@pytest.mark.parametrize("version", VERSIONS)
def test_a_meeting_keeps_each_characters_claude_between_its_turns(tmp_path, unshare, version):  # noqa: F811
    """Three rounds of emre and vera: two `claude` processes, and every later turn in the
    conversation its first turn started, sending what changed."""
    claude = _install(version)
    workspace = _studio(tmp_path)
    assert _gamemaster(workspace, "config", "kinds.meeting.rounds", "3").returncode == 0
    result = _play_a_day(tmp_path, unshare, claude, workspace,
                         plays=("scene run --json", "scene run --type MEETING --with emre,vera --json"))
    meeting = result["plays"][-1]
    calls = [r for r in result["requests"][meeting["first_request"]:] if r.get("kind") == "character"]
    started = [r for r in calls if len(r["body"]["messages"]) == 1]
    assert len(started) == 2, [len(r["body"]["messages"]) for r in calls]
    continued = [r for r in calls if len(r["body"]["messages"]) > 1]
    assert len(continued) == 4
    for request in continued:
        last = request["body"]["messages"][-1]["content"]
        texts = [b.get("text", "") for b in last if isinstance(b, dict)] if isinstance(last, list) else [last]
        assert any(text.startswith("Dein Prompt für diesen Zug ist bis einschließlich der Zeile") for text in texts)
    record = json.loads((workspace.scenes / "day-001" / "scene-02" / "scene.json").read_text(encoding="utf-8"))
    assert record["status"] == "applied"
    for agent in ("emre", "vera"):
        stream = (workspace.memories_dir / f"{agent}.jsonl").read_text(encoding="utf-8")
        assert f"{agent} hat über die wachsenden Türme gesprochen." in stream  # its last turn's summary
