"""The MCP server, called in-process through the SDK's own client, runs a scene end to end."""

from __future__ import annotations

import json

import anyio
from mcp import Client

from replies import valid_reply
from gamemaster.gm import GameMaster
from gamemaster.mcp_server import build_server


def payload(result):
    assert not result.is_error, result.content[0].text
    text = result.content[0].text
    return json.loads(text) if text.startswith(("{", "[")) else text


def test_mcp_tools_run_a_scene_end_to_end(workspace):
    gm = GameMaster(workspace)

    async def play():
        async with Client(build_server(workspace)) as client:
            names = sorted(t.name for t in (await client.list_tools()).tools)
            assert names == ["apply", "ask", "next_scene", "prompt", "recall", "report", "status", "submit_reply", "who_knows"]
            opened = payload(await client.call_tool("next_scene", {}))
            assert (opened["type"], opened["opened"]) == ("ARRIVAL", True)
            for turn, agent in enumerate(opened["turns"]):
                prompt = payload(await client.call_tool("prompt", {"agent": agent}))
                assert prompt.startswith("# Studio ") and f"\n# Du bist {gm.agents()[agent].name}" in prompt
                reply = valid_reply(gm.build_request(gm.pending(), turn))
                stored = payload(await client.call_tool("submit_reply", {"agent": agent, "reply": json.dumps(reply)}))
                assert stored["stored"] is True
            status = payload(await client.call_tool("status", {}))
            assert status["pending"]["waiting"] == []
            applied = payload(await client.call_tool("apply", {}))
            assert applied["applied"] == "day-001/scene-01" and len(applied["written"]) == 21
            forced = payload(await client.call_tool(
                "next_scene", {"type": "MEETING", "participants": ["vera", "emre"], "topic": "Türme"}))
            assert (forced["type"], forced["participants"], forced["topic"]) == ("MEETING", ["vera", "emre"], "Türme")

    anyio.run(play)
    assert gm.world().scene == 1 and gm.agents()["vera"].today_plan is not None


def test_mcp_tools_report_bad_arguments_and_invalid_replies(workspace):
    async def play():
        async with Client(build_server(workspace)) as client:
            await client.call_tool("next_scene", {})
            bad_id = await client.call_tool("prompt", {"agent": "Vera!"})
            assert bad_id.is_error and "pattern" in bad_id.content[0].text
            invalid = await client.call_tool("submit_reply", {"agent": "vera", "reply": "{\"agent\": \"vera\"}"})
            assert invalid.is_error and "vera: scene: Field required" in invalid.content[0].text
            early = await client.call_tool("apply", {})
            assert early.is_error and "still waits for replies" in early.content[0].text

    anyio.run(play)
    assert GameMaster(workspace).pending().replies == {}


def test_a_meeting_through_mcp_goes_turn_by_turn(workspace):
    gm = GameMaster(workspace)

    async def play():
        async with Client(build_server(workspace)) as client:
            opened = payload(await client.call_tool("next_scene", {}))
            for turn, agent in enumerate(opened["turns"]):
                reply = valid_reply(gm.build_request(gm.pending(), turn))
                payload(await client.call_tool("submit_reply", {"agent": agent, "reply": json.dumps(reply)}))
            payload(await client.call_tool("apply", {}))
            meeting = payload(await client.call_tool(
                "next_scene", {"type": "MEETING", "participants": ["vera", "emre"], "topic": "Türme"}))
            said = []
            for turn, speaker in enumerate(meeting["turns"]):
                out_of_turn = await client.call_tool("prompt", {"agent": "emre" if speaker == "vera" else "vera"})
                assert out_of_turn.is_error and f"it is {speaker}'s turn" in out_of_turn.content[0].text
                prompt = payload(await client.call_tool("prompt", {"agent": speaker}))
                assert all(line in prompt for line in said)  # every earlier turn is in the transcript
                reply = valid_reply(gm.build_request(gm.pending(), turn))
                reply["says"] = f"Beitrag {turn + 1} von {speaker}"
                said.append(reply["says"])
                payload(await client.call_tool("submit_reply", {"agent": speaker, "reply": json.dumps(reply)}))
            applied = payload(await client.call_tool("apply", {}))
            assert applied["applied"] == "day-001/scene-02"

    anyio.run(play)
    vera = [json.loads(l) for l in (workspace.memories_dir / "vera.jsonl").read_text(encoding="utf-8").splitlines()]
    talk = [m for m in vera if m["type"] == "conversation"][-1]
    assert [t["says"] for t in talk["metadata"]["transcript"]] == [
        "Beitrag 1 von vera", "Beitrag 2 von emre", "Beitrag 3 von vera", "Beitrag 4 von emre"]


def test_recall_and_an_interview_through_mcp(workspace):
    async def play():
        async with Client(build_server(workspace)) as client:
            recalled = payload(await client.call_tool("recall", {"agent": "vera", "query": "Knochentürme", "budget": 3000}))
            assert recalled["chars"] <= 3000
            hits = [m["id"] for m in recalled["memories"] if "knochentürme" in m["matched"]]
            assert "vera-002" in hits
            asked = payload(await client.call_tool("ask", {"agent": "vera", "question": "Knochentürme?"}))
            assert "Der Creative Director fragt dich: „Knochentürme?“" in asked["prompt"]
            answer = json.dumps({"answer": "Sie wachsen wie Knochen.", "memories": ["vera-002"]})
            taken = payload(await client.call_tool(
                "ask", {"agent": "vera", "question": "Knochentürme?", "answer": answer, "remember": True}))
            assert taken["memories"] == ["vera-002"] and taken["remembered"] == "vera-009"

    anyio.run(play)
    last = json.loads((workspace.memories_dir / "vera.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    assert last["id"] == "vera-009" and last["metadata"]["answer"] == "Sie wachsen wie Knochen."


def test_the_report_tool_builds_the_site_and_returns_its_path(workspace, cli):
    assert cli("day", "advance").exit_code == 0

    async def build():
        async with Client(build_server(workspace)) as client:
            return payload(await client.call_tool("report", {}))

    built = anyio.run(build)
    assert built["path"] == str(workspace.root / "report" / "index.html") and built["written"] > 10
    assert "days/day-001.html" in (workspace.root / "report/manifest.json").read_text(encoding="utf-8")
    assert anyio.run(build)["written"] == 0


def test_apply_after_the_hook_wrote_the_scene_back_answers_as_the_cli_does(workspace, cli):
    """MCP mode: the SubagentStop hook stores the last reply and writes the scene back; the Game
    Master's own `apply` then must not be a tool error but say what `gamemaster apply` says."""
    gm = GameMaster(workspace)
    pending, _ = gm.open_next()
    for turn in range(len(pending.turns)):
        gm.store_reply(pending, turn, json.dumps(valid_reply(gm.build_request(pending, turn))))
    gm.apply(pending)  # what the hook does with the last reply
    cli_said = json.loads(cli("apply", "--json").output)

    async def play():
        async with Client(build_server(workspace)) as client:
            return payload(await client.call_tool("apply", {}))

    said = anyio.run(play)
    assert said == cli_said
    assert said["already_applied"] == "day-001/scene-01" and said["applied"] is False
    assert len(said["written"]) == 21


def test_outside_a_workspace_the_server_starts_and_each_tool_says_so(tmp_path):
    """The plugin at user scope starts its MCP server in every project: it must start there and
    answer in its tools, not exit."""
    from gamemaster.workspace import Workspace

    async def play():
        async with Client(build_server(Workspace(tmp_path))) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert "next_scene" in names
            return await client.call_tool("status", {}), await client.call_tool("next_scene", {})

    for result in anyio.run(play):
        assert result.is_error
        assert f"{tmp_path} is not a gamemaster workspace (no state/world.json)" in result.content[0].text
    assert not (tmp_path / "state").exists()
