"""Write-back: what a scene's validated replies change in the studio.

``plan_scene`` turns the replies into one ``Transaction``: new memories with ids
and ``created``, artifacts under ``gallery/``, observations for the others in
the room, reflections with their depth, accumulators, plans, talk wishes, the
world's scene log and the scene record, plus what the scene's kind adds (a
MEETING's conversation memories, for one). What each reply field changes is its
section's (``sections/``); what every scene changes is here.
Nothing is written here; ``transaction.commit`` does that.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable, Mapping
from dataclasses import dataclass, field

from . import word_of_mouth
from .fsio import dump_json
from .kinds import SceneWrite
from .kinds.heard import listeners
from .kinds.settings import world_data
from .lang import short_name
from .models import Agent, Memory, SceneEntry, World, memory_id
from .records import SceneRecord, WrittenMemory
from .replies import Reply
from .scenes import SceneSpec
from .sections import sections_for
from .sections.artifacts import unique
from .sections.briefs import brief_reaches
from .problems import GamemasterError
from .statefiles import agent_path, open_stream, rel, scene_dir, world_path
from .streams import MemoryStream
from .transaction import Transaction


@dataclass
class SceneResult:
    transaction: Transaction
    written: list[dict] = field(default_factory=list)
    artifacts: list[str] = field(default_factory=list)


class _Ids:
    """Hands out the next free id number per agent within one transaction."""

    def __init__(self, stream_of: Callable[[str], MemoryStream]):
        self.stream_of = stream_of
        self.next: dict[str, int] = {}

    def take(self, agent: str) -> str:
        if agent not in self.next:
            self.next[agent] = self.stream_of(agent).next_number()
        number = self.next[agent]
        self.next[agent] += 1
        return memory_id(agent, number)


class _GalleryPaths:
    """``gallery/<kind>/day-XXX_<name>_vN.md``: the next version not on disk and not taken by this scene."""

    def __init__(self, root: Path):
        self.root, self.gallery, self.taken = root, root / "gallery", set()

    def __call__(self, kind: str, day: int, name: str) -> str:
        folder = self.gallery / kind
        stem = f"day-{day:03d}_{name}_v"
        versions = [int(m.group(1)) for p in folder.glob(f"{stem}*.md") if (m := re.search(r"_v(\d+)\.md$", p.name))]
        version = max(versions, default=0) + 1
        while f"gallery/{kind}/{stem}{version}.md" in self.taken:
            version += 1
        relative = f"gallery/{kind}/{stem}{version}.md"
        resolved = (self.root / relative).resolve()
        if not resolved.is_relative_to(self.gallery.resolve()):
            raise ValueError(f"artifact path {relative} would leave gallery/")
        self.taken.add(relative)
        return relative


class _Minds:
    """What the speakers of a scene being written back hold, read once each from their streams: for
    what the tool would write again (``remembers``) and what a line passed on (``passes``)."""

    def __init__(self, stream_of: Callable[[str], MemoryStream], spec: SceneSpec, turns: list[tuple[str, Reply]],
                 agents: dict[str, Agent], language: str) -> None:
        self.stream_of, self.spec, self.turns, self.language = stream_of, spec, turns, language
        # The names a line opens with to address someone: not part of what it passes on.
        self.addressed = [n for a in agents.values() for n in (short_name(a.name), (a.name.split() or [""])[0]) if n]
        self.tails: dict[str, list[Memory]] = {}
        self.newest: dict[str, set[str]] = {}
        self.held: dict[str, list[str]] = {}

    def tail(self, agent: str) -> list[Memory]:
        if agent not in self.tails:
            from .news import newest

            self.tails[agent] = newest(self.stream_of(agent))
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
    root: Path,
    world: World,
    agents: Mapping[str, Agent],
    spec: SceneSpec,
    turns: list[tuple[str, Reply]],
    evidence_depths: dict[str, int],
    scene_record: SceneRecord,
    readings: dict[str, list[dict]] | None = None,
    copy_agent: Callable[[str], Agent] | None = None,
    stream_of: Callable[[str], MemoryStream] | None = None,
) -> SceneResult:
    """The transaction that writes this scene into the workspace at ``root`` (``stream_of``: an agent's stream).
    ``turns`` are (agent, reply) in speaking order. ``agents`` are read, never changed; what changes is a copy
    (``copy_agent``, by default a deep one). Each reply is written back by its kind's sections, in order (``sections/``)."""
    kind, created = spec.kind, spec.ref
    result = SceneResult(Transaction(label=f"scene {created}"))
    updated = _Changed(agents, copy_agent or (lambda agent_id: agents[agent_id].model_copy(deep=True)))
    gained = {a: 0 for a in agents}
    stream_of = stream_of or (lambda agent_id: open_stream(root, agent_id))
    ids = _Ids(stream_of)

    def remember(agent: str, **fields) -> Memory:
        memory = Memory(id=ids.take(agent), created=created, **fields)
        result.transaction.add_memory(agent, memory)
        gained[agent] += memory.importance
        result.written.append({"id": memory.id, "agent": agent, "type": memory.type, "importance": memory.importance,
                               "description": memory.description})
        return memory

    new_world = _advance_world(world, spec, agents)
    minds = _Minds(stream_of, spec, turns, agents, world.language)
    names = {a: agents[a].name for a in agents}
    scene = SceneWrite(spec, turns, agents, updated, remember, world.language, new_world, readings or {},
                       minds.remembers, minds.passes, found=world, names=names, files=result.transaction.files,
                       artifacts=result.artifacts, gallery_path=_GalleryPaths(root),
                       depth_of=lambda cited: max(evidence_depths.get(e, 0) for e in cited), stream_of=stream_of,
                       name_of=_speaker_names(agents, names))
    kind.before_replies(scene)
    used = sections_for(kind)
    for agent_id, reply in turns:
        for section in used:
            section.write_back(scene, agent_id, reply)
    for section in used:
        section.after_replies(scene)
    for agent_id in spec.participants:
        updated[agent_id].last_scene = created
        if kind.acting:
            updated[agent_id].last_acted = created
    kind.write_back(scene)
    # After the kind's write-back: a gathering held in this scene is over, nobody hears of it now.
    word_of_mouth.spread(world.language, new_world.gatherings, spec.day, [(a, r.says) for a, r in turns],
                         lambda speaker: listeners(spec, agents, new_world, speaker), names)
    for agent_id, amount in gained.items():
        if amount:
            updated[agent_id].importance_accumulator += amount
    kind.settle_accumulators(updated, spec)
    _write_files(root, result, updated, agents, scene_record, new_world, created)
    return result


def _speaker_names(agents: Mapping[str, Agent], names: dict[str, str]) -> Callable[[str], str]:
    """``retrieval.speaker_names`` over the studio's ``agents``, made when first asked (a day's first
    plan asks, to choose the day's memories): most scenes name no speaker here, and load no retrieval
    package for it."""
    made: list[Callable[[str], str]] = []

    def name_of(agent_id: str) -> str:
        if not made:
            from .retrieval import speaker_names

            made.append(speaker_names(lambda agent_id: _known(agents, agent_id), names))
        return made[0](agent_id)

    return name_of


def _known(agents: Mapping[str, Agent], agent_id: str) -> Agent:
    """One of the studio's agents; one it does not have is an error, as loading its file would be."""
    if agent_id not in agents:
        raise GamemasterError(f"unknown agent {agent_id}")
    return agents[agent_id]


def _write_files(root: Path, result: SceneResult, updated: Mapping[str, Agent], agents: Mapping[str, Agent],
                 scene_record: SceneRecord, new_world: World, created: str) -> None:
    """The agents the scene changed, its record and the world, into the transaction."""
    files = result.transaction.files
    for agent_id, agent in updated.items():
        if agent.model_dump() != agents[agent_id].model_dump():
            files[rel(root, agent_path(root, agent_id))] = dump_json(agent.dump())
    record = scene_record.model_copy(update={
        "status": "applied",
        "written": [WrittenMemory(**w) for w in result.written],
        "artifacts": result.artifacts,
    })
    files[rel(root, scene_dir(root, created) / "scene.json")] = dump_json(record.dump())
    files[rel(root, world_path(root))] = dump_json(world_data(new_world))


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
        brief.seen_by = unique([*brief.seen_by, *seen])
        if any(a not in brief.seen_by for a in addressees):
            remaining.append(brief)
    new.briefs = remaining
    return new
