"""An interactive ``claude`` session in tmux: dialogs answered with keys, the prompt typed, the
screens kept. Run by ``run_inside.py --interactive`` inside the private network namespace."""

from __future__ import annotations

import os
import re
import subprocess
import threading
import time

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


def run_interactive(args, env: dict, answers: dict[str, list[str]], timeout: float,
                    finished: threading.Event) -> dict:
    """Start ``claude`` (no ``-p``) in a tmux session, answer its dialogs with ``answers`` (dialog
    name → keys, e.g. ``{"trust": ["Up", "Enter"]}``; a dialog without an answer ends the run),
    type the prompt and wait until the Game Master's closing text was served (``finished``).
    Every screen that showed a dialog or a permission prompt is kept, and the last screen."""
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
            if finished.is_set():
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
