"""The Claude Code files a workspace gets from the toolkit, and whether they are current.

``gamemaster init`` copies CLAUDE.md, the commands, the settings and .mcp.json
(or, with ``--plugin``, CLAUDE.md and settings that leave the hook and the MCP
server to the plugin) and records what it wrote in
``.claude/gamemaster-files.json`` (the mode and a hash per file). Later, a file still as the toolkit wrote it but different from what the
installed toolkit ships is out of date and ``agents sync`` replaces it; a file
changed in the workspace is the user's and is only reported. In a folder that had a CLAUDE.md
of its own, the toolkit's goes to ``.claude/gamemaster-CLAUDE.md`` instead, and is kept current
there (``claude_merge.py``).
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass

from . import jsontext
from .claude_plugin import local_settings, workspace_settings
from .fsio import atomic_write_bytes, atomic_write_json
from .kind_docs import with_kinds
from .workspace import CLAUDE_CODE_FILES, Workspace, bundled_dir

RECORD = ".claude/gamemaster-files.json"
#: Where the Game Master's CLAUDE.md goes in a folder with a CLAUDE.md of its own.
CLAUDE_MD_ASIDE = ".claude/gamemaster-CLAUDE.md"


@dataclass(frozen=True)
class FileState:
    path: str
    #: "current", "missing", "out of date" (as the toolkit wrote it, and the toolkit has changed)
    #: or "changed here" (edited in the workspace; left alone).
    status: str

    @property
    def stale(self) -> bool:
        """Behind the installed toolkit, and ``update`` may replace it."""
        return self.status in ("missing", "out of date")


COMMANDS, PLUGIN = "commands", "plugin"


def shipped(mode: str = COMMANDS) -> dict[str, bytes]:
    """Relative path → the bytes the installed toolkit ships for a workspace in ``mode``."""
    if mode == PLUGIN:
        return {"CLAUDE.md": _kinds_listed(bundled_dir("CLAUDE.md")), ".claude/settings.json": workspace_settings(),
                ".claude/.gitignore": bundled_dir(".claude/.gitignore").read_bytes(),
                # The workspace's fence hook runs through it (the plugin's own copy is in the plugin).
                ".claude/gamemaster.sh": bundled_dir(".claude/gamemaster.sh").read_bytes()}
    files: dict[str, bytes] = {}
    for name in CLAUDE_CODE_FILES:
        source = bundled_dir(name)
        if source.is_dir():
            for path in sorted(p for p in source.rglob("*") if p.is_file()):
                files[f"{name}/{path.relative_to(source).as_posix()}"] = _kinds_listed(path)
        else:
            files[name] = _kinds_listed(source)
    return files


def _kinds_listed(path) -> bytes:
    """The file's bytes; a Markdown file with its lists of scene kinds as the registry has them."""
    data = path.read_bytes()
    return with_kinds(data.decode("utf-8")).encode("utf-8") if path.suffix == ".md" else data


def placed(workspace: Workspace, mode: str | None = None, aside: bool | None = None) -> dict[str, bytes]:
    """Path in this workspace → the bytes the installed toolkit ships for it: ``shipped``, with
    CLAUDE.md at ``CLAUDE_MD_ASIDE`` where ``init`` put it there (``aside``; default: as recorded)."""
    if aside is None:
        aside = _record(workspace).get("claude_md") == CLAUDE_MD_ASIDE
    files = shipped(mode or mode_of(workspace))
    return {(CLAUDE_MD_ASIDE if aside and relative == "CLAUDE.md" else relative): data for relative, data in files.items()}


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _record(workspace: Workspace) -> dict:
    try:
        data = jsontext.loads((workspace.root / RECORD).read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _recorded(workspace: Workspace) -> dict[str, str]:
    files = _record(workspace).get("files")
    return {k: v for k, v in files.items() if isinstance(v, str)} if isinstance(files, dict) else {}


def mode_of(workspace: Workspace) -> str:
    """``plugin`` if the workspace was set up for the Claude Code plugin, else ``commands``."""
    return PLUGIN if _record(workspace).get("mode") == PLUGIN else COMMANDS


def states(workspace: Workspace) -> list[FileState]:
    recorded = _recorded(workspace)
    found = []
    for relative, data in placed(workspace).items():
        path = workspace.root / relative
        if not path.is_file():
            found.append(FileState(relative, "missing"))
            continue
        current = _digest(path.read_bytes())
        if current == _digest(data):
            found.append(FileState(relative, "current"))
        elif recorded.get(relative) == current:
            found.append(FileState(relative, "out of date"))
        else:
            found.append(FileState(relative, "changed here"))
    return found


def install(workspace: Workspace, only: set[str] | None = None, mode: str | None = None,
            aside: bool | None = None) -> list[str]:
    """Write the shipped files (all of them, or ``only`` these paths of ``placed``) and record what was written."""
    recorded = _recorded(workspace)
    mode = mode or mode_of(workspace)
    if aside is None:
        aside = _record(workspace).get("claude_md") == CLAUDE_MD_ASIDE
    written = []
    for relative, data in placed(workspace, mode, aside).items():
        if only is not None and relative not in only:
            continue
        atomic_write_bytes(workspace.inside(workspace.root / relative), data)
        recorded[relative] = _digest(data)
        written.append(relative)
    record = {"mode": mode, **({"claude_md": CLAUDE_MD_ASIDE} if aside else {}), "files": dict(sorted(recorded.items()))}
    atomic_write_json(workspace.root / RECORD, record)
    return written


def update(workspace: Workspace) -> list[str]:
    """Bring missing and out-of-date files up to the installed toolkit; leave the user's edits."""
    stale = {s.path for s in states(workspace) if s.stale}
    return install(workspace, stale) if stale else []


#: This clone's interpreter, for the launcher (``.claude/gamemaster.sh``); not committed.
INTERPRETER = ".claude/gamemaster-python"
LOCAL_SETTINGS = ".claude/settings.local.json"


def record_local(workspace: Workspace) -> list[str]:
    """What only this clone knows, kept out of git by ``.claude/.gitignore``: the Python that runs
    the toolkit (so the hook and MCP server find it without PATH) and, for a plugin workspace,
    where the installed toolkit's plugin lies (``.claude/settings.local.json``). Returns what changed."""
    written = []
    path = workspace.root / INTERPRETER
    wanted = sys.executable + "\n"
    if not path.is_file() or path.read_text(encoding="utf-8", errors="replace") != wanted:
        atomic_write_bytes(workspace.inside(path), wanted.encode("utf-8"))
        written.append(INTERPRETER)
    if mode_of(workspace) == PLUGIN:
        local = workspace.root / LOCAL_SETTINGS
        try:
            current = jsontext.loads(local.read_text(encoding="utf-8")) if local.exists() else {}
        except (ValueError, UnicodeDecodeError):
            current = None  # the user's file, not valid JSON: left alone (Claude Code reports it)
        if isinstance(current, dict):
            merged = {**current, **local_settings()}
            if merged != current:
                atomic_write_json(local, merged)
                written.append(LOCAL_SETTINGS)
    return written
