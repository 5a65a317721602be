"""The scene that is open: its record, its turns, what has been stored for it so far.

Everything a pending scene keeps on disk lives in its folder ``scenes/day-XXX/scene-YY/``:
``scene.json``, ``prompts/``, ``shown/`` (the memory ids each prompt showed), ``replies/``,
``rejections.json``, ``usage/``, ``library/`` and ``batch.json``. This module reads and writes
those; it decides nothing about the studio.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from . import jsontext, scene_files
from .sections import reply_model_for
from .turns import ReplyRequest
from .fsio import atomic_write_json, atomic_write_text
from .ids import SCENE_REF_RE
from .lang import phrase
from .models import World
from .problems import GamemasterError, StateError, describe_validation_error
from .records import SceneRecord, UsageCall, UsageFile, read_record
from .replies import Reply, ReplyError, parse_reply
from .scenes import SceneSpec
from .statefiles import SceneFolder, scene_dir
from .workspace import Workspace

if TYPE_CHECKING:
    from .writeback import SceneResult


@dataclass
class Pending:
    """The scene that has been opened and not yet written back."""

    spec: SceneSpec
    #: The scene's folder and the workspace's root: what the steps that read or write its files get.
    folder: SceneFolder
    record: SceneRecord
    replies: dict[int, Reply] = field(default_factory=dict)
    #: Requests built when their prompt was written, so the backend gets that very one.
    requests: dict[int, ReplyRequest] = field(default_factory=dict, repr=False, compare=False)

    @property
    def dir(self) -> Path:
        return self.folder.dir

    def prepared(self, turn: int) -> ReplyRequest | None:
        """The request whose prompt was written for ``turn`` in this process, once."""
        return self.requests.pop(turn, None)

    @property
    def turns(self) -> list[str]:
        return self.spec.turns

    def missing(self) -> list[int]:
        return [i for i in range(len(self.turns)) if i not in self.replies]

    def is_final_turn(self, turn: int) -> bool:
        agent = self.turns[turn]
        return all(self.turns[later] != agent for later in range(turn + 1, len(self.turns)))

    def reply_path(self, turn: int) -> Path:
        return self.dir / "replies" / f"{self.label(turn)}.json"

    def prompt_path(self, turn: int) -> Path:
        if self.spec.kind.in_sequence:
            return self.dir / "prompts" / f"{self.label(turn)}.md"
        return self.dir / "prompts" / f"{self.turns[turn]}.md"

    def label(self, turn: int) -> str:
        """``03-vera``: how a turn is named in files, records and output."""
        return f"{turn + 1:02d}-{self.turns[turn]}"

    def waiting(self) -> list[str]:
        return [self.label(i) for i in self.missing()]

    def handoff(self, turn: int, language: str) -> str:
        """What a Game Master in Claude Code passes the character subagent for ``turn``: a short task
        naming the prompt file, not the prompt. Claude Code's PreToolUse hook puts the file's text in
        its place (``claude_fence``); without the hook the character reads the file itself."""
        return phrase(language, "handoff", turn=self.label(turn), scene=self.spec.ref, path=str(self.prompt_path(turn)))

    def describe(self, language: str = "de") -> dict:
        """The scene as programs see it (``next --json``, ``status --json``, the MCP tools)."""
        return {
            "ref": self.spec.ref,
            **self.spec.dump(),
            "turns": self.turns,
            # Turns one after another (MEETING, ENCOUNTER) or all at once: what a Game Master must know.
            "in_sequence": self.spec.kind.in_sequence,
            "replied": [self.label(i) for i in sorted(self.replies)],
            "waiting": self.waiting(),
            # Per open turn, what the Game Master hands the character's subagent (CLAUDE.md).
            "handoff": {self.label(i): self.handoff(i, language) for i in self.missing()},
            "prompts": {self.label(i): str(self.prompt_path(i)) for i in range(len(self.turns)) if self.prompt_path(i).exists()},
            "rejections": rejections(self),
        }

    def turn_of(self, agent: str) -> int:
        """The turn ``agent`` answers next: any open one in a parallel scene, the current one in a MEETING."""
        if agent not in self.spec.participants:
            raise GamemasterError(f"{agent} is not in scene {self.spec.ref} ({', '.join(self.spec.participants)})")
        open_turns = self.missing()
        if self.spec.kind.in_sequence:
            if not open_turns:
                raise GamemasterError(f"scene {self.spec.ref}: every turn has its reply; run `gamemaster apply`")
            current = open_turns[0]
            if self.turns[current] != agent:
                raise GamemasterError(
                    f"scene {self.spec.ref}: it is {self.turns[current]}'s turn "
                    f"({current + 1} of {len(self.turns)}), not {agent}'s"
                )
            return current
        turn = self.turns.index(agent)
        if turn not in open_turns:
            raise GamemasterError(f"scene {self.spec.ref}: {agent} has already replied")
        return turn


@dataclass
class ApplyOutcome:
    """What ``apply_pending`` came to: the scene written back now (``result``), replies stored while
    others are still missing (no ``result``), or nothing written because the scene had been written
    back before (``applied_before``)."""

    pending: Pending | None = None
    result: SceneResult | None = None
    #: The day summary written now; for a scene written back before, its day's summary if that day is closed.
    day_summary: Path | None = None
    #: Scenes written back before this call, by the SubagentStop hook or another gamemaster process.
    applied_before: list[str] = field(default_factory=list)
    #: The record of that scene when ``apply`` was called without replies: what it wrote.
    record: SceneRecord | None = None

    def already_applied_json(self, rel) -> dict:
        """What ``apply --json`` and the MCP tool ``apply`` answer for a scene written back before
        (``rel`` makes a path workspace-relative): not an error, and the same in both."""
        if self.record is None:
            return {"applied": False, "message": f"scene {', '.join(self.applied_before)} is already applied; nothing written"}
        return {"applied": False, "already_applied": self.applied_before[0],
                "written": self.record.dump().get("written", []), "artifacts": self.record.artifacts or [],
                "day_summary": rel(self.day_summary) if self.day_summary else None}


def scenes_named(given: dict) -> set[str]:
    """The scene refs replies name; only well-formed ones, since each becomes a path under scenes/."""
    refs = set()
    for value in given.values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict) and isinstance(item.get("scene"), str) and SCENE_REF_RE.match(item["scene"]):
                refs.add(item["scene"])
    return refs


def moved_on(ref: str) -> str:
    return (f"scene {ref} is no longer pending: another gamemaster process applied or set it aside "
            "meanwhile (or state/world.json was edited); run `gamemaster status` to see where the studio stands")


def missing_participants(spec: SceneSpec, agents) -> list[str]:
    return [a for a in spec.participants if a not in agents]


def require_participants(spec: SceneSpec, agents) -> None:
    gone = missing_participants(spec, agents)
    if gone:
        files = ", ".join(f"state/agents/{a}.json" for a in gone)
        raise GamemasterError(
            f"scene {spec.ref}: participant(s) {', '.join(gone)} have no agent file ({files}); restore it, "
            "or set \"pending\": null in state/world.json to choose the scene again"
        )


def load_pending(root: Path, world: World) -> Pending | None:
    """The scene ``world`` says is pending in the workspace at ``root``, with its stored replies;
    None when there is none."""
    if world.pending is None:
        return None
    folder = SceneFolder(root, scene_dir(root, world.pending))
    record_path = folder.dir / "scene.json"
    if not record_path.exists():
        raise StateError(
            f"state/world.json: pending scene {world.pending} has no scenes/{world.pending}/scene.json; "
            "set \"pending\" to null to choose the scene again"
        )
    record = read_record(folder, record_path, SceneRecord)
    try:
        spec = record.spec
    except ValidationError as exc:
        raise StateError(f"{folder.rel(record_path)}: {describe_validation_error(exc)}") from None
    pending = Pending(spec, folder, record)
    for turn in range(len(pending.turns)):
        path = pending.reply_path(turn)
        if path.exists():
            try:
                pending.replies[turn] = parse_reply(folder.read_json(path), pending.turns[turn], reply_model_for(spec.kind))
            except ReplyError as exc:
                raise StateError(
                    f"{folder.rel(path)}: {'; '.join(exc.problems)} (delete the file to ask again)"
                ) from None
    return pending


def scene_record(workspace: Workspace, ref: str) -> SceneRecord | None:
    """``scenes/<ref>/scene.json``, or None for a scene never opened."""
    path = workspace.scene_dir(ref) / "scene.json"
    # A finished day may be packed (``gamemaster day archive``): its records are read from there.
    return read_record(workspace, path, SceneRecord) if scene_files.is_file(workspace.scenes, path) else None


def record_prompt(pending: Pending, turn: int, request: ReplyRequest) -> None:
    """Keep the prompt a backend was actually sent with the scene, the memory ids it showed and
    what it showed from the library.

    The ids go first: once a prompt is on disk, what it showed is too, so its reply's evidence
    is always checked against it (after a crash in between, the prompt is simply written again)."""
    folder = pending.folder
    atomic_write_json(folder.inside(_shown_path(pending, turn)), {"memories": request.shown,
                                                                  "heard_from": request.heard_from})
    atomic_write_text(folder.inside(pending.prompt_path(turn)), request.prompt)
    readings = pending.dir / "library" / f"{pending.label(turn)}.json"
    if request.library:
        atomic_write_json(folder.inside(readings), {"excerpts": [e.as_dict() for e in request.library]})
    elif readings.exists():
        readings.unlink()


def _shown_path(pending: Pending, turn: int) -> Path:
    return pending.dir / "shown" / f"{pending.label(turn)}.json"


def shown_in_prompt(pending: Pending, turn: int) -> set[str] | None:
    """The memory ids ``turn``'s prompt showed; None for a turn whose prompt was not recorded
    with them (not written yet, or by a gamemaster before they were kept)."""
    path = _shown_path(pending, turn)
    if not path.exists():
        return None
    data = pending.folder.read_json(path)
    ids = data.get("memories") if isinstance(data, dict) else None
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise StateError(f"{pending.folder.rel(path)}: memories: expected a list of memory ids; "
                         "delete the file to check evidence only against the streams")
    return set(ids)


def heard_in_prompt(pending: Pending, turn: int) -> set[str] | None:
    """Whose words ``turn``'s prompt showed as heard lately; None where the prompt was not recorded
    with them (a reply's ``takeaways`` are then checked against the roster only)."""
    path = _shown_path(pending, turn)
    data = pending.folder.read_json(path) if path.exists() else None
    people = data.get("heard_from") if isinstance(data, dict) else None
    if people is None:
        return None
    if not isinstance(people, list) or not all(isinstance(p, str) for p in people):
        raise StateError(f"{pending.folder.rel(path)}: heard_from: expected a list of agent ids; "
                         "delete the file to check the reply against the streams only")
    return set(people)


def readings_of(pending: Pending) -> dict[str, list[dict]]:
    """agent → the library excerpts its prompts showed in this scene."""
    found: dict[str, list[dict]] = {}
    for turn in range(len(pending.turns)):
        path = pending.dir / "library" / f"{pending.label(turn)}.json"
        if path.exists():
            found.setdefault(pending.turns[turn], []).extend(pending.folder.read_json(path).get("excerpts", []))
    return found


def record_usage(workspace: Workspace, pending: Pending, turn: int, usage: dict | None, model: str | None, batch: bool) -> None:
    """Every call's tokens, kept with the scene (failed attempts cost money too)."""
    if usage is None:
        return
    path = pending.dir / "usage" / f"{pending.label(turn)}.json"
    with workspace.lock:
        record = read_record(workspace, path, UsageFile) if path.exists() else UsageFile(calls=[])
        record.calls.append(UsageCall(model=model, batch=batch, **usage))
        atomic_write_json(path, record.dump())


def usage_of(pending: Pending) -> dict[str, list[UsageCall]]:
    folder = pending.dir / "usage"
    if not folder.is_dir():
        return {}
    return {p.stem: read_record(pending.folder, p, UsageFile).calls for p in sorted(folder.glob("*.json"))}


def load_batch(pending: Pending) -> dict | None:
    path = pending.dir / "batch.json"
    if not path.exists():
        return None
    data = pending.folder.read_json(path)
    return {"id": data["id"], "turns": {custom: int(turn) for custom, turn in data["turns"].items()}}


def save_batch(workspace: Workspace, pending: Pending, batch_id: str, turns: dict[str, int]) -> dict:
    """The batch id goes to disk before anything waits on it, so a rerun polls it again."""
    data = {"id": batch_id, "turns": turns}
    atomic_write_json(pending.dir / "batch.json", data)
    return data


def rejections(pending) -> dict[str, list[str]]:
    """Reasons each open turn's replies were rejected for (``rejections.json`` beside the replies)."""
    path = pending.dir / "rejections.json"
    try:
        data = jsontext.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def set_rejections(pending, key: str, reason: str | None) -> int:
    """Add a rejection for ``key`` (or clear them once a reply is stored); returns the count."""
    data = rejections(pending)
    if reason is None:
        if key not in data:
            return 0
        data.pop(key)
    else:
        data.setdefault(key, []).append(reason)
    atomic_write_json(pending.dir / "rejections.json", data)
    return len(data.get(key, []))
