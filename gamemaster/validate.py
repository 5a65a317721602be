"""``gamemaster validate``: every state file checked, every problem as ``file:line: reason``."""

from __future__ import annotations

from .problems import Problem, StateError
from .workspace import Workspace


def validate_workspace(workspace: Workspace) -> list[Problem]:
    problems: list[Problem] = []
    world = None
    try:
        world = workspace.load_world()
    except StateError as exc:
        problems += exc.problems or [Problem(workspace.rel(workspace.world_path), None, str(exc))]

    agent_ids = workspace.agent_ids()
    for agent_id in agent_ids:
        path = workspace.rel(workspace.agent_path(agent_id))
        try:
            agent = workspace.load_agent(agent_id)
        except StateError as exc:
            problems += exc.problems or [Problem(path, None, str(exc))]
            continue
        for index, wish in enumerate(agent.talk_wishes):
            unknown = [a for a in wish.with_ if a not in agent_ids]
            if unknown:
                problems.append(Problem(path, None, f"talk_wishes.{index}.with: unknown agent(s) {', '.join(unknown)}", warning=True))

    streams = sorted(p.stem for p in workspace.memories_dir.glob("*.jsonl"))
    for stem in streams:
        stream = workspace.stream(stem)
        if stem not in agent_ids:
            problems.append(Problem(stream.display, None, f"no agent file state/agents/{stem}.json for this stream"))
        found, stream_problems = stream.scan()
        problems += stream_problems
        for item in found:
            path = item.memory.metadata.get("artifact_path")
            if isinstance(path, str) and not (workspace.root / path).exists():
                problems.append(Problem(stream.display, item.line, f"artifact_path {path} does not exist", warning=True))

    if world is not None:
        for brief in world.briefs:
            for agent_id in brief.to or []:
                if agent_id not in agent_ids:
                    problems.append(Problem("state/world.json", None, f"briefs: {brief.id} is addressed to unknown agent {agent_id!r}"))
        if world.pending:
            from .gm import GameMaster

            try:
                GameMaster(workspace).pending(world)
            except StateError as exc:
                problems += exc.problems or [Problem("state/world.json", None, f"pending {world.pending}: {exc}")]
    if workspace.journal_path.exists():
        problems.append(
            Problem(workspace.rel(workspace.journal_path), None, "an interrupted scene is waiting; the next gamemaster command finishes it", warning=True)
        )
    return problems
