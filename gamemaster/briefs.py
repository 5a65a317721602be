"""Creative Director briefs: feedback that reaches the characters as a memory at once."""

from __future__ import annotations

from .calendar import annotate
from .fsio import dump_json
from .kinds.settings import world_data
from .lang import phrase
from .linesize import text_too_long
from .models import Brief, Memory, World, parse_scene_ref, scene_ref
from .problems import GamemasterError
from .scenes import decide_next
from .transaction import Transaction, commit, recover
from .workspace import Workspace

BRIEF_IMPORTANCE = 9


def give_brief(workspace: Workspace, text: str, to: list[str] | None = None, importance: int = BRIEF_IMPORTANCE) -> Brief:
    """Creative Director feedback: a high-importance observation for each addressee now."""
    if not text.strip():
        raise GamemasterError("brief: the text is empty")
    too_long = text_too_long(text)
    if too_long:
        raise GamemasterError(f"brief: {too_long}")
    to = list(dict.fromkeys(to)) if to else None
    with workspace.lock:
        recover(workspace)
        world = workspace.load_world()
        agents = workspace.load_agents()
        if not agents:
            raise GamemasterError("brief: the studio has no agents")
        workspace.check_agents(to or [], "--to: ")
        received = received_ref(workspace, world)
        world.briefs_issued += 1
        brief = Brief(id=f"brief-{world.briefs_issued:03d}", text=text, to=to or None, created=received)
        world.briefs.append(brief)
        transaction = Transaction(label=f"brief {brief.id}")
        # The memory keeps what „morgen“ meant on the day it was given; read days later it would not say.
        dates = annotate(text, world.language, world, parse_scene_ref(received)[0])
        for agent_id in to or sorted(agents):
            stream = workspace.stream(agent_id)
            memory = Memory(
                id=f"{agent_id}-{stream.next_number():03d}",
                created=received,
                type="observation",
                description=phrase(world.language, "brief", text=text) + dates,
                importance=importance,
                tags=["creative-director", "brief"],
                # Said to everyone: what the studio as a whole was told (``colleagues.common_ground``).
                metadata={"source": "brief", "brief": brief.id, **({} if to else {"everyone": True})},
            )
            transaction.add_memory(agent_id, memory)
            agent = agents[agent_id]
            agent.importance_accumulator += importance
            transaction.files[workspace.rel(workspace.agent_path(agent_id))] = dump_json(agent.dump())
        transaction.files[workspace.rel(workspace.world_path)] = dump_json(world_data(world))
        commit(workspace, transaction)
        return brief


def received_ref(workspace: Workspace, world: World) -> str:
    """Where something from outside (a brief, an interview) is received: the next scene that will be opened."""
    if world.pending:
        day, scene = parse_scene_ref(world.pending)
        return scene_ref(day, scene + 1)
    spec = decide_next(world, workspace.load_agents())
    return spec.ref
