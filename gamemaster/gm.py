"""The Game Master: opens scenes, builds prompts, takes replies, writes scenes back.

Every method that writes takes the workspace lock itself and reloads the state
it needs, so a brief or a hand edit between two steps is seen, and backends are
never called while the lock is held.
"""

from __future__ import annotations

from pathlib import Path

from .turns import ReplyRequest
from .briefs import BRIEF_IMPORTANCE, give_brief, received_ref
from .fsio import atomic_write_json
from .gatherings import overviews
from .models import Agent, Brief, Memory, World, memory_author, scene_ref
from .pending import (
    ApplyOutcome,
    Pending,
    load_batch,
    load_pending,
    moved_on,
    readings_of,
    record_prompt,
    record_usage,
    require_participants,
    save_batch,
    scene_record,
    scenes_named,
    shown_in_prompt,
    usage_of,
)
from .problems import GamemasterError, Problem, StateError
from .records import SceneRecord, TranscriptLine
from .replies import Reply, ReplyError, check_reply, parse_reply
from .scenes import Force, decide_next, day_is_over, due_for_reflection, reflections_left_today
from .summary import write_day_summary
from .transaction import commit, recover
from .workspace import Workspace
from .writeback import SceneResult, plan_scene


class GameMaster:
    def __init__(self, workspace: Workspace):
        self.workspace = workspace
        #: Bad lines met while selecting memories: reported by the CLI, never dropped silently.
        self.warnings: list[Problem] = []

    # -- state -------------------------------------------------------------

    def world(self) -> World:
        return self.workspace.load_world()

    def agents(self) -> dict[str, Agent]:
        return self.workspace.load_agents()

    def recover(self) -> str | None:
        with self.workspace.lock:
            return recover(self.workspace)

    def pending(self, world: World | None = None) -> Pending | None:
        return load_pending(self.workspace, world or self.world())

    # -- opening a scene ---------------------------------------------------

    def open_next(self, force: Force | None = None) -> tuple[Pending, bool]:
        """The pending scene, opening one if there is none. Returns (scene, newly opened)."""
        with self.workspace.lock:
            recover(self.workspace)
            world = self.world()
            existing = self.pending(world)
            if existing is not None:
                if force and (force.type or force.participants or force.topic):
                    raise GamemasterError(
                        f"scene {existing.spec.ref} is already pending; apply it before forcing another"
                    )
                return existing, False
            self.close_day_if_over()
            world = self.world()
            agents = self.agents()
            try:
                spec = decide_next(world, agents, force)
            except ValueError as exc:
                raise GamemasterError(str(exc)) from None
            directory = self.workspace.scene_dir(spec.ref)
            self._set_aside_abandoned(directory)
            record = SceneRecord.opened(spec)
            atomic_write_json(directory / "scene.json", record.dump())
            pending = Pending(spec, directory, record)
            for turn in range(len(spec.turns)):
                if spec.kind.in_sequence and turn > 0:
                    break  # later speakers' prompts depend on what is said first
                self._write_prompt(pending, turn, world, agents)
            world.pending = spec.ref
            self.workspace.save_world(world)
            return pending, True

    def _set_aside_abandoned(self, directory: Path) -> None:
        """A scene folder never applied (its pending mark was cleared) keeps its replies
        out of the new scene: it moves to ``scenes/.abandoned/``, nothing is deleted."""
        if not directory.exists():
            return
        record = directory / "scene.json"
        try:
            status = self.workspace.read_json(record).get("status") if record.exists() else None
        except StateError:
            status = None
        if status == "applied":
            raise GamemasterError(f"{self.workspace.rel(record)}: scene already applied; state/world.json is behind it")
        aside = self.workspace.scenes / ".abandoned"
        aside.mkdir(parents=True, exist_ok=True)
        stem = directory.relative_to(self.workspace.scenes).as_posix().replace("/", "_")
        number = 1
        while (aside / f"{stem}.{number}").exists():
            number += 1
        directory.rename(aside / f"{stem}.{number}")

    def record_prompt(self, pending: Pending, turn: int, request: ReplyRequest) -> None:
        record_prompt(self.workspace, pending, turn, request)

    def record_usage(self, pending: Pending, turn: int, usage: dict | None, model: str | None, batch: bool) -> None:
        record_usage(self.workspace, pending, turn, usage, model, batch)

    def usage_of(self, pending: Pending) -> dict[str, list[dict]]:
        return usage_of(self.workspace, pending)

    def load_batch(self, pending: Pending) -> dict | None:
        return load_batch(self.workspace, pending)

    def save_batch(self, pending: Pending, batch_id: str, turns: dict[str, int]) -> dict:
        return save_batch(self.workspace, pending, batch_id, turns)

    def _write_prompt(self, pending: Pending, turn: int, world: World, agents: dict[str, Agent]) -> ReplyRequest:
        request = self.build_request(pending, turn, world=world, agents=agents)
        self.record_prompt(pending, turn, request)
        pending.requests[turn] = request
        return request

    # -- prompts -----------------------------------------------------------

    def build_request(self, pending: Pending, turn: int, *, world: World | None = None,
                      agents: dict[str, Agent] | None = None, previous_error: str | None = None) -> ReplyRequest:
        from .requests import build_request
        return build_request(self.workspace, pending, turn, world or self.world(), agents or self.agents(),
                             previous_error=previous_error, warnings=self.warnings)

    def prompt_text(self, agent_id: str) -> str:
        """The prompt ``agent_id`` answers next in the pending scene."""
        self.workspace.check_agent(agent_id)
        pending = self.require_pending()
        turn = pending.turn_of(agent_id)
        path = pending.prompt_path(turn)
        if path.exists():
            return path.read_text(encoding="utf-8")
        with self.workspace.lock:
            return self._write_prompt(pending, turn, self.world(), self.agents()).prompt

    def status(self) -> dict:
        """Day, scene, pending scene, briefs and every agent, as one JSON-ready object."""
        world = self.world()
        pending = self.pending(world)
        return {
            "studio": world.studio,
            "day": world.day,
            "scene": world.scene,
            "reflection_threshold": world.reflection_threshold,
            "pending": pending.describe() if pending else None,
            "briefs": [b.model_dump() for b in world.briefs],
            "gatherings": overviews(world, self.scene_record),
            "agents": [
                {
                    "id": a.id,
                    "name": a.name,
                    "accumulator": a.importance_accumulator,
                    "plan": a.today_plan.text if a.today_plan else None,
                    "talk_wishes": [w.model_dump(by_alias=True) for w in a.talk_wishes],
                    "memories": self.workspace.stream(a.id).memory_count(),
                    "last_scene": a.last_scene,
                }
                for a in self.agents().values()
            ],
        }

    def last_applied(self, world: World | None = None) -> SceneRecord | None:
        """The record of the studio's latest scene, if it has been written back."""
        world = world or self.world()
        if not world.day or not world.scene:
            return None
        record = self.scene_record(scene_ref(world.day, world.scene))
        return record if record is not None and record.applied else None

    def scene_record(self, ref: str) -> SceneRecord | None:
        return scene_record(self.workspace, ref)

    def require_pending(self) -> Pending:
        pending = self.pending()
        if pending is None:
            raise GamemasterError("no scene is pending; run `gamemaster next` first")
        return pending

    # -- replies -----------------------------------------------------------

    def validate_reply(
        self, pending: Pending, turn: int, raw: str | dict, agents: dict[str, Agent], cited: dict | None = None
    ) -> Reply:
        """A checked reply; the evidence memories it cites are put in ``cited`` (id → memory)."""
        agent_id = pending.turns[turn]
        reply = parse_reply(raw, agent_id, pending.spec.kind.reply_model)
        found = self.find_memories((e for insight in reply.insights for e in insight.evidence), agents)
        check_reply(
            reply,
            agent=agent_id,
            spec=pending.spec,
            roster=agents,
            evidence_exists=lambda ids: [i for i in ids if i not in found],
            final_turn=pending.is_final_turn(turn),
            shown=shown_in_prompt(self.workspace, pending, turn),
            said_before=tuple(pending.replies[t].says for t in sorted(pending.replies) if t < turn),
            world=self.world(),
        )
        if cited is not None:
            cited.update(found)
        return reply

    def find_memories(self, ids, agents: dict[str, Agent]) -> dict[str, Memory]:
        """The memories with these ids, each looked up in its author's stream (one pass per stream):
        evidence may cite what another character remembers."""
        by_author: dict[str, list[str]] = {}
        for memory_id in ids:
            author = memory_author(memory_id)
            if author in agents:
                by_author.setdefault(author, []).append(memory_id)
        found: dict[str, Memory] = {}
        for author, wanted in by_author.items():
            found.update(self.workspace.stream(author).find(wanted))
        return found

    def store_reply(self, pending: Pending, turn: int, raw: str | dict) -> Reply:
        """Validate one reply and keep it with the pending scene (not yet in state)."""
        with self.workspace.lock:
            agents = self.agents()
            if self.world().pending != pending.spec.ref:
                raise GamemasterError(moved_on(pending.spec.ref))
            if pending.spec.kind.in_sequence and pending.missing() and turn != pending.missing()[0]:
                raise GamemasterError(f"scene {pending.spec.ref}: turn {turn + 1} before turn {pending.missing()[0] + 1}")
            reply = self.validate_reply(pending, turn, raw, agents)
            atomic_write_json(self.workspace.inside(pending.reply_path(turn)), reply.model_dump(mode="json", by_alias=True))
            pending.replies[turn] = reply
            if pending.spec.kind.in_sequence and turn + 1 < len(pending.turns):
                self._write_prompt(pending, turn + 1, self.world(), agents)
            return reply

    def submit_reply(self, agent_id: str, raw: str | dict) -> tuple[Pending, Reply]:
        """Store ``agent_id``'s reply for the turn it owes in the pending scene."""
        self.workspace.check_agent(agent_id)
        with self.workspace.lock:
            pending = self.require_pending()
            reply = self.store_reply(pending, pending.turn_of(agent_id), raw)
            return pending, reply

    # -- writing a scene back ------------------------------------------------

    def apply(self, pending: Pending) -> SceneResult:
        with self.workspace.lock:
            recover(self.workspace)
            world = self.world()
            if world.pending != pending.spec.ref:
                raise GamemasterError(moved_on(pending.spec.ref))
            missing = pending.missing()
            if missing:
                waiting = ", ".join(f"{pending.turns[i]} (turn {i + 1})" for i in missing)
                raise GamemasterError(f"scene {pending.spec.ref} still waits for replies from: {waiting}")
            agents = self.agents()
            require_participants(pending.spec, agents)
            # Stored replies are checked again: reply files can be edited by hand too.
            problems = []
            cited: dict[str, Memory] = {}
            for turn, reply in sorted(pending.replies.items()):
                try:
                    self.validate_reply(pending, turn, reply.model_dump(mode="json", by_alias=True), agents, cited)
                except ReplyError as exc:
                    problems.append(f"{self.workspace.rel(pending.reply_path(turn))}: {exc}")
            if problems:
                raise GamemasterError("stored replies rejected, nothing written:\n" + "\n".join(problems))
            turns = [(pending.turns[i], pending.replies[i]) for i in range(len(pending.turns))]
            depths = {mem_id: memory.depth for mem_id, memory in cited.items()}
            written: dict = {
                "prompts": {
                    pending.label(i): self.workspace.rel(pending.prompt_path(i))
                    for i in range(len(pending.turns))
                    if pending.prompt_path(i).exists()
                },
                "replies": {pending.label(i): self.workspace.rel(pending.reply_path(i)) for i in range(len(pending.turns))},
            }
            if pending.spec.kind.in_sequence:
                written["transcript"] = [TranscriptLine(speaker=a, says=r.says) for a, r in turns]
            usage = self.usage_of(pending)
            if usage:
                written["usage"] = usage
            batch = self.load_batch(pending)
            if batch:
                written["batch"] = batch["id"]
            record = pending.record.model_copy(update=written)
            result = plan_scene(self.workspace, world, agents, pending.spec, turns, depths, record,
                                readings=readings_of(self.workspace, pending))
            commit(self.workspace, result.transaction)
            return result

    def apply_replies(self, pending: Pending, given: dict[str, object]) -> SceneResult | None:
        """Validate replies, store them with the scene and write it back once it is complete.

        ``given`` maps agent id to one reply, or for a MEETING to a list of that
        agent's turns in speaking order. A MEETING's turns are taken in order and
        may stop early: each stored turn is visible to the next speaker's prompt.
        If any given reply is invalid nothing is stored. Returns None while the
        scene still waits for replies.
        """
        agents = self.agents()
        queues: dict[str, list] = {}
        for agent_id, value in given.items():
            if agent_id not in pending.spec.participants:
                raise GamemasterError(f"replies: {agent_id} is not in scene {pending.spec.ref}")
            queues[agent_id] = list(value) if isinstance(value, list) else [value]
        problems: list[str] = []
        staged = Pending(pending.spec, pending.dir, pending.record, dict(pending.replies))
        in_order = pending.spec.kind.in_sequence
        for turn in staged.missing():
            agent_id = staged.turns[turn]
            if not queues.get(agent_id):
                if in_order:
                    break  # the meeting waits here for this speaker
                continue
            try:
                staged.replies[turn] = self.validate_reply(staged, turn, queues[agent_id].pop(0), agents)
            except ReplyError as exc:
                problems.append(str(exc))
        for agent_id, rest in queues.items():
            if rest:
                problems.append(f"{agent_id}: {len(rest)} reply(s) more than the scene can take now")
        if len(staged.replies) == len(pending.replies) and not problems:
            problems.append(f"no reply for any open turn of {pending.spec.ref}")
        if problems:
            raise GamemasterError("replies rejected, nothing written:\n" + "\n".join(problems))
        with self.workspace.lock:
            if self.world().pending != pending.spec.ref:
                raise GamemasterError(moved_on(pending.spec.ref))
            new_turns = sorted(t for t in staged.replies if t not in pending.replies)
            for turn in new_turns:
                atomic_write_json(self.workspace.inside(staged.reply_path(turn)), staged.replies[turn].model_dump(mode="json", by_alias=True))
            pending.replies.update(staged.replies)
            if pending.missing():
                if in_order:
                    self._write_prompt(pending, pending.missing()[0], self.world(), agents)
                return None
            return self.apply(pending)

    def apply_pending(self, given: dict[str, object] | None = None) -> ApplyOutcome:
        """Write the pending scene back, with ``given`` replies (see ``apply_replies``) or the stored ones.

        With no scene pending, a scene already written back (the replies' scenes, or without
        replies the latest scene) is not an error: the outcome says so and nothing is written.
        """
        world = self.world()
        pending = self.pending(world)
        if pending is None:
            return self._applied_before(world, given)
        result = self.apply_replies(pending, given) if given is not None else self.apply(pending)
        if result is None:
            return ApplyOutcome(pending)
        return ApplyOutcome(pending, result, self.close_day_if_over())

    def _applied_before(self, world: World, given: dict[str, object] | None) -> ApplyOutcome:
        named = scenes_named(given or {})
        if named:
            records = [self.scene_record(ref) for ref in named]
            if all(record is not None and record.applied for record in records):
                return ApplyOutcome(applied_before=sorted(named))
        record = self.last_applied(world) if given is None else None
        if record is None:
            raise GamemasterError("no scene is pending; run `gamemaster next` first")
        summary = self.workspace.day_dir(record.day) / "summary.md"
        return ApplyOutcome(applied_before=[record.ref], record=record, day_summary=summary if summary.exists() else None)

    # -- days and briefs -----------------------------------------------------

    def close_day_if_over(self) -> Path | None:
        """Write the day summary once the day is over; returns its path when newly written."""
        with self.workspace.lock:
            world = self.world()
            if world.day == 0 or world.pending or not day_is_over(world):
                return None
            if reflections_left_today(world) and due_for_reflection(world, self.agents()):
                return None  # evening reflections come before the summary (those the day has room for)
            return write_day_summary(self.workspace, world, self.agents())

    def brief(self, text: str, to: list[str] | None = None, importance: int = BRIEF_IMPORTANCE) -> Brief:
        return give_brief(self.workspace, text, to, importance)

    def received_ref(self, world: World) -> str:
        return received_ref(self.workspace, world)
