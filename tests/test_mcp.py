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
            assert names == ["apply", "next_scene", "prompt", "status", "submit_reply"]
            opened = payload(await client.call_tool("next_scene", {}))
            assert (opened["type"], opened["opened"]) == ("ARRIVAL", True)
            for turn, agent in enumerate(opened["turns"]):
                prompt = payload(await client.call_tool("prompt", {"agent": agent}))
                assert prompt.startswith(f"# Du bist {gm.agents()[agent].name}")
                reply = valid_reply(gm.build_request(gm.pending(), turn))
                stored = payload(await client.call_tool("submit_reply", {"agent": agent, "reply": json.dumps(reply)}))
                assert stored["stored"] is True
            status = payload(await client.call_tool("status", {}))
            assert status["pending"]["waiting"] == []
            applied = payload(await client.call_tool("apply", {}))
            assert applied["applied"] == "day-001/scene-01" and len(applied["written"]) == 14
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
