"""The reply contract: one JSON object per agent per scene (per turn in a MEETING).

``Reply`` is what ``gamemaster schema`` prints. ``parse_reply`` turns a
character's text into a ``Reply``; ``check_reply`` applies the rules that need
the scene (right agent, right scene, what the scene's kind requires and allows,
evidence ids that exist and that the agent's prompt showed). Every message names the agent and the field.
"""

from __future__ import annotations

import re
from typing import Annotated, Collection, Iterable, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_core import PydanticCustomError

from . import ids, jsontext
from .kinds import ReplyCheck, check_kind
from .linesize import text_too_long
from .models import GATHERING_INVITED_MAX, GATHERING_PLACE_MAX, GATHERING_TEXT_MAX, Importance
from .scenes import SceneSpec, scenes_left

ARTIFACT_KIND_RE = ids.ARTIFACT_KIND_RE.pattern


class ReplyError(ValueError):
    """A reply that cannot be written; ``problems`` are ``field: reason`` strings."""

    def __init__(self, agent: str, problems: list[str]):
        self.agent = agent
        self.problems = problems
        super().__init__("; ".join(f"{agent}: {p}" for p in problems))


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)


Text = Annotated[str, Field(min_length=1)]


def _fits_a_line(value):
    problem = text_too_long(value)
    if problem:
        raise PydanticCustomError("too_long", problem.replace("{", "{{").replace("}", "}}"))
    return value


#: What a memory line will hold (an artifact's content goes to its own file instead).
LineText = Annotated[str, Field(min_length=1), AfterValidator(_fits_a_line)]
Tags = Annotated[list[str], AfterValidator(_fits_a_line)]


class MemoryNote(_Strict):
    """Something the character wants to remember from this scene."""

    type: Annotated[str, Field(pattern="^(observation|plan)$")] = "observation"
    description: LineText
    importance: Importance
    tags: Tags = Field(default_factory=list)


class ArtifactDraft(_Strict):
    """A work product; written to ``gallery/<kind>/day-XXX_<slug>_vN.md``."""

    title: Annotated[str, Field(min_length=1, max_length=120)]
    kind: Annotated[str, Field(pattern=ARTIFACT_KIND_RE)]
    content: Text
    summary: Annotated[LineText, Field(description="What colleagues in the room notice.")]
    importance: Importance
    tags: Tags = Field(default_factory=list)


class PlanUpdate(_Strict):
    text: LineText
    tags: Tags = Field(default_factory=list)
    importance: Importance


class TalkWishDraft(_Strict):
    with_: Annotated[Tags, Field(alias="with", min_length=1)]
    topic: LineText
    tags: Tags = Field(default_factory=list)


class Insight(_Strict):
    description: LineText
    importance: Importance
    tags: Tags = Field(default_factory=list)
    evidence: Annotated[Tags, Field(min_length=1)]


class ConversationNote(_Strict):
    """The speaker's own summary of a meeting, asked for in their last turn."""

    summary: LineText
    importance: Importance
    tags: Tags = Field(default_factory=list)


#: Takeaways go into the conversation memory with the transcript: bounded so the line fits.
TAKEAWAY_CHARS = 2_000
TAKEAWAYS_MAX = 10


class Takeaway(_Strict):
    """What the character took away from someone who spoke in this conversation, in its own words."""

    from_: Annotated[str, Field(alias="from", min_length=1, max_length=64)]
    #: A note, not a transcript: kept in the conversation memory beside the transcript.
    what: Annotated[str, Field(min_length=1, max_length=TAKEAWAY_CHARS)]


class GatheringDraft(_Strict):
    """A gathering the character organises (``gatherings.py``)."""

    what: Annotated[str, Field(min_length=1, max_length=GATHERING_TEXT_MAX)]
    day: Annotated[int, Field(strict=True, ge=1, le=1_000_000)]
    slot: Annotated[str, Field(description="morning, lunch, afternoon or evening")]
    place: Annotated[str, Field(min_length=1, max_length=GATHERING_PLACE_MAX)]
    invite: Annotated[list[str], Field(min_length=1, max_length=GATHERING_INVITED_MAX,
                                       description='Agent ids, or "alle" for everyone.')]

    @field_validator("slot")
    @classmethod
    def _slot(cls, value: str) -> str:
        from .slots import SLOTS, parse_slot

        slot = parse_slot(value)
        if slot is None:
            raise ValueError(f"{value!r} is not a time of day (choose {', '.join(SLOTS)})")
        return slot


class InvitationAnswer(_Strict):
    gathering: Annotated[str, Field(pattern=r"^gathering-\d{3,}$")]
    answer: Literal["accept", "decline"]


class Reply(_Strict):
    """One character's answer to one scene (or one MEETING turn)."""

    agent: Text
    scene: Annotated[str, Field(pattern=r"^day-\d{3,}/scene-\d{2,}$")]
    action: Annotated[str, Field(min_length=1, description="What the character does.")]
    says: Annotated[str, AfterValidator(_fits_a_line)] = Field("", description="What the character says aloud.")
    memories: list[MemoryNote] = Field(default_factory=list)
    artifacts: list[ArtifactDraft] = Field(default_factory=list)
    plan: PlanUpdate | None = None
    talk_wishes: list[TalkWishDraft] = Field(default_factory=list)
    insights: list[Insight] = Field(default_factory=list)
    conversation: ConversationNote | None = None
    takeaways: Annotated[list[Takeaway], Field(max_length=TAKEAWAYS_MAX)] = Field(default_factory=list)
    gathering: GatheringDraft | None = None
    invitations: Annotated[list[InvitationAnswer], Field(max_length=50)] = Field(default_factory=list)


def reply_schema() -> dict:
    return Reply.model_json_schema(by_alias=True)


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


def parse_reply(text: str | dict, agent: str) -> Reply:
    """A ``Reply`` from raw text or a decoded object; ``ReplyError`` names agent and field."""
    try:
        data = text if not isinstance(text, str) else extract_json(text)
    except ValueError as exc:
        raise ReplyError(agent, [f"reply: {exc}"]) from None
    if not isinstance(data, dict):
        raise ReplyError(agent, ["reply: expected a JSON object"])
    try:
        return Reply.model_validate(data)
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
) -> None:
    """Scene rules a schema cannot express. ``evidence_exists(ids)`` returns the missing ids;
    ``shown`` are the memory ids the agent's prompt showed, the only ones evidence may cite;
    ``world`` the studio as the scene found it: its gatherings are what ``invitations`` may
    answer, and its day what a proposed gathering must fit in (None: not checked)."""
    problems: list[str] = []
    if reply.agent != agent:
        problems.append(f"agent: expected {agent!r}, got {reply.agent!r}")
    if reply.scene != spec.ref:
        problems.append(f"scene: expected {spec.ref!r} (the pending scene), got {reply.scene!r}")
    problems += check_kind(reply, ReplyCheck(agent, spec, roster, evidence_exists, final_turn, shown, said_before))
    known = set(roster)
    for index, wish in enumerate(reply.talk_wishes):
        for partner in wish.with_:
            if partner == agent:
                problems.append(f"talk_wishes.{index}.with: {agent} cannot talk to themselves")
            elif partner not in known:
                problems.append(f"talk_wishes.{index}.with: unknown agent {partner!r}")
    present = [p for p in spec.room_of(agent) if p != agent]
    for index, taken in enumerate(reply.takeaways):
        if taken.from_ not in present:
            problems.append(f"takeaways.{index}.from: {taken.from_!r} did not speak with you here "
                            f"(present: {', '.join(present) or 'nobody'})")
    from .gatherings import answer_problems, proposal_problems

    if reply.gathering is not None:
        left = scenes_left(world, spec) if world is not None else None
        problems += proposal_problems(reply.gathering, agent, spec, known, left)
    problems += answer_problems(reply.invitations, agent, spec.day, world.gatherings if world is not None else None)
    if problems:
        raise ReplyError(agent, problems)
