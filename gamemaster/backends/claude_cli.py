"""Finding the ``claude`` to run and asking it how it is logged in (the claude-code backend).

Nothing here imports the Claude Agent SDK (over a second): the registry runs ``preflight``
before it imports the backend, so a missing Claude Code or login is said at once.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..problems import GamemasterError

#: Names the ``claude`` executable to use instead of the one on PATH.
CLI_VARIABLE = "GAMEMASTER_CLAUDE_CLI"
INSTALL_HINT = "install it with `npm install -g @anthropic-ai/claude-code` and log in by running `claude`"
LOGIN_HINT = "run `claude` and log in with /login (or `claude auth login`), then try again"


class ClaudeCodeError(GamemasterError):
    """Claude Code is missing, not logged in, or a call failed for good."""


def find_cli() -> str:
    """The ``claude`` to run: ``$GAMEMASTER_CLAUDE_CLI``, else the one on PATH (the one the
    user installed and logged in with), else the CLI the SDK's wheel bundles."""
    named = os.environ.get(CLI_VARIABLE)
    if named:
        if not (os.path.isfile(named) and os.access(named, os.X_OK)):
            raise ClaudeCodeError(f"backend claude-code: {CLI_VARIABLE}={named!r} is not an executable file")
        return named
    found = shutil.which("claude") or bundled_cli()
    if found:
        return found
    raise ClaudeCodeError(f"backend claude-code: Claude Code is not installed (no `claude` on PATH): {INSTALL_HINT}")


def bundled_cli() -> str | None:
    """The ``claude`` the SDK's platform wheels carry (the SDK itself looks there first); found
    without importing the SDK."""
    spec = importlib.util.find_spec("claude_agent_sdk")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    if not folders:
        return None
    bundled = Path(folders[0]) / "_bundled" / ("claude.exe" if os.name == "nt" else "claude")
    return str(bundled) if bundled.is_file() and os.access(bundled, os.X_OK) else None


def login_status(cli: str, timeout: float = 60.0) -> dict[str, Any] | None:
    """``claude auth status --json``: how Claude Code is logged in, None when it cannot tell.

    A CLI that does not know the command (or answers something else) is not refused here;
    a call it cannot authenticate is still caught when it answers.
    """
    try:
        done = subprocess.run([cli, "auth", "status", "--json"], capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL, env=_child_env())
    except (OSError, subprocess.TimeoutExpired):
        return None
    try:
        status = json.loads(done.stdout)
    except ValueError:
        return None
    return status if isinstance(status, dict) and isinstance(status.get("loggedIn"), bool) else None


def _child_env() -> dict[str, str]:
    # Run from inside a Claude Code session (the Game Master's Bash tool), the CLI would
    # otherwise take itself for a nested session; the SDK drops the variable the same way.
    return {key: value for key, value in os.environ.items() if key != "CLAUDECODE"}


@dataclass(frozen=True)
class Found:
    """The ``claude`` to run and how it is logged in (None: it could not tell)."""

    cli: str
    login: dict[str, Any] | None


def preflight(cli_path: str | None = None) -> Found:
    """The ``claude`` to run, logged in: a missing one or a missing login is a ``ClaudeCodeError``."""
    cli = cli_path or find_cli()
    login = login_status(cli)
    if login is not None and not login["loggedIn"]:
        raise ClaudeCodeError(f"backend claude-code: Claude Code ({cli}) is not logged in: {LOGIN_HINT}")
    return Found(cli, login)


__all__ = ["CLI_VARIABLE", "INSTALL_HINT", "LOGIN_HINT", "ClaudeCodeError", "Found", "bundled_cli", "find_cli",
           "login_status", "preflight"]
