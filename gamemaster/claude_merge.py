"""``init`` in a folder with Claude Code files of its own: keep them, add what the Game Master needs.

Without the toolkit's CLAUDE.md, settings and MCP entry, Claude Code in the workspace has no
Game Master instructions, no reply hook and no ``gamemaster`` tools, and nothing would say so.
So every file the folder has already is kept and named in a warning: the settings and
``.mcp.json`` get the toolkit's keys added (theirs win where both set one), CLAUDE.md stays
as it is and the toolkit's goes beside it, to be imported with one line. Merged files are not
recorded as the toolkit's, so ``agents sync`` never replaces them.
"""

from __future__ import annotations

import copy
import json

from . import jsontext
from .claude_files import CLAUDE_MD_ASIDE, install, shipped
from .claude_plugin import HANDOFF_COMMAND, HOOK_COMMAND
from .fsio import atomic_write_bytes, dump_json
from .problems import Problem
from .workspace import Workspace, bundled_dir

SETTINGS, MCP = ".claude/settings.json", ".mcp.json"


def install_beside_own(workspace: Workspace, mode: str) -> None:
    """The toolkit's Claude Code files for ``mode``; where the folder has its own, see the module.
    What was kept or merged is in ``workspace.warnings``."""
    root = workspace.root
    files = shipped(mode)
    own = [relative for relative in files if (root / relative).exists()]
    # A file that is the toolkit's byte for byte (a copy from another workspace) simply is the toolkit's.
    different = [relative for relative in own if not _same(root / relative, files[relative])]
    aside = "CLAUDE.md" in different
    wanted = {(CLAUDE_MD_ASIDE if aside and relative == "CLAUDE.md" else relative) for relative in files
              if relative not in different or relative == "CLAUDE.md"}
    install(workspace, wanted, mode=mode, aside=aside)
    for relative in different:
        line = None
        if relative == "CLAUDE.md":
            reason = (f"the folder has its own, kept as it is; the Game Master's instructions are in {CLAUDE_MD_ASIDE}: "
                      f"add the line `@{CLAUDE_MD_ASIDE}` to CLAUDE.md, or Claude Code does not know how to run the studio")
        elif relative in (SETTINGS, MCP):
            line, reason = _merge(workspace, relative, json.loads(files[relative]), mode)
        else:
            reason = "the folder has its own, kept as it is; the toolkit's version is not installed"
        if reason:
            workspace.warn(Problem(relative, line, reason, warning=True))


def _same(path, data: bytes) -> bool:
    try:
        return path.read_bytes() == data
    except OSError:
        return False


def _merge(workspace: Workspace, relative: str, ours: dict, mode: str) -> tuple[int | None, str | None]:
    """Add ``ours`` to the folder's own JSON file; the line and what to tell the user (None: it had everything)."""
    path = workspace.root / relative
    theirs, problem = _read_object(path)
    if problem is not None:
        line, reason = problem
        return line, f"{reason}; left as it is, {_unmerged_hint(relative, list(ours), mode)}"
    if relative == SETTINGS:
        ours = _without_hooks_it_runs(theirs, ours)
    merged = copy.deepcopy(theirs)
    kept = _add(merged, ours)
    if merged == theirs:
        return None, (f"the folder has its own, kept as it is; yours differ from gamemaster's at {', '.join(kept)}"
                      if kept else None)
    text = dump_json(merged)
    atomic_write_bytes(workspace.inside(path), text.encode("utf-8"))
    added = ("added the gamemaster MCP server and kept yours" if relative == MCP
             else f"added what gamemaster needs ({', '.join(ours)}) and kept everything of yours")
    differ = f", also where it differs from gamemaster's: {', '.join(kept)}" if kept else ""
    return None, f"the folder has its own; {added}{differ}"


def _read_object(path) -> tuple[dict, tuple[int | None, str] | None]:
    try:
        data = jsontext.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        return {}, (exc.lineno, f"not valid JSON: {exc.msg}")
    except UnicodeDecodeError as exc:
        return {}, (None, f"not UTF-8 (byte {exc.start})")
    except OSError as exc:
        return {}, (None, exc.strerror or str(exc))
    if not isinstance(data, dict):
        return {}, (1, "expected a JSON object")
    return data, None


def _unmerged_hint(relative: str, ours: list[str], mode: str) -> str:
    keys = " and ".join(filter(None, [", ".join(ours[:-1]), ours[-1]]))
    if relative == MCP:
        return f"so Claude Code has no gamemaster MCP server: fix it and add mcpServers.gamemaster as in {bundled_dir(MCP)}"
    if mode == "plugin":
        return f"so Claude Code gets no permissions and no plugin from gamemaster: fix it and add {keys} as `gamemaster init --plugin` writes them"
    return f"so Claude Code gets no reply hook and no permissions from gamemaster: fix it and add {keys} as in {bundled_dir(SETTINGS)}"


def _add(theirs: dict, ours: dict, prefix: str = "") -> list[str]:
    """Add each of our keys to ``theirs``: objects key by key, lists item by item; a value of
    theirs that differs from ours is kept. Returns the keys kept that way."""
    kept = []
    for key, value in ours.items():
        if key not in theirs:
            theirs[key] = copy.deepcopy(value)
        elif isinstance(theirs[key], dict) and isinstance(value, dict):
            kept += _add(theirs[key], value, f"{prefix}{key}.")
        elif isinstance(theirs[key], list) and isinstance(value, list):
            theirs[key] += [copy.deepcopy(item) for item in value if item not in theirs[key]]
        elif theirs[key] != value:
            kept.append(prefix + key)
    return kept


def _without_hooks_it_runs(settings: dict, ours: dict) -> dict:
    """``ours`` without the toolkit's hooks the folder's settings run already: a second reply hook
    would count every rejection twice, a second handoff would hand the prompt over twice."""
    hooks = settings.get("hooks") if isinstance(settings.get("hooks"), dict) else {}
    wanted = {event: groups for event, groups in (ours.get("hooks") or {}).items()
              if not any(command in json.dumps(hooks.get(event)) for command in (HOOK_COMMAND, HANDOFF_COMMAND))}
    return {**{k: v for k, v in ours.items() if k != "hooks"}, **({"hooks": wanted} if wanted else {})}
