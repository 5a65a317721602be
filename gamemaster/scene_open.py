"""Opening the next scene: decided on one snapshot of the studio, its record and first prompts written.

The caller holds the workspace lock; nothing here calls a backend.
"""

from __future__ import annotations

from .fsio import atomic_write_json
from .pending import Pending, record_prompt
from .problems import GamemasterError, Problem, StateError
from .records import SceneRecord
from .requests import build_request
from .scenes import Force, decide_next
from .snapshot import Snapshot
from .statefiles import SceneFolder
from .turns import ReplyRequest
from .workspace import Workspace


def open_scene(workspace: Workspace, snap: Snapshot, force: Force | None, warnings: list[Problem]) -> tuple[Pending, Snapshot]:
    """The scene ``snap`` says comes next, opened: its record, the prompts that can be written
    now, and ``pending`` in ``state/world.json``. Returns the scene and the snapshot after it."""
    try:
        spec = decide_next(snap.world, snap.agents, force)
    except ValueError as exc:
        raise GamemasterError(str(exc)) from None
    folder = SceneFolder(workspace.root, workspace.scene_dir(spec.ref))
    set_aside_abandoned(folder)
    directory = folder.dir
    pinned = force.model_dump(exclude_defaults=True) if force else {}
    record = SceneRecord.opened(spec, pinned or None)
    atomic_write_json(directory / "scene.json", record.dump())
    pending = Pending(spec, folder, record)
    for turn in range(len(spec.turns)):
        if spec.kind.in_sequence and turn > 0:
            break  # later speakers' prompts depend on what is said first
        write_prompt(workspace, snap, pending, turn, warnings)
    world = snap.working_world()
    world.pending = spec.ref
    workspace.save_world(world)
    return pending, snap.with_world(world)


def write_prompt(workspace: Workspace, snap: Snapshot, pending: Pending, turn: int, warnings: list[Problem]) -> ReplyRequest:
    """Build ``turn``'s prompt, keep it with the scene and hand the request to the backend later."""
    request = build_request(pending, turn, snap.world, snap.agents, find=workspace.template_path,
                            load_agent=workspace.load_agent, warn=workspace.warn, warnings=warnings)
    record_prompt(pending, turn, request)
    pending.requests[turn] = request
    return request


def set_aside_abandoned(folder: SceneFolder) -> None:
    """A scene folder never applied (its pending mark was cleared) keeps its replies
    out of the new scene: it moves to ``scenes/.abandoned/``, nothing is deleted."""
    directory, scenes = folder.dir, folder.root / "scenes"
    if not directory.exists():
        return
    record = directory / "scene.json"
    try:
        status = folder.read_json(record).get("status") if record.exists() else None
    except StateError:
        status = None
    if status == "applied":
        raise GamemasterError(f"{folder.rel(record)}: scene already applied; state/world.json is behind it")
    aside = scenes / ".abandoned"
    aside.mkdir(parents=True, exist_ok=True)
    stem = directory.relative_to(scenes).as_posix().replace("/", "_")
    number = 1
    while (aside / f"{stem}.{number}").exists():
        number += 1
    directory.rename(aside / f"{stem}.{number}")
