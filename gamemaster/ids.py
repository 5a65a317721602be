"""The one rule for every id that becomes part of a path, and the checks that reads and writes stay inside.

Agent ids (also participants, MEETING turns, brief addressees, talk-wish
partners), artifact kinds and scene refs come from hand-editable files. Each is
checked here before any path is built from it, and every file the tool writes
must lie inside the workspace. A file the tool reads because a state file names
it or a folder walk found it is read only if it really is inside: a symbolic link
that leads out of the workspace is not followed (``reads_inside``).
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

from .problems import StateError

AGENT_ID_RE = re.compile(r"^[a-z][a-z0-9_]*$")
ARTIFACT_KIND_RE = re.compile(r"^[a-z][a-z0-9-]{0,39}$")
#: Numbers of up to 18 digits: any day and scene a studio reaches, and no id a hand edit makes too
#: long to read as a number (Python refuses to convert more than 4,300 digits).
SCENE_REF_RE = re.compile(r"^day-(\d{3,18})/scene-(\d{2,18})$")


def scene_ref(day: int, scene: int) -> str:
    """``day-003/scene-04``: at least three and two digits, growing past them."""
    return f"day-{day:03d}/scene-{scene:02d}"


@functools.lru_cache(maxsize=4096)  # every memory's scene, read again for every prompt that shows it
def parse_scene_ref(ref: str) -> tuple[int, int]:
    match = SCENE_REF_RE.match(ref)
    if not match:
        raise ValueError(f"{ref!r} is not of the form day-XXX/scene-YY")
    return int(match.group(1)), int(match.group(2))


def is_agent_id(value: object) -> bool:
    return isinstance(value, str) and bool(AGENT_ID_RE.match(value))


def agent_id(value: str) -> str:
    """For pydantic validators: the value, or a ValueError that says what an id may be."""
    if not is_agent_id(value):
        raise ValueError(f"{value!r} is not an agent id (lower-case letters, digits and _, starting with a letter)")
    return value


def no_agent(unknown: list[str], known: list[str]) -> str:
    """What every command says about agent ids the studio does not have: the close one, if there
    is one (a typo), else the agents there are."""
    from difflib import get_close_matches

    parts, listed = [], False
    for value in unknown:
        close = get_close_matches(value, known, n=1) or get_close_matches(value.lower(), known, n=1)
        if close:
            parts.append(f"no agent {value!r}; did you mean {close[0]!r}?")
        else:
            parts.append(f"no agent {value!r}")
            listed = True
    if listed:
        parts.append(f"the agents are: {', '.join(sorted(known))}" if known else "the studio has no agents")
    return "; ".join(parts)


def artifact_kind(value: str) -> str:
    if not isinstance(value, str) or not ARTIFACT_KIND_RE.match(value):
        raise ValueError(f"{value!r} is not an artifact kind (lower-case letters, digits and -, at most 40)")
    return value


#: The workspace's own folders: nothing the toolkit writes as output goes in one.
WORKSPACE_FOLDERS = ("state", "scenes", "gallery", "library", "prompts")


def relative_folder(value: str) -> str:
    """A folder of output named relative to the workspace (a setting): no absolute path, no way
    up out of it, none of the folders the workspace reads."""
    parts = value.replace("\\", "/").split("/")
    if not value.strip() or value.startswith(("/", "\\")) or ":" in parts[0] or ".." in parts:
        raise ValueError("a folder inside the workspace, named relative to it (such as recordings/)")
    if parts[0] in WORKSPACE_FOLDERS or parts[0] in ("", "."):
        raise ValueError(f"a folder of its own, not in the workspace's {', '.join(WORKSPACE_FOLDERS)} (such as recordings/)")
    return value


class OutsideWorkspace(ValueError):
    pass


def inside(root: Path, path: Path) -> Path:
    """``path`` if it lies inside ``root`` once ``..`` are resolved; else OutsideWorkspace.

    Symbolic links a user made on purpose are followed when writing; what is
    checked here is that no id from a file walked the path out of the workspace.
    """
    base = os.path.normpath(os.path.abspath(root))
    target = os.path.normpath(os.path.abspath(path))
    if target != base and not target.startswith(base + os.sep):
        raise OutsideWorkspace(f"{path} is outside the workspace {root}")
    # A write follows links: one that leads out (a state file linked to a file elsewhere) would
    # change a file outside the workspace.
    if not reads_inside(root, path):
        raise OutsideWorkspace(f"{path} leads outside the workspace {root} through a symbolic link")
    return path


def reads_inside(root: Path, path: Path) -> bool:
    """Whether reading ``path`` reads a file inside ``root``, every symbolic link followed.

    A studio folder from elsewhere (a zip, a git repository) can hold links to any
    file on the machine; a link that stays inside is followed like any path, one that
    leads out is not read, copied or published.
    """
    base = os.path.realpath(root)
    target = os.path.realpath(path)
    return target == base or target.startswith(base.rstrip(os.sep) + os.sep)


def is_workspace(folder: str | os.PathLike) -> bool:
    """What makes a folder a workspace (``Workspace.require``)."""
    return os.path.isfile(os.path.join(folder, "state", "world.json"))


def find_workspace(start: Path) -> Path | None:
    """``start`` or the nearest of its folders above, up to the filesystem root, that is a
    workspace, found by the folders as written (no link followed)."""
    for folder in (start, *start.parents):
        if is_workspace(folder):
            return folder
    return None


def workspace_of(path: str | os.PathLike) -> str | None:
    """The workspace the file ``path`` lies in."""
    found = find_workspace(Path(os.path.abspath(path)).parent)
    return None if found is None else str(found)


def confined(path: Path) -> Path:
    """``path``, unless writing it would write outside its workspace through a symbolic link.

    Every write goes through here (atomic rewrites, appends, the search index), so no link
    in a studio folder — to a file, or a folder on the way to it — carries a write out of
    the workspace: not a state file, not a scene's record, not a derived cache. Outside a
    workspace (a report folder elsewhere) nothing is checked."""
    root = workspace_of(path)
    if root is None:
        return path
    base, target = os.path.realpath(root), os.path.realpath(path)
    if target != base and not target.startswith(base.rstrip(os.sep) + os.sep):
        shown = os.path.relpath(os.path.abspath(path), root)
        raise StateError(f"{shown}: a symbolic link leads it out of the workspace (to {target}); nothing was written "
                         "through it: replace the link by a file or folder of the workspace")
    return path
