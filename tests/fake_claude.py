"""A stand-in for the ``claude`` CLI that speaks the Agent SDK's stream-json protocol.

The real SDK starts it as it would start Claude Code (``--output-format stream-json
--input-format stream-json ...``), so a test sees exactly what the SDK sends: the
command line (system prompt, tools, turns, model) and the user message. Everything
comes from ``$FAKE_CLAUDE_DIR``:

* ``replies/<agent>.json``: a list of answers (strings) for that character, one per call
  in order; a call past the end answers the last one again; an answer may be
  ``{"lookups": [query, …], "reply": answer}``: the model first calls the ``recall`` tool of the
  SDK's in-process MCP server once per query, as Claude Code does over its control channel
  (``initialize``, ``tools/list``, then ``tools/call``), and what each call returned is written to
  the call's file under ``looked_up`` (``tools``: the names the server listed);
* ``login``: ``none`` — ``auth status`` says not logged in; ``expired`` — ``auth status``
  says logged in, but every call fails to authenticate as the real CLI does;
* ``mode``: ``unpriced`` — reports $0, as Claude Code does for a model it has no price for;
  ``hang`` — never answers (and leaves a helper holding its pipes for 15 s); ``crash`` — writes two lines to stderr and exits 3;
  ``silent`` — never answers the SDK's initialize; ``noise`` — prints lines that are not the protocol, then
  nothing; ``flood`` — streams JSON messages without end; ``hugeline`` — one 3 MB line; ``overloaded`` —
  the error result Claude Code gives when the API stays overloaded (529) through its retries;
  ``once`` — ends after its first answer (a ``claude`` kept for a next turn that is gone by then);
  ``play`` — a character with no queued answers answers every scene validly from its prompt;
* with ``--json-schema`` (the reply's schema) a JSON answer comes back as Claude Code gives it, through
  its ``StructuredOutput`` tool as ``structured_output``; a prose answer ends the run as Claude Code
  does when the model never uses the tool (``error_max_turns``, the prose in the transcript);
* ``calls/<agent>-<n>.json``: written here, one per call: ``argv``, the ``system`` prompt (from
  ``--system-prompt-file`` or ``--system-prompt``), ``env`` (the variables it got that name Claude Code), the user ``messages``
  (all this process was sent, and whether each was ``composed`` by the client, to be taken
  verbatim), the ``agent`` it answered (a message naming none: the one before), the ``pid``
  and the ``cwd`` it ran in.

Usage and cost are reported in every result: 1000 input, 200 output, 300 cache-read
tokens and $0.0125 (the cost as a running total of the process, as Claude Code reports it when
one ``claude`` answers several messages), on model ``claude-sonnet-4-5-20250929`` unless ``--model`` names one.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

AGENT = re.compile(r'"agent": "([^"]+)"')
DIR = Path(os.environ.get("FAKE_CLAUDE_DIR", "."))
VERSION = "2.1.999"


USAGE = {"input_tokens": 1000, "output_tokens": 200, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 300,
         "server_tool_use": {"web_search_requests": 0}}


def model_usage(model: str) -> dict:
    return {model: {"inputTokens": 1000, "outputTokens": 200, "cacheReadInputTokens": 300,
                    "cacheCreationInputTokens": 0, "costUSD": 0.0125}}


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def login() -> str:
    path = DIR / "login"
    return path.read_text(encoding="utf-8").strip() if path.exists() else "ok"


def claim(agent: str) -> int:
    """The number of this agent's call (0, 1, …), claimed atomically: calls run in parallel."""
    calls = DIR / "calls"
    calls.mkdir(exist_ok=True)
    n = 0
    while True:
        try:
            os.close(os.open(calls / f"{agent}-{n}", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            return n
        except FileExistsError:
            n += 1


def mcp(server: str, message: dict, stdin) -> dict:
    """One JSON-RPC message to the SDK's in-process MCP server ``server``, and its answer."""
    request_id = f"mcp-{time.monotonic_ns()}"
    send({"type": "control_request", "request_id": request_id,
          "request": {"subtype": "mcp_message", "server_name": server, "message": message}})
    for line in stdin:
        data = json.loads(line) if line.strip() else {}
        if data.get("type") == "control_response" and data["response"].get("request_id") == request_id:
            return data["response"].get("response", {}).get("mcp_response", {})
    raise SystemExit("stdin closed while waiting for the MCP server")


def look_up(argv: list[str], queries: list[str], stdin) -> list[dict]:
    """The model's ``recall`` calls: what the SDK's MCP server in ``--mcp-config`` answered each."""
    config = json.loads(option(argv, "--mcp-config") or "{}").get("mcpServers", {})
    servers = [name for name, server in config.items() if server.get("type") == "sdk"]
    if not servers:
        return [{"query": q, "error": "no SDK MCP server"} for q in queries]
    server = servers[0]
    mcp(server, {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                 "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                            "clientInfo": {"name": "claude-code", "version": VERSION}}}, stdin)
    mcp(server, {"jsonrpc": "2.0", "method": "notifications/initialized"}, stdin)
    listed = mcp(server, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, stdin)
    tools = [f"mcp__{server}__{t['name']}" for t in listed.get("result", {}).get("tools", [])]
    allowed = (option(argv, "--allowedTools") or "").split(",")
    done = []
    for n, query in enumerate(queries, start=2):
        if not [t for t in tools if t in allowed]:
            done.append({"query": query, "tools": tools, "error": "not allowed"})
            continue
        called = mcp(server, {"jsonrpc": "2.0", "id": n, "method": "tools/call",
                              "params": {"name": tools[0].rsplit("__", 1)[1], "arguments": {"query": query}}}, stdin)
        result = called.get("result", {})
        done.append({"query": query, "tools": tools, "is_error": bool(result.get("isError")),
                     "text": "\n".join(c.get("text", "") for c in result.get("content", []))})
    return done


def answer_for(agent: str, n: int, seen: str) -> str | dict:
    """The queued answer, else (``mode`` ``play``) the valid reply a character writes from the
    prompt text alone (``e2e/fake_character.py``), else a shrug."""
    path = DIR / "replies" / f"{agent}.json"
    if path.exists() and n >= 0:
        replies = json.loads(path.read_text(encoding="utf-8"))
        return replies[min(n, len(replies) - 1)]
    if mode_of() == "play" or n < 0:
        sys.path.insert(0, str(Path(__file__).parent / "e2e"))
        from fake_character import reply_for

        reply = reply_for(seen)
        if reply is not None:
            return json.dumps(reply, ensure_ascii=False)
    return "Ich weiß nicht, was ich sagen soll."


def mode_of() -> str:
    return (DIR / "mode").read_text(encoding="utf-8").strip() if (DIR / "mode").exists() else ""


def text_of(content) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(block.get("text", "") for block in content or [] if isinstance(block, dict))


def option(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv and argv.index(name) + 1 < len(argv) else None


def main(argv: list[str]) -> int:
    if argv[:2] == ["auth", "status"]:
        logged_in = login() != "none"
        print(json.dumps({"loggedIn": logged_in, "authMethod": "claude.ai" if logged_in else "none"}))
        return 0 if logged_in else 1
    if argv and argv[0] in ("-v", "--version"):
        print(f"{VERSION} (Claude Code)")
        return 0
    model = option(argv, "--model") or "claude-sonnet-4-5-20250929"
    mode = mode_of()
    if mode == "noise":
        for n in range(50):
            print(f"Warning: something unexpected happened ({n})", flush=True)
    if mode in ("silent", "noise"):
        time.sleep(3600)
    messages: list[str] = []
    composed: list[bool] = []
    failed = False
    last_agent = None
    answered = 0
    for line in sys.stdin:
        if not line.strip():
            continue
        data = json.loads(line)
        if data.get("type") == "control_request":
            send({"type": "control_response", "response": {"subtype": "success", "request_id": data["request_id"],
                                                           "response": {"commands": [], "models": []}}})
            continue
        if data.get("type") != "user":
            continue
        text = text_of(data["message"]["content"])
        messages.append(text)
        composed.append(data.get("client_composed") is True)  # sent verbatim: no slash commands, no @files
        send({"type": "system", "subtype": "init", "claude_code_version": VERSION, "session_id": "fake",
              "tools": [], "model": model, "cwd": os.getcwd()})
        if mode == "flood":
            event = {"type": "stream_event", "uuid": "u", "session_id": "fake", "parent_tool_use_id": None,
                     "event": {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "."}}}
            line = json.dumps(event) + "\n"
            while True:
                sys.stdout.write(line * 1000)
        if mode == "hugeline":
            send({"type": "assistant", "message": {"content": [{"type": "text", "text": "x" * 3_000_000}], "model": model},
                  "parent_tool_use_id": None, "session_id": "fake"})
            time.sleep(3600)
        if mode == "overloaded":
            said = ('API Error: Repeated 529 Overloaded errors · {"type":"error","error":{"type":"overloaded_error",'
                    '"message":"Overloaded"}}')
            send({"type": "result", "subtype": "success", "duration_ms": 5, "duration_api_ms": 0, "is_error": True,
                  "num_turns": 1, "session_id": "fake", "result": said, "total_cost_usd": 0,
                  "usage": {"input_tokens": 0, "output_tokens": 0}})
            return 1
        if mode == "hang":
            # A helper process of its own keeps the pipes open after this one is ended, as a
            # child of the real CLI can: the SDK then lets go of pipes it never closed.
            subprocess.Popen(["sleep", "15"])
            time.sleep(3600)
        if mode == "crash":
            sys.stderr.write("TypeError: cannot read properties of undefined\n    at main (cli.js:1:1)\n")
            return 3
        found = AGENT.search(text)
        # A next turn in the same process may send only what changed: the character stays the same.
        agent = found.group(1) if found else (last_agent or "unknown")
        last_agent = agent
        n = claim(agent)
        calls = DIR / "calls"
        system_file = option(argv, "--system-prompt-file")
        system = Path(system_file).read_text(encoding="utf-8") if system_file else option(argv, "--system-prompt")
        env = {k: v for k, v in os.environ.items() if k.startswith("CLAUDE_CODE_")}
        (calls / f"{agent}-{n}.json").write_text(json.dumps({"argv": argv, "messages": messages, "agent": agent, "pid": os.getpid(),
                                                             "system": system, "env": env,
                                                             "composed": composed, "cwd": os.getcwd()}, ensure_ascii=False), encoding="utf-8")
        if login() == "expired":
            failed = True
            said = "Not logged in · Please run /login"
            send({"type": "assistant", "message": {"content": [{"type": "text", "text": said}], "model": "<synthetic>"},
                  "parent_tool_use_id": None, "session_id": "fake", "error": "authentication_failed"})
            send({"type": "result", "subtype": "success", "duration_ms": 5, "duration_api_ms": 0, "is_error": True,
                  "num_turns": 1, "session_id": "fake", "result": said, "total_cost_usd": 0,
                  "usage": {"input_tokens": 0, "output_tokens": 0}})
            continue
        seen_text = "\n".join([system or "", *messages])
        reply = answer_for(agent, n, seen_text)
        if isinstance(reply, dict):
            looked_up = look_up(argv, reply.get("lookups", []), sys.stdin)
            record = json.loads((calls / f"{agent}-{n}.json").read_text(encoding="utf-8"))
            (calls / f"{agent}-{n}.json").write_text(json.dumps({**record, "looked_up": looked_up}, ensure_ascii=False),
                                                     encoding="utf-8")
            # No reply given: the character answers from its prompt (as in ``play``).
            reply = reply["reply"] if reply.get("reply") is not None else answer_for("", -1, seen_text)
        structured = None
        if option(argv, "--json-schema") is not None:
            # As Claude Code does with a schema: the model answers through the StructuredOutput tool;
            # one that writes prose instead is reminded, and gives up after the turns it has.
            try:
                structured = json.loads(reply)
            except ValueError:
                structured = None
            if not isinstance(structured, dict):
                answered += 1
                send({"type": "assistant", "message": {"content": [{"type": "text", "text": reply}], "model": model},
                      "parent_tool_use_id": None, "session_id": "fake"})
                send({"type": "result", "subtype": "error_max_turns", "duration_ms": 5, "duration_api_ms": 4,
                      "is_error": True, "num_turns": 3, "session_id": "fake", "total_cost_usd": round(0.0125 * answered, 6),
                      "errors": ["Reached maximum number of turns (3)"], "usage": USAGE, "modelUsage": model_usage(model)})
                continue
            send({"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "toolu_1", "name": "StructuredOutput",
                                                                "input": structured}], "model": model},
                  "parent_tool_use_id": None, "session_id": "fake"})
        else:
            send({"type": "assistant", "message": {"content": [{"type": "text", "text": reply}], "model": model},
                  "parent_tool_use_id": None, "session_id": "fake"})
        usage = USAGE
        answered += 1  # Claude Code reports the cost of its whole run so far, not of this answer
        send({"type": "result", "subtype": "success", "duration_ms": 5, "duration_api_ms": 4, "is_error": False,
              "num_turns": 1, "session_id": "fake", "result": "" if structured else reply, "usage": usage,
              **({"structured_output": structured} if structured else {}),
              "total_cost_usd": 0 if mode == "unpriced" else round(0.0125 * answered, 6),
              "modelUsage": model_usage(model)})
        if mode == "once":
            return 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
