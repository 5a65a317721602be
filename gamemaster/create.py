"""A new workspace: the bundled studio (or none), the prompt templates, the library and the
Claude Code files, with a subagent per character.

This is where the core meets the Claude Code integration; ``workspace.py`` itself knows
nothing of it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from .claude_code import sync_subagents
from .claude_files import COMMANDS, PLUGIN, record_local
from .claude_merge import install_beside_own
from .fsio import atomic_write_json, atomic_write_text
from .kinds.settings import world_data
from .models import World
from .workspace import Workspace, bundled_dir, refuse_nested


def init_workspace(target: Path, empty: bool = False, studio: str = "Neues Studio", plugin: bool = False) -> Workspace:
    """A new workspace: the bundled studio (or none) plus editable prompt templates.

    ``plugin``: Claude Code gets the Game Master from the toolkit's plugin, not from
    commands, hook and MCP entry in the workspace.
    """
    refuse_nested(target.resolve())
    workspace = Workspace(target)
    target.mkdir(parents=True, exist_ok=True)
    with workspace.lock:
        if empty:
            workspace.agents_dir.mkdir(parents=True, exist_ok=True)
            workspace.memories_dir.mkdir(parents=True, exist_ok=True)
            atomic_write_json(workspace.world_path, world_data(World(studio=studio)))
        else:
            source = bundled_dir("state")
            for name in ("agents", "memories"):
                shutil.copytree(source / name, workspace.state / name, dirs_exist_ok=True)
            shutil.copy2(source / "world.json", workspace.world_path)
        if not empty and not (target / "library").exists():
            shutil.copytree(bundled_dir("library"), target / "library")
        add_workspace_files(workspace, plugin=plugin)
    return workspace


def add_workspace_files(workspace: Workspace, plugin: bool = False) -> None:
    """What makes a folder with ``state/`` a workspace: prompt templates, ``gallery/`` and
    ``scenes/``, the Claude Code files and a subagent per character. The caller holds the lock."""
    target = workspace.root
    if not (target / "prompts").exists():
        shutil.copytree(bundled_dir("prompts"), target / "prompts")
    # Claude Code files the folder already has (a user's own) are kept, with what the Game Master needs added.
    install_beside_own(workspace, PLUGIN if plugin else COMMANDS)
    record_local(workspace)
    for folder in (workspace.gallery, workspace.scenes):
        folder.mkdir(exist_ok=True)
    keep_derived_out_of_git(target)
    sync_subagents(workspace)


#: What a studio's git repository should not hold: derived files the tool rebuilds from the state
#: (``state/.cache/``), the lock, and what a run leaves only while it runs (journal, temp files).
IGNORED = ("state/.cache/", ".gamemaster.lock", "state/.journal.json", ".*.tmp")


def keep_derived_out_of_git(root: Path) -> None:
    """``.gitignore`` with ``IGNORED``; one the folder has keeps its lines, the missing are added."""
    path = root / ".gitignore"
    text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    have = {line.strip() for line in text.splitlines()}
    missing = [line for line in IGNORED if line not in have]
    if not missing:
        return
    head = "" if not text else text if text.endswith("\n") else text + "\n"
    note = "# Rebuilt or left behind by gamemaster, not state: keep it out of git\n"
    atomic_write_text(path, head + ("\n" if head else "") + note + "".join(f"{line}\n" for line in missing))
