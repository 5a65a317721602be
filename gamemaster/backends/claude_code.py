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
  shape and checks it; at most three turns), and ``recall`` on the character's own memory, an
  MCP tool answered in this process (``claude_recall``; a turn per lookup, three at most); no other
  tools, no extended thinking, no other MCP servers, no skills, no settings files,
  no saved session, and an empty working folder of its own: the character sees its prompt
  and nothing of the workspace or of the user's Claude Code setup (hooks, CLAUDE.md, plugins);
* the prompt goes verbatim: a ``/`` or ``@`` in a memory is not a command or a file;
* in a scene played in turns (a MEETING) a character's ``claude`` is kept for its next turn,
  which sends only the part of the prompt that changed (``claude_sessions``): one process per
  character and scene instead of one per turn.

What it answers is validated and, if invalid, asked again by the scene loop, as for every
backend. Tokens and the dollar figure Claude Code reports are recorded with the scene.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import tempfile
import threading
import weakref
from typing import Any

import anyio
import claude_agent_sdk as sdk

from ..lookup import MAX_LOOKUPS, TurnLookups
from ..pricing import USAGE_FIELDS
from ..sections import reply_model_for
from .base import Answer, Capabilities, ReplyRequest, chosen_model, split_prompt
from .claude_cli import CLI_VARIABLE, INSTALL_HINT, LOGIN_HINT, ClaudeCodeError, Found, find_cli, login_status, preflight
from .claude_recall import ALLOWED, SERVER, Desk, recall_server
from .claude_sessions import EventLoop, Place, Session, Sessions, continued
from .schema import interview_output_schema, reply_output_schema

# The SDK logs a failed run ("Fatal error in message reader") and then raises it; the raise
# becomes this backend's one line, so the log would only say it twice, unformatted.
logging.getLogger("claude_agent_sdk").addHandler(logging.NullHandler())

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


def _call_env() -> dict[str, str]:
    """What a character's ``claude`` run gets added to the environment: fewer retries of its own,
    unless the user set them."""
    return {} if "CLAUDE_CODE_MAX_RETRIES" in os.environ else {"CLAUDE_CODE_MAX_RETRIES": CLI_RETRIES}


class ClaudeCodeBackend:
    """Each character answered by its own one-turn, tool-less ``claude`` run."""

    name = "claude-code"
    capabilities = Capabilities(usage=True, pricing=True, parallel=4, interviews=True, retries=1, lookups=True)

    def __init__(
        self,
        model: str | None = None,
        concurrency: int = capabilities.parallel,
        retries: int = capabilities.retries,
        timeout: float = 300.0,
        cli_path: str | None = None,
        idle_timeout: float = IDLE_TIMEOUT,
        found: Found | None = None,
    ):
        self.model = model or None
        self.capabilities = dataclasses.replace(
            type(self).capabilities, parallel=max(1, int(concurrency)), retries=max(0, int(retries))
        )
        self.timeout = float(timeout)
        self.idle_timeout = min(float(idle_timeout), self.timeout)
        # Checked before any scene is opened (by the registry before this module and the SDK are
        # imported, and handed in as ``found``): a missing Claude Code or login is one line at once.
        found = found or preflight(cli_path)
        self.cli, self.login = found.cli, found.login
        #: The model Claude Code played the last call with (its default where none is asked for).
        self.played: str | None = None
        self._played_lock = threading.Lock()
        # An empty folder of its own, so nothing of the workspace is where Claude Code starts.
        self._folder = tempfile.TemporaryDirectory(prefix="gamemaster-claude-code-")
        self._loop = EventLoop()
        self._sessions = Sessions()
        # A scene cut short leaves its kept runs: they end with the program, not when a pipe closes.
        weakref.finalize(self, _end_sessions, self._loop, self._sessions)

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

    def options(self, system: str, model: str | None, stderr: list[str], schema: dict | None = None,
                desk: tuple[Desk, str] | None = None) -> Any:
        """The SDK options for one character's ``claude``, and the file its system prompt is in:
        on the command line one over 128 KiB would keep ``claude`` from starting at all. With a
        ``desk`` (and the studio's language) the run has the character's ``recall`` tool."""
        fd, path = tempfile.mkstemp(prefix="system-", suffix=".md", dir=self._folder.name)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(system)
        return sdk.ClaudeAgentOptions(
            system_prompt={"type": "file", "path": path},
            tools=[],
            allowed_tools=[ALLOWED] if desk else [],
            # The reply's schema, as the API backend sends it: Claude Code offers the model a tool
            # of that shape and checks what it is given, so a reply out of shape is corrected in
            # this run (a second turn, a third where Claude Code has to remind the model of the
            # tool), not in another ``claude`` process.
            output_format={"type": "json_schema", "schema": schema} if schema else None,
            max_turns=(STRUCTURED_TURNS if schema else 1) + (MAX_LOOKUPS if desk else 0),
            model=model,
            cli_path=self.cli,
            cwd=self._folder.name,
            setting_sources=[],
            skills=[],
            mcp_servers={SERVER: recall_server(*desk)} if desk else {},
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
        ), path

    def reply(self, request: ReplyRequest) -> Answer:
        segments, turn = split_prompt(request)
        spec = request.spec
        # In a scene played in turns the character's claude is kept while it has a turn to come.
        place = (Place(spec.ref, request.agent.id, request.language, keep=not request.final_turn)
                 if spec.kind.in_sequence else None)
        lookups = TurnLookups(request.lookup, request.language) if request.lookup is not None else None
        answer = self.ask("".join(segments), turn, chosen_model(self.model, request), request.agent.id,
                          reply_output_schema(reply_model_for(request.spec.kind)), place, lookups)
        return dataclasses.replace(answer, lookups=lookups.found) if lookups is not None else answer

    def interview(self, request) -> Answer:
        """An answer to ``gamemaster ask``: the whole interview prompt as the one message."""
        return self.ask("", request.prompt, chosen_model(self.model, request), request.agent.id,
                        interview_output_schema())

    def ask(self, system: str, prompt: str, model: str | None, who: str, schema: dict | None = None,
            place: Place | None = None, lookups: TurnLookups | None = None) -> Answer:
        """One answer from ``claude``; every way it can fail becomes one line naming ``who``."""
        seen: dict[str, Any] = {"errors": [], "texts": [], "result": None, "model": None, "stderr": [], "count": 0,
                                "spent_before": 0.0, "lookups": lookups}
        try:
            self._loop.run(self._turn(system, prompt, model, schema, place, seen))
        except TimeoutError:
            raise ClaudeCodeError(f"claude-code: {who}: no answer within {self.timeout:g}s (timeout)") from None
        except _Stalled as exc:
            raise ClaudeCodeError(_one_line(f"claude-code: {who}: {exc}{_last(seen['stderr'])}")) from None
        except sdk.CLINotFoundError:
            raise ClaudeCodeError(f"backend claude-code: Claude Code is not installed at {self.cli}: {INSTALL_HINT}") from None
        except Exception as exc:  # noqa: BLE001 - the SDK raises bare Exceptions too (an initialize that timed out)
            raise ClaudeCodeError(self._describe(exc, who, seen)) from None
        return self._answer(seen, model, who)

    def _answer(self, seen: dict[str, Any], model: str | None, who: str) -> Answer:
        result = seen["result"]
        if result is None:
            raise ClaudeCodeError(f"claude-code: {who}: Claude Code ended without a result{_last(seen['stderr'])}")
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
            raise ClaudeCodeError(self._describe(None, who, seen))
        else:
            text = result.result if isinstance(result.result, str) else "".join(seen["texts"])
        usage = usage_of(result)
        # A claude kept between turns reports what it cost since it started: this turn is the rest.
        dollars = _dollars(result.total_cost_usd)
        dollars = None if dollars is None else max(0.0, round(dollars - seen["spent_before"], 10))
        if dollars == 0 and usage and any(usage.values()):
            # Claude Code reports $0 for a model it has no price for: the price table prices it.
            dollars = None
        return Answer(text=text, usage=usage, model=played or model, cost_usd=dollars, notice=notice)

    async def _turn(self, system: str, prompt: str, model: str | None, schema: dict | None,
                    place: Place | None, seen: dict[str, Any]) -> None:
        """One turn on the backend's loop: in the ``claude`` kept for it (sending what changed),
        else in a new one; kept afterwards where the character has a turn to come."""
        lookups: TurnLookups | None = seen["lookups"]
        # A kept claude has the recall tool or not, in the language it was started in.
        fitted = (system, model, json.dumps(schema, sort_keys=True), lookups and lookups.language)
        kept = await self._sessions.take(place, fitted)
        with anyio.move_on_after(self.timeout) as scope:
            if kept is not None and await self._exchange(kept, continued(kept.sent, prompt, place.language), seen,
                                                         kept=True):
                session = kept
            else:
                session = await self._start(system, model, schema, fitted, seen)
                await self._exchange(session, prompt, seen)
        if scope.cancelled_caught:
            raise TimeoutError
        if place is not None and place.keep and seen["result"] is not None and not seen["result"].is_error:
            session.spent = _dollars(seen["result"].total_cost_usd) or session.spent
            self._sessions.keep(session, place, prompt)
        else:
            await session.close()

    async def _exchange(self, session: Session, message: str, seen: dict[str, Any], kept: bool = False) -> bool:
        """Send one message and read the answer to it. False where a kept ``claude`` turned out to
        be gone before it answered anything (ended between turns): the turn starts a new one."""
        seen["stderr"] = session.stderr
        seen["spent_before"] = session.spent
        session.stderr.clear()
        if session.desk is not None:  # this turn's recall answers from this turn's lookups
            session.desk.start(seen["lookups"])
        try:
            await session.client.query(message)
            async with contextlib.aclosing(session.client.receive_response()) as messages:
                await self._read(messages, seen)
            if session.desk is not None and session.desk.error is not None:
                raise session.desk.error
        except Exception as exc:
            await session.close()
            if kept and not seen["count"] and not isinstance(exc, _Stalled):  # a silent one is not tried twice
                return False
            raise
        except BaseException:
            await session.close()
            raise
        if kept and seen["result"] is None and not seen["count"]:
            await session.close()
            return False
        return True

    async def _start(self, system: str, model: str | None, schema: dict | None, fitted: tuple,
                     seen: dict[str, Any]) -> Session:
        stderr: list[str] = []
        seen["stderr"] = stderr
        lookups: TurnLookups | None = seen["lookups"]
        desk = Desk() if lookups is not None else None
        options, path = self.options(system, model, stderr, schema, desk and (desk, lookups.language))
        session = Session(sdk.ClaudeSDKClient(options=options), fitted, path, stderr, desk=desk)
        with anyio.move_on_after(self.idle_timeout) as wait:
            try:
                await session.client.connect()
            except BaseException:
                await session.close()
                raise
        if wait.cancelled_caught:
            await session.close()
            raise _Stalled(f"Claude Code said nothing within {self.idle_timeout:g}s of starting")
        return session

    def close(self) -> None:
        """End every ``claude`` kept for a next turn (also done when the program ends)."""
        if self._loop.running and len(self._sessions):
            self._loop.run(self._sessions.close_all())

    async def _read(self, messages: Any, seen: dict[str, Any]) -> None:
        for count in range(MESSAGE_LIMIT + 1):
            with anyio.move_on_after(self.idle_timeout) as wait:
                message = await anext(messages, None)
            if wait.cancelled_caught:
                raise _Stalled(f"Claude Code stopped answering: nothing for {self.idle_timeout:g}s")
            if message is None:
                return
            seen["count"] += 1
            if isinstance(message, sdk.SystemMessage) and message.subtype == "init":
                seen["model"] = message.data.get("model") if isinstance(message.data, dict) else None
            elif isinstance(message, sdk.AssistantMessage):
                if message.error:
                    seen["errors"].append(message.error)
                seen["texts"] += [block.text for block in message.content if isinstance(block, sdk.TextBlock)]
            elif isinstance(message, sdk.ResultMessage):
                seen["result"] = message
        raise _Stalled(f"Claude Code sent more than {MESSAGE_LIMIT} messages for one answer (a flood)")

    def _describe(self, exc: BaseException | None, who: str, seen: dict[str, Any]) -> str:
        if "authentication_failed" in seen["errors"]:
            return f"backend claude-code: Claude Code ({self.cli}) is not logged in: {LOGIN_HINT}"
        result = seen["result"]
        said = ""
        if result is not None and result.is_error:
            said = result.result or "; ".join(result.errors or []) or result.subtype
        elif exc is not None:
            said = str(exc).split("\n", 1)[0] or type(exc).__name__
        return _one_line(f"claude-code: {who}: {said}{_last(seen['stderr'])}")


def _end_sessions(loop: EventLoop, sessions: Sessions) -> None:
    if loop.running and len(sessions):
        with contextlib.suppress(Exception):
            loop.run(sessions.close_all(), wait=not loop.is_current())


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
