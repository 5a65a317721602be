"""The reply's JSON Schema as a backend sends it for structured output.

The API backend sends it as the request's output format; the claude-code backend hands it to
Claude Code (``--json-schema``), which offers the model a tool of that schema and checks what the
model gives it. The schema is the same for both, so a reply is held to one shape however it is
played; the loop's own validation still checks every rule.
"""

from __future__ import annotations

import functools
from typing import Any

import anthropic

from ..interview import InterviewAnswer
from ..reply_models import Reply, reply_schema


@functools.lru_cache(maxsize=None)
def reply_output_schema(model: type[Reply] = Reply) -> dict[str, Any]:
    """The JSON Schema of a reply (``model``: the scene kind's reply model) in the subset
    structured outputs accept.

    ``transform_schema`` closes every object (``additionalProperties: false``)
    and moves constraints the API rejects (``pattern``, ``minLength``,
    ``minimum``…) into descriptions; the loop's own validation still enforces them.
    """
    return anthropic.transform_schema(reply_schema(model))


@functools.lru_cache(maxsize=1)
def interview_output_schema() -> dict[str, Any]:
    """The schema of an interview answer (``gamemaster ask``)."""
    return anthropic.transform_schema(InterviewAnswer.model_json_schema())


def output_config(model: type[Reply] = Reply) -> dict[str, Any]:
    return {"format": {"type": "json_schema", "schema": reply_output_schema(model)}}
