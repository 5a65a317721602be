"""``gamemaster`` and ``python -m gamemaster``: the CLI, but for one call that has nothing to decide.

Claude Code runs the PreToolUse hook for every Bash command in the session, the Game Master's
own commands too, because a character's one command (its lookup) must pass the fence. A Bash
call that is not a character's is let through untouched, and loading the CLI only to say so
cost 0.2 s of CPU a call (``bench/startup.py``): that answer is given here, before the CLI loads.
"""

from __future__ import annotations

import io
import json
import sys

CHARACTER = "character-"  # claude_code.SUBAGENT_PREFIX, not imported: importing is what this saves


def passes_untouched(argv: list[str]) -> bool:
    """Is this the PreToolUse hook for a Bash call no character made? (stdin is kept for the CLI.)"""
    args = argv[1:]
    if args[:1] == ["--root"]:
        args = args[2:]
    elif args[:1] and args[0].startswith("--root="):
        args = args[1:]
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


def main() -> None:
    if passes_untouched(sys.argv):
        return
    from .cli import app

    app(prog_name="gamemaster")


if __name__ == "__main__":
    main()
