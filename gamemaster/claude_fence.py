"""Claude Code's PreToolUse hook: the toolkit hands each character its prompt, and a character
reads only its own mind.

Two jobs, told apart by the tool and by who calls it (Claude Code names a subagent in the
hook input's ``agent_type`` and ``agent_id``):

- **Handing over.** The Game Master spawns ``character-<id>`` with the short handoff that
  ``next --json`` lists per open turn, not with the prompt: re-typing a 13 KB prompt is output
  a model must generate, one prompt after another, and may alter. The hook (matcher ``Agent|Task``
  in the workspace settings) puts the prompt file's text in the handoff's place
  (``updatedInput``), so the character gets exactly the toolkit's prompt. A pasted prompt for
  the pending scene is replaced by the file's text as well. Anything else the Game Master hands
  a character (an interview from ``ask``) passes unchanged.
- **The fence.** A character subagent (its file runs this hook for its ``Read``, ``Glob`` and
  ``Grep``) may read its own prompts of the pending scene, its own memory stream, ``gallery/``
  and ``library/``; anything else — another character's stream, ``state/world.json``, the other
  prompts, recordings, anything outside the workspace — is refused with the reason. A handoff the
  hook could not replace still works: it names the prompt file, and the character reads it.
- **The lookup.** Its one command is ``gamemaster lookup "…"`` (``lookup.py``): the hook runs it
  as a lookup in the caller's own memory, whatever the command named, with the query quoted so no
  shell reads it; any other command is refused.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path

from . import jsontext
from .claude_code import SUBAGENT_PREFIX, agent_for_subagent, hook_event, hook_workspace
from .problems import GamemasterError
from .workspace import Workspace

SPAWN_TOOLS = ("Agent", "Task")
READ_TOOLS = ("Read", "Glob", "Grep")
#: A prompt file named in a handoff: ``scenes/day-001/scene-02/prompts/vera.md`` (or ``03-vera.md``).
PROMPT_FILE = re.compile(r"scenes/(day-\d{3,18}/scene-\d{2,18})/prompts/(?:\d{2,}-)?([a-z][a-z0-9_]*)\.md")
#: The answer format of a scene prompt names its scene; an interview's does not.
SCENE_FIELD = re.compile(r'"scene":\s*"(day-\d{3,18}/scene-\d{2,18})"')
#: Folders every character may read.
OPEN_FOLDERS = ("gallery", "library")


def pre_tool_use_hook(workspace: Workspace, event: str, from_plugin: bool = False) -> dict | None:
    """What ``gamemaster hook pre-tool-use`` prints for one event (``event``, its JSON text); None
    lets the call go on as Claude Code would without the hook."""
    payload = hook_event(event)
    tool = payload.get("tool_name")
    tool_input = payload.get("tool_input") if isinstance(payload.get("tool_input"), dict) else {}
    caller = str(payload.get("agent_type") or "")
    fenced = tool in (*READ_TOOLS, "Bash") and bool(payload.get("agent_id")) and caller.startswith(SUBAGENT_PREFIX)
    if tool not in SPAWN_TOOLS and not fenced:
        return None  # the Game Master's own reads, and other subagents', are Claude Code's to allow
    found = hook_workspace(workspace.root, payload)
    if found is None:
        return _deny(f"no gamemaster workspace found from {workspace.root}") if fenced else None
    if from_plugin and tool in SPAWN_TOOLS:
        from .claude_plugin import workspace_runs_own_hook

        if workspace_runs_own_hook(found, "PreToolUse"):
            return None  # the workspace's own hook hands the prompt over
    from .gm import GameMaster

    gm = GameMaster(found)
    if not fenced:
        return hand_over(gm, tool_input)
    try:
        agent_id = agent_for_subagent(caller, found.agent_ids())
        if agent_id is None:
            return _deny(f"{caller} is not a character of this studio")
        if tool == "Bash":
            return lookup_only(agent_id, tool_input, found)
        return fence(gm, agent_id, tool, tool_input, str(payload.get("cwd") or found.root))
    except Exception as exc:  # noqa: BLE001 - a fence that cannot decide refuses, and says why
        return _deny(f"could not check this read, so it is refused: {type(exc).__name__}: {exc}")


def _deny(reason: str) -> dict:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                   "permissionDecisionReason": f"gamemaster: {reason}"}}


def hand_over(gm, tool_input: dict) -> dict | None:
    """The Game Master spawns a character: its handoff (or pasted prompt) becomes the prompt file's text."""
    agent_id = agent_for_subagent(tool_input.get("subagent_type"), gm.workspace.agent_ids())
    given = tool_input.get("prompt")
    if agent_id is None or not isinstance(given, str):
        return None
    named = PROMPT_FILE.search(given) or SCENE_FIELD.search(given)
    if named is None:
        return None  # not a scene turn (an interview, a question): the Game Master's own words
    pending = gm.pending()
    if pending is None:
        return _deny(f"no scene is pending, so {agent_id} has no turn; run `gamemaster next --json` first")
    if named.group(1) != pending.spec.ref:
        return _deny(f"the task names scene {named.group(1)}, but the pending scene is {pending.spec.ref}: "
                     "hand over the `handoff` that `gamemaster next --json` lists for it")
    try:
        prompt = gm.prompt_text(agent_id)
    except GamemasterError as exc:
        return _deny(str(exc))
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {**tool_input, "prompt": prompt}}}


def _own_prompts(gm, agent_id: str) -> tuple[set[str], Path | None]:
    """The agent's prompt files in the pending scene, and the one of its open turn (None: no open turn)."""
    pending = gm.pending()
    if pending is None:
        return set(), None
    own = {os.path.realpath(pending.prompt_path(t)) for t, a in enumerate(pending.turns) if a == agent_id}
    try:
        current = pending.prompt_path(pending.turn_of(agent_id))
    except GamemasterError:
        current = None
    return own, current


def _target(tool: str, tool_input: dict, cwd: str) -> str | None:
    value = tool_input.get("file_path") if tool == "Read" else (tool_input.get("path") or cwd)
    if not isinstance(value, str) or not value:
        return None
    return os.path.realpath(os.path.join(cwd, os.path.expanduser(value)))


def _escapes(pattern: object) -> bool:
    """A glob that could reach beyond the folder searched: absolute, with ``..`` or ``~``."""
    if not isinstance(pattern, str) or not pattern:
        return False
    return pattern.startswith(("/", "~", "\\")) or ".." in re.split(r"[/\\]", pattern)


def fence(gm, agent_id: str, tool: str, tool_input: dict, cwd: str) -> dict | None:
    """None (Claude Code decides as usual) where ``agent_id`` may read, else a refusal with the reason."""
    root = os.path.realpath(gm.workspace.root)
    allowed = (f"{agent_id} may read only its own prompt and memories, gallery/ and library/ of the studio "
               "(everything else there is someone else's mind or the Game Master's)")
    target = _target(tool, tool_input, cwd)
    if target is None:
        return _deny(f"{tool} without a path: {allowed}")
    if _escapes(tool_input.get("pattern") if tool == "Glob" else tool_input.get("glob")):
        return _deny(f"{tool} with a pattern reaching outside the folder searched: {allowed}")
    open_folders = [os.path.join(root, name) for name in OPEN_FOLDERS]
    if any(target == folder or target.startswith(folder + os.sep) for folder in open_folders):
        return None
    own_stream = os.path.realpath(gm.workspace.memories_dir / f"{agent_id}.jsonl")
    if target == own_stream and tool != "Glob":
        return None
    prompts, current = _own_prompts(gm, agent_id)
    if tool == "Read" and (target in prompts or (current is not None and target == os.path.realpath(current))):
        if current is not None and target == os.path.realpath(current) and not current.exists():
            try:
                gm.prompt_text(agent_id)  # the handoff named it before it was written: write it now
            except GamemasterError as exc:
                return _deny(str(exc))
        return None
    shown = gm.workspace.rel(Path(target)) if target.startswith(root + os.sep) else target
    return _deny(f"{tool} of {jsontext.dumps(shown, ensure_ascii=True)} refused: {allowed}")


#: A character's one command: ``gamemaster lookup "what I am looking for"``.
LOOKUP_COMMAND = re.compile(r"\s*gamemaster\s+lookup\s+(?P<query>.+?)\s*", re.S)
#: What a shell would run, expand or redirect even inside double quotes: a query has no need of it.
SHELL_SIGNS = re.compile(r"[`$;&|<>\\\n]")


def lookup_only(agent_id: str, tool_input: dict, workspace: Workspace) -> dict:
    """A character's Bash call: ``gamemaster lookup "…"`` runs as a lookup in its own memory (the
    command rebuilt, its own id and the query quoted); anything else is refused with the reason."""
    usage = f'{agent_id} may run only `gamemaster lookup "what you are looking for"` (a lookup in its own memory)'
    command = tool_input.get("command")
    found = LOOKUP_COMMAND.fullmatch(command) if isinstance(command, str) else None
    if found is None:
        return _deny(f"this command is refused: {usage}")
    if SHELL_SIGNS.search(found["query"]):
        return _deny("write the query without ` $ ; & | < > \\ or a line break: " + usage)
    try:
        words = shlex.split(found["query"])
        query = " ".join(words[1:] if len(words) > 1 and words[0] == agent_id else words)
    except ValueError as exc:
        return _deny(f"the query does not parse ({exc}): {usage}")
    safe = " ".join(shlex.quote(part) for part in (sys.executable, "-m", "gamemaster", "--root", str(workspace.root),
                                                    "lookup", agent_id, query))
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                   "permissionDecisionReason": f"gamemaster: a lookup in {agent_id}'s own memory",
                                   "updatedInput": {**tool_input, "command": safe}}}
