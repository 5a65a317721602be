"""The state files as pydantic models: memories, agents, the world.

Fields a user adds by hand are kept (``extra="allow"``) and written back
unchanged; memory lines are never rewritten at all, only appended.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Any, Literal

from pydantic import (AfterValidator, BaseModel, ConfigDict, Field, SerializationInfo, ValidationInfo, field_serializer,
                      field_validator, model_validator)
from pydantic_core import PydanticCustomError

from .defaults import empty_dict, empty_list
from . import calendar, jsontext

MEMORY_TYPES = ("observation", "reflection", "plan", "artifact", "conversation")
MemoryType = Literal["observation", "reflection", "plan", "artifact", "conversation"]

from .reply_models import Importance  # noqa: F401 (re-exported)
from .ids import AGENT_ID_RE, SCENE_REF_RE, agent_id, artifact_kind, parse_scene_ref, relative_folder, scene_ref  # noqa: F401 (re-exported)
from .schedule import (  # noqa: F401 (re-exported)
    GATHERING_DAYS_AHEAD, GATHERING_INVITED_MAX, GATHERING_PLACE_MAX, GATHERING_TEXT_MAX, GATHERINGS_MAX, RSVP, WEEKDAYS,
    Event, checked_gatherings,
    Gathering, Weekday,
)

MEMORY_ID_RE = re.compile(r"^([a-z][a-z0-9_]*)-(\d{3,18})$")
#: A team is a label people write by hand ("audio", "Level Design"), not a path part:
#: one line of at most 40 characters with no spaces at either end.
TEAM_RE = re.compile(r"[^\s\x00-\x1f\x7f](?:[^\x00-\x1f\x7f]{0,38}[^\s\x00-\x1f\x7f])?")


def memory_id(agent: str, number: int) -> str:
    return f"{agent}-{number:03d}"


def memory_author(memory_id: str) -> str | None:
    """Whose stream a memory id belongs to (``tobi-012`` → ``tobi``); None for no memory id.

    Evidence may cite another character's memory (ideas spread by observation), so an id
    alone says which stream to look in."""
    match = MEMORY_ID_RE.match(memory_id)
    return match.group(1) if match else None


class Memory(BaseModel):
    """One line of ``state/memories/{agent}.jsonl`` (seed 001's node schema)."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    id: str
    # Optional only because seed 001's cross-agent example omits it; every
    # memory the tool writes carries it.
    created: str | None = None
    type: MemoryType
    depth: Annotated[int, Field(strict=True, ge=0)] = 0
    description: Annotated[str, Field(min_length=1)]
    importance: Importance
    tags: list[str] = Field(default_factory=empty_list)
    evidence: list[str] = Field(default_factory=empty_list)
    metadata: dict[str, Any] = Field(default_factory=empty_dict)

    @field_validator("id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        if not MEMORY_ID_RE.match(value):
            raise ValueError(f"{value!r} is not of the form agent-NNN (three to 18 digits)")
        return value

    @field_validator("created")
    @classmethod
    def _created_shape(cls, value: str | None) -> str | None:
        if value is not None and not SCENE_REF_RE.match(value):
            raise ValueError(f"{value!r} is not of the form day-XXX/scene-YY")
        return value

    @model_validator(mode="after")
    def _depth_matches_type(self) -> Memory:
        if self.type == "reflection" and self.depth < 1:
            raise ValueError("a reflection needs depth 1 or more")
        if self.type != "reflection" and self.depth != 0:
            raise ValueError(f"depth {self.depth} is only allowed on reflections")
        return self

    @property
    def number(self) -> int:
        return int(MEMORY_ID_RE.match(self.id).group(2))

    @property
    def scene_key(self) -> tuple[int, int] | None:
        return parse_scene_ref(self.created) if self.created else None

    def to_line(self) -> str:
        return jsontext.dumps(self.model_dump(mode="json"))


class Plan(BaseModel):
    model_config = ConfigDict(extra="allow", defer_build=True)

    text: Annotated[str, Field(min_length=1)]
    tags: list[str] = Field(default_factory=empty_list)
    #: The scene it was made in: a plan is for the day it was made on, and a prompt says which.
    created: str | None = None


class Interest(BaseModel):
    """One of an agent's interests: what it is about, and the tags its memories carry."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    topic: Annotated[str, Field(min_length=1)]
    tags: list[str] = Field(default_factory=empty_list)

    @model_validator(mode="before")
    @classmethod
    def _plain_word(cls, data: Any) -> Any:
        # A hand-made character often lists its interests as words: each is a topic without tags.
        return {"topic": data} if isinstance(data, str) else data


class DayMemories(BaseModel):
    """Memories of earlier days a character's prompts show all day (``day_memories.py``)."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    #: The day they were chosen for, at its first plan, from the memories of the days before.
    day: Annotated[int, Field(ge=1)]
    ids: list[str] = Field(default_factory=empty_list)
    #: A memory's id → the heard lines shown under it (``retrieval.heard``).
    heard: dict[str, list[str]] = Field(default_factory=empty_dict)
    #: The newest reflections then: prompts show them with the persona all day.
    reflections: list[str] = Field(default_factory=empty_list)


class TalkWish(BaseModel):
    """An agent wants to talk with colleagues about a topic."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, defer_build=True)

    with_: Annotated[list[str], Field(alias="with", min_length=1)]
    topic: Annotated[str, Field(min_length=1)]
    tags: list[str] = Field(default_factory=empty_list)
    #: The scene the wish was made in: the oldest wish is served first.
    created: str | None = None

    @field_validator("with_")
    @classmethod
    def _partners(cls, value: list[str]) -> list[str]:
        return [agent_id(v) for v in value]


class Agent(BaseModel):
    """``state/agents/{id}.json``."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    id: str
    name: str
    role: str
    persona: str
    artifact_kind: str = "notes"
    #: Who hears of this character's meetings under ``kinds.meeting.notices: "team"``
    #: (no team: one group with everyone else who has none).
    team: str | None = None
    importance_accumulator: Annotated[int, Field(strict=True, ge=0)] = 0
    today_plan: Plan | None = None
    talk_wishes: list[TalkWish] = Field(default_factory=empty_list)
    last_scene: str | None = None
    #: The last WORK, MEETING or ENCOUNTER the agent took part in: who waited longest acts next.
    last_acted: str | None = None
    model: str | None = None
    #: What the character cares about: its prompts show them, they pair ENCOUNTERs and seat
    #: meetings. Last, where saving has always put it (it was an extra key before it was typed).
    interests: list[Interest] = Field(default_factory=empty_list)
    day_memories: DayMemories | None = None

    @field_validator("id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        return agent_id(value)

    @field_validator("artifact_kind")
    @classmethod
    def _kind_shape(cls, value: str) -> str:
        return artifact_kind(value)

    @field_validator("team")
    @classmethod
    def _team_shape(cls, value: str | None) -> str | None:
        if value is not None and not TEAM_RE.fullmatch(value):
            raise ValueError(f"{value!r} is not a team (a short name: one line, 1-40 characters, no spaces at either end)")
        return value

    @field_validator("last_scene", "last_acted")
    @classmethod
    def _scene_shape(cls, value: str | None) -> str | None:
        if value is not None:
            parse_scene_ref(value)
        return value

    @field_serializer("interests")
    def _interests_as_written(self, interests: list[Interest], info: SerializationInfo) -> list[dict[str, Any]]:
        # An interest is saved with the keys it was written with: no "tags": [] is added.
        return [interest.model_dump(mode=info.mode, exclude_unset=True) for interest in interests]

    def dump(self) -> dict[str, Any]:
        # Without a team or interests the file stays as it was written: no "team": null or
        # "interests": [] appears in every hand-made character when it is next saved.
        left_out = ({"team"} if self.team is None else set()) | ({"interests"} if "interests" not in self.model_fields_set else set())
        left_out |= {"day_memories"} if self.day_memories is None else set()
        return self.model_dump(mode="json", by_alias=True, exclude=left_out or None)


class Brief(BaseModel):
    """Creative Director feedback not yet seen by every addressee."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    id: str
    text: Annotated[str, Field(min_length=1)]
    to: list[str] | None = None
    created: str
    seen_by: list[str] = Field(default_factory=empty_list)

    @field_validator("to")
    @classmethod
    def _addressees(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else [agent_id(v) for v in value]



class SceneEntry(BaseModel):
    """One applied scene of the current day (the day's running logbook)."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    scene: int
    type: str
    participants: list[str]
    topic: str | None = None


def at_most(high: int, why: str) -> AfterValidator:
    """A setting's upper bound and the reason for it, which the error gives with the bound.

    Every setting has one: ``config`` and a hand edit of world.json meet the same rule,
    and no value makes a command run for ever or a prompt outgrow any model.
    """
    def check(value):
        if value is not None and (len(value) if isinstance(value, str) else value) > high:
            unit = " characters" if isinstance(value, str) else ""
            raise PydanticCustomError("too_large", f"at most {high:,}{unit}: {why}".replace("{", "{{").replace("}", "}}"))
        return value

    check.at_most = (high, why)  # for the generated settings tables (``kind_docs.py``)
    return AfterValidator(check)


def field_value(model: type[BaseModel], name: str, value: Any) -> Any:
    """``value`` checked by the rules of ``model``'s field ``name`` (a setting given on the
    command line rather than in the file); the error is a ``ValueError`` with the reason."""
    from pydantic import TypeAdapter, ValidationError

    field = model.model_fields[name]
    try:
        return TypeAdapter(Annotated[(field.annotation, *field.metadata)]).validate_python(value)
    except ValidationError as exc:
        raise ValueError(exc.errors()[0]["msg"]) from None


#: Whole numbers past this lose digits in tools that read JSON numbers as doubles (jq, JavaScript).
JSON_SAFE_INT = 2**53 - 1
_WEIGHT = at_most(100, "the weights only count relative to each other")


class RetrievalWeights(BaseModel):
    """How the ranked selection weighs its three normalised scores."""

    model_config = ConfigDict(extra="forbid", defer_build=True, allow_inf_nan=False)

    relevance: Annotated[float, Field(ge=0), _WEIGHT] = 3.0
    importance: Annotated[float, Field(ge=0), _WEIGHT] = 0.5
    recency: Annotated[float, Field(ge=0), _WEIGHT] = 0.5


_PROMPT_CHARS = "characters in one prompt; more would not fit any model's context"
_JSON_SAFE = "larger whole numbers lose digits in tools that read JSON numbers as doubles (jq, JavaScript)"


class World(BaseModel):
    """``state/world.json``."""

    model_config = ConfigDict(extra="allow", defer_build=True, allow_inf_nan=False)

    studio: Annotated[str, at_most(200, "a name, shown in every prompt")]
    language: Annotated[str, at_most(35, "a language tag such as de or en")] = "de"
    day: Annotated[int, Field(ge=0)] = 0
    scene: Annotated[int, Field(ge=0)] = 0
    reflection_threshold: Annotated[int, Field(ge=1), at_most(
        10_000, "the importance (1-10 a memory) a character gathers before reflecting; past it they never would")] = 100
    scenes_per_day: Annotated[int, Field(ge=2), at_most(100, "`day advance` plays all of a day's scenes in one run")] = 6
    memory_window: Annotated[int, Field(ge=1), at_most(1_000, "the newest memories read again for every prompt")] = 50
    focus_limit: Annotated[int, Field(ge=0), at_most(1_000, "memories found by topic for one prompt")] = 20
    #: The retrieval strategy (a module in gamemaster/retrieval/strategies/).
    selection: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$"), at_most(64, "a module name")] = "ranked"
    #: Characters of rendered memory lines one prompt may hold.
    memory_budget: Annotated[int, Field(ge=500), at_most(1_000_000, _PROMPT_CHARS)] = 10_000
    #: The share of ``memory_budget`` that goes to memories of earlier days chosen once a day
    #: (``day_memories.py``), which an API caches all day; 0: each scene chooses from all of it.
    day_memory_share: Annotated[float, Field(ge=0), at_most(
        0.8, "each scene keeps a fifth of memory_budget for what it is about")] = 0.4
    retrieval_weights: RetrievalWeights = Field(default_factory=lambda: RetrievalWeights())
    #: Story days after which a memory's recency score has halved.
    recency_half_life: Annotated[float, Field(gt=0), at_most(10_000, "story days; longer is no fading at all")] = 3.0
    #: Characters of a meeting's transcript shown verbatim in a turn's prompt; earlier turns
    #: are shortened to one line each, so a prompt has a ceiling whatever the meeting's size.
    #: Studio-wide like ``memory_budget``: every kind whose turns follow each other shows one.
    #: Claude speaks about 1,900 characters a turn: this keeps a round of four whole.
    transcript_budget: Annotated[int, Field(ge=500), at_most(1_000_000, _PROMPT_CHARS)] = 12_000
    #: Characters of library excerpts a prompt may hold (0: no library); studio-wide like
    #: ``memory_budget``: it bounds any kind that ``consults_library``.
    library_budget: Annotated[int, Field(ge=0), at_most(1_000_000, _PROMPT_CHARS)] = 1500
    #: Story days a finished day's scene folder stays unpacked before ``day advance`` packs it as
    #: ``day archive`` does (0: only ``day archive`` packs); a week keeps recent prompts readable.
    archive_after: Annotated[int, Field(ge=0), at_most(100_000, "story days; 0 is never")] = 7
    #: Each kind's own settings under its name in lower case, read here as they stand; each is
    #: checked by its kind where the kind is used (``kinds/settings.py``), not by this value, and
    #: the section of a kind not installed is kept as it is.
    kinds: dict[str, Any] = Field(default_factory=empty_dict)
    seed: Annotated[int, Field(ge=-JSON_SAFE_INT), at_most(JSON_SAFE_INT, _JSON_SAFE)] = 0
    model: Annotated[str, at_most(200, "a model name")] | None = None
    #: A folder in the workspace where every reply stored is recorded with its prompt; none: only ``--record`` does.
    record: Annotated[str, AfterValidator(relative_folder), at_most(200, "a folder in the workspace")] | None = None
    #: The weekday of day 1; the others follow (events can recur on a weekday).
    first_weekday: Weekday = "mon"
    #: The date of day 1, on ``first_weekday``; none: ``calendar.default_start``.
    start_date: dt.date | None = None
    events: list[Event] = Field(default_factory=empty_list)
    events_issued: Annotated[int, Field(ge=0)] = 0
    today: list[SceneEntry] = Field(default_factory=empty_list)
    briefs: list[Brief] = Field(default_factory=empty_list)
    gatherings: list[Gathering] = Field(default_factory=empty_list)
    gatherings_issued: Annotated[int, Field(ge=0)] = 0
    briefs_issued: Annotated[int, Field(ge=0)] = 0
    #: Briefs every addressee has already seen, kept for the record (an imported studio's briefs):
    #: no scene answers them again.
    past_briefs: list[Brief] = Field(default_factory=empty_list)
    pending: str | None = None

    @field_validator("gatherings")
    @classmethod
    def _gatherings(cls, value: list[Gathering]) -> list[Gathering]:
        return checked_gatherings(value)

    @field_validator("pending")
    @classmethod
    def _pending_shape(cls, value: str | None) -> str | None:
        if value is not None:
            parse_scene_ref(value)
        return value

    @field_validator("start_date", mode="before")
    @classmethod
    def _start_date(cls, value: Any, info: ValidationInfo) -> Any:
        problem = calendar.start_problem(value, info.data.get("first_weekday"))
        if problem:
            raise PydanticCustomError("start_date", "{problem}", {"problem": problem})
        return value

    def dump(self) -> dict[str, Any]:
        # Without a start_date the file stays as it was written: its calendar follows first_weekday.
        return self.model_dump(mode="json", exclude={"start_date"} if self.start_date is None else None)

    def weekday(self, day: int | None = None) -> str:
        """``mon`` … ``sun`` of ``day`` (the current day by default)."""
        day = self.day if day is None else day
        return WEEKDAYS[(WEEKDAYS.index(self.first_weekday) + max(day, 1) - 1) % 7]

    def date(self, day: int | None = None) -> dt.date:
        """The date of ``day`` (the current day, at least day 1, by default); a day before 1 is one
        before the studio opened. ``OverflowError`` past the last date there is."""
        start = self.start_date or calendar.default_start(self.first_weekday)
        return calendar.day_date(start, max(self.day, 1) if day is None else day)
