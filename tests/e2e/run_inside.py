"""Run the real Claude Code CLI against a loopback fake of the Anthropic Messages API.

Meant to run inside a private network namespace (``unshare -n``): it brings the
loopback interface up, serves the fake API on 127.0.0.1, runs ``claude -p`` in
the workspace and writes a JSON result (exit code, output, every API request).

The fake plays a scripted Game Master: ``gamemaster next --json``, then the
prompts and the character subagents (all at once, or turn by turn in a MEETING),
then ``gamemaster apply``, and for a day the next scene until the day is closed.
A character's first answer is prose (invalid); once the SubagentStop hook's
rejection has reached it, and from then on, it answers what the offline player
would, which is valid in every scene kind.

Usage: run_inside.py --claude PATH --workspace DIR --bin DIR --home DIR --out FILE [--timeout S]
       [--prompt /scene] [--claude-arg ARG]... [--trust]
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
from pathlib import Path

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
    props = (agent_tool or {}).get("input_schema", {}).get("properties", {})
    args = {"description": f"{participant} answers", "prompt": prompt,
            "subagent_type": "character-" + participant.replace("_", "-")}
    if "run_in_background" in props:
        args["run_in_background"] = False
    return {"type": "tool_use", "name": agent_tool["name"] if agent_tool else "Agent", "input": args}


def game_master(body: dict) -> list[dict]:
    """The next step of the scripted Game Master, from what the conversation already holds.

    A scene: `gamemaster next --json`; in parallel scenes every prompt, then every character at
    once; in a MEETING prompt and character turn by turn; then `gamemaster apply`. For `/day`
    (the prompt names the day) it goes on until `apply` reports the day closed.
    """
    messages = body.get("messages") or []
    uses = _tool_uses(messages)
    results = _tool_results(messages)
    agent_tool = _subagent_tool(body)
    scenes = _scene_steps(uses, results)
    if not scenes:
        return [_bash("gamemaster next --json")]
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
    prompts = [u for u in steps if _command(u).startswith("gamemaster prompt ")]
    spawned = [u for u in steps if u.get("name") in SUBAGENT_TOOL_NAMES]
    # `waiting` names the open turns as "03-vera"; a resumed scene may have some replies already.
    open_turns = [label.split("-", 1)[1] for label in scene.get("waiting") or []]
    if scene.get("in_sequence"):
        if len(spawned) < len(open_turns):
            speaker = open_turns[len(spawned)]
            if len(prompts) == len(spawned):
                return [_bash(f"gamemaster prompt {speaker}")]
            return [_spawn(agent_tool, speaker, results.get(prompts[-1]["id"], ""))]
        return [_bash("gamemaster apply")]
    waiting = open_turns
    if not prompts:
        return [_bash(f"gamemaster prompt {p}") for p in waiting]
    if not spawned:
        by_agent = {_command(u).split()[2]: u for u in prompts}
        return [_spawn(agent_tool, p, results.get(by_agent[p]["id"], "")) for p in waiting]
    return [_bash("gamemaster apply")]


MCP_PREFIX = "mcp__gamemaster__"


def _mcp(tool: str, **args) -> dict:
    return {"type": "tool_use", "name": MCP_PREFIX + tool, "input": args}


def _has_mcp(body: dict) -> bool:
    return any(t.get("name") == MCP_PREFIX + "next_scene" for t in body.get("tools") or [])


def game_master_mcp(body: dict) -> list[dict]:
    """The scripted Game Master through the MCP tools only (no Bash): next_scene, every prompt,
    every character at once (turn by turn in sequence), then apply; for a day until it is closed."""
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
        if not _has_mcp(body) and not any(u.get("name") == "ToolSearch" for u in uses):
            # Newer Claude Code defers MCP tools: their schemas come through ToolSearch first.
            names = ",".join(MCP_PREFIX + t for t in ("next_scene", "prompt", "apply", "status"))
            return [{"type": "tool_use", "name": "ToolSearch", "input": {"query": f"select:{names}", "max_results": 5}}]
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
    prompts = [u for u in steps if u.get("name") == MCP_PREFIX + "prompt"]
    spawned = [u for u in steps if u.get("name") in SUBAGENT_TOOL_NAMES]
    open_turns = [label.split("-", 1)[1] for label in scene.get("waiting") or []]

    def prompt_of(use: dict) -> str:
        text = results.get(use["id"], "")
        wrapped = _json_in(text)  # a tool returning a string may come back as {"result": "..."}
        return wrapped["result"] if isinstance(wrapped, dict) and isinstance(wrapped.get("result"), str) else text

    if scene.get("in_sequence"):
        if len(spawned) < len(open_turns):
            speaker = open_turns[len(spawned)]
            if len(prompts) == len(spawned):
                return [_mcp("prompt", agent=speaker)]
            return [_spawn(agent_tool, speaker, prompt_of(prompts[-1]))]
        return [_mcp("apply")]
    if not prompts:
        return [_mcp("prompt", agent=p) for p in open_turns]
    if not spawned:
        by_agent = {u["input"]["agent"]: u for u in prompts}
        return [_spawn(agent_tool, p, prompt_of(by_agent[p])) for p in open_turns]
    return [_mcp("apply")]


_rejected_once: set[str] = set()
WORKSPACE: str = ""
#: The prompt asks for a whole day (`/day`, `/gamemaster:day`): go on until the day is closed.
WHOLE_DAY = False
#: The Game Master uses the MCP tools, not Bash (``--mcp``).
MCP_MODE = False


def character(body: dict) -> list[dict]:
    """A character subagent: prose the first time (the hook must reject it), then a valid reply.

    The valid reply is what the offline player would answer to the same request, so every scene
    kind gets a reply its rules accept.
    """
    messages = body.get("messages") or []
    everything = "\n".join(_text_of(m.get("content")) for m in messages)
    match = REPLY_REF.search(everything)
    if not match:
        return [{"type": "text", "text": "Ich weiß nicht, worum es geht."}]
    agent, ref = match.groups()
    if agent not in _rejected_once:
        _rejected_once.add(agent)
        return [{"type": "text", "text": f"Guten Morgen! Ich ({agent}) fange gleich an."}]
    from gamemaster.backends.offline import play
    from gamemaster.gm import GameMaster
    from gamemaster.workspace import Workspace

    gm = GameMaster(Workspace(Path(WORKSPACE)))
    pending = gm.require_pending()
    reply = play(gm.build_request(pending, pending.turn_of(agent)))
    return [{"type": "text", "text": json.dumps(reply, ensure_ascii=False)}]


def classify(body: dict) -> str:
    if _subagent_tool(body) and MCP_MODE and (_has_mcp(body) or _has_bash(body)):
        return "game_master_mcp"
    if _subagent_tool(body) and _has_bash(body):
        return "game_master"
    if REPLY_REF.search("\n".join(_text_of(m.get("content")) for m in body.get("messages") or [])) and \
            "Du spielst" in _system_text(body):
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


# --- an interactive session in tmux ---------------------------------------------------------------

#: The Game Master's closing text was served: the run is over (``game_master`` ends with it).
FINISHED = threading.Event()
#: What a dialog or prompt on the screen looks like, and the keys that answer it. A dialog ignores
#: keys for about two seconds after it appears, so each answer waits that long first.
TRUST_DIALOG = re.compile(r"(?i)trust (this|the files in this) folder|Is this a project you")
MCP_DIALOG = re.compile(r"(?i)new MCP server|MCP servers? found in")
PERMISSION_PROMPT = re.compile(r"(?i)do you want to (proceed|make this edit|create)|Auto mode can't check|"
                               r"Allow this|\bInterrupted\b")


def _tmux(sock: str, *args: str, check: bool = True) -> str:
    done = subprocess.run(["tmux", "-S", sock, *args], capture_output=True, text=True, timeout=30)
    if check and done.returncode != 0:
        raise RuntimeError(f"tmux {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def _screen(sock: str) -> str:
    return _tmux(sock, "capture-pane", "-p", "-t", "gm", "-S", "-60", check=False)


def run_interactive(args, env: dict, answers: dict[str, list[str]], timeout: float) -> dict:
    """Start ``claude`` (no ``-p``) in a tmux session, answer its dialogs with ``answers`` (dialog
    name → keys, e.g. ``{"trust": ["Up", "Enter"]}``; a dialog without an answer ends the run),
    type the prompt and wait until the Game Master's closing text was served. Every screen that
    showed a dialog or a permission prompt is kept, and the last screen."""
    sock = os.path.join(args.home, "tmux.sock")
    env = {**env, "TERM": "xterm-256color", "COLUMNS": "160", "LINES": "50"}
    command = " ".join(["exec", _quote(args.claude), *map(_quote, args.claude_arg)])
    flags = [x for k, v in env.items() for x in ("-e", f"{k}={v}")]
    _tmux(sock, "-f", "/dev/null", "new-session", "-d", "-s", "gm", "-x", "160", "-y", "50",
          "-c", args.workspace, *flags, command)
    screens: list[dict] = []
    typed = False
    seen_at: dict[str, float] = {}
    deadline = time.time() + timeout
    outcome = "timeout"
    try:
        while time.time() < deadline:
            time.sleep(0.5)
            screen = _screen(sock)
            if subprocess.run(["tmux", "-S", sock, "has-session", "-t", "gm"], capture_output=True).returncode:
                outcome = "claude exited"
                break
            if not screen.strip():
                continue
            dialog = ("trust" if TRUST_DIALOG.search(screen) else "mcp" if MCP_DIALOG.search(screen)
                      else "permission" if PERMISSION_PROMPT.search(screen) else None)
            if dialog:
                first = seen_at.setdefault(dialog + str(len(screens)), time.time())
                if not screens or screens[-1]["dialog"] != dialog:
                    screens.append({"dialog": dialog, "screen": screen})
                if dialog not in answers:
                    time.sleep(1)
                    screens.append({"dialog": dialog, "screen": _screen(sock)})
                    outcome = f"stopped at a {dialog} dialog"
                    break
                if time.time() - first < 2.5:
                    continue  # a fresh dialog ignores keys for a moment
                for key in answers[dialog]:
                    _tmux(sock, "send-keys", "-t", "gm", key)
                    time.sleep(0.3)
                seen_at.clear()
                time.sleep(1.5)
                continue
            if FINISHED.is_set():
                time.sleep(2)
                outcome = "finished"
                break
            if not typed and re.search(r"(?m)^\s*[>❯]\s", screen):
                time.sleep(1)
                _tmux(sock, "send-keys", "-t", "gm", "-l", args.prompt)
                time.sleep(0.5)
                _tmux(sock, "send-keys", "-t", "gm", "Enter")
                typed = True
        screens.append({"dialog": None, "screen": _screen(sock)})
    finally:
        _tmux(sock, "kill-server", check=False)
    return {"returncode": 0 if outcome == "finished" else None, "outcome": outcome, "typed": typed,
            "screens": screens, "stdout": "", "stderr": "", "timeout": outcome == "timeout"}


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


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
    args = parser.parse_args()
    global WORKSPACE, WHOLE_DAY, MCP_MODE
    WORKSPACE = os.path.realpath(args.workspace)
    WHOLE_DAY = args.prompt.rstrip().endswith("day")
    MCP_MODE = args.mcp
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
    }
    started = time.time()
    result = {"port": port}
    if args.interactive:
        answers = {}
        for item in args.answer:
            name, _, keys = item.partition("=")
            answers[name] = [k for k in keys.split(",") if k]
        result.update(run_interactive(args, env, answers, args.timeout))
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
