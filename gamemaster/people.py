"""New characters: what ``gamemaster agents new`` writes.

A character is its file ``state/agents/{id}.json``, its memory stream
``state/memories/{id}.jsonl`` (empty until its first scene) and, for Claude Code, the
subagent ``.claude/agents/character-{id}.md`` generated from the file. The next ARRIVAL
takes everyone with an agent file, so nothing else has to change.
"""

from __future__ import annotations

from pydantic import ValidationError

from .claude_code import sync_subagents
from .fsio import atomic_write_text
from .ids import agent_id as checked_agent_id
from .models import Agent
from .problems import GamemasterError, describe_validation_error
from .transaction import recover
from .workspace import Workspace


def new_agent(
    workspace: Workspace,
    agent_id: str,
    *,
    name: str,
    role: str,
    persona: str | None = None,
    artifact_kind: str = "notes",
    team: str | None = None,
) -> Agent:
    """Write a new character's files under the lock; an id already taken is refused, nothing written."""
    # The id names three files: checked before any path is built from it.
    try:
        checked_agent_id(agent_id)
    except ValueError as exc:
        raise GamemasterError(f"agents new: {exc}") from None
    if not name.strip() or not role.strip():
        raise GamemasterError("agents new: --name and --role must not be empty")
    fields = {"id": agent_id, "name": name.strip(), "role": role.strip(),
              "persona": (persona or "").strip() or f"{name.strip()}, {role.strip()}.",
              "artifact_kind": artifact_kind}
    if team is not None and team.strip():
        fields["team"] = team.strip()
    try:
        agent = Agent.model_validate(fields)
    except ValidationError as exc:
        raise GamemasterError(f"agents new: {describe_validation_error(exc)}") from None


    with workspace.lock:
        recover(workspace)
        workspace.require()
        agent_path = workspace.inside(workspace.agent_path(agent_id))
        stream_path = workspace.inside(workspace.stream(agent_id).path)
        if agent_path.exists() or agent_path.is_symlink():
            raise GamemasterError(f"agents new: {agent_id} exists already ({workspace.rel(agent_path)})")
        if stream_path.exists() or stream_path.is_symlink():
            # Memories without a character: adopting them silently could hand a new
            # person someone else's past, so the Creative Director decides.
            raise GamemasterError(f"agents new: {workspace.rel(stream_path)} exists already but has no agent file; "
                                  "move it away or write the agent file by hand")
        # The agent file first: should the rest not get written, what is left is a valid
        # character whose stream begins with its first scene and whose subagent the next
        # `agents sync` writes.
        workspace.save_agent(agent)
        atomic_write_text(stream_path, "")
        sync_subagents(workspace)
    return agent
