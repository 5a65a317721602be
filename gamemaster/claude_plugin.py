"""The Game Master as a Claude Code plugin, built from the workspace commands.

The plugin ships inside the package (``gamemaster/plugin/``): a manifest, one
skill per command (scene, day, brief, status, ask, report, who-knows), the
SubagentStop hook and the MCP server. The skills are the commands' text with a ``name`` added, so
the two forms never drift apart; ``tests/test_claude_plugin.py`` checks the
committed files against :func:`rendered`, and :func:`write` renders them anew.

A workspace uses the plugin instead of its own commands, hook and MCP entry
(``gamemaster init --plugin``): the hook would otherwise run twice. The
character subagents stay per workspace (``agents sync``).
"""

from __future__ import annotations

import json
from importlib.resources import files
from pathlib import Path

from . import __version__, jsontext
from .fsio import atomic_write_bytes, dump_json
from .kind_docs import with_kinds
from .workspace import bundled_dir

NAME = "gamemaster"
SKILLS = ("scene", "day", "brief", "studio", "ask", "report", "who-knows")
#: What every form of the reply hook runs (through a launcher, so `gamemaster` need not be on PATH).
HOOK_COMMAND = "hook subagent-stop"
#: The PreToolUse hook: hands a character its prompt (``Agent``/``Task``) and fences what it reads.
HANDOFF_COMMAND = "hook pre-tool-use"
#: The plugin's hook hands prompts over (the Game Master's spawns) ...
HANDOFF_MATCHER = "Agent|Task"
#: ... and the workspace's settings fence a character's reading: settings hooks run in an untrusted
#: folder too, where Claude Code 2.1.330 and newer skip the hooks a subagent file declares (measured).
FENCE_MATCHER = "Read|Grep|Glob|Bash"
#: The launcher that finds `gamemaster` (see the file): in a workspace and, as ``bin/``, in the plugin.
LAUNCHER = ".claude/gamemaster.sh"
PLUGIN_LAUNCHER = "bin/gamemaster.sh"
#: Only the character subagents run the hook (the matcher is the subagent's type), not Explore & co.
HOOK_MATCHER = "character-.*"
MARKETPLACE = "gamemaster"


def plugin_dir() -> Path:
    """Where the installed toolkit keeps its plugin (what ``claude --plugin-dir`` takes)."""
    return Path(str(files("gamemaster") / "plugin"))


def _json(data: dict) -> bytes:
    return dump_json(data).encode("utf-8")


def _skill(name: str, command: str) -> str:
    if not command.startswith("---\n"):
        raise ValueError(f".claude/commands/{name}.md has no front matter")
    return f"---\nname: {name}\n" + command[len("---\n"):]


def rendered() -> dict[str, bytes]:
    """Relative path inside the plugin → its bytes, from the bundled commands and MCP entry."""
    commands = bundled_dir(".claude/commands")
    launcher = '"${CLAUDE_PLUGIN_ROOT}/' + PLUGIN_LAUNCHER + '"'
    out = {
        ".claude-plugin/plugin.json": _json({
            "name": NAME,
            "version": __version__,
            "description": "Game Master for a gamemaster studio: run scenes and days with one subagent per "
                           "character, brief the studio, ask a character what they remember.",
            "author": {"name": "gamemaster"},
            "license": "MIT",
        }),
        ".claude-plugin/marketplace.json": _json({
            "name": MARKETPLACE,
            "description": "The gamemaster toolkit's own plugin, from the installed package.",
            "owner": {"name": "gamemaster"},
            "plugins": [{"name": NAME, "source": "./", "description": "Game Master for a gamemaster studio"}],
        }),
        "hooks/hooks.json": _json({"hooks": {
            "PreToolUse": [
                {"matcher": HANDOFF_MATCHER,
                 "hooks": [{"type": "command", "command": f"sh {launcher} {HANDOFF_COMMAND} --from-plugin"}]},
            ],
            "SubagentStop": [
                {"matcher": HOOK_MATCHER,
                 "hooks": [{"type": "command", "command": f"sh {launcher} {HOOK_COMMAND} --from-plugin"}]},
            ]}}),
        ".mcp.json": _json({"mcpServers": {NAME: {"type": "stdio", "command": "sh",
                                                   "args": ["${CLAUDE_PLUGIN_ROOT}/" + PLUGIN_LAUNCHER, "mcp"]}}}),
        PLUGIN_LAUNCHER: bundled_dir(LAUNCHER).read_bytes(),
    }
    for name in SKILLS:
        text = with_kinds((commands / f"{name}.md").read_text(encoding="utf-8"))
        out[f"skills/{name}/SKILL.md"] = _skill(name, text).encode("utf-8")
    return out


def write(target: Path | None = None) -> None:
    """Render the plugin into ``target`` (the package's own folder by default)."""
    target = target or plugin_dir()
    for relative, data in rendered().items():
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, data)


def brought_up_to_date() -> str | None:
    """Render the plugin into its folder where a file differs from what the registry renders
    now (a scene kind installed since the toolkit was: its skills name the kinds); None when it is
    current or was brought up to date, else why it could not be written (a read-only install)."""
    target = plugin_dir()
    stale = {relative: data for relative, data in rendered().items() if not _holds(target / relative, data)}
    try:
        for relative, data in stale.items():
            (target / relative).parent.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(target / relative, data)
    except OSError as exc:
        return f"{target}: its skills list the kinds as shipped, not those installed since ({exc.strerror or exc})"
    return None


def _holds(path: Path, data: bytes) -> bool:
    try:
        return path.read_bytes() == data
    except OSError:
        return False


def workspace_settings() -> bytes:
    """The workspace's .claude/settings.json when the plugin brings the hook and MCP server.

    It enables the plugin by name, which Claude Code honours in a trusted folder once it knows
    the marketplace: from ``local_settings`` or ``claude plugin marketplace add``. No path of
    this machine goes into the committed file, so a teammate's clone works the same.
    """
    settings = json.loads(bundled_dir(".claude/settings.json").read_text(encoding="utf-8"))
    # The plugin brings the reply hook and the handoff; the fence stays with the workspace, so a
    # plugin installed for every project does not start a process for every file read elsewhere.
    fence = settings["hooks"]["PreToolUse"]
    settings["hooks"] = {"PreToolUse": [{**group, "matcher": FENCE_MATCHER} for group in fence]}
    settings.pop("enabledMcpjsonServers", None)  # the plugin's server needs no approval
    allow = settings["permissions"]["allow"]
    settings["permissions"]["allow"] = [a if a != "mcp__gamemaster" else f"mcp__plugin_{NAME}_{NAME}" for a in allow]
    settings["enabledPlugins"] = {f"{NAME}@{MARKETPLACE}": True}
    return _json(settings)


def local_settings() -> dict:
    """What this clone's ``.claude/settings.local.json`` (not committed) gets: the installed
    toolkit's plugin folder as a local marketplace."""
    return {"extraKnownMarketplaces": {MARKETPLACE: {"source": {"source": "directory", "path": str(plugin_dir())}}}}


def workspace_runs_own_hook(workspace, event: str = "SubagentStop") -> bool:
    """Does the workspace's own settings file run the toolkit's hook for ``event`` (a workspace set up with commands)?"""
    command = HOOK_COMMAND if event == "SubagentStop" else HANDOFF_COMMAND
    try:
        settings = jsontext.loads((workspace.root / ".claude" / "settings.json").read_text(encoding="utf-8"))
        groups = settings["hooks"][event]
        if event == "PreToolUse":  # a plugin workspace runs it for the fence only, not for the spawns
            groups = [g for g in groups if "Agent" in str(g.get("matcher", ""))]
        return any(command in str(h.get("command", "")) for g in groups for h in g.get("hooks", []))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False
