"""``gamemaster`` and ``python -m gamemaster``: the CLI, but for the two hooks Claude Code runs most.

Claude Code runs the PreToolUse hook for every Bash command in the session, the Game Master's
own commands too, because a character's one command (its lookup) must pass the fence. A Bash
call that is not a character's is let through untouched, and loading the CLI only to say so
cost 0.2 s of CPU a call (``bench/startup.py``): that answer is given here, before the CLI loads.
The SubagentStop hook, run after every character's reply, is started here too, without the CLI.
"""

from __future__ import annotations

import io
import json
import sys

CHARACTER = "character-"  # claude_code.SUBAGENT_PREFIX, not imported: importing is what this saves


def _root_and_rest(argv: list[str]) -> tuple[str | None, list[str]]:
    """``--root R`` / ``--root=R`` before the command, and the words after it."""
    args = argv[1:]
    if args[:1] == ["--root"]:
        return (args[1] if len(args) > 1 else None), args[2:]
    if args[:1] and args[0].startswith("--root="):
        return args[0].split("=", 1)[1], args[1:]
    return None, args


def passes_untouched(argv: list[str]) -> bool:
    """Is this the PreToolUse hook for a Bash call no character made? (stdin is kept for the CLI.)"""
    _, args = _root_and_rest(argv)
    if args[:2] != ["hook", "pre-tool-use"]:
        return False
    text = sys.stdin.read()
    sys.stdin = io.StringIO(text)
    try:
        event = json.loads(text)
    except ValueError:
        return False  # the CLI says what is wrong with it
    if not isinstance(event, dict) or event.get("tool_name") != "Bash":
        return False
    return not (event.get("agent_id") and str(event.get("agent_type") or "").startswith(CHARACTER))


def reply_hook(argv: list[str]) -> int | None:
    """The SubagentStop hook, run once per character reply, started without the command tree
    (typer and its parsing were 93 million of its 1,226 million instructions, ``bench/startup.py``); its
    exit code. None for any other command line (also ``--help``), which the CLI parses."""
    root, args = _root_and_rest(argv)
    if args[:2] != ["hook", "subagent-stop"] or any(arg != "--from-plugin" for arg in args[2:]):
        return None
    from .command_run import run_subagent_stop

    return run_subagent_stop(root, from_plugin="--from-plugin" in args[2:])


def main() -> None:
    if passes_untouched(sys.argv):
        return
    code = reply_hook(sys.argv)
    if code is not None:
        sys.exit(code)
    from .cli import app

    app(prog_name="gamemaster")


if __name__ == "__main__":
    main()
