"""Run the real Claude Code CLI against a loopback fake of the Anthropic Messages API.

Meant to run inside a private network namespace (``unshare -n``): it brings the
loopback interface up, serves the fake API on 127.0.0.1, runs ``claude -p`` in
the workspace and writes a JSON result (exit code, output, every API request).

The fake plays a scripted Game Master for ``/scene``: ``gamemaster next --json``,
then for every participant ``gamemaster prompt <id>`` and the character subagent,
then ``gamemaster apply`` and a closing text. A character subagent first answers
with prose (invalid); once the SubagentStop hook's rejection reason reaches it,
it answers with a minimal valid reply.

Usage: run_inside.py --claude PATH --workspace DIR --bin DIR --out FILE [--timeout S] [--prompt /scene]
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

REQUESTS: list[dict] = []
_ids = itertools.count(1)
_lock = threading.Lock()

SUBAGENT_TOOL_NAMES = ("Agent", "Task")
REPLY_REF = re.compile(r'Antworte mit `"agent": "([^"]+)"` und `"scene": "([^"]+)"`')


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


# --- the scripted Game Master and characters ----------------------------------------------------

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


def game_master(body: dict) -> list[dict]:
    """The next step of the scripted Game Master, from what the conversation already holds."""
    messages = body.get("messages") or []
    uses = _tool_uses(messages)
    results = _tool_results(messages)
    commands = [(u, u["input"].get("command", "")) for u in uses if u.get("name") == "Bash"]
    agent_tool = _subagent_tool(body)
    nexts = [u for u, c in commands if c.startswith("gamemaster next")]
    if not nexts:
        return [_bash("gamemaster next --json")]
    scene = _json_in(results.get(nexts[-1]["id"], "")) or {}
    participants = scene.get("participants") or []
    if not participants:
        return [{"type": "text", "text": "no scene: " + results.get(nexts[-1]["id"], "")[:500]}]
    prompts = {c.split()[2]: u for u, c in commands if c.startswith("gamemaster prompt ")}
    if not prompts:
        return [_bash(f"gamemaster prompt {p}") for p in participants]
    spawned = [u for u in uses if u.get("name") in SUBAGENT_TOOL_NAMES]
    if not spawned:
        props = (agent_tool or {}).get("input_schema", {}).get("properties", {})
        blocks = []
        for p in participants:
            args = {"description": f"{p} answers", "prompt": results.get(prompts[p]["id"], ""),
                    "subagent_type": "character-" + p.replace("_", "-")}
            if "run_in_background" in props:
                args["run_in_background"] = False
            blocks.append({"type": "tool_use", "name": agent_tool["name"] if agent_tool else "Agent", "input": args})
        return blocks
    if not any(c.startswith("gamemaster apply") for _, c in commands):
        return [_bash("gamemaster apply")]
    return [{"type": "text", "text": f"Die Szene {scene.get('ref')} ist geschrieben."}]


def character(body: dict) -> list[dict]:
    """A character subagent: prose first, a valid reply once the hook has rejected it."""
    messages = body.get("messages") or []
    everything = "\n".join(_text_of(m.get("content")) for m in messages)
    match = REPLY_REF.search(everything)
    if not match:
        return [{"type": "text", "text": "Ich weiß nicht, worum es geht."}]
    agent, ref = match.groups()
    if "gamemaster rejected" not in everything:
        return [{"type": "text", "text": f"Guten Morgen! Ich ({agent}) fange gleich an."}]
    reply = {"agent": agent, "scene": ref, "action": f"{agent} kommt an und holt sich einen Tee.",
             "says": "Morgen zusammen!",
             "plan": {"text": "Heute arbeite ich an den Knochentürmen.", "tags": ["bone-towers"], "importance": 4}}
    return [{"type": "text", "text": json.dumps(reply, ensure_ascii=False)}]


def classify(body: dict) -> str:
    if _subagent_tool(body) and _has_bash(body):
        return "game_master"
    if REPLY_REF.search("\n".join(_text_of(m.get("content")) for m in body.get("messages") or [])) and \
            "Du spielst" in _system_text(body):
        return "character"
    return "other"


def answer(body: dict) -> tuple[str, list[dict]]:
    kind = classify(body)
    if kind == "game_master":
        return kind, game_master(body)
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


def _usage(output: int = 5) -> dict:
    return {"input_tokens": 100, "output_tokens": output, "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0}


def sse(model: str, blocks: list[dict], stop: str) -> bytes:
    events = []

    def emit(kind, data):
        events.append(f"event: {kind}\ndata: {json.dumps({'type': kind, **data}, ensure_ascii=False)}\n\n")

    emit("message_start", {"message": {"id": f"msg_{next(_ids):06d}", "type": "message", "role": "assistant",
                                       "model": model, "content": [], "stop_reason": None,
                                       "stop_sequence": None, "usage": _usage(1)}})
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
    emit("message_delta", {"delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 5}})
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
            kind, blocks = "error", [{"type": "text", "text": f"fake API error: {exc!r}"}]
        blocks, stop = _finish(blocks)
        entry.update(kind=kind, answer=blocks)
        with _lock:
            REQUESTS.append(entry)
        model = body.get("model", "claude-test")
        if body.get("stream"):
            self._send(200, sse(model, blocks, stop), "text/event-stream")
        else:
            message = {"id": f"msg_{next(_ids):06d}", "type": "message", "role": "assistant", "model": model,
                       "content": blocks, "stop_reason": stop, "stop_sequence": None, "usage": _usage()}
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
    args = parser.parse_args()

    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]

    env = {
        "PATH": args.bin + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": args.home,
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
        "ANTHROPIC_API_KEY": "sk-test",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "LANG": "C.UTF-8",
    }
    started = time.time()
    result = {"port": port}
    try:
        proc = subprocess.run([args.claude, "-p", args.prompt, "--output-format", "json"], cwd=args.workspace,
                              env=env, capture_output=True, text=True, timeout=args.timeout,
                              stdin=subprocess.DEVNULL)
        result.update(returncode=proc.returncode, stdout=proc.stdout, stderr=proc.stderr[-5000:])
    except subprocess.TimeoutExpired as exc:
        result.update(returncode=None, timeout=True, stdout=(exc.stdout or b"").decode("utf-8", "replace")
                      if isinstance(exc.stdout, bytes) else exc.stdout,
                      stderr=((exc.stderr or b"").decode("utf-8", "replace") if isinstance(exc.stderr, bytes)
                              else exc.stderr or "")[-5000:])
    result["seconds"] = round(time.time() - started, 1)
    server.shutdown()
    with _lock:
        result["requests"] = list(REQUESTS)
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(result, fh, ensure_ascii=False, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
