"""The Game Master: a façade over the modules that open scenes, build prompts, take replies
and write scenes back.

Each step reads the studio as one immutable ``Snapshot`` (``snapshot.py``) and passes it down;
a step that writes takes the workspace lock itself, and a later step reads the files again once
they changed (a commit, a brief, another process, a hand edit), so nothing stale is decided on.
Backends are never called while the lock is held.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from .fsio import atomic_write_json
from .gatherings import overviews
from .models import Agent, World, scene_ref
from .pending import ApplyOutcome, Pending, load_pending, moved_on, scene_record, scenes_named
from .problems import GamemasterError, Problem
from .records import SceneRecord
from .replies import Reply
from .scenes import Force, day_is_over, due_for_reflection, reflections_left_today
from .snapshot import Snapshot
from .turns import ReplyRequest
from .workspace import Workspace

if TYPE_CHECKING:
    from .writeback import SceneResult

# Taking a reply, writing a scene back (the transaction, the gallery) and the day summary are
# imported where they are used: `prompt` and `status` start without them.


class GameMaster:
    def __init__(self, workspace: Workspace):
        self.workspace = workspace
        #: Bad lines met while selecting memories: reported by the CLI, never dropped silently.
        self.warnings: list[Problem] = []
        self._snapshot: Snapshot | None = None
        #: Where every reply stored is recorded (``--record``); None: where the world setting
        #: ``record`` says, if it names a folder (``recording/``).
        self.recorder = None
        self._setting_recorder = None

    # -- state -------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        """The studio as it is now: the last step's snapshot while its files are unchanged."""
        if self._snapshot is None or not self._snapshot.is_current():
            self._snapshot = Snapshot.read(self.workspace)
        return self._snapshot

    def world(self) -> World:
        return self.snapshot().world

    def agents(self) -> Mapping[str, Agent]:
        return self.snapshot().agents

    def recover(self) -> str | None:
        from .transaction import recover
        with self.workspace.lock:
            return recover(self.workspace)

    def pending(self, world: World | None = None) -> Pending | None:
        return load_pending(self.workspace.root, world or self.world())

    def require_pending(self) -> Pending:
        pending = self.pending()
        if pending is None:
            raise GamemasterError("no scene is pending; run `gamemaster next` first")
        return pending

    # -- opening a scene ---------------------------------------------------

    def open_next(self, force: Force | None = None) -> tuple[Pending, bool]:
        """The pending scene, opening one if there is none. Returns (scene, newly opened)."""
        from .transaction import recover
        with self.workspace.lock:
            recover(self.workspace)
            existing = self.pending()
            if existing is not None:
                if force is not None and force.pins:
                    raise GamemasterError(
                        f"scene {existing.spec.ref} is already pending; apply it before forcing another"
                    )
                self.begin_recording(existing)
                return existing, False
            self.close_day_if_over()
            from .scene_open import open_scene
            pending, self._snapshot = open_scene(self.workspace, self.snapshot(), force, self.warnings)
        self.begin_recording(pending)
        return pending, True

    # -- recording -------------------------------------------------------------

    def _recorder(self, world: World):
        if self.recorder is not None or not world.record:
            return self.recorder
        # The setting's recorder is made once per folder: each reply would read its manifest again.
        if self._setting_recorder is None or self._setting_recorder[0] != world.record:
            from .recording import Recorder, setting_folder
            self._setting_recorder = (world.record, Recorder(setting_folder(self.workspace, world.record), world.studio))
        return self._setting_recorder[1]

    def begin_recording(self, pending: Pending) -> None:
        """Enter the scene in the recording before anyone answers: a folder that recorded
        another scene under its ref is refused before a reply is asked for, not after."""
        recorder = self._recorder(self.world())
        if recorder is not None:
            from .recording import recorded_scene
            with self.workspace.lock:
                recorder.enter(recorded_scene(pending))

    def _record(self, world: World, pending: Pending, turn: int, raw: str | dict, error: str | None, source) -> None:
        recorder = self._recorder(world)
        if recorder is not None:
            from .recording import Source, record_turn
            record_turn(recorder, self.workspace, pending, turn, raw, error, source or Source("reply"))

    # -- prompts -----------------------------------------------------------

    def build_request(self, pending: Pending, turn: int, *, world: World | None = None,
                      agents: dict[str, Agent] | None = None, previous_error: str | None = None) -> ReplyRequest:
        from .requests import build_request
        snap = self.snapshot() if world is None or agents is None else None
        workspace = self.workspace
        return build_request(pending, turn, world or snap.world, agents or snap.agents, find=workspace.template_path,
                             load_agent=workspace.load_agent, warn=workspace.warn, previous_error=previous_error,
                             warnings=self.warnings)

    def lookup(self, agent_id: str, query: str) -> str:
        """What ``agent_id`` finds looking ``query`` up in its own memory: during its open turn of
        the pending scene (kept with it); outside one (an interview) over its whole stream."""
        from .lookup import look_up_in_turn, lookup_for

        self.workspace.check_agent(agent_id)
        pending = self.pending()
        if pending is None or agent_id not in pending.spec.participants:
            return lookup_for(self.workspace, agent_id, ())(query).text
        return look_up_in_turn(self.workspace, pending, agent_id, query)

    def prompt_text(self, agent_id: str) -> str:
        """The prompt ``agent_id`` answers next in the pending scene."""
        self.workspace.check_agent(agent_id)
        pending = self.require_pending()
        turn = pending.turn_of(agent_id)
        path = pending.prompt_path(turn)
        if path.exists():
            return path.read_text(encoding="utf-8")
        from .scene_open import write_prompt
        with self.workspace.lock:
            return write_prompt(self.workspace, self.snapshot(), pending, turn, self.warnings).prompt

    def status(self) -> dict:
        """Day, scene, pending scene, briefs and every agent, as one JSON-ready object."""
        snap = self.snapshot()
        world = snap.world
        pending = self.pending(world)
        return {
            "studio": world.studio,
            "day": world.day,
            "scene": world.scene,
            "reflection_threshold": world.reflection_threshold,
            "pending": pending.describe(world.language) if pending else None,
            "briefs": [b.model_dump() for b in world.briefs],
            "gatherings": overviews(world, lambda ref: scene_record(self.workspace, ref)),
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
                for a in snap.agents.values()
            ],
        }

    def last_applied(self, world: World | None = None) -> SceneRecord | None:
        """The record of the studio's latest scene, if it has been written back."""
        world = world or self.world()
        if not world.day or not world.scene:
            return None
        record = scene_record(self.workspace, scene_ref(world.day, world.scene))
        return record if record is not None and record.applied else None

    # -- replies -----------------------------------------------------------

    def _still_pending(self, pending: Pending) -> Snapshot:
        """The current snapshot, if it still has ``pending`` open (the caller holds the lock)."""
        snap = self.snapshot()
        if snap.world.pending != pending.spec.ref:
            raise GamemasterError(moved_on(pending.spec.ref))
        return snap

    def store_reply(self, pending: Pending, turn: int, raw: str | dict, source=None) -> Reply:
        """Validate one reply and keep it with the pending scene (not yet in state); recorded,
        accepted or refused, where a recording is made (``source``: who answered, ``recording.Source``)."""
        from .replies import ReplyError
        with self.workspace.lock:
            snap = self._still_pending(pending)
            if pending.spec.kind.in_sequence and pending.missing() and turn != pending.missing()[0]:
                raise GamemasterError(f"scene {pending.spec.ref}: turn {turn + 1} before turn {pending.missing()[0] + 1}")
            from .scene_apply import take_reply
            try:
                reply = take_reply(snap, pending, turn, raw)
            except ReplyError as exc:
                self._record(snap.world, pending, turn, raw, "; ".join(exc.problems), source)
                raise
            atomic_write_json(self.workspace.inside(pending.reply_path(turn)), reply.model_dump(mode="json", by_alias=True))
            pending.replies[turn] = reply
            self._record(snap.world, pending, turn, raw, None, source)
            if pending.spec.kind.in_sequence and turn + 1 < len(pending.turns):
                from .scene_open import write_prompt
                write_prompt(self.workspace, snap, pending, turn + 1, self.warnings)
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
        from .scene_apply import apply_scene
        from .transaction import commit, recover
        with self.workspace.lock:
            recover(self.workspace)
            snap = self._still_pending(pending)
            try:
                return apply_scene(snap, pending, lambda transaction: commit(self.workspace, transaction))
            finally:
                self._snapshot = None  # the scene's transaction changed the studio: the next step reads it anew

    def apply_replies(self, pending: Pending, given: dict[str, object]) -> SceneResult | None:
        """Validate replies, store them with the scene and write it back once it is complete.

        ``given`` maps agent id to one reply, or for a MEETING to a list of that
        agent's turns in speaking order. A MEETING's turns are taken in order and
        may stop early: each stored turn is visible to the next speaker's prompt.
        If any given reply is invalid nothing is stored. Returns None while the
        scene still waits for replies.
        """
        from .scene_apply import stage_replies
        staged = stage_replies(self.snapshot(), pending, given)
        with self.workspace.lock:
            snap = self._still_pending(pending)
            new_turns = sorted(t for t in staged.replies if t not in pending.replies)
            for turn in new_turns:
                given_reply = staged.replies[turn].model_dump(mode="json", by_alias=True)
                atomic_write_json(self.workspace.inside(staged.reply_path(turn)), given_reply)
                self._record(snap.world, pending, turn, given_reply, None, None)
            pending.replies.update(staged.replies)
            if pending.missing():
                if pending.spec.kind.in_sequence and new_turns:  # a repeated turn changes no prompt
                    from .scene_open import write_prompt
                    write_prompt(self.workspace, snap, pending, pending.missing()[0], self.warnings)
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
            records = [scene_record(self.workspace, ref) for ref in named]
            if all(record is not None and record.applied for record in records):
                return ApplyOutcome(applied_before=sorted(named))
        record = self.last_applied(world) if given is None else None
        if record is None:
            raise GamemasterError("no scene is pending; run `gamemaster next` first")
        summary = self.workspace.day_dir(record.day) / "summary.md"
        return ApplyOutcome(applied_before=[record.ref], record=record, day_summary=summary if summary.exists() else None)

    # -- days ------------------------------------------------------------------

    def close_day_if_over(self) -> Path | None:
        """Write the day summary once the day is over; returns its path when the day had none
        before (one written already is only brought up to date)."""
        with self.workspace.lock:
            snap = self.snapshot()
            world = snap.world
            if world.day == 0 or world.pending or not day_is_over(world):
                return None
            if reflections_left_today(world) and due_for_reflection(world, snap.agents):
                return None  # evening reflections come before the summary (those the day has room for)
            from .summary import write_day_summary
            return write_day_summary(self.workspace, world, snap.agents)
