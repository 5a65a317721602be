"""A workspace's files by its root folder alone: what a step is handed instead of the Workspace.

Reading a state or scene file as JSON (every failure names the file, and the line), naming a
path from the root, refusing a write outside it and opening a character's stream depend on
nothing but the root; ``Workspace`` does them through these, and a step below it that only
reads and writes one scene's files gets a ``SceneFolder``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from . import jsontext, scene_files
from .ids import SCENE_REF_RE, OutsideWorkspace, is_agent_id, reads_inside
from .ids import inside as inside_root
from .problems import Problem, StateError
from .streams import MemoryStream


def rel(root: Path, path: Path) -> str:
    """``path`` as messages name it: from the workspace's root, or whole where it lies outside."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def state_file(root: Path, path: Path) -> Path:
    """``path``, unless a symbolic link takes it out of the workspace: such a state file is
    neither read (into a prompt) nor written (an append or a rewrite out there)."""
    if os.path.lexists(path) and not reads_inside(root, path):
        reason = (f"a symbolic link out of the workspace (to {os.path.realpath(path)}); gamemaster neither "
                  "reads nor writes through it: copy the file into the workspace")
        raise StateError(f"{rel(root, path)}: {reason}", [Problem(rel(root, path), None, reason)])
    return path


def read_json(root: Path, path: Path) -> dict:
    """A JSON object from a state or scene file; every failure names the file (and line)."""
    state_file(root, path)
    try:
        data = jsontext.loads(_read_bytes(root, path).decode("utf-8"))
    except FileNotFoundError:
        raise StateError(f"{rel(root, path)}: missing") from None
    except jsontext.JSONDecodeError as exc:
        raise StateError(
            f"{rel(root, path)}:{exc.lineno}: not valid JSON: {exc.msg}",
            [Problem(rel(root, path), exc.lineno, f"not valid JSON: {exc.msg}")],
        ) from None
    except UnicodeDecodeError as exc:
        reason = f"not UTF-8 (byte {exc.start})"
        raise StateError(f"{rel(root, path)}: {reason}", [Problem(rel(root, path), None, reason)]) from None
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise StateError(f"{rel(root, path)}: {reason}", [Problem(rel(root, path), None, reason)]) from None
    if not isinstance(data, dict):
        raise StateError(f"{rel(root, path)}:1: expected a JSON object", [Problem(rel(root, path), 1, "expected a JSON object")])
    return data


def _read_bytes(root: Path, path: Path) -> bytes:
    """A file's bytes; a scene file of a packed day comes from its archive (``scene_files``)."""
    scenes = root / "scenes"
    if path.is_relative_to(scenes):
        return scene_files.read_bytes(scenes, path)
    return path.read_bytes()


def inside(root: Path, path: Path) -> Path:
    """``path``, if it lies in the workspace; a StateError otherwise. Every write checks this."""
    try:
        return inside_root(root, path)
    except OutsideWorkspace:
        raise StateError(f"{path}: refusing to write outside the workspace {root}") from None


def scene_dir(root: Path, ref: str) -> Path:
    """The folder of the scene ``ref`` (``day-XXX/scene-YY``, refused in any other form)."""
    if not isinstance(ref, str) or not SCENE_REF_RE.match(ref):
        raise StateError(f"{ref!r} is not a scene ref of the form day-XXX/scene-YY")
    return root / "scenes" / ref


def world_path(root: Path) -> Path:
    return root / "state" / "world.json"


def agent_path(root: Path, agent_id: str) -> Path:
    """``state/agents/<id>.json``, for an id that can name a file."""
    check_agent_id(agent_id)
    return root / "state" / "agents" / f"{agent_id}.json"


def check_agent_id(agent_id: str) -> None:
    if not is_agent_id(agent_id):
        raise StateError(f"{agent_id!r} is not an agent id (lower-case letters, digits and _, starting with a letter)")


def open_stream(root: Path, agent_id: str) -> MemoryStream:
    """``agent_id``'s memory stream, refused where its file is a link out of the workspace."""
    check_agent_id(agent_id)
    stream = MemoryStream(root, agent_id)
    state_file(root, stream.path)
    return stream


@dataclass(frozen=True)
class SceneFolder:
    """One scene's folder (``scenes/day-XXX/scene-YY``) and the workspace's root: all a step that
    reads or writes that scene's files (its replies, what its prompts showed, its lookups) needs."""

    root: Path
    dir: Path

    def rel(self, path: Path) -> str:
        return rel(self.root, path)

    def read_json(self, path: Path) -> dict:
        return read_json(self.root, path)

    def inside(self, path: Path) -> Path:
        return inside(self.root, path)
