"""Write-back: what a scene's validated replies change in the studio.

``plan_scene`` turns the replies into one ``Transaction``: new memories with ids
and ``created``, artifacts under ``gallery/``, observations for the others in
the room, reflections with their depth, accumulators, plans, talk wishes, the
world's scene log and the scene record, plus what the scene's kind adds (a
MEETING's conversation memories, for one).
Nothing is written here; ``transaction.commit`` does that.
"""

from __future__ import annotations

import re
from typing import Callable, Mapping
from dataclasses import dataclass, field

from . import day_memories, word_of_mouth
from .fsio import dump_json
from .gallery import artifact_file, slug
from .gatherings import write_reply as write_gathering_reply
from .kinds import SceneWrite
from .kinds.heard import listeners
from .lang import phrase, short_name
from .models import Agent, Brief, Memory, Plan, SceneEntry, TalkWish, World, memory_id, parse_scene_ref
from .records import SceneRecord, WrittenMemory
from .replies import Reply
from .scenes import SceneSpec
from .takeaways import write_takeaways
from .transaction import Transaction
from .workspace import Workspace

def observer_importance(artifact_importance: int) -> int:
    """Colleagues who watch an artifact being finished rate it a little lower than its author."""
    return max(1, min(10, artifact_importance - 2))


@dataclass
class SceneResult:
    transaction: Transaction
    written: list[dict] = field(default_factory=list)
    artifacts: list[str] = field(default_factory=list)


class _Ids:
    """Hands out the next free id number per agent within one transaction."""

    def __init__(self, workspace: Workspace):
        self.workspace = workspace
        self.next: dict[str, int] = {}

    def take(self, agent: str) -> str:
        if agent not in self.next:
            self.next[agent] = self.workspace.stream(agent).next_number()
        number = self.next[agent]
        self.next[agent] += 1
        return memory_id(agent, number)


def _gallery_path(workspace: Workspace, kind: str, day: int, name: str, taken: set[str]) -> str:
    folder = workspace.gallery / kind
    stem = f"day-{day:03d}_{name}_v"
    versions = [int(m.group(1)) for p in folder.glob(f"{stem}*.md") if (m := re.search(r"_v(\d+)\.md$", p.name))]
    version = max(versions, default=0) + 1
    while True:
        relative = f"gallery/{kind}/{stem}{version}.md"
        if relative not in taken:
            break
        version += 1
    resolved = (workspace.root / relative).resolve()
    if not resolved.is_relative_to(workspace.gallery.resolve()):
        raise ValueError(f"artifact path {relative} would leave gallery/")
    return relative


class _Minds:
    """What the speakers of a scene being written back hold, read once each from their streams: for
    what the tool would write again (``remembers``) and what a line passed on (``passes``)."""

    def __init__(self, workspace: Workspace, spec: SceneSpec, turns: list[tuple[str, Reply]],
                 agents: dict[str, Agent], language: str) -> None:
        self.workspace, self.spec, self.turns, self.language = workspace, spec, turns, language
        # The names a line opens with to address someone: not part of what it passes on.
        self.addressed = [n for a in agents.values() for n in (short_name(a.name), (a.name.split() or [""])[0]) if n]
        self.tails: dict[str, list[Memory]] = {}
        self.newest: dict[str, set[str]] = {}
        self.held: dict[str, list[str]] = {}

    def tail(self, agent: str) -> list[Memory]:
        if agent not in self.tails:
            from .news import newest

            self.tails[agent] = newest(self.workspace.stream(agent))
        return self.tails[agent]

    def remembers(self, agent: str, description: str) -> bool:
        if agent not in self.newest:
            self.newest[agent] = {memory.description for memory in self.tail(agent)}
        return description in self.newest[agent]

    def passes(self, agent: str, says: str) -> list[str]:
        from .news import HELD_IMPORTANCE
        from .passing import held_texts, passes_on

        if agent not in self.held:
            # What the speaker held when it spoke: its stream, and what it noted in this scene.
            noted = [n.description for a, r in self.turns if a == agent for n in r.memories
                     if n.type == "observation" and n.importance >= HELD_IMPORTANCE]
            self.held[agent] = held_texts(self.tail(agent), self.spec.day) + noted
        return passes_on(self.language, says, self.held[agent], self.addressed)


class _Changed(dict):
    """The agents a scene changes: each copied (``copy``) the first time it is asked for, so a
    scene of three in a studio of a hundred copies three, and compares three when it is done."""

    def __init__(self, agents: Mapping[str, Agent], copy: Callable[[str], Agent]):
        super().__init__()
        self._agents, self._copy = agents, copy

    def __missing__(self, agent_id: str) -> Agent:
        if agent_id not in self._agents:
            raise KeyError(agent_id)
        copied = self[agent_id] = self._copy(agent_id)
        return copied


def plan_scene(
    workspace: Workspace,
    world: World,
    agents: Mapping[str, Agent],
    spec: SceneSpec,
    turns: list[tuple[str, Reply]],
    evidence_depths: dict[str, int],
    scene_record: SceneRecord,
    readings: dict[str, list[dict]] | None = None,
    copy_agent: Callable[[str], Agent] | None = None,
) -> SceneResult:
    """The transaction that writes this scene. ``turns`` are (agent, reply) in speaking order.
    ``agents`` are read, never changed; what changes is a copy (``copy_agent``, by default a deep one)."""
    language = world.language
    created = spec.ref
    kind = spec.kind
    ids = _Ids(workspace)
    result = SceneResult(Transaction(label=f"scene {created}"))
    updated = _Changed(agents, copy_agent or (lambda agent_id: agents[agent_id].model_copy(deep=True)))
    gained = {a: 0 for a in agents}
    taken_paths: set[str] = set()

    def remember(agent: str, **fields) -> Memory:
        memory = Memory(id=ids.take(agent), created=created, **fields)
        result.transaction.add_memory(agent, memory)
        gained[agent] += memory.importance
        result.written.append(
            {
                "id": memory.id,
                "agent": agent,
                "type": memory.type,
                "importance": memory.importance,
                "description": memory.description,
            }
        )
        return memory

    new_world = _advance_world(world, spec, agents)
    minds = _Minds(workspace, spec, turns, agents, language)
    scene = SceneWrite(spec, turns, agents, updated, remember, language, new_world, readings or {}, minds.remembers,
                       minds.passes)
    kind.before_replies(scene)
    for agent_id, reply in turns:
        agent = updated[agent_id]
        for note in reply.memories:
            remember(agent_id, type=note.type, description=note.description, importance=note.importance, tags=note.tags)
        if reply.plan is not None:
            agent.today_plan = Plan(text=reply.plan.text, tags=reply.plan.tags, created=created)
            remember(
                agent_id, type="plan", description=reply.plan.text, importance=reply.plan.importance, tags=reply.plan.tags
            )
        write_gathering_reply(scene, agent_id, reply)
        write_takeaways(scene, agent_id, reply)
        wishes = [TalkWish.model_validate({**w.model_dump(by_alias=True), "created": created}) for w in reply.talk_wishes]
        agent.talk_wishes = kind.merge_talk_wishes(agent.talk_wishes, wishes)
        for draft in reply.artifacts:
            path = _gallery_path(workspace, draft.kind, spec.day, slug(draft.title), taken_paths)
            taken_paths.add(path)
            artifact = remember(
                agent_id,
                type="artifact",
                description=phrase(language, "artifact", title=draft.title, summary=draft.summary),
                importance=draft.importance,
                tags=[*draft.tags, "own-work"] if "own-work" not in draft.tags else draft.tags,
                metadata={"artifact_path": path, "kind": draft.kind, "title": draft.title},
            )
            result.transaction.files[path] = artifact_file(
                {
                    "title": draft.title,
                    "kind": draft.kind,
                    "agent": agent_id,
                    "day": spec.day,
                    "scene": created,
                    "task": agent.today_plan.text if agent.today_plan else (spec.topic or ""),
                    "memory": artifact.id,
                    "memories_referenced": _referenced_ids(draft.content),
                    "tags": draft.tags,
                },
                draft.content,
                _day_date(world, spec.day),
            )
            result.artifacts.append(path)
            for observer in spec.room_of(agent_id):
                if observer == agent_id:
                    continue
                summary = draft.summary
                if not any(part in summary for part in _name_parts(agent.name)):
                    summary = phrase(language, "observed_artifact", name=agent.name, summary=summary)
                remember(
                    observer,
                    type="observation",
                    description=summary,
                    importance=observer_importance(draft.importance),
                    tags=_unique([agent_id, *draft.tags]),
                    metadata={"source": "artifact", "author": agent_id, "artifact_path": path},
                )
        for insight in reply.insights:
            depth = max(evidence_depths.get(e, 0) for e in insight.evidence) + 1
            remember(
                agent_id,
                type="reflection",
                depth=depth,
                description=insight.description,
                importance=insight.importance,
                tags=insight.tags,
                evidence=insight.evidence,
            )

    names = {a: agents[a].name for a in agents}
    for agent_id, reply in turns:
        # The day's first plan chooses the memories of earlier days its prompts show all day,
        # from the stream as it stands before this scene is written.
        chosen = updated[agent_id].day_memories
        if reply.plan is not None and world.day_memory_share and (chosen is None or chosen.day != spec.day):
            briefs = [b for b in world.briefs if brief_reaches(b, agent_id, spec)]
            updated[agent_id].day_memories = day_memories.choose(workspace, world, updated[agent_id], spec.day, briefs, names)

    for agent_id in spec.participants:
        updated[agent_id].last_scene = created
        if kind.acting:
            updated[agent_id].last_acted = created
    kind.write_back(scene)
    # After the kind's write-back: a gathering held in this scene is over, nobody hears of it now.
    word_of_mouth.spread(language, new_world.gatherings, spec.day, [(a, r.says) for a, r in turns],
                         lambda speaker: listeners(spec, agents, new_world, speaker), names)
    for agent_id, amount in gained.items():
        if amount:
            updated[agent_id].importance_accumulator += amount
    kind.settle_accumulators(updated, spec)

    for agent_id, agent in updated.items():
        if agent.model_dump() != agents[agent_id].model_dump():
            result.transaction.files[workspace.rel(workspace.agent_path(agent_id))] = dump_json(agent.dump())
    record = scene_record.model_copy(update={
        "status": "applied",
        "written": [WrittenMemory(**w) for w in result.written],
        "artifacts": result.artifacts,
    })
    result.transaction.files[workspace.rel(workspace.scene_dir(created) / "scene.json")] = dump_json(record.dump())
    result.transaction.files[workspace.rel(workspace.world_path)] = dump_json(new_world.dump())
    return result


def _advance_world(world: World, spec: SceneSpec, agents: dict[str, Agent]) -> World:
    new = world.model_copy(deep=True)
    entry = SceneEntry(scene=spec.scene, type=spec.type, participants=spec.participants, topic=spec.topic,
                       **({"event": spec.event_id} if spec.event_id else {}),
                       **({"gathering": spec.gathering_id} if spec.gathering_id else {}))
    if spec.kind.starts_day():
        new.day, new.today = spec.day, [entry]
    else:
        new.today.append(entry)
    new.scene = spec.scene
    new.pending = None
    roster = set(agents)
    remaining = []
    for brief in new.briefs:
        addressees = [a for a in (brief.to or sorted(roster)) if a in roster]
        seen = [p for p in spec.participants if brief_reaches(brief, p, spec)]
        if brief.id in spec.brief_ids:
            # The scene that answers a brief answers it for every addressee: those beyond
            # kinds.meeting.max had it as a memory when it was given (an announcement), and leaving
            # them unseen would open one more scene for them, and another, for ever.
            seen += addressees
        brief.seen_by = _unique([*brief.seen_by, *seen])
        if any(a not in brief.seen_by for a in addressees):
            remaining.append(brief)
    new.briefs = remaining
    return new


def brief_reaches(brief: Brief, agent: str, spec: SceneSpec) -> bool:
    """A brief is in an agent's prompt from the scene it was received in until they saw it."""
    addressed = brief.to is None or agent in brief.to
    received = parse_scene_ref(brief.created) <= (spec.day, spec.scene)
    return addressed and received and agent not in brief.seen_by


def _name_parts(name: str) -> list[str]:
    """'Tobias „Tobi“ Richter' → Tobias, Tobi, Richter: any of them names the author."""
    return [part for part in re.split(r"[\s„“\"'”]+", name) if len(part) > 1]


def _day_date(world: World, day: int):
    """The calendar date of ``day`` for a gallery file, none past the last date there is."""
    try:
        return world.date(day)
    except OverflowError:
        return None


def _referenced_ids(content: str) -> list[str]:
    return _unique(re.findall(r"\b[a-z][a-z0-9_]*-\d{3,}\b", content))


def _unique(items) -> list:
    seen, out = set(), []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out

