"""The fake API's Game Master: a script that plays a scene (or a day) the way CLAUDE.md and the
slash commands tell a model to, from nothing but the conversation Claude Code sends.

Through Bash: ``gamemaster next --json``; in parallel scenes every character at once, in a MEETING
or ENCOUNTER turn by turn, each spawned with its turn's ``handoff`` (never the prompt: the
PreToolUse hook hands that over); then ``gamemaster apply``; for ``/day`` until the day is closed. Through the MCP tools (``game_master_mcp``) the same. Options
(set by ``run_inside.main``) make it misbehave the ways a real model may: ask for background
subagents, try to write into ``state/``, or meet a character whose reply is rejected twice.
"""

from __future__ import annotations

import json
import threading

SUBAGENT_TOOL_NAMES = ("Agent", "Task")
MCP_PREFIX = "mcp__gamemaster__"

#: The workspace (absolute, resolved); the probes write into it.
WORKSPACE: str = ""
#: The prompt asks for a whole day (`/day`, `/gamemaster:day`): go on until the day is closed.
WHOLE_DAY = False
#: Ask for every character in the background (``run_in_background: true``), schema or not.
BACKGROUND = False
#: Before the scene, try Write and Edit into ``state/`` (and, as a control, Write a note outside it).
PROBE_WRITES = False
#: Before the scene, run a general-purpose subagent (the SubagentStop hook must not start for it).
GENERAL_PURPOSE = False
#: What the general-purpose subagent is asked: the fake answers a request carrying it with "OK".
HELPER_TASK = "E2E-Hilfsaufgabe: Sag einfach OK."
#: Characters whose every reply is prose: the Game Master checks `status` after them.
STUBBORN: set[str] = set()
#: The Game Master's closing text was served: the run is over.
FINISHED = threading.Event()


# --- reading a request -----------------------------------------------------------------------

def _text_of(content) -> str:
    """All text in a message content (string or blocks), tool results included."""
    if isinstance(content, str):
        return content
    parts = []
    for block in content or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            parts.append(block.get("text", ""))
        elif block.get("type") == "tool_result":
            parts.append(_text_of(block.get("content")))
    return "\n".join(parts)


def _system_text(body: dict) -> str:
    return _text_of(body.get("system"))


def _tool_uses(messages: list[dict]) -> list[dict]:
    return [b for m in messages if m.get("role") == "assistant" and isinstance(m.get("content"), list)
            for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_use"]


def _tool_results(messages: list[dict]) -> dict[str, str]:
    out = {}
    for m in messages:
        if m.get("role") == "user" and isinstance(m.get("content"), list):
            for b in m["content"]:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    out[b.get("tool_use_id")] = _text_of(b.get("content"))
    return out


def _subagent_tool(body: dict) -> dict | None:
    for tool in body.get("tools") or []:
        if tool.get("name") in SUBAGENT_TOOL_NAMES:
            return tool
    return None


def _has_bash(body: dict) -> bool:
    return any(t.get("name") == "Bash" for t in body.get("tools") or [])



# --- the scripted Game Master ----------------------------------------------------

def _bash(command: str) -> dict:
    return {"type": "tool_use", "name": "Bash", "input": {"command": command, "description": command}}


def _json_in(text: str) -> dict | None:
    start = text.find("{")
    end = text.rfind("}")
    if start < 0 or end < start:
        return None
    try:
        return json.loads(text[start:end + 1])
    except ValueError:
        return None


def _scene_steps(uses: list[dict], results: dict[str, str]) -> list[list[dict]]:
    """The Game Master's tool calls grouped by scene: each group starts with a `gamemaster next`."""
    groups: list[list[dict]] = []
    for use in uses:
        if use.get("name") == "Bash" and use["input"].get("command", "").startswith("gamemaster next"):
            groups.append([])
        if groups:
            groups[-1].append(use)
    return groups


def _command(use: dict) -> str:
    return use["input"].get("command", "") if use.get("name") == "Bash" else ""


def _spawn(agent_tool: dict | None, participant: str, prompt: str) -> dict:
    """The subagent call for one character. It asks for the foreground where the tool offers the
    choice, or (``BACKGROUND``) for the background whatever the tool offers, as a model may."""
    props = (agent_tool or {}).get("input_schema", {}).get("properties", {})
    args = {"description": f"{participant} answers", "prompt": prompt,
            "subagent_type": "character-" + participant.replace("_", "-")}
    if BACKGROUND:
        args["run_in_background"] = True
    elif "run_in_background" in props:
        args["run_in_background"] = False
    return {"type": "tool_use", "name": agent_tool["name"] if agent_tool else "Agent", "input": args}


def _probes(uses: list[dict]) -> list[dict] | None:
    """The write probes, before the scene: Read a character file (Edit needs it read first),
    then Write a new file into ``state/``, Edit that character file, and Write a note at the
    workspace's top (allowed: shows the refusals come from the deny rules, not from the mode)."""
    names = [u.get("name") for u in uses]
    agent_file = f"{WORKSPACE}/state/agents/emre.json"
    if "Read" not in names:
        return [{"type": "tool_use", "name": "Read", "input": {"file_path": agent_file}}]
    if "Write" not in names:
        return [
            {"type": "tool_use", "name": "Write",
             "input": {"file_path": f"{WORKSPACE}/state/e2e-probe.json", "content": "{}\n"}},
            {"type": "tool_use", "name": "Edit",
             "input": {"file_path": agent_file, "old_string": '"id": "emre"', "new_string": '"id": "emre2"'}},
            {"type": "tool_use", "name": "Write",
             "input": {"file_path": f"{WORKSPACE}/e2e-probe.md", "content": "allowed\n"}},
        ]
    return None


def game_master(body: dict) -> list[dict]:
    """The next step of the scripted Game Master, from what the conversation already holds.

    A scene: `gamemaster next --json`; in parallel scenes every character at once, in a MEETING
    turn by turn, each with its handoff; then `gamemaster apply`. For `/day`
    (the prompt names the day) it goes on until `apply` reports the day closed.
    """
    messages = body.get("messages") or []
    uses = _tool_uses(messages)
    results = _tool_results(messages)
    agent_tool = _subagent_tool(body)
    scenes = _scene_steps(uses, results)
    if not scenes:
        if GENERAL_PURPOSE and not any(u.get("name") in SUBAGENT_TOOL_NAMES for u in uses):
            helper = _spawn(agent_tool, "helper", HELPER_TASK)
            helper["input"].update(subagent_type="general-purpose", description="a quick look")
            return [helper]
        probes = _probes(uses) if PROBE_WRITES else None
        return probes or [_bash("gamemaster next --json")]
    steps = scenes[-1]
    scene = _json_in(results.get(steps[0]["id"], "")) or {}
    participants = scene.get("participants") or []
    if not participants:
        return [{"type": "text", "text": "no scene: " + results.get(steps[0]["id"], "")[:500]}]
    applied = [u for u in steps if _command(u).startswith("gamemaster apply")]
    if applied:
        said = results.get(applied[-1]["id"], "")
        if WHOLE_DAY and "day closed" not in said:
            return [_bash("gamemaster next --json")]
        return [{"type": "text", "text": f"Die Szene {scene.get('ref')} ist geschrieben."}]
    spawned = [u for u in steps if u.get("name") in SUBAGENT_TOOL_NAMES]
    # `waiting` names the open turns as "03-vera" (a resumed scene may have some replies already);
    # `handoff` the short task each one's subagent is given (CLAUDE.md), never the prompt itself.
    labels = scene.get("waiting") or []
    handoff = scene.get("handoff") or {}
    waiting = [label.split("-", 1)[1] for label in labels]
    if scene.get("in_sequence"):
        if len(spawned) < len(labels):
            label = labels[len(spawned)]
            return [_spawn(agent_tool, label.split("-", 1)[1], handoff[label])]
        return [_bash("gamemaster apply")]
    if not spawned:
        return [_spawn(agent_tool, label.split("-", 1)[1], handoff[label]) for label in labels]
    if STUBBORN & set(waiting):
        # CLAUDE.md: a turn rejected twice (`pending.rejections` in `status --json`): ask the
        # Creative Director, leave the scene pending.
        checked = [u for u in steps if _command(u).startswith("gamemaster status")]
        if not checked:
            return [_bash("gamemaster status --json")]
        said = results.get(checked[-1]["id"], "")
        return [{"type": "text", "text": "Eine Antwort wurde zweimal abgelehnt; wie soll es weitergehen? "
                                         + said[:300]}]
    return [_bash("gamemaster apply")]


def _mcp(tool: str, **args) -> dict:
    return {"type": "tool_use", "name": MCP_PREFIX + tool, "input": args}


def _has_mcp(body: dict) -> bool:
    return any(t.get("name") == MCP_PREFIX + "next_scene" for t in body.get("tools") or [])


def game_master_mcp(body: dict) -> list[dict]:
    """The scripted Game Master through the MCP tools only (no Bash): next_scene, every character
    at once with its handoff (turn by turn in sequence), then apply; for a day until it is closed."""
    messages = body.get("messages") or []
    uses = _tool_uses(messages)
    results = _tool_results(messages)
    agent_tool = _subagent_tool(body)
    scenes: list[list[dict]] = []
    for use in uses:
        if use.get("name") == MCP_PREFIX + "next_scene":
            scenes.append([])
        if scenes:
            scenes[-1].append(use)
    if not scenes:
        offers_search = any(t.get("name") == "ToolSearch" for t in body.get("tools") or [])
        if not _has_mcp(body) and offers_search and not any(u.get("name") == "ToolSearch" for u in uses):
            # Newer Claude Code defers MCP tools: their schemas come through ToolSearch first.
            names = ",".join(MCP_PREFIX + t for t in ("next_scene", "prompt", "apply", "status"))
            return [{"type": "tool_use", "name": "ToolSearch", "input": {"query": f"select:{names}", "max_results": 5}}]
        if not _has_mcp(body) and not offers_search:
            return [{"type": "text", "text": "Die gamemaster-MCP-Tools fehlen in dieser Sitzung."}]
        return [_mcp("next_scene")]
    steps = scenes[-1]
    scene = _json_in(results.get(steps[0]["id"], "")) or {}
    if not scene.get("participants"):
        return [{"type": "text", "text": "no scene: " + results.get(steps[0]["id"], "")[:500]}]
    applied = [u for u in steps if u.get("name") == MCP_PREFIX + "apply"]
    if applied:
        said = results.get(applied[-1]["id"], "")
        if WHOLE_DAY and '"day_summary": null' in said.replace('"day_summary":null', '"day_summary": null'):
            return [_mcp("next_scene")]
        return [{"type": "text", "text": f"Die Szene {scene.get('ref')} ist geschrieben."}]
    spawned = [u for u in steps if u.get("name") in SUBAGENT_TOOL_NAMES]
    labels = scene.get("waiting") or []
    handoff = scene.get("handoff") or {}
    if scene.get("in_sequence"):
        if len(spawned) < len(labels):
            label = labels[len(spawned)]
            return [_spawn(agent_tool, label.split("-", 1)[1], handoff[label])]
        return [_mcp("apply")]
    if not spawned:
        return [_spawn(agent_tool, label.split("-", 1)[1], handoff[label]) for label in labels]
    return [_mcp("apply")]
