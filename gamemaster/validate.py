"""``gamemaster validate``: every state file checked, every problem as ``file:line: reason``."""

from __future__ import annotations

from . import scene_files
from .gm import GameMaster
from .kinds.settings import not_installed, old_key_notice, old_keys, problems as kind_problems
from .models import World, memory_author
from .pending import missing_participants, shown_in_prompt
from .problems import Problem, StateError
from .stream_rules import Consistency, scan_stream
from .transaction import read_journal
from .workspace import Workspace


def _nothing_to_cite(workspace: Workspace, pending) -> list[Problem]:
    """A prompt that asks for evidence from the memories it shows (a REFLECTION's) and shows none:
    no reply to it can be valid."""
    kind = pending.spec.kind
    if not kind.cites_evidence:
        return []
    problems = []
    for turn, agent in enumerate(pending.turns):
        if shown_in_prompt(pending, turn) == set():
            problems.append(Problem(
                workspace.rel(pending.dir / "shown" / f"{pending.label(turn)}.json"), None,
                f"{agent}: the {kind.name} prompt asks for evidence from the memories it shows, and shows none "
                "(the retrieval strategy chose none the prompt has a place for)",
            ))
    return problems


def _evidence_across_streams(checked: dict[str, tuple[str, Consistency, list]]) -> list[Problem]:
    """Evidence that cites another character's memory: it must exist in that character's stream.

    Looked up in the id tables of the streams read before (``stream_rules.IdLines``), not in
    memories held: ``validate`` reads streams of any length."""
    problems = []
    for stem, (display, _, foreign) in checked.items():
        for line, evidence in foreign:
            missing = [e for e in evidence if (author := memory_author(e)) not in checked or e not in checked[author][1].ids]
            if missing:
                where = ", ".join(f"{e} not in state/memories/{memory_author(e)}.jsonl" for e in missing)
                problems.append(Problem(display, line, f"evidence: {where}"))
    return problems


def _archives(workspace: Workspace) -> list[Problem]:
    """Every day archive checked as its readers check it (digest, read to its end, members in
    bounds); one without a digest is a warning: ``day archive`` writes it."""
    problems = []
    for day in scene_files.archived_days(workspace.scenes):
        archive = scene_files.archive_path(workspace.scenes, day)
        try:
            scene_files.check_archive(archive)
        except scene_files.DamagedArchive as exc:
            problems.append(Problem(workspace.rel(archive), None, str(exc).split(": ", 1)[1]))
            continue
        if not scene_files.digest_path(archive).exists():
            problems.append(Problem(workspace.rel(archive), None, "no SHA-256 beside it: `gamemaster day archive` "
                                    "writes one", warning=True))
    return problems


def blocking_problems(workspace: Workspace) -> list[Problem]:
    """What keeps the studio from playing at all, in one list: world.json and agent files that
    do not load. (A bad memory line does not block: prompts leave it out with a warning.)"""
    problems: list[Problem] = []
    try:
        workspace.load_world()
    except StateError as exc:
        problems += exc.problems or [Problem(workspace.rel(workspace.world_path), None, str(exc))]
    for agent_id in workspace.agent_ids():
        try:
            workspace.load_agent(agent_id)
        except StateError as exc:
            problems += exc.problems or [Problem(workspace.rel(workspace.agent_path(agent_id)), None, str(exc))]
    return problems


def validate_workspace(workspace: Workspace) -> list[Problem]:
    """Every problem of the workspace's files, in the order a user fixes them: the world, the
    agents, the streams, what the world names, the journal and the id counts."""
    world, problems = _world(workspace)
    agent_ids = workspace.agent_ids()
    problems += _agents(workspace, agent_ids)
    problems += _streams(workspace, agent_ids)
    if world is not None:
        problems += _named_in_world(workspace, world, agent_ids)
    problems += [w for w in workspace.warnings if w not in problems] + _archives(workspace)
    return problems + _journal(workspace) + _issued_ids(workspace)


def _world(workspace: Workspace) -> tuple[World | None, list[Problem]]:
    try:
        world = workspace.load_world()
    except StateError as exc:
        return None, exc.problems or [Problem(workspace.rel(workspace.world_path), None, str(exc))]
    path = workspace.rel(workspace.world_path)
    # The value reads each kind's section as a JSON object; each kind checks what its section holds.
    errors = [Problem(path, None, line) for line in kind_problems(world)]
    notices = [old_key_notice(key) for key in old_keys(workspace.read_json(workspace.world_path))]
    return world, errors + [Problem(path, None, notice, warning=True) for notice in notices + not_installed(world.kinds)]


def _agents(workspace: Workspace, agent_ids: list[str]) -> list[Problem]:
    problems: list[Problem] = []
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
    return problems


def _streams(workspace: Workspace, agent_ids: list[str]) -> list[Problem]:
    problems: list[Problem] = []
    checked: dict[str, tuple[str, Consistency, list]] = {}
    for stem in sorted(p.stem for p in workspace.memories_dir.glob("*.jsonl")):
        try:
            stream = workspace.stream(stem)
        except StateError as exc:  # a stream linked out of the workspace is not read
            problems += exc.problems or [Problem(workspace.rel(workspace.memories_dir / f"{stem}.jsonl"), None, str(exc))]
            continue
        if stem not in agent_ids:
            problems.append(Problem(stream.display, None, f"no agent file state/agents/{stem}.json for this stream"))
        # One line at a time: what is kept is an id table and the evidence other streams must hold.
        consistency, foreign, artifacts = Consistency(stream.display, stem), [], []
        checked[stem] = (stream.display, consistency, foreign)
        for line, _, memory in scan_stream(stream.path, stream.display, stream.parse_line):
            if isinstance(memory, Problem):
                problems.append(memory)
                continue
            consistency.add(memory, line)
            others = [e for e in memory.evidence if memory_author(e) not in (None, stem)]
            if others:
                foreign.append((line, others))
            path = memory.metadata.get("artifact_path")
            if isinstance(path, str) and not (workspace.root / path).exists():
                artifacts.append(Problem(stream.display, line, f"artifact_path {path} does not exist", warning=True))
        problems += consistency.problems() + artifacts
    return problems + _evidence_across_streams(checked)


def _named_in_world(workspace: Workspace, world: World, agent_ids: list[str]) -> list[Problem]:
    """The agents the world's briefs, gatherings and pending scene name, and what that scene's prompts cite."""
    problems = [Problem("state/world.json", None, f"briefs: {brief.id} is addressed to unknown agent {agent_id!r}")
                for brief in world.briefs for agent_id in brief.to or [] if agent_id not in agent_ids]
    for index, gathering in enumerate(world.gatherings):
        strangers = [a for a in [gathering.host, *gathering.asked()] if a not in agent_ids]
        if strangers:
            problems.append(Problem("state/world.json", None,
                                    f"gatherings.{index}: {gathering.id} names unknown agent(s) {', '.join(strangers)}"))
    if not world.pending:
        return problems
    try:
        pending = GameMaster(workspace).pending(world)
    except StateError as exc:
        return problems + (exc.problems or [Problem("state/world.json", None, f"pending {world.pending}: {exc}")])
    for agent in missing_participants(pending.spec, agent_ids):
        problems.append(Problem(f"scenes/{world.pending}/scene.json", None,
                                f"participants: {agent} has no agent file state/agents/{agent}.json (scene {world.pending})"))
    return problems + _nothing_to_cite(workspace, pending)


def _journal(workspace: Workspace) -> list[Problem]:
    if not workspace.journal_path.exists():
        return []
    try:
        read_journal(workspace, workspace.journal_path.read_text(encoding="utf-8", errors="replace"))
    except StateError as exc:
        return exc.problems
    return [Problem(workspace.rel(workspace.journal_path), None,
                    "an interrupted scene is waiting; the next gamemaster command finishes it", warning=True)]


def _issued_ids(workspace: Workspace) -> list[Problem]:
    issued = workspace.state / "memory_ids.json"
    if not issued.exists():
        return []
    try:
        data = workspace.read_json(issued)
    except StateError as exc:
        return exc.problems or [Problem(workspace.rel(issued), None, str(exc))]
    bad = [k for k, v in data.items() if not isinstance(v, int) or isinstance(v, bool) or v < 0]
    return [Problem(workspace.rel(issued), None, f"not a count of issued ids: {', '.join(bad)}")] if bad else []
