"""The reply contract as types: one JSON object per agent per scene (per turn in a MEETING).

``Reply`` is what ``gamemaster schema`` prints; a kind may answer with a subclass of its own
(``SceneKind.reply_model``). This is the value layer: it imports no module that knows about
scenes, kinds or files. Reading a reply and the rules that need the scene are ``replies.py``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from .defaults import empty_list
from . import ids
from .linesize import text_too_long
from .schedule import ANSWER_REASON_MAX, GATHERING_INVITED_MAX, GATHERING_PLACE_MAX, GATHERING_TEXT_MAX
from .slots import SLOTS, parse_slot

ARTIFACT_KIND_RE = ids.ARTIFACT_KIND_RE.pattern


#: Invitations one reply may answer; a prompt shows at most this many to answer (the soonest).
INVITATION_ANSWERS_MAX = 50

class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)


Text = Annotated[str, Field(min_length=1)]
#: How much a memory matters, as a reply gives it and as its stream keeps it (``models.Memory``).
Importance = Annotated[int, Field(strict=True, ge=1, le=10)]


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
    tags: Tags = Field(default_factory=empty_list)


class ArtifactDraft(_Strict):
    """A work product; written to ``gallery/<kind>/day-XXX_<slug>_vN.md``."""

    title: Annotated[str, Field(min_length=1, max_length=120)]
    kind: Annotated[str, Field(pattern=ARTIFACT_KIND_RE)]
    content: Text
    summary: Annotated[LineText, Field(description="What colleagues in the room notice.")]
    importance: Importance
    tags: Tags = Field(default_factory=empty_list)


class PlanUpdate(_Strict):
    text: LineText
    tags: Tags = Field(default_factory=empty_list)
    importance: Importance


class TalkWishDraft(_Strict):
    with_: Annotated[Tags, Field(alias="with", min_length=1)]
    topic: LineText
    tags: Tags = Field(default_factory=empty_list)


class Insight(_Strict):
    description: LineText
    importance: Importance
    tags: Tags = Field(default_factory=empty_list)
    evidence: Annotated[Tags, Field(min_length=1)]


class ConversationNote(_Strict):
    """The speaker's own summary of a meeting, asked for in their last turn."""

    summary: LineText
    importance: Importance
    tags: Tags = Field(default_factory=empty_list)


#: Takeaways go into the conversation memory with the transcript: bounded so the line fits.
TAKEAWAY_CHARS = 2_000
TAKEAWAYS_MAX = 10


class Takeaway(_Strict):
    """What the character took away from what someone said (in this conversation, or heard since
    its last scene), in its own words."""

    from_: Annotated[str, Field(alias="from", min_length=1, max_length=64)]
    #: A note, not a transcript: kept in the conversation memory beside the transcript.
    what: Annotated[str, Field(min_length=1, max_length=TAKEAWAY_CHARS)]
    #: How much it matters to the listener (seed 001: the agent scores importance); a takeaway
    #: without one is kept at the weight of anything heard (``kinds.heard.HEARD_IMPORTANCE``).
    importance: Importance | None = None


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
        slot = parse_slot(value)
        if slot is None:
            raise ValueError(f"{value!r} is not a time of day (choose {', '.join(SLOTS)})")
        return slot


class InvitationAnswer(_Strict):
    gathering: Annotated[str, Field(pattern=r"^gathering-\d{3,}$")]
    answer: Literal["accept", "decline"]
    because: Annotated[str, Field(max_length=ANSWER_REASON_MAX, description="Why, in one sentence.")] = ""


class Reply(_Strict):
    """One character's answer to one scene (or one MEETING turn)."""

    agent: Text
    scene: Annotated[str, Field(pattern=r"^day-\d{3,}/scene-\d{2,}$")]
    action: Annotated[str, Field(min_length=1, description="What the character does.")]
    says: Annotated[str, AfterValidator(_fits_a_line)] = Field("", description="What the character says aloud.")
    memories: list[MemoryNote] = Field(default_factory=empty_list)
    artifacts: list[ArtifactDraft] = Field(default_factory=empty_list)
    plan: PlanUpdate | None = None
    talk_wishes: list[TalkWishDraft] = Field(default_factory=empty_list)
    insights: list[Insight] = Field(default_factory=empty_list)
    conversation: ConversationNote | None = None
    takeaways: Annotated[list[Takeaway], Field(max_length=TAKEAWAYS_MAX)] = Field(default_factory=empty_list)
    gathering: GatheringDraft | None = None
    invitations: Annotated[list[InvitationAnswer], Field(max_length=INVITATION_ANSWERS_MAX)] = Field(
        default_factory=empty_list)


def reply_schema(model: type[Reply] = Reply) -> dict:
    """The JSON Schema of ``model``: ``Reply``, or the reply model of one kind."""
    return model.model_json_schema(by_alias=True)
