"""The character's ``recall`` in a claude-code backend run: an in-process MCP tool.

The API backend offers ``recall`` as a tool of the Messages API (``lookup_loop.py``); a ``claude``
run started through the Agent SDK gets the same tool from an MCP server that lives in this
process (the SDK's ``create_sdk_mcp_server``): Claude Code calls it over its control channel, so
the lookup runs here, on the character's own stream, and nothing of the workspace is opened to
the ``claude`` process. The run is allowed this one tool and no other.

A ``claude`` kept for the character's next turn keeps its server; each turn puts its own
lookups (what that turn's prompt showed is left out) on the ``Desk`` the tool answers from.
"""

from __future__ import annotations

from typing import Any

import anyio
import claude_agent_sdk as sdk

from ..lang import phrase
from ..lookup import MAX_LOOKUPS, QUERY_CHARS, TurnLookups
from .lookup_loop import TOOL_NAME

#: The MCP server's name: Claude Code shows the model the tool as ``mcp__<server>__recall``.
SERVER = "memory"
#: The one tool the character's ``claude`` may call without asking (``allowed_tools``).
ALLOWED = f"mcp__{SERVER}__{TOOL_NAME}"


class Desk:
    """What the tool answers from during one turn: that turn's lookups (None between turns), and
    the first lookup that failed (raised after the turn: a damaged stream is not a silent miss)."""

    def __init__(self) -> None:
        self.turn: TurnLookups | None = None
        self.error: BaseException | None = None

    def start(self, turn: TurnLookups | None) -> None:
        self.turn, self.error = turn, None

    async def answer(self, query: Any) -> dict[str, Any]:
        turn = self.turn
        if turn is None:  # a call after the turn ended: nothing to answer from
            return {"content": [{"type": "text", "text": "—"}], "is_error": True}
        try:
            # Retrieval reads files and may rank for a while: off the loop every character shares.
            text = await anyio.to_thread.run_sync(turn.answer, query)
        except Exception as exc:  # noqa: BLE001 - kept and raised with the turn's answer
            self.error = self.error or exc
            return {"content": [{"type": "text", "text": phrase(turn.language, "lookup_nothing")}], "is_error": True}
        return {"content": [{"type": "text", "text": text}]}


def recall_server(desk: Desk, language: str) -> Any:
    """The MCP server with the one tool, described in the studio's language."""
    schema = {
        "type": "object",
        "properties": {"query": {"type": "string", "maxLength": QUERY_CHARS,
                                 "description": phrase(language, "lookup_query")}},
        "required": ["query"],
    }

    async def recall(args: dict[str, Any]) -> dict[str, Any]:
        return await desk.answer(args.get("query", "") if isinstance(args, dict) else "")

    tool = sdk.tool(TOOL_NAME, phrase(language, "lookup_tool", max=MAX_LOOKUPS), schema)(recall)
    return sdk.create_sdk_mcp_server(SERVER, tools=[tool])
