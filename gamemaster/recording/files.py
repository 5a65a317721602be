"""A recording on disk: what each character was asked and what it answered, turn by turn.

A recording is a folder of JSON files, written with the json library and readable by anything::

    recording.json                    what the folder is (format, version, studio, when it began)
    day-002/scene-01/scene.json       the scene as it was opened, and what was forced
    day-002/scene-01/02-emre.1.json   one attempt at one turn: the prompt, the reply as written,
                                      whether it was accepted, who answered and what it cost

Each file is written whole (atomically) as its turn is answered, so a recording is complete up
to the last reply stored, also after a crash. The prompts are kept in full: a recording holds
everything the characters were shown, their memories included.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from .. import jsontext
from ..fsio import atomic_write_json
from ..ids import SCENE_REF_RE
from ..problems import GamemasterError
from ..problems import describe_validation_error
from .sections import digest, outline

FORMAT = "gamemaster-recording"
VERSION = 1
MANIFEST = "recording.json"
#: A turn file larger than this is not one a studio wrote (a prompt is bounded by its budgets).
MAX_FILE_BYTES = 16 * 1024 * 1024
_TURN_FILE = re.compile(r"^(\d{2,3}-[a-z0-9_]+)\.(\d{1,3})\.json$")


class RecordingError(GamemasterError):
    """A folder that is not a recording, a damaged file in one, or a recording that does not fit."""


@dataclass
class Source:
    """Who answered a turn and what it cost, as the backend said."""

    backend: str
    model: str | None = None
    usage: dict | None = None
    cost_usd: float | None = None


class TurnRecord(BaseModel):
    """One attempt at one turn (``<label>.<attempt>.json``)."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    scene: str
    type: str
    label: str
    agent: str
    attempt: int
    accepted: bool
    #: Why the toolkit refused the reply, for an attempt that was refused.
    error: str | None = None
    backend: str
    model: str | None = None
    usage: dict[str, Any] | None = None
    cost_usd: float | None = None
    prompt_sha256: str
    sections: list[dict[str, Any]]
    prompt: str
    #: The memory ids the prompt showed (what the reply's evidence was checked against).
    shown: list[str] | None = None
    #: The reply exactly as the model wrote it (prose and fences included).
    reply: str


class RecordedScene(BaseModel):
    """``scene.json`` in a recording: the scene's fields as it was opened."""

    model_config = ConfigDict(extra="allow", defer_build=True)

    ref: str
    type: str
    participants: list[str]
    topic: str | None = None
    #: What the Creative Director pinned down (``next --type/--with/--topic``), if anything.
    forced: dict[str, Any] | None = None


def turn_name(label: str, attempt: int) -> str:
    return f"{label}.{attempt}.json"


class Recorder:
    """Writes a recording, turn by turn. The caller holds the workspace lock while it writes."""

    def __init__(self, root: Path, studio: str):
        self.root = root
        self.count = 0
        _claim(root, studio)

    def enter(self, scene: RecordedScene) -> None:
        """Enter a scene as it opens; a folder that recorded another scene under its ref (another
        studio, or this one played differently) is refused, not mixed in."""
        _same_scene(self.root / scene.ref / "scene.json", scene)

    def write(self, scene: RecordedScene, label: str, agent: str, prompt: str, reply: str,
              error: str | None, source: Source, shown: list[str] | None = None) -> Path:
        """Keep one attempt; returns its file."""
        folder = self.root / scene.ref
        self.enter(scene)
        attempt = 1 + sum(1 for p in folder.glob(f"{label}.*.json") if _TURN_FILE.match(p.name))
        record = TurnRecord(
            scene=scene.ref, type=scene.type, label=label, agent=agent, attempt=attempt,
            accepted=error is None, error=error, backend=source.backend, model=source.model,
            usage=source.usage, cost_usd=source.cost_usd, prompt_sha256=digest(prompt),
            sections=outline(prompt), prompt=prompt, shown=shown, reply=reply,
        )
        path = folder / turn_name(label, attempt)
        atomic_write_json(path, record.model_dump(mode="json"))
        self.count += 1
        return path


def _claim(root: Path, studio: str) -> None:
    """``root`` as a recording: made one if it is new or empty, else it must already be one."""
    if root.is_file():
        raise RecordingError(f"{root}: a file, not a folder to record into")
    if root.is_dir() and any(root.iterdir()):
        read_manifest(root)
        return
    atomic_write_json(root / MANIFEST, {
        "format": FORMAT, "version": VERSION, "studio": studio,
        "started": dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat(),
    })


def _same_scene(path: Path, scene: RecordedScene) -> None:
    if not path.exists():
        atomic_write_json(path, scene.model_dump(mode="json", exclude_none=True))
        return
    kept = _read(path, RecordedScene)
    if (kept.type, kept.participants) != (scene.type, scene.participants):
        raise RecordingError(
            f"{path}: this recording already has {kept.ref} as {kept.type} with {', '.join(kept.participants)}, "
            f"not {scene.type} with {', '.join(scene.participants)}; record into a new folder")


def read_manifest(root: Path) -> dict:
    path = root / MANIFEST
    if not path.is_file():
        raise RecordingError(f"{root}: not a gamemaster recording (no {MANIFEST})")
    data = _load(path)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RecordingError(f"{path}: not a gamemaster recording (its \"format\" is not {FORMAT!r})")
    if data.get("version") != VERSION:
        raise RecordingError(f"{path}: recording format version {data.get('version')!r}; this toolkit reads version {VERSION}")
    return data


class Recording:
    """A recording read back: its scenes and turns, each file read when it is first asked for."""

    def __init__(self, root: Path):
        self.root = root
        self.manifest = read_manifest(root)
        self.scenes: dict[str, Path] = {}
        for entry in sorted(root.glob("day-*/scene-*/scene.json")):
            ref = entry.parent.relative_to(root).as_posix()
            if SCENE_REF_RE.match(ref):
                self.scenes[ref] = entry
        self.turns = sum(1 for ref in self.scenes for _ in self._turn_files(ref))
        if not self.turns:
            raise RecordingError(f"{root}: a recording with no turns in it (nothing was answered while it was recording)")

    def scene(self, ref: str) -> RecordedScene | None:
        path = self.scenes.get(ref)
        return _read(path, RecordedScene) if path else None

    def turn(self, ref: str, label: str, attempt: int) -> TurnRecord | None:
        if ref not in self.scenes:
            return None
        path = self.root / ref / turn_name(label, attempt)
        if not path.exists():
            return None
        record = _read(path, TurnRecord)
        if (record.scene, record.label, record.attempt) != (ref, label, attempt):
            raise RecordingError(f"{path}: holds {record.scene} {record.label} attempt {record.attempt}, "
                                 "not what its name says")
        return record

    def most_attempts(self) -> int:
        """The most attempts any turn took: how often a replay must let the loop ask again."""
        found = [int(m.group(2)) for ref in self.scenes for p in self._turn_files(ref) if (m := _TURN_FILE.match(p.name))]
        return max(found, default=1)

    def _turn_files(self, ref: str):
        return (p for p in (self.root / ref).iterdir() if _TURN_FILE.match(p.name))


def _read(path: Path, model: type[BaseModel]) -> Any:
    try:
        return model.model_validate(_load(path))
    except ValidationError as exc:
        raise RecordingError(f"{path}: {describe_validation_error(exc)}") from None


def _load(path: Path) -> Any:
    """A file of the recording as JSON; each failure is one line naming the file."""
    if path.is_symlink():
        raise RecordingError(f"{path}: a symbolic link; a recording holds plain files")
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise RecordingError(f"{path}: {size:,} bytes, more than a recording's file holds ({MAX_FILE_BYTES:,})")
        return jsontext.loads(path.read_bytes())
    except jsontext.JSONDecodeError as exc:
        raise RecordingError(f"{path}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    except UnicodeDecodeError:
        raise RecordingError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise RecordingError(f"{path}: cannot be read: {exc.strerror or exc}") from None
