"""A reply with lookups: the Messages API's tool use, bounded, for a character that may look into
its own memory mid-scene (``lookup.py``).

The character gets one tool, ``recall`` (a query). While a response stops to use it, the loop
answers from the request's ``lookup`` and asks again; after ``MAX_LOOKUPS`` lookups the next call
offers no tool use (``tool_choice`` none), so the turn ends in a reply. Every call's tokens are
summed into the answer's usage: a lookup is paid for like any call.
"""

from __future__ import annotations

from typing import Any, Callable

from ..lang import phrase
from ..lookup import MAX_LOOKUPS, QUERY_CHARS, Found, TurnLookups
from ..pricing import USAGE_FIELDS
from .base import ReplyRequest

TOOL_NAME = "recall"


def recall_tool(language: str) -> dict[str, Any]:
    """The tool's definition, in the studio's language (the model reads its description)."""
    return {
        "name": TOOL_NAME,
        "description": phrase(language, "lookup_tool", max=MAX_LOOKUPS),
        "input_schema": {
            "type": "object",
            "properties": {"query": {"type": "string", "maxLength": QUERY_CHARS,
                                     "description": phrase(language, "lookup_query")}},
            "required": ["query"],
        },
    }


def with_lookups(create: Callable[[dict], Any], params: dict, request: ReplyRequest) -> tuple[Any, dict, list[Found]]:
    """The final message of a turn that may look things up, the usage of all its calls and what
    was looked up. ``create(params)`` makes one Messages API call."""
    params = {**params, "tools": [recall_tool(request.language)], "messages": list(params["messages"])}
    turn = TurnLookups(request.lookup, request.language)
    usage = dict.fromkeys(USAGE_FIELDS, 0)
    while True:
        if len(turn.found) >= MAX_LOOKUPS:
            params["tool_choice"] = {"type": "none"}
        message = create(params)
        for name in USAGE_FIELDS:
            usage[name] += int(getattr(getattr(message, "usage", None), name, None) or 0)
        uses = [block for block in message.content or [] if getattr(block, "type", None) == "tool_use"]
        if message.stop_reason != "tool_use" or not uses or "tool_choice" in params:
            return message, usage, turn.found
        params["messages"].append({"role": "assistant", "content": [_as_param(block) for block in message.content]})
        params["messages"].append({"role": "user", "content": [_result(request, use, turn) for use in uses]})


def _result(request: ReplyRequest, use: Any, turn: TurnLookups) -> dict[str, Any]:
    """The answer to one tool use: what the lookup found, or why there is none."""
    if use.name != TOOL_NAME:
        text = phrase(request.language, "lookup_spent")
    else:
        text = turn.answer(use.input.get("query", "") if isinstance(use.input, dict) else "")
    return {"type": "tool_result", "tool_use_id": use.id, "content": text}


def _as_param(block: Any) -> dict[str, Any]:
    """A response block as a block of the next request's assistant turn."""
    if block.type == "tool_use":
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if block.type == "text":
        return {"type": "text", "text": block.text}
    return block.model_dump(exclude_none=True)
