"""Reading a reply, and the rules a schema cannot express.

``parse_reply`` turns a character's text into the kind's reply model (``reply_models.py``);
``check_reply`` applies the rules that need the scene (right agent, right scene, what the
scene's kind requires and allows, evidence ids that exist and that the agent's prompt
showed). Every message names the agent and the field.
"""

from __future__ import annotations

import re
from typing import Collection, Iterable

from pydantic import ValidationError

from . import jsontext
from .kinds import ReplyCheck, check_kind
from .reply_models import (  # noqa: F401  (the reply contract, as other modules import it from here)
    ARTIFACT_KIND_RE,
    TAKEAWAY_CHARS,
    TAKEAWAYS_MAX,
    ArtifactDraft,
    ConversationNote,
    GatheringDraft,
    Insight,
    InvitationAnswer,
    MemoryNote,
    PlanUpdate,
    Reply,
    Takeaway,
    TalkWishDraft,
    reply_schema,
)
from .scenes import SceneSpec
from .sections import sections_for


class ReplyError(ValueError):
    """A reply that cannot be written; ``problems`` are ``field: reason`` strings."""

    def __init__(self, agent: str, problems: list[str]):
        self.agent = agent
        self.problems = problems
        super().__init__("; ".join(f"{agent}: {p}" for p in problems))


_FENCE_RE = re.compile(r"```(?:json)?\s*\n(.*?)\n\s*```", re.DOTALL)


def extract_json(text: str) -> object:
    """The JSON object in a reply: bare, in a code fence, or with prose around it.

    Of several fenced blocks the last one wins: a corrected reply often quotes
    the one it corrects first.
    """
    stripped = text.strip()
    candidates = [stripped]
    candidates += [m.group(1) for m in reversed(list(_FENCE_RE.finditer(text)))]
    start, end = text.find("{"), text.rfind("}")
    if start != -1 and end > start:
        candidates.append(text[start : end + 1])
    last_error = None
    for candidate in candidates:
        try:
            return jsontext.loads(candidate)
        except jsontext.JSONDecodeError as exc:
            last_error = exc
    where = f" (line {last_error.lineno}, column {last_error.colno}: {last_error.msg})" if last_error else ""
    raise ValueError(f"no JSON object found in the reply{where}")


def format_validation_error(exc: ValidationError) -> list[str]:
    problems = []
    for error in exc.errors():
        field = ".".join(str(part) for part in error["loc"]) or "reply"
        problems.append(f"{field}: {error['msg']}")
    return problems


def parse_reply(text: str | dict, agent: str, model: type[Reply] = Reply) -> Reply:
    """A ``model`` (the scene kind's reply model) from raw text or a decoded object;
    ``ReplyError`` names agent and field."""
    try:
        data = text if not isinstance(text, str) else extract_json(text)
    except ValueError as exc:
        raise ReplyError(agent, [f"reply: {exc}"]) from None
    if not isinstance(data, dict):
        raise ReplyError(agent, ["reply: expected a JSON object"])
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ReplyError(agent, format_validation_error(exc)) from None


def check_reply(
    reply: Reply,
    *,
    agent: str,
    spec: SceneSpec,
    roster: Iterable[str],
    evidence_exists,
    final_turn: bool = True,
    shown: Collection[str] | None = None,
    said_before: tuple[str, ...] = (),
    world=None,
    heard_from: Collection[str] | None = None,
) -> None:
    """Scene rules a schema cannot express. ``evidence_exists(ids)`` returns the missing ids;
    ``shown`` are the memory ids the agent's prompt showed, the only ones evidence may cite;
    ``world`` the studio as the scene found it: its gatherings are what ``invitations`` may
    answer, and its day what a proposed gathering must fit in (None: not checked); ``heard_from``
    whose words the prompt showed as heard lately (None: not recorded)."""
    problems: list[str] = []
    if reply.agent != agent:
        problems.append(f"agent: expected {agent!r}, got {reply.agent!r}")
    if reply.scene != spec.ref:
        problems.append(f"scene: expected {spec.ref!r} (the pending scene), got {reply.scene!r}")
    ctx = ReplyCheck(agent, spec, list(roster), evidence_exists, final_turn, shown, said_before, world, heard_from)
    problems += check_kind(reply, ctx)
    for section in sections_for(spec.kind):
        problems += section.check(reply, ctx)
    if problems:
        raise ReplyError(agent, problems)
