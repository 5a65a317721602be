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

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .defaults import empty_list
from .problems import StateError, describe_validation_error
from .scene_spec import SceneSpec


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
    #: How many times the character looked into its own memory in this answer (each lookup was
    #: another call, summed into the tokens above); left out where it looked nothing up.
    lookups: int | None = None


class UsageFile(_Record):
    calls: list[UsageCall] = Field(default_factory=empty_list)


class SceneRecord(_Record):
    """``scene.json``: the scene (a ``SceneSpec``, its fields at the top level of the file, as
    ``spec.dump()`` writes them) and what became of it. The record's own fields follow."""

    ref: str
    status: Literal["pending", "applied"]
    spec: SceneSpec
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
    #: What the Creative Director pinned down when the scene was opened (``next --type/--with/
    #: --topic``), so a replay opens the same scene; absent when the Game Master chose it.
    forced: dict[str, Any] | None = None

    @model_validator(mode="before")
    @classmethod
    def _scene_fields(cls, data: Any) -> Any:
        """The file keeps the scene's fields at its top level; they are the record's ``spec``."""
        if isinstance(data, dict) and "spec" not in data:
            data = dict(data)
            data["spec"] = {name: data.pop(name) for name in SceneSpec.model_fields if name in data}
        return data

    def __getattr__(self, name: str) -> Any:
        # The scene's fields read as the record's own (``record.type``), as they stand in the file.
        if name in SceneSpec.model_fields:
            return getattr(self.spec, name)
        return super().__getattr__(name)

    def dump(self) -> dict[str, Any]:
        own = self.model_dump(mode="json", exclude_unset=True, exclude={"spec"})
        scene = self.spec.model_dump(mode="json", exclude_unset=True)
        return {"ref": own.pop("ref"), "status": own.pop("status"), **scene, **own}

    @classmethod
    def opened(cls, spec: SceneSpec, forced: dict[str, Any] | None = None) -> "SceneRecord":
        extra = {"forced": forced} if forced else {}
        return cls.model_validate({"ref": spec.ref, "status": "pending", **spec.dump(), "turns": spec.turns, **extra})

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
    """``model`` from a record file; a file that is not one is named with the field that is wrong.

    A scene record names its kind by the shape of a name; it is read to be played or shown
    by its kind, so a kind that is not installed is named here, with the file."""
    try:
        record = model.model_validate(workspace.read_json(path))
    except ValidationError as exc:
        raise StateError(f"{workspace.rel(path)}: {describe_validation_error(exc)}") from None
    if isinstance(record, SceneRecord):
        try:
            record.spec.kind
        except ValueError as exc:
            raise StateError(f"{workspace.rel(path)}: type: {exc}") from None
    return record
