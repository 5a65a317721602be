"""Run the real Claude Code CLI against a loopback fake of the Anthropic Messages API.

Meant to run inside a private network namespace (``unshare -n``): it brings the
loopback interface up, serves the fake API on 127.0.0.1, runs ``claude -p`` (or an
interactive ``claude`` in tmux, ``tmux_session.py``) in the workspace and writes a JSON
result (exit code, output, every API request).

The fake plays a scripted Game Master (``fake_game_master.py``) and the characters. A
character's first answer is prose (invalid); once the SubagentStop hook's rejection has
reached it, and from then on, it answers a reply written by hand from its prompt
(``fake_character.py``), never one built by the project's own players. A character named
with ``--stubborn`` answers prose every time; with ``--peek`` each first tries to read what is
not its own. A character handed only the task that names its prompt file reads that file.

Usage: run_inside.py --claude PATH --workspace DIR --bin DIR --home DIR --out FILE [--timeout S]
       [--prompt /scene] [--claude-arg ARG]... [--trust] [--interactive --answer DIALOG=KEYS]
       [--mcp] [--hide-gamemaster] [--background] [--probe-writes] [--general-purpose] [--stubborn AGENT]
       [--peek]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import fake_game_master as script
from fake_character import REPLY_REF, reply_for
# Re-exported: other e2e drivers (backend_inside.py) read requests with these.
from fake_game_master import (  # noqa: F401
    FINISHED, MCP_PREFIX, SUBAGENT_TOOL_NAMES, _has_bash, _has_mcp, _json_in, _subagent_tool, _system_text,
    _text_of, _tool_results, _tool_uses, game_master, game_master_mcp,
)
from tmux_session import MCP_DIALOG, PERMISSION_PROMPT, TRUST_DIALOG, run_interactive  # noqa: F401

#: The handoff the Game Master passes a character: its turn label (agent) and prompt file.
HANDOFF = re.compile(r"Dein Zug \d+-([a-z][a-z0-9_]*) in Szene \S+\. Dein Prompt steht in `([^`]+)`")
#: Characters try to read what is not theirs before answering (``--peek``).
PEEK = False
#: Characters look something up in their memory, and try a command of their own, first (``--look-up``).
LOOK_UP = False
REQUESTS: list[dict] = []
_ids = itertools.count(1)
_lock = threading.Lock()
_rejected_once: set[str] = set()
#: The Game Master uses the MCP tools, not Bash (``--mcp``).
MCP_MODE = False


# --- the characters ------------------------------------------------------------------------

def _peeks() -> list[dict]:
    """What a curious character tries first (``--peek``): every other mind in the studio, the
    world file, and a search with no path; and, as a control, its own stream (allowed)."""
    state = os.path.join(script.WORKSPACE, "state")
    calls = [{"type": "tool_use", "name": "Read", "input": {"file_path": os.path.join(state, "memories", name)}}
             for name in sorted(os.listdir(os.path.join(state, "memories"))) if name.endswith(".jsonl")]
    calls.append({"type": "tool_use", "name": "Read", "input": {"file_path": os.path.join(state, "world.json")}})
    calls.append({"type": "tool_use", "name": "Grep", "input": {"pattern": "importance", "output_mode": "content"}})
    calls.append({"type": "tool_use", "name": "Glob", "input": {"pattern": "state/**/*.jsonl"}})
    return calls


def _look_ups(agent: str) -> list[dict]:
    """What a character that looks things up tries first (``--look-up``): its one command, and,
    as the fence's other side, a command reading another mind."""
    other = next(name[:-6] for name in sorted(os.listdir(os.path.join(script.WORKSPACE, "state", "memories")))
                 if name.endswith(".jsonl") and name[:-6] != agent)
    return [{"type": "tool_use", "name": "Bash", "input": {"command": 'gamemaster lookup "GEHEIM was weiß nur ich"',
                                                            "description": "nachschlagen"}},
            {"type": "tool_use", "name": "Bash", "input": {"command": f"cat state/memories/{other}.jsonl",
                                                            "description": "lesen"}}]


def character(body: dict) -> list[dict]:
    """A character subagent: prose the first time (the hook must reject it), then the reply
    ``fake_character`` writes from the prompt; a stubborn one prose every time. Handed only the
    task naming its prompt file (no hook replaced it), it reads that file first."""
    messages = body.get("messages") or []
    everything = "\n".join(_text_of(m.get("content")) for m in messages)
    handed = HANDOFF.search(everything)
    if PEEK and (handed or REPLY_REF.search(everything)) and not _tool_uses(messages):
        return _peeks()
    asking = REPLY_REF.search(everything)
    if LOOK_UP and asking and not any(u.get("name") == "Bash" for u in _tool_uses(messages)):
        return _look_ups(asking.group(1))
    match = REPLY_REF.search(everything)
    if not match and handed and not any(u.get("input", {}).get("file_path") == handed.group(2)
                                        for u in _tool_uses(messages)):
        return [{"type": "tool_use", "name": "Read", "input": {"file_path": handed.group(2)}}]
    if not match:
        return [{"type": "text", "text": "Ich weiß nicht, worum es geht."}]
    agent = match.group(1)
    with _lock:
        first = agent not in _rejected_once
        _rejected_once.add(agent)
    if first or agent in script.STUBBORN:
        return [{"type": "text", "text": f"Guten Morgen! Ich ({agent}) fange gleich an."}]
    reply = reply_for(_system_text(body) + "\n" + everything)
    return [{"type": "text", "text": json.dumps(reply, ensure_ascii=False)}]


def classify(body: dict) -> str:
    asked = [_text_of(m.get("content")) for m in body.get("messages") or [] if m.get("role") == "user"]
    if asked and script.HELPER_TASK in asked[0]:
        return "helper"  # the general-purpose subagent (it may have Bash, but no subagent tool)
    if _subagent_tool(body) and MCP_MODE and (_has_mcp(body) or _has_bash(body)):
        return "game_master_mcp"
    if _subagent_tool(body) and _has_bash(body):
        return "game_master"
    asked_text = "\n".join(_text_of(m.get("content")) for m in body.get("messages") or [])
    if (REPLY_REF.search(asked_text) or HANDOFF.search(asked_text)) and "Du spielst" in _system_text(body):
        return "character"
    return "other"


def answer(body: dict) -> tuple[str, list[dict]]:
    kind = classify(body)
    if kind in ("game_master", "game_master_mcp"):
        blocks = game_master(body) if kind == "game_master" else game_master_mcp(body)
        if not any(b["type"] == "tool_use" for b in blocks):
            FINISHED.set()
        return kind, blocks
    if kind == "character":
        return kind, character(body)
    return kind, [{"type": "text", "text": "OK"}]


# --- the HTTP side ------------------------------------------------------------------------

def _finish(blocks: list[dict]) -> tuple[list[dict], str]:
    out = []
    for block in blocks:
        if block["type"] == "tool_use":
            block = {**block, "id": f"toolu_{next(_ids):06d}"}
        out.append(block)
    return out, ("tool_use" if any(b["type"] == "tool_use" for b in out) else "end_turn")


def request_blocks(body: dict) -> list[str]:
    """What a request sends, block by block in prompt order: the system prompt's blocks, then
    each message's text, tool calls and tool results (what input tokens are counted from; a
    prompt cache serves a request's start in whole blocks)."""
    system = body.get("system")
    parts = [system] if isinstance(system, str) else [b.get("text", "") for b in system or [] if isinstance(b, dict)]
    for message in body.get("messages") or []:
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        parts += [_block_text(block) for block in blocks if isinstance(block, dict)]
    return parts


def sent(body: dict) -> int:
    return sum(len(part) for part in request_blocks(body))


def _block_text(block: dict) -> str:
    if block.get("type") == "tool_use":
        return json.dumps(block.get("input"), ensure_ascii=False)
    if block.get("type") == "tool_result":
        inner = block.get("content")
        return inner if isinstance(inner, str) else "".join(b.get("text", "") for b in inner or [])
    return block.get("text", "")


def _usage(body: dict, blocks: list[dict]) -> dict:
    """Tokens as the API would count them, roughly: four characters each, nothing cached (the fake
    caches nothing), so a request that sends more counts more."""
    return {"input_tokens": -(-sent(body) // 4), "output_tokens": -(-sum(len(_block_text(b)) for b in blocks) // 4),
            "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


def sse(model: str, blocks: list[dict], stop: str, usage: dict) -> bytes:
    events = []

    def emit(kind, data):
        events.append(f"event: {kind}\ndata: {json.dumps({'type': kind, **data}, ensure_ascii=False)}\n\n")

    emit("message_start", {"message": {"id": f"msg_{next(_ids):06d}", "type": "message", "role": "assistant",
                                       "model": model, "content": [], "stop_reason": None,
                                       "stop_sequence": None, "usage": {**usage, "output_tokens": 1}}})
    for i, block in enumerate(blocks):
        if block["type"] == "text":
            emit("content_block_start", {"index": i, "content_block": {"type": "text", "text": ""}})
            text = block["text"]
            for k in range(0, len(text), 200):
                emit("content_block_delta", {"index": i, "delta": {"type": "text_delta", "text": text[k:k + 200]}})
        else:
            emit("content_block_start", {"index": i, "content_block": {"type": "tool_use", "id": block["id"],
                                                                       "name": block["name"], "input": {}}})
            raw = json.dumps(block["input"], ensure_ascii=False)
            for k in range(0, len(raw), 200):
                emit("content_block_delta", {"index": i, "delta": {"type": "input_json_delta",
                                                                   "partial_json": raw[k:k + 200]}})
        emit("content_block_stop", {"index": i})
    emit("message_delta", {"delta": {"stop_reason": stop, "stop_sequence": None},
                           "usage": {"output_tokens": usage["output_tokens"]}})
    emit("message_stop", {})
    return "".join(events).encode("utf-8")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet
        pass

    def _send(self, status: int, payload: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("request-id", f"req_{next(_ids):06d}")
        self.end_headers()
        self.wfile.write(payload)

    def _read(self) -> dict:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            return {"_raw": raw.decode("utf-8", "replace")}

    def do_GET(self):
        with _lock:
            REQUESTS.append({"method": "GET", "path": self.path, "t": time.time()})
        if self.path.startswith("/v1/models"):
            self._send(200, json.dumps({"data": [], "has_more": False}).encode())
        else:
            self._send(404, b'{"type":"error","error":{"type":"not_found_error","message":"not here"}}')

    def do_POST(self):
        body = self._read()
        path = self.path.split("?")[0]
        entry = {"method": "POST", "path": self.path, "t": time.time(), "body": body}
        if path.endswith("/messages/count_tokens"):
            with _lock:
                REQUESTS.append(entry)
            return self._send(200, b'{"input_tokens": 100}')
        if not path.endswith("/v1/messages"):
            with _lock:
                REQUESTS.append(entry)
            return self._send(404, b'{"type":"error","error":{"type":"not_found_error","message":"not here"}}')
        try:
            kind, blocks = answer(body)
        except Exception as exc:  # a bug in the script: tell the log, answer plainly
            import traceback

            kind, blocks = "error", [{"type": "text", "text": f"fake API error: {exc!r}"}]
            entry["traceback"] = traceback.format_exc()
        blocks, stop = _finish(blocks)
        entry.update(kind=kind, answer=blocks)
        with _lock:
            REQUESTS.append(entry)
        model = body.get("model", "claude-test")
        if body.get("stream"):
            self._send(200, sse(model, blocks, stop, _usage(body, blocks)), "text/event-stream")
        else:
            message = {"id": f"msg_{next(_ids):06d}", "type": "message", "role": "assistant", "model": model,
                       "content": blocks, "stop_reason": stop, "stop_sequence": None, "usage": _usage(body, blocks)}
            self._send(200, json.dumps(message, ensure_ascii=False).encode("utf-8"))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--claude", required=True)
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--bin", required=True, help="folder with the `gamemaster` wrapper, put first on PATH")
    parser.add_argument("--home", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--timeout", type=float, default=150)
    parser.add_argument("--prompt", default="/scene")
    parser.add_argument("--claude-arg", action="append", default=[], help="one more argument for claude")
    parser.add_argument("--trust", action="store_true", help="the workspace is a folder the user trusted")
    parser.add_argument("--interactive", action="store_true",
                        help="run `claude` without -p in tmux, type the prompt, answer dialogs per --answer")
    parser.add_argument("--answer", action="append", default=[],
                        help="DIALOG=KEY,KEY... (dialogs: trust, mcp, permission); keys as tmux send-keys takes them")
    parser.add_argument("--mcp", action="store_true", help="the Game Master plays through the MCP tools")
    parser.add_argument("--hide-gamemaster", action="store_true",
                        help="`gamemaster` is not on PATH (the hook and MCP server must find it themselves)")
    parser.add_argument("--background", action="store_true",
                        help="the Game Master asks for every character in the background")
    parser.add_argument("--probe-writes", action="store_true",
                        help="the Game Master tries Write and Edit into state/ before the scene")
    parser.add_argument("--general-purpose", action="store_true",
                        help="the Game Master runs a general-purpose subagent before the scene")
    parser.add_argument("--stubborn", action="append", default=[], help="a character that answers prose every time")
    parser.add_argument("--look-up", action="store_true",
                        help="each character first looks up its memory and tries to read another's with a command")
    parser.add_argument("--peek", action="store_true",
                        help="each character first tries to read every memory stream, the world file and the whole workspace")
    args = parser.parse_args()
    global MCP_MODE, PEEK, LOOK_UP
    WORKSPACE = os.path.realpath(args.workspace)
    script.WORKSPACE = WORKSPACE
    script.WHOLE_DAY = args.prompt.rstrip().endswith("day")
    script.BACKGROUND = args.background
    script.PROBE_WRITES = args.probe_writes
    script.STUBBORN = set(args.stubborn)
    script.GENERAL_PURPOSE = args.general_purpose
    MCP_MODE = args.mcp
    PEEK = args.peek
    LOOK_UP = args.look_up
    config: dict = {}
    if args.trust:
        # What accepting the trust dialog once writes into the user's ~/.claude.json.
        config["projects"] = {WORKSPACE: {"hasTrustDialogAccepted": True}}
    if args.interactive:
        # A user who has used Claude Code before: onboarding done, the API key approved.
        config.update(hasCompletedOnboarding=True, theme="dark", bypassPermissionsModeAccepted=False,
                      customApiKeyResponses={"approved": ["sk-test"[-20:]], "rejected": []})
    if config:
        with open(os.path.join(args.home, ".claude.json"), "w", encoding="utf-8") as fh:
            json.dump(config, fh)

    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]

    env = {
        "PATH": (os.environ.get("PATH", "/usr/bin:/bin") if args.hide_gamemaster
                 else args.bin + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin")),
        "HOME": args.home,
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
        "ANTHROPIC_API_KEY": "sk-test",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "LANG": "C.UTF-8",
        # The MCP server (Python, started through the launcher) may take longer than Claude Code's
        # few seconds to connect on a busy machine; its tools would then be missing from the first
        # request. The tests are about what the tools do, not how fast they start. In print mode
        # Claude Code (2.1.144 on) does not wait for them at all unless told to: it sends the first
        # request after about 2 s whatever the server's state (seen in its --debug-file log:
        # "--mcp-config servers running fully async (nonblocking)").
        "MCP_CONNECTION_NONBLOCKING": "false",
        "MCP_CONNECT_TIMEOUT_MS": "60000",
        "MCP_TIMEOUT": "120000",
    }
    started = time.time()
    result = {"port": port}
    if args.interactive:
        answers = {}
        for item in args.answer:
            name, _, keys = item.partition("=")
            answers[name] = [k for k in keys.split(",") if k]
        result.update(run_interactive(args, env, answers, args.timeout, FINISHED))
    else:
        result.update(_run_print(args, env))
    result["seconds"] = round(time.time() - started, 1)
    server.shutdown()
    with _lock:
        result["requests"] = list(REQUESTS)
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(result, fh, ensure_ascii=False, indent=1)
    return 0


def _run_print(args, env: dict) -> dict:
    result: dict = {}
    try:
        proc = subprocess.run([args.claude, *args.claude_arg, "-p", args.prompt, "--output-format", "json"], cwd=args.workspace,
                              env=env, capture_output=True, text=True, timeout=args.timeout,
                              stdin=subprocess.DEVNULL)
        result.update(returncode=proc.returncode, stdout=proc.stdout, stderr=proc.stderr[-5000:])
    except subprocess.TimeoutExpired as exc:
        result.update(returncode=None, timeout=True, stdout=(exc.stdout or b"").decode("utf-8", "replace")
                      if isinstance(exc.stdout, bytes) else exc.stdout,
                      stderr=((exc.stderr or b"").decode("utf-8", "replace") if isinstance(exc.stderr, bytes)
                              else exc.stderr or "")[-5000:])
    return result


if __name__ == "__main__":
    sys.exit(main())
