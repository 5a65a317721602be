"""Inside a private network namespace: `gamemaster day advance --backend claude-code` against
the loopback fake Messages API of ``run_inside.py``, with characters written here.

The real ``claude`` (first on PATH, as a user's install is) is started by the Agent SDK for
every character. The fake API answers each character request by hand-written rules, per
scene kind, from nothing but the prompt Claude Code sent: its first answer of the day is
prose (Claude Code reminds it of the reply's tool, or the scene loop asks again with the
error), from then on a valid reply, through the reply's tool where Claude Code offers one.
Nothing here uses the project's own players or reply builders.

Usage: backend_inside.py --claude PATH --workspace DIR --home DIR --out FILE --model M [--timeout S]
       [--backend claude-code|anthropic]   (``anthropic``: the same day through the API backend,
                                            for ``bench/claude_code_backend.py`` to compare)
       [--fail-status 529]                 (every Messages request fails with that status)
       [--look-up]                         (each character first looks into its own memory through
                                            the ``recall`` tool Claude Code offers it, once a scene)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path

import run_inside

REPLY_REF = re.compile(r'Antworte mit `"agent": "([^"]+)"` und `"scene": "([^"]+)"`')
SCENE_KIND = re.compile(r"^## Die Szene: ([A-Z]+) \(", re.M)
#: A memory line in the prompt: ``- [vera-004 · day-001/scene-02 · observation · …``.
SHOWN_ID = re.compile(r"^- \[([a-z0-9_]+-\d{3,}) · ", re.M)
LAST_TURN = "Das ist dein letzter Beitrag"
RETRY = "Deine letzte Antwort war ungültig"
#: The tool Claude Code offers for a reply schema (``--json-schema``).
STRUCTURED = "StructuredOutput"
#: The character's own memory, the MCP tool of gamemaster's process, as Claude Code names it.
RECALL = "mcp__memory__recall"
#: What a character looks up where ``--look-up`` is given: a word of its own scenes' notes.
QUERY = "Was weiß ich über die Knochentürme?"
LOOK_UP = False
_looked: set[tuple[str, str]] = set()

_prosed: set[str] = set()
_lock = threading.Lock()
USER_AGENTS: list[str] = []


def note(agent: str, ref: str) -> str:
    """The memory every reply asks to keep: the test finds it in the character's stream."""
    return f"E2E-Notiz von {agent} zu {ref}: die Knochentürme wachsen nur nachts."


def says(agent: str, ref: str) -> str:
    return f"{agent} in {ref}: Ich glaube, die Türme wachsen nur, wenn niemand hinsieht."


def character_reply(agent: str, ref: str, kind: str, text: str) -> dict:
    reply = {
        "agent": agent,
        "scene": ref,
        "action": f"{agent} legt das Notizbuch auf den Tisch und hört zu.",
        "says": says(agent, ref),
        "memories": [{"type": "observation", "description": note(agent, ref), "importance": 4, "tags": ["e2e"]}],
    }
    if kind == "ARRIVAL":
        reply["plan"] = {"text": "Heute kläre ich, warum die Türme nachts wachsen.", "tags": ["bone-towers"],
                         "importance": 5}
    if kind == "REFLECTION":
        own = [i for i in SHOWN_ID.findall(text) if i.startswith(agent + "-")]
        evidence = own[:2] or own
        reply["insights"] = [
            {"description": f"Einsicht {n} von {agent}: die Türme folgen einem Rhythmus.", "importance": 6,
             "tags": ["e2e"], "evidence": evidence}
            for n in range(1, 4)
        ]
    if kind in ("MEETING", "ENCOUNTER") and LAST_TURN in text:
        reply["conversation"] = {"summary": f"{agent} hat über die wachsenden Türme gesprochen.", "importance": 4,
                                 "tags": ["e2e"]}
    return reply


def answer(body: dict) -> tuple[str, list[dict]]:
    """A character's request (one scene prompt in the messages), or anything else Claude Code asks.

    Where Claude Code offers the reply's tool (``StructuredOutput``, from the reply schema), the
    reply goes through it, and once the tool has answered, the character ends its turn."""
    messages = body.get("messages") or []
    text = "\n".join(run_inside._text_of(m.get("content")) for m in messages)
    found = REPLY_REF.search(text)
    kind = SCENE_KIND.search(text)
    if not found or not kind:
        return "other", [{"type": "text", "text": "OK"}]
    agent, ref = found.groups()
    offered = {t.get("name") for t in body.get("tools") or []}
    structured = STRUCTURED in offered
    if LOOK_UP and RECALL in offered:
        with _lock:
            looking = (agent, ref) not in _looked
            _looked.add((agent, ref))
        if looking:
            return "character", [{"type": "tool_use", "name": RECALL, "input": {"query": QUERY}}]
    recalls = {u.get("id") for u in run_inside._tool_uses(messages) if u.get("name") == RECALL}
    # The reply's tool has just answered (the last message is its result) and no next turn came
    # with it (a kept claude sends the tool's result and the next prompt in one message): the
    # character ends its turn.
    last = messages[-1].get("content") if messages else None
    blocks = [b for b in last if isinstance(b, dict)] if isinstance(last, list) else []
    answered = any(b.get("type") == "tool_result" and b.get("tool_use_id") not in recalls for b in blocks)
    asked = any(b.get("type") == "text" and REPLY_REF.search(b.get("text", "")) for b in blocks)
    if structured and answered and not asked:
        return "character", [{"type": "text", "text": "Fertig."}]
    with _lock:
        first = agent not in _prosed
        _prosed.add(agent)
    if first:
        return "character", [{"type": "text", "text": f"Guten Morgen! Ich ({agent}) fange gleich an."}]
    # The memories shown (what a REFLECTION may cite) are in the system prompt, the scene in the message.
    reply = character_reply(agent, ref, kind.group(1), run_inside._system_text(body) + "\n" + text)
    if structured:
        return "character", [{"type": "tool_use", "name": STRUCTURED, "input": reply}]
    return "character", [{"type": "text", "text": json.dumps(reply, ensure_ascii=False)}]


#: Every Messages request answered with this HTTP status (``--fail-status``): an API that stays
#: overloaded (529), rate-limited (429) or broken (500).
FAIL_STATUS: int | None = None


class Handler(run_inside.Handler):
    def do_POST(self):
        with _lock:
            USER_AGENTS.append(self.headers.get("User-Agent", ""))
        if FAIL_STATUS is not None and self.path.split("?")[0].endswith("/v1/messages"):
            self._read()
            kind = {429: "rate_limit_error", 529: "overloaded_error"}.get(FAIL_STATUS, "api_error")
            with _lock:
                run_inside.REQUESTS.append({"method": "POST", "path": self.path, "t": time.time(), "kind": "failed"})
            return self._send(FAIL_STATUS, json.dumps({"type": "error", "error": {"type": kind, "message": kind}}).encode())
        super().do_POST()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--claude", required=True, help="the claude executable; its folder goes first on PATH")
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--home", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--timeout", type=float, default=240)
    parser.add_argument("--backend", default="claude-code")
    parser.add_argument("--fail-status", type=int, help="answer every Messages request with this HTTP status")
    parser.add_argument("--look-up", action="store_true", help="each character looks up once a scene first")
    parser.add_argument("--play", action="append",
                        help="a gamemaster command to run, as one string (repeatable; default: day advance --json); "
                             "--backend and --model are added to each")
    args = parser.parse_args()
    global FAIL_STATUS, LOOK_UP
    FAIL_STATUS, LOOK_UP = args.fail_status, args.look_up
    # run_inside's handler answers every Messages request through its module's `answer`.
    run_inside.answer = answer

    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    env = {
        "PATH": str(Path(args.claude).parent) + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": args.home,
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
        "ANTHROPIC_API_KEY": "sk-test",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "LANG": "C.UTF-8",
    }
    result: dict = {"port": port, "plays": []}
    started = time.time()
    for play in args.play or ["day advance --json"]:
        with _lock:
            first = len(run_inside.REQUESTS)
        began = time.time()
        command = [sys.executable, "-m", "gamemaster", "--root", args.workspace, *play.split(),
                   "--backend", args.backend, "--model", args.model]
        try:
            proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=args.timeout,
                                  stdin=subprocess.DEVNULL)
            done = {"returncode": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr[-5000:]}
        except subprocess.TimeoutExpired as exc:
            done = {"returncode": None, "timeout": True, "stdout": "", "stderr": str(exc.stderr or "")[-5000:]}
        result["plays"].append({"play": play, "first_request": first, "seconds": round(time.time() - began, 1), **done})
        if done["returncode"] != 0:
            break
    # The first that failed, else the last: what the tests of one day look at.
    result.update({key: value for key, value in result["plays"][-1].items() if key != "play"})
    result["seconds"] = round(time.time() - started, 1)
    server.shutdown()
    with _lock:
        result["requests"] = list(run_inside.REQUESTS)
        result["user_agents"] = list(USER_AGENTS)
    Path(args.out).write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
