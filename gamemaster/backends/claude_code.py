"""Plays the characters through Claude Code itself, with the Claude Agent SDK.

``claude-agent-sdk`` (the ``[claude-code]`` extra) runs the installed ``claude`` CLI as a
subprocess, so each character is answered on whatever login Claude Code has: a Claude
subscription, or an API key. Only this module imports the SDK, and ``get_backend`` loads
it only when ``--backend claude-code`` is chosen, so no other command pays for it.

Every call is one character answering one scene turn, and nothing else:

* the stable start of the prompt (studio rules, persona, reply contract, this scene's
  memories) is the system prompt, replacing Claude Code's own; the rest is the one
  user message (``split_prompt``, the same cut the API backend caches at);
* the kind's reply schema as structured output (Claude Code offers the model a tool of that
  shape and checks it; at most three turns), no other tools, no extended thinking, no MCP servers,
  no skills, no settings files,
  no saved session, and an empty working folder of its own: the character sees its prompt
  and nothing of the workspace or of the user's Claude Code setup (hooks, CLAUDE.md, plugins);
* the prompt goes verbatim: a ``/`` or ``@`` in a memory is not a command or a file.

What it answers is validated and, if invalid, asked again by the scene loop, as for every
backend. Tokens and the dollar figure Claude Code reports are recorded with the scene.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import json
import logging
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

import anyio
import claude_agent_sdk as sdk

from ..pricing import USAGE_FIELDS
from ..problems import GamemasterError
from .base import Answer, Capabilities, ReplyRequest, chosen_model, split_prompt
from .schema import interview_output_schema, reply_output_schema

# The SDK logs a failed run ("Fatal error in message reader") and then raises it; the raise
# becomes this backend's one line, so the log would only say it twice, unformatted.
logging.getLogger("claude_agent_sdk").addHandler(logging.NullHandler())

#: Names the ``claude`` executable to use instead of the one on PATH.
CLI_VARIABLE = "GAMEMASTER_CLAUDE_CLI"
INSTALL_HINT = "install it with `npm install -g @anthropic-ai/claude-code` and log in by running `claude`"
LOGIN_HINT = "run `claude` and log in with /login (or `claude auth login`), then try again"


class ClaudeCodeError(GamemasterError):
    """Claude Code is missing, not logged in, or a call failed for good."""


#: Seconds a ``claude`` may stay silent (starting, or between two streamed pieces of its answer)
#: before the call is given up: a model that writes streams a piece every second or so.
IDLE_TIMEOUT = 60.0
#: Messages one answer may take: a reply streams a few thousand pieces at most; a ``claude`` that
#: floods its output is stopped within seconds, not when the whole timeout has passed.
MESSAGE_LIMIT = 20_000
#: Turns of a run with the reply's schema: the answer through Claude Code's tool for it, Claude
#: Code's reminder where the model wrote text instead, and the model's end.
STRUCTURED_TURNS = 3
#: What an unset model is priced at before Claude Code has said which one it plays.
UNKNOWN_DEFAULT = "opus"
#: Claude Code's own retries of an overloaded or rate-limited API (its default, 10, waits about
#: three and a half minutes in all); the scene loop asks again, and a failure is one line sooner.
CLI_RETRIES = "2"


class _Stalled(Exception):
    """The call gave no sign of life for ``IDLE_TIMEOUT`` seconds, or flooded its output."""


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
    """The ``claude`` the SDK's platform wheels carry (the SDK itself looks there first)."""
    bundled = Path(sdk.__file__).parent / "_bundled" / ("claude.exe" if os.name == "nt" else "claude")
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


def _call_env() -> dict[str, str]:
    """What a character's ``claude`` run gets added to the environment: fewer retries of its own,
    unless the user set them."""
    return {} if "CLAUDE_CODE_MAX_RETRIES" in os.environ else {"CLAUDE_CODE_MAX_RETRIES": CLI_RETRIES}


class ClaudeCodeBackend:
    """Each character answered by its own one-turn, tool-less ``claude`` run."""

    name = "claude-code"
    capabilities = Capabilities(usage=True, pricing=True, parallel=4, interviews=True, retries=1)

    def __init__(
        self,
        model: str | None = None,
        concurrency: int = capabilities.parallel,
        retries: int = capabilities.retries,
        timeout: float = 300.0,
        cli_path: str | None = None,
        idle_timeout: float = IDLE_TIMEOUT,
    ):
        self.model = model or None
        self.capabilities = dataclasses.replace(
            type(self).capabilities, parallel=max(1, int(concurrency)), retries=max(0, int(retries))
        )
        self.timeout = float(timeout)
        self.idle_timeout = min(float(idle_timeout), self.timeout)
        self.cli = cli_path or find_cli()
        # Checked before any scene is opened: a missing login is one line, not a failed scene.
        self.login = login_status(self.cli)
        if self.login is not None and not self.login["loggedIn"]:
            raise ClaudeCodeError(f"backend claude-code: Claude Code ({self.cli}) is not logged in: {LOGIN_HINT}")
        #: The model Claude Code played the last call with (its default where none is asked for).
        self.played: str | None = None
        self._played_lock = threading.Lock()
        # An empty folder of its own, so nothing of the workspace is where Claude Code starts.
        self._folder = tempfile.TemporaryDirectory(prefix="gamemaster-claude-code-")

    def __repr__(self) -> str:
        return f"ClaudeCodeBackend(cli={self.cli!r}, model={self.model!r}, concurrency={self.capabilities.parallel})"

    @property
    def notice(self) -> str:
        """Which Claude Code plays, and on what it is billed (an API key in the environment wins
        over a subscription login in Claude Code)."""
        method = (self.login or {}).get("authMethod")
        if method == "api_key" or (self.login or {}).get("apiKeySource"):
            source = (self.login or {}).get("apiKeySource") or "an API key"
            how = f"on the API key from {source}: calls are billed to that key at API prices"
        elif method in ("claude.ai", "oauth_token"):
            plan = (self.login or {}).get("subscriptionType")
            how = (f"on your Claude {plan + ' ' if isinstance(plan, str) and plan else ''}login: calls count against "
                   "your plan's usage; the dollar figures are what Claude Code reports at API prices")
        else:
            how = f"logged in with {method or 'an unknown method'}"
        model = (f"with {self.model}" if self.model else
                 "with the model each agent or the world names, else Claude Code's default (priced as "
                 f"{UNKNOWN_DEFAULT} until its first answer says which)")
        return f"characters are played by Claude Code ({self.cli}) {model}, {how}"

    def model_for(self, request: ReplyRequest) -> str:
        """The model a request is priced at (``--budget``): the one asked for (``--model``, the
        agent's, the world's), else the one Claude Code played the last call with (its default,
        told in each run's first message), else — before the first call — Opus, the dearest it
        may choose: an estimate at Sonnet's price would run low by the price ratio."""
        return chosen_model(self.model, request) or self.played or UNKNOWN_DEFAULT

    def options(self, system: str, model: str | None, stderr: list[str], schema: dict | None = None) -> Any:
        """The SDK options for one character's answer. The system prompt goes in a file: on the
        command line one over 128 KiB would keep ``claude`` from starting at all."""
        fd, path = tempfile.mkstemp(prefix="system-", suffix=".md", dir=self._folder.name)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(system)
        return sdk.ClaudeAgentOptions(
            system_prompt={"type": "file", "path": path},
            tools=[],
            allowed_tools=[],
            # The reply's schema, as the API backend sends it: Claude Code offers the model a tool
            # of that shape and checks what it is given, so a reply out of shape is corrected in
            # this run (a second turn, a third where Claude Code has to remind the model of the
            # tool), not in another ``claude`` process.
            output_format={"type": "json_schema", "schema": schema} if schema else None,
            max_turns=STRUCTURED_TURNS if schema else 1,
            model=model,
            cli_path=self.cli,
            cwd=self._folder.name,
            setting_sources=[],
            skills=[],
            mcp_servers={},
            strict_mcp_config=True,
            verbatim_prompts=True,
            extra_args={"no-session-persistence": None},
            # Streamed pieces are the sign of life the idle timeout waits for.
            include_partial_messages=True,
            env=_call_env(),
            # As through the API: a character writes its reply without extended thinking,
            # which Claude Code turns on by default and which would count against the plan.
            thinking={"type": "disabled"},
            stderr=stderr.append,
        )

    def reply(self, request: ReplyRequest) -> Answer:
        segments, turn = split_prompt(request)
        return self.ask("".join(segments), turn, chosen_model(self.model, request), request.agent.id,
                        reply_output_schema(request.spec.kind.reply_model))

    def interview(self, request) -> Answer:
        """An answer to ``gamemaster ask``: the whole interview prompt as the one message."""
        return self.ask("", request.prompt, chosen_model(self.model, request), request.agent.id,
                        interview_output_schema())

    def ask(self, system: str, prompt: str, model: str | None, who: str, schema: dict | None = None) -> Answer:
        """One ``claude`` run; every way it can fail becomes one line naming ``who``."""
        stderr: list[str] = []
        seen: dict[str, Any] = {"errors": [], "texts": [], "result": None, "model": None}
        options = self.options(system, model, stderr, schema)
        try:
            anyio.run(self._collect, prompt, options, seen)
        except TimeoutError:
            raise ClaudeCodeError(f"claude-code: {who}: no answer within {self.timeout:g}s (timeout)") from None
        except _Stalled as exc:
            raise ClaudeCodeError(_one_line(f"claude-code: {who}: {exc}{_last(stderr)}")) from None
        except sdk.CLINotFoundError:
            raise ClaudeCodeError(f"backend claude-code: Claude Code is not installed at {self.cli}: {INSTALL_HINT}") from None
        except Exception as exc:  # noqa: BLE001 - the SDK raises bare Exceptions too (an initialize that timed out)
            raise ClaudeCodeError(self._describe(exc, who, seen, stderr)) from None
        finally:
            with contextlib.suppress(OSError):
                os.unlink(options.system_prompt["path"])
        result = seen["result"]
        if result is None:
            raise ClaudeCodeError(f"claude-code: {who}: Claude Code ended without a result{_last(stderr)}")
        notice = None
        played = model_of(result) or seen["model"]
        with self._played_lock:  # characters answer side by side: said once, not once per thread
            if played and not model and played != self.played:
                # When Claude Code's own default first shows (or changes): the budget prices it from now on.
                notice = f"Claude Code plays {played} (its default: no model named for {who}); priced as that from now on"
            self.played = played or self.played
        if isinstance(result.structured_output, dict):
            text = json.dumps(result.structured_output, ensure_ascii=False)
        elif result.is_error and result.subtype == "error_max_turns" and seen["texts"]:
            # The model wrote text instead of using the reply's tool, reminded or not: the loop
            # judges that text and, if it is no reply, asks again with the reason.
            text = "\n".join(seen["texts"])
        elif result.is_error:
            raise ClaudeCodeError(self._describe(None, who, seen, stderr))
        else:
            text = result.result if isinstance(result.result, str) else "".join(seen["texts"])
        usage = usage_of(result)
        dollars = _dollars(result.total_cost_usd)
        if dollars == 0 and usage and any(usage.values()):
            # Claude Code reports $0 for a model it has no price for: the price table prices it.
            dollars = None
        return Answer(text=text, usage=usage, model=played or model, cost_usd=dollars, notice=notice)

    async def _collect(self, prompt: str, options: Any, seen: dict[str, Any]) -> None:
        # aclosing: on a timeout the SDK's cleanup (ending the claude process) runs inside
        # this event loop, not when the generator is collected after the loop is gone.
        try:
            with anyio.move_on_after(self.timeout) as scope:
                async with contextlib.aclosing(sdk.query(prompt=prompt, options=options)) as messages:
                    await self._read(messages, seen)
        finally:
            _close_ended_processes()  # however the call ended: no pipe is left to a closed loop
        if scope.cancelled_caught:
            raise TimeoutError

    async def _read(self, messages: Any, seen: dict[str, Any]) -> None:
        for count in range(MESSAGE_LIMIT + 1):
            with anyio.move_on_after(self.idle_timeout) as wait:
                message = await anext(messages, None)
            if wait.cancelled_caught:
                if count == 0:
                    raise _Stalled(f"Claude Code said nothing within {self.idle_timeout:g}s of starting")
                raise _Stalled(f"Claude Code stopped answering: nothing for {self.idle_timeout:g}s")
            if message is None:
                return
            if isinstance(message, sdk.SystemMessage) and message.subtype == "init":
                seen["model"] = message.data.get("model") if isinstance(message.data, dict) else None
            elif isinstance(message, sdk.AssistantMessage):
                if message.error:
                    seen["errors"].append(message.error)
                seen["texts"] += [block.text for block in message.content if isinstance(block, sdk.TextBlock)]
            elif isinstance(message, sdk.ResultMessage):
                seen["result"] = message
        raise _Stalled(f"Claude Code sent more than {MESSAGE_LIMIT} messages for one answer (a flood)")

    def _describe(self, exc: BaseException | None, who: str, seen: dict[str, Any], stderr: list[str]) -> str:
        if "authentication_failed" in seen["errors"]:
            return f"backend claude-code: Claude Code ({self.cli}) is not logged in: {LOGIN_HINT}"
        result = seen["result"]
        said = ""
        if result is not None and result.is_error:
            said = result.result or "; ".join(result.errors or []) or result.subtype
        elif exc is not None:
            said = str(exc).split("\n", 1)[0] or type(exc).__name__
        return _one_line(f"claude-code: {who}: {said}{_last(stderr)}")


def _close_ended_processes() -> None:
    """Close the pipes of a ``claude`` the SDK ended on a timeout but let go of unclosed.

    Left to the garbage collector, they would be closed after ``anyio.run`` has closed this
    thread's event loop, and asyncio would print a traceback. Only transports of this loop
    whose process has ended are touched, so another character's call is never disturbed.
    """
    import asyncio
    from asyncio.base_subprocess import BaseSubprocessTransport

    loop = asyncio.get_running_loop()
    for found in gc.get_objects():
        if (isinstance(found, BaseSubprocessTransport) and getattr(found, "_loop", None) is loop
                and found.get_returncode() is not None and not found.is_closing()):
            found.close()


def usage_of(result: Any) -> dict[str, int] | None:
    """The four counters ``gamemaster cost`` prices, from a ``ResultMessage``; a missing one is 0."""
    usage = result.usage
    if not isinstance(usage, dict):
        return None
    return {name: _count(usage.get(name)) for name in USAGE_FIELDS}


def model_of(result: Any) -> str | None:
    """The model that did most of the work (``modelUsage``, by output tokens)."""
    per_model = result.model_usage
    if not isinstance(per_model, dict) or not per_model:
        return None
    return max(per_model, key=lambda name: _count((per_model[name] or {}).get("outputTokens")))


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _dollars(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0 else None


def _last(stderr: list[str]) -> str:
    """The end of what Claude Code wrote to stderr, on the same line."""
    lines = [line.strip() for line in stderr if line.strip()]
    return f" ({'; '.join(lines[-3:])[-300:]})" if lines else ""


def _one_line(text: str) -> str:
    return " ".join(text.split())


__all__ = ["CLI_VARIABLE", "ClaudeCodeBackend", "ClaudeCodeError", "find_cli", "login_status", "model_of", "usage_of"]
