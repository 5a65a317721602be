"""The one interface the scene loop calls: a built prompt in, reply text out."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

# What a backend is asked lives in the value layer (``turns.py``); named here as backends import it.
from ..turns import InterviewRequest, ReplyRequest, Turn  # noqa: F401


#: The cacheable segments a ``ReplyRequest`` carries, in prompt order.
SEGMENTS = ("shared_prompt", "stable_prompt", "day_prompt", "memory_prompt")


def prompt_parts(request: ReplyRequest) -> tuple[list[tuple[str, str]], str]:
    """The prompt as (the stable segments that start it, each with its field name, the rest),
    for backends that send a system prompt and one user message.

    The segments are ``shared_prompt`` (reply contract, roster, studio bible: the same for
    every character), ``stable_prompt`` (persona, reflections), ``day_prompt`` (the memories
    of earlier days chosen for the day) and then ``memory_prompt`` (this scene's memories),
    each where the prompt really continues with it (an empty one is left out); the rest is
    what changes from turn to turn and retry to retry. Without a stable start, or with nothing
    after it, the whole prompt is the rest and there are no segments, so no text is ever sent
    twice.
    """
    prompt = request.prompt
    parts, offset = [], 0
    for name in SEGMENTS:
        segment = getattr(request, name)
        if not segment:
            continue
        if not prompt.startswith(segment, offset):
            break
        parts.append((name, segment))
        offset += len(segment)
    rest = prompt[offset:]
    if not parts or not rest.strip():
        return [], prompt
    return parts, rest


def split_prompt(request: ReplyRequest) -> tuple[list[str], str]:
    """``prompt_parts`` without the names: the segments' texts and the rest."""
    parts, rest = prompt_parts(request)
    return [text for _, text in parts], rest


def chosen_model(override: str | None, request: ReplyRequest | InterviewRequest) -> str | None:
    """The model a character plays with: the command line's, then the agent's own, then the
    world's (``world.json`` ``model``); None leaves the choice to the backend."""
    return override or request.agent.model or request.default_model or None


@dataclass
class Answer:
    """A backend's reply with what it cost, for backends that know."""

    text: str
    usage: dict[str, int] | None = None
    model: str | None = None
    #: What the backend itself reported the call cost in US dollars (Claude Code does);
    #: None when it reports tokens only and the price table prices them.
    cost_usd: float | None = None
    #: What the backend wants said about this answer (a replay: the prompt changed since it was recorded).
    notice: str | None = None
    #: The backend that answered, where it is not the one asked (a replay's fallback).
    backend: str | None = None
    #: What the character looked up in its own memory on the way (``lookup.Found``), in order.
    lookups: list | None = None


@dataclass(frozen=True)
class Capabilities:
    """What a backend can do, declared rather than guessed from its attributes.

    The defaults describe the least a backend may do: answer scene turns one at a time,
    report no usage, and fail a scene on its first invalid reply.
    """

    #: Sends a scene's independent calls as one Message Batch: ``submit_batch``,
    #: ``batch_status`` and ``batch_results`` (``--batch``).
    batches: bool = False
    #: Its answers carry token usage (``Answer.usage``), so a run ends with what it cost so far.
    usage: bool = False
    #: Its models are in the price table and ``model_for(request)`` names the one a request
    #: goes to, so ``--budget`` can estimate a scene before it is played.
    pricing: bool = False
    #: How many characters of one scene may be asked at the same time (MEETINGs stay in turn).
    parallel: int = 1
    #: Answers ``gamemaster ask`` through ``interview(request)``.
    interviews: bool = False
    #: Plays on this machine: no network, no key, and so none of the API options (``--model``…).
    local: bool = False
    #: How often the loop asks again, with the validation error, after an invalid reply.
    retries: int = 0
    #: Lets a character look into its own memory mid-turn through the request's ``lookup``
    #: (``lookup.py``); ``Answer.lookups`` says what it looked up.
    lookups: bool = False


class Backend(Protocol):
    """What the loop calls. Every backend has ``name``, ``capabilities`` and ``reply``;
    a capability that is set promises the methods its field names (``interview``,
    ``model_for``, the batch methods).

    A backend registered by name (built in, or through the ``gamemaster.backends`` entry
    point group) has ``capabilities`` on its factory as well, usually as a class attribute,
    because API options are refused for a ``local`` backend before it is built.
    """

    name: str
    capabilities: Capabilities

    def reply(self, request: ReplyRequest) -> str | Answer: ...
