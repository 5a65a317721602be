"""Taking replies and writing a scene back, on one snapshot of the studio.

A reply is parsed and validated into its kind's reply model once, where it comes in
(``take_reply``); from there the typed reply is what is stored, checked again against the
scene's rules before write-back (``check_turn``: state may have moved, evidence may be gone)
and handed to ``plan_scene``. The caller holds the workspace lock where a function writes.
"""

from __future__ import annotations

from typing import Callable, Iterable, Mapping

from .models import Agent, Memory, memory_author
from .lookup import looked_up
from .pending import Pending, heard_in_prompt, load_batch, readings_of, require_participants, shown_in_prompt, usage_of
from .problems import GamemasterError
from .records import TranscriptLine
from .replies import Reply, ReplyError, check_reply, parse_reply
from .sections import reply_model_for
from .snapshot import Snapshot
from .streams import MemoryStream
from .transaction import Transaction
from .writeback import SceneResult, plan_scene


def take_reply(snap: Snapshot, pending: Pending, turn: int, raw: str | dict) -> Reply:
    """``raw`` as the typed reply of ``turn``: parsed and validated (the one time), then checked."""
    reply = parse_reply(raw, pending.turns[turn], reply_model_for(pending.spec.kind))
    check_turn(snap, pending, turn, reply)
    return reply


def check_turn(snap: Snapshot, pending: Pending, turn: int, reply: Reply,
               cited: dict[str, Memory] | None = None) -> None:
    """The scene's rules for a typed reply (``ReplyError``); the memories its evidence cites go into ``cited``."""
    agent_id = pending.turns[turn]
    found = find_memories(snap.stream, (e for insight in reply.insights for e in insight.evidence), snap.agents)
    check_reply(
        reply,
        agent=agent_id,
        spec=pending.spec,
        roster=snap.agents,
        evidence_exists=lambda ids: [i for i in ids if i not in found],
        final_turn=pending.is_final_turn(turn),
        shown=_seen(pending, turn),
        heard_from=heard_in_prompt(pending, turn),
        said_before=tuple(pending.replies[t].says for t in sorted(pending.replies) if t < turn),
        world=snap.world,
    )
    if cited is not None:
        cited.update(found)


def _seen(pending: Pending, turn: int) -> set[str] | None:
    """The memory ids a turn's reply may cite: what its prompt showed and what it looked up."""
    shown = shown_in_prompt(pending, turn)
    return None if shown is None else shown | looked_up(pending, turn)


def find_memories(stream_of: Callable[[str], MemoryStream], ids: Iterable[str], agents: Mapping[str, Agent]) -> dict[str, Memory]:
    """The memories with these ids, each looked up in its author's stream (one pass per stream):
    evidence may cite what another character remembers."""
    by_author: dict[str, list[str]] = {}
    for memory_id in ids:
        author = memory_author(memory_id)
        if author in agents:
            by_author.setdefault(author, []).append(memory_id)
    found: dict[str, Memory] = {}
    for author, wanted in by_author.items():
        found.update(stream_of(author).find(wanted))
    return found


def stage_replies(snap: Snapshot, pending: Pending, given: dict[str, object]) -> Pending:
    """``pending`` with the ``given`` replies taken (see ``GameMaster.apply_replies``), nothing
    stored; every problem with them in one ``GamemasterError``."""
    queues: dict[str, list] = {}
    for agent_id, value in given.items():
        if agent_id not in pending.spec.participants:
            raise GamemasterError(f"replies: {agent_id} is not in scene {pending.spec.ref}")
        queues[agent_id] = list(value) if isinstance(value, list) else [value]
    repeated, problems = _take_repeats(pending, queues)
    staged = Pending(pending.spec, pending.folder, pending.record, dict(pending.replies))
    in_order = pending.spec.kind.in_sequence
    for turn in staged.missing():
        agent_id = staged.turns[turn]
        if not queues.get(agent_id):
            if in_order:
                break  # the meeting waits here for this speaker
            continue
        try:
            staged.replies[turn] = take_reply(snap, staged, turn, queues[agent_id].pop(0))
        except ReplyError as exc:
            problems.append(str(exc))
    for agent_id, rest in queues.items():
        if rest:
            problems.append(f"{agent_id}: {len(rest)} reply(s) more than the scene can take now")
    if len(staged.replies) == len(pending.replies) and not problems and not repeated:
        problems.append(f"no reply for any open turn of {pending.spec.ref}")
    if problems:
        raise GamemasterError("replies rejected, nothing written:\n" + "\n".join(problems))
    return staged


def _take_repeats(pending: Pending, queues: dict[str, list]) -> tuple[bool, list[str]]:
    """Drop from each queue the replies that are the agent's stored turns given again: a command
    repeated after an interruption, when the first one got through, writes nothing and is no
    error. The queue's first reply is looked for among the agent's stored turns; from there each
    next one must be the next stored turn, and one that differs is a problem (two answers for one
    turn). Whether anything was dropped, and the problems."""
    dropped, problems = False, []
    for agent_id, queue in queues.items():
        stored = [pending.replies[t].model_dump() for t in sorted(pending.replies) if pending.turns[t] == agent_id]
        first = _parsed(queue[0], agent_id, pending) if queue and stored else None
        start = stored.index(first) if first in stored else len(stored)
        for position, reply in enumerate(stored[start:], start + 1):
            if not queue:
                break
            if _parsed(queue[0], agent_id, pending) != reply:
                problems.append(f"{agent_id}: the reply given for its stored turn {position} differs from the one stored")
                break
            queue.pop(0)
            dropped = True
    return dropped, problems


def _parsed(raw, agent_id: str, pending: Pending) -> dict | None:
    try:
        return parse_reply(raw, agent_id, reply_model_for(pending.spec.kind)).model_dump()
    except ReplyError:
        return None


def apply_scene(snap: Snapshot, pending: Pending, commit: Callable[[Transaction], dict[str, str]]) -> SceneResult:
    """Write the complete scene ``pending`` back in one transaction (the caller holds the lock):
    ``commit`` carries it out (``transaction.commit`` on the workspace) and returns the ids it renamed."""
    missing = pending.missing()
    if missing:
        waiting = ", ".join(f"{pending.turns[i]} (turn {i + 1})" for i in missing)
        raise GamemasterError(f"scene {pending.spec.ref} still waits for replies from: {waiting}")
    require_participants(pending.spec, snap.agents)
    # The typed replies are checked again against the scene: state can have moved since they
    # were taken, and stored reply files can be edited by hand (they were read in load_pending).
    problems = []
    cited: dict[str, Memory] = {}
    for turn, reply in sorted(pending.replies.items()):
        try:
            check_turn(snap, pending, turn, reply, cited)
        except ReplyError as exc:
            problems.append(f"{pending.folder.rel(pending.reply_path(turn))}: {exc}")
    if problems:
        raise GamemasterError("stored replies rejected, nothing written:\n" + "\n".join(problems))
    turns = [(pending.turns[i], pending.replies[i]) for i in range(len(pending.turns))]
    depths = {mem_id: memory.depth for mem_id, memory in cited.items()}
    written: dict = {
        "prompts": {
            pending.label(i): pending.folder.rel(pending.prompt_path(i))
            for i in range(len(pending.turns))
            if pending.prompt_path(i).exists()
        },
        "replies": {pending.label(i): pending.folder.rel(pending.reply_path(i)) for i in range(len(pending.turns))},
    }
    if pending.spec.kind.in_sequence:
        written["transcript"] = [TranscriptLine(speaker=a, says=r.says) for a, r in turns]
    usage = usage_of(pending)
    if usage:
        written["usage"] = usage
    batch = load_batch(pending)
    if batch:
        written["batch"] = batch["id"]
    record = pending.record.model_copy(update=written)
    result = plan_scene(pending.folder.root, snap.working_world(), snap.agents, pending.spec, turns, depths, record,
                        readings=readings_of(pending), copy_agent=snap.working_agent, stream_of=snap.stream)
    renamed = commit(result.transaction)
    # Ids a hand-appended line took meanwhile: what the command prints names the ids written.
    result.written = [{**w, "id": renamed.get(w["id"], w["id"])} for w in result.written]
    return result
