"""The records a scene and a day leave on disk, as typed models.

``scenes/day-XXX/scene-YY/scene.json`` is a ``SceneRecord``: written when the
scene opens (``pending``) and again, complete, when it is written back
(``applied``); ``usage/<turn>.json`` is a ``UsageFile``; ``scenes/day-XXX/summary.json``
is a ``DaySummary``. They are written here and read back through the same
models, so a viewer or another tool can rely on their shape. Unknown keys are
kept (a record written by a newer toolkit stays readable).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .problems import StateError
from .scenes import SceneSpec
from .streams import describe_validation_error


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow", defer_build=True)

    def dump(self) -> dict[str, Any]:
        """The JSON object as written: fields left unset (an optional part a scene did not have) are left out."""
        return self.model_dump(mode="json", exclude_unset=True)


class WrittenMemory(_Record):
    """One memory a scene wrote, as listed in its record and the day summary."""

    id: str
    agent: str
    type: str
    importance: int
    description: str


class TranscriptLine(_Record):
    speaker: str
    says: str


class UsageCall(_Record):
    """One API call's tokens (the fields a backend reports, plus the model and whether it was batched)."""

    model: str | None = None
    batch: bool = False
    #: The call's cost in US dollars as the backend reported it (Claude Code does); without it
    #: ``gamemaster cost`` prices the tokens from the price table.
    cost_usd: float | None = None


class UsageFile(_Record):
    calls: list[UsageCall] = Field(default_factory=list)


class SceneRecord(_Record):
    """``scene.json``. The scene's fields are ``SceneSpec``'s (``spec`` reads them back)."""

    ref: str
    status: Literal["pending", "applied"]
    type: str
    day: int
    scene: int
    participants: list[str]
    topic: str | None = None
    topic_tags: list[str] = Field(default_factory=list)
    reason: str
    rounds: int = 1
    brief_ids: list[str] = Field(default_factory=list)
    event_id: str | None = None
    rooms: list[list[str]] = Field(default_factory=list)
    slot: str | None = None
    gathering_id: str | None = None
    #: A GATHERING's guests: invited, accepted, declined, no_answer, absent (accepted, not there),
    #: uninvited (there, not invited).
    attendance: dict[str, list[str]] = Field(default_factory=dict)
    turns: list[str]
    #: Turn label ("03-vera") → the prompt file, relative to the workspace.
    prompts: dict[str, str] | None = None
    #: Turn label → the reply file.
    replies: dict[str, str] | None = None
    #: What was said, in order, in a scene whose turns run one after another.
    transcript: list[TranscriptLine] | None = None
    #: Turn label → the calls that turn took (API backends).
    usage: dict[str, list[UsageCall]] | None = None
    #: The Message Batch the scene was asked in.
    batch: str | None = None
    written: list[WrittenMemory] | None = None
    artifacts: list[str] | None = None

    @classmethod
    def opened(cls, spec: SceneSpec) -> "SceneRecord":
        return cls(ref=spec.ref, status="pending", **spec.dump(), turns=spec.turns)

    @property
    def spec(self) -> SceneSpec:
        return SceneSpec.model_validate(self.model_dump(mode="json"))

    @property
    def applied(self) -> bool:
        return self.status == "applied"


class SceneLine(_Record):
    """A scene as the day summary lists it."""

    ref: str
    type: str
    participants: list[str]
    topic: str | None = None
    reason: str | None = None


class DaySummary(_Record):
    """``summary.json``: what ``summary.md`` is rendered from."""

    day: int
    scenes: list[SceneLine]
    highlights: list[WrittenMemory]
    artifacts: list[str]
    reflections: list[WrittenMemory]
    open_threads: list[str]
    memories_written: int


def read_record(workspace, path, model):
    """``model`` from a record file; a file that is not one is named with the field that is wrong."""
    try:
        return model.model_validate(workspace.read_json(path))
    except ValidationError as exc:
        raise StateError(f"{workspace.rel(path)}: {describe_validation_error(exc)}") from None
