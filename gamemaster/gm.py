"""The Game Master: opens scenes, builds prompts, takes replies, writes scenes back.

Every method that writes takes the workspace lock itself and reloads the state
it needs, so a brief or a hand edit between two steps is seen, and backends are
never called while the lock is held.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from .backends.base import ReplyRequest, Turn
from .claude_code import rejections
from .fsio import atomic_write_json, atomic_write_text, dump_json
from .ids import SCENE_REF_RE
from .lang import phrase
from .models import Agent, Brief, Memory, World, parse_scene_ref, scene_ref
from .problems import GamemasterError, Problem, StateError
from .library import consult, render as render_library, wants_library
from .prompts import PromptContext, build_prompt
from .replies import Reply, ReplyError, check_reply, parse_reply
from .retrieval import Selection, get_strategy, scene_query, settings_for
from .scenes import Force, SceneSpec, decide_next, day_is_over, due_for_reflection
from .streams import describe_validation_error
from .summary import write_day_summary
from .transaction import Transaction, commit, recover
from .workspace import Workspace
from .writeback import SceneResult, brief_reaches, plan_scene

BRIEF_IMPORTANCE = 9


@dataclass
class Pending:
    """The scene that has been opened and not yet written back."""

    spec: SceneSpec
    dir: Path
    record: dict
    replies: dict[int, Reply] = field(default_factory=dict)
    #: Requests built when their prompt was written, so the backend gets that very one.
    requests: dict[int, ReplyRequest] = field(default_factory=dict, repr=False, compare=False)

    def prepared(self, turn: int) -> ReplyRequest | None:
        """The request whose prompt was written for ``turn`` in this process, once."""
        return self.requests.pop(turn, None)

    @property
    def turns(self) -> list[str]:
        return self.spec.turns

    def missing(self) -> list[int]:
        return [i for i in range(len(self.turns)) if i not in self.replies]

    def is_final_turn(self, turn: int) -> bool:
        agent = self.turns[turn]
        return all(self.turns[later] != agent for later in range(turn + 1, len(self.turns)))

    def reply_path(self, turn: int) -> Path:
        return self.dir / "replies" / f"{self.label(turn)}.json"

    def prompt_path(self, turn: int) -> Path:
        if self.spec.kind.in_sequence:
            return self.dir / "prompts" / f"{self.label(turn)}.md"
        return self.dir / "prompts" / f"{self.turns[turn]}.md"

    def label(self, turn: int) -> str:
        """``03-vera``: how a turn is named in files, records and output."""
        return f"{turn + 1:02d}-{self.turns[turn]}"

    def waiting(self) -> list[str]:
        return [self.label(i) for i in self.missing()]

    def describe(self) -> dict:
        """The scene as programs see it (``next --json``, ``status --json``, the MCP tools)."""
        return {
            "ref": self.spec.ref,
            **self.spec.model_dump(mode="json"),
            "turns": self.turns,
            # Turns one after another (MEETING, ENCOUNTER) or all at once: what a Game Master must know.
            "in_sequence": self.spec.kind.in_sequence,
            "replied": [self.label(i) for i in sorted(self.replies)],
            "waiting": self.waiting(),
            "prompts": {self.label(i): str(self.prompt_path(i)) for i in range(len(self.turns)) if self.prompt_path(i).exists()},
            "rejections": rejections(self),
        }

    def turn_of(self, agent: str) -> int:
        """The turn ``agent`` answers next: any open one in a parallel scene, the current one in a MEETING."""
        if agent not in self.spec.participants:
            raise GamemasterError(f"{agent} is not in scene {self.spec.ref} ({', '.join(self.spec.participants)})")
        open_turns = self.missing()
        if self.spec.kind.in_sequence:
            if not open_turns:
                raise GamemasterError(f"scene {self.spec.ref}: every turn has its reply; run `gamemaster apply`")
            current = open_turns[0]
            if self.turns[current] != agent:
                raise GamemasterError(
                    f"scene {self.spec.ref}: it is {self.turns[current]}'s turn "
                    f"({current + 1} of {len(self.turns)}), not {agent}'s"
                )
            return current
        turn = self.turns.index(agent)
        if turn not in open_turns:
            raise GamemasterError(f"scene {self.spec.ref}: {agent} has already replied")
        return turn


@dataclass
class ApplyOutcome:
    """What ``apply_pending`` came to: the scene written back now (``result``), replies stored while
    others are still missing (no ``result``), or nothing written because the scene had been written
    back before (``applied_before``)."""

    pending: Pending | None = None
    result: SceneResult | None = None
    #: The day summary written now; for a scene written back before, its day's summary if that day is closed.
    day_summary: Path | None = None
    #: Scenes written back before this call, by the SubagentStop hook or another gamemaster process.
    applied_before: list[str] = field(default_factory=list)
    #: The record of that scene when ``apply`` was called without replies: what it wrote.
    record: dict | None = None


def scenes_named(given: dict) -> set[str]:
    """The scene refs replies name; only well-formed ones, since each becomes a path under scenes/."""
    refs = set()
    for value in given.values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict) and isinstance(item.get("scene"), str) and SCENE_REF_RE.match(item["scene"]):
                refs.add(item["scene"])
    return refs


def moved_on(ref: str) -> str:
    return (f"scene {ref} is no longer pending: another gamemaster process applied or set it aside "
            "meanwhile (or state/world.json was edited); run `gamemaster status` to see where the studio stands")


def missing_participants(spec: SceneSpec, agents) -> list[str]:
    return [a for a in spec.participants if a not in agents]


def require_participants(spec: SceneSpec, agents) -> None:
    gone = missing_participants(spec, agents)
    if gone:
        files = ", ".join(f"state/agents/{a}.json" for a in gone)
        raise GamemasterError(
            f"scene {spec.ref}: participant(s) {', '.join(gone)} have no agent file ({files}); restore it, "
            "or set \"pending\": null in state/world.json to choose the scene again"
        )


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
        world = world or self.world()
        if world.pending is None:
            return None
        directory = self.workspace.scene_dir(world.pending)
        record_path = directory / "scene.json"
        if not record_path.exists():
            raise StateError(
                f"state/world.json: pending scene {world.pending} has no scenes/{world.pending}/scene.json; "
                "set \"pending\" to null to choose the scene again"
            )
        record = self.workspace.read_json(record_path)
        try:
            spec = SceneSpec.model_validate(record)
        except ValidationError as exc:
            raise StateError(f"{self.workspace.rel(record_path)}: {describe_validation_error(exc)}") from None
        pending = Pending(spec, directory, record)
        for turn in range(len(pending.turns)):
            path = pending.reply_path(turn)
            if path.exists():
                try:
                    pending.replies[turn] = parse_reply(self.workspace.read_json(path), pending.turns[turn])
                except ReplyError as exc:
                    raise StateError(
                        f"{self.workspace.rel(path)}: {'; '.join(exc.problems)} (delete the file to ask again)"
                    ) from None
        return pending

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
            record = {"ref": spec.ref, "status": "pending", **spec.model_dump(mode="json"), "turns": spec.turns}
            atomic_write_json(directory / "scene.json", record)
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
        """Keep the prompt a backend was actually sent with the scene, and what it showed from the library."""
        atomic_write_text(self.workspace.inside(pending.prompt_path(turn)), request.prompt)
        readings = pending.dir / "library" / f"{pending.label(turn)}.json"
        if request.library:
            atomic_write_json(self.workspace.inside(readings), {"excerpts": [e.as_dict() for e in request.library]})
        elif readings.exists():
            readings.unlink()

    def readings_of(self, pending: Pending) -> dict[str, list[dict]]:
        """agent → the library excerpts its prompts showed in this scene."""
        found: dict[str, list[dict]] = {}
        for turn in range(len(pending.turns)):
            path = pending.dir / "library" / f"{pending.label(turn)}.json"
            if path.exists():
                found.setdefault(pending.turns[turn], []).extend(self.workspace.read_json(path).get("excerpts", []))
        return found

    def record_usage(self, pending: Pending, turn: int, usage: dict | None, model: str | None, batch: bool) -> None:
        """Every call's tokens, kept with the scene (failed attempts cost money too)."""
        if usage is None:
            return
        path = pending.dir / "usage" / f"{pending.label(turn)}.json"
        with self.workspace.lock:
            calls = self.workspace.read_json(path)["calls"] if path.exists() else []
            calls.append({"model": model, "batch": batch, **usage})
            atomic_write_json(path, {"calls": calls})

    def usage_of(self, pending: Pending) -> dict[str, list[dict]]:
        folder = pending.dir / "usage"
        return {p.stem: self.workspace.read_json(p)["calls"] for p in sorted(folder.glob("*.json"))} if folder.is_dir() else {}

    def load_batch(self, pending: Pending) -> dict | None:
        path = pending.dir / "batch.json"
        if not path.exists():
            return None
        data = self.workspace.read_json(path)
        return {"id": data["id"], "turns": {custom: int(turn) for custom, turn in data["turns"].items()}}

    def save_batch(self, pending: Pending, batch_id: str, turns: dict[str, int]) -> dict:
        """The batch id goes to disk before anything waits on it, so a rerun polls it again."""
        data = {"id": batch_id, "turns": turns}
        atomic_write_json(pending.dir / "batch.json", data)
        return data

    def _write_prompt(self, pending: Pending, turn: int, world: World, agents: dict[str, Agent]) -> ReplyRequest:
        request = self.build_request(pending, turn, world=world, agents=agents)
        self.record_prompt(pending, turn, request)
        pending.requests[turn] = request
        return request

    # -- prompts -----------------------------------------------------------

    def selection_for(self, world: World, agent: Agent, spec: SceneSpec, briefs: list[Brief], names: dict[str, str]) -> Selection:
        query = scene_query(agent, spec, briefs, names)
        settings = settings_for(world, now=(spec.day, spec.scene))
        return get_strategy(world.selection).select(self.workspace.stream(agent.id), query, settings)

    def library_for(self, world: World, agent: Agent, spec: SceneSpec) -> list:
        """The library excerpts this agent's prompt shows in this scene (WORK only)."""
        if not spec.kind.consults_library or not world.library_budget:
            return []
        plan = agent.today_plan
        query = spec.topic or " ".join([plan.text, *plan.tags] if plan else [])
        return consult(self.workspace.root, query, world.language, world.library_budget,
                       asked=wants_library(plan.text if plan else None))

    def build_request(
        self,
        pending: Pending,
        turn: int,
        *,
        world: World | None = None,
        agents: dict[str, Agent] | None = None,
        previous_error: str | None = None,
    ) -> ReplyRequest:
        world = world or self.world()
        agents = agents or self.agents()
        spec = pending.spec
        agent_id = pending.turns[turn]
        require_participants(spec, agents)
        agent = agents[agent_id]
        names = {a: agents[a].name for a in agents}
        briefs = [b for b in world.briefs if brief_reaches(b, agent_id, spec)]
        selection = self.selection_for(world, agent, spec, briefs, names)
        self.warnings += [p for p in selection.problems if p not in self.warnings]
        last = parse_scene_ref(agent.last_scene) if agent.last_scene else (0, 0)
        # What others brought in during the agent's last scene counts too: the
        # agent was answering in parallel and could not react to it yet.
        since = [
            m for m in selection.memories
            if m.scene_key and (m.scene_key > last or (m.scene_key == last and m.metadata.get("source")))
        ]
        transcript = [
            Turn(pending.turns[i], agents[pending.turns[i]].name, pending.replies[i].says)
            for i in range(turn)
            if spec.kind.in_sequence and i in pending.replies
        ]
        replan = spec.kind.replans_on_news and any(
            m.metadata.get("source") in ("brief", "artifact") for m in since
        )
        excerpts = self.library_for(world, agent, spec)
        ctx = PromptContext(
            library=render_library(excerpts),
            world=world,
            agent=agent,
            spec=spec,
            selection=selection,
            names=names,
            since=since,
            briefs=briefs,
            transcript=transcript,
            turn=turn,
            final_turn=pending.is_final_turn(turn),
            replan=replan,
        )
        prompt, segments = build_prompt(self.workspace.template_path, ctx)
        if previous_error:
            prompt += "\n\n" + phrase(world.language, "invalid_reply", error=previous_error) + "\n"
        return ReplyRequest(
            agent=agent,
            spec=spec,
            prompt=prompt,
            stable_prompt=segments[0] if segments else "",
            memory_prompt=segments[1] if len(segments) > 1 else "",
            default_model=world.model,
            language=world.language,
            seed=world.seed,
            memories=selection.memories,
            since=since,
            colleagues={p: names[p] for p in spec.participants if p != agent_id},
            briefs=briefs,
            transcript=transcript,
            turn=turn,
            final_turn=pending.is_final_turn(turn),
            replan=replan,
            previous_error=previous_error,
            library=[e for e in excerpts if e.text in prompt],
        )

    def prompt_text(self, agent_id: str) -> str:
        """The prompt ``agent_id`` answers next in the pending scene."""
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

    def last_applied(self, world: World | None = None) -> dict | None:
        """The record of the studio's latest scene, if it has been written back."""
        world = world or self.world()
        if not world.day or not world.scene:
            return None
        record = self.scene_record(scene_ref(world.day, world.scene))
        return record if record is not None and record.get("status") == "applied" else None

    def scene_record(self, ref: str) -> dict | None:
        """``scenes/<ref>/scene.json``, or None for a scene never opened."""
        path = self.workspace.scene_dir(ref) / "scene.json"
        return self.workspace.read_json(path) if path.exists() else None

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
        reply = parse_reply(raw, agent_id)
        # One pass over the stream for every id the reply cites.
        found = self.workspace.stream(agent_id).find(e for insight in reply.insights for e in insight.evidence)
        check_reply(
            reply,
            agent=agent_id,
            spec=pending.spec,
            roster=agents,
            evidence_exists=lambda ids: [i for i in ids if i not in found],
            final_turn=pending.is_final_turn(turn),
        )
        if cited is not None:
            cited.update(found)
        return reply

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
            record = dict(pending.record)
            record["prompts"] = {
                pending.label(i): self.workspace.rel(pending.prompt_path(i))
                for i in range(len(pending.turns))
                if pending.prompt_path(i).exists()
            }
            record["replies"] = {pending.label(i): self.workspace.rel(pending.reply_path(i)) for i in range(len(pending.turns))}
            if pending.spec.kind.in_sequence:
                record["transcript"] = [{"speaker": a, "says": r.says} for a, r in turns]
            usage = self.usage_of(pending)
            if usage:
                record["usage"] = usage
            batch = self.load_batch(pending)
            if batch:
                record["batch"] = batch["id"]
            result = plan_scene(self.workspace, world, agents, pending.spec, turns, depths, record,
                                readings=self.readings_of(pending))
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
            if all(record is not None and record.get("status") == "applied" for record in records):
                return ApplyOutcome(applied_before=sorted(named))
        record = self.last_applied(world) if given is None else None
        if record is None:
            raise GamemasterError("no scene is pending; run `gamemaster next` first")
        summary = self.workspace.day_dir(record["day"]) / "summary.md"
        return ApplyOutcome(applied_before=[record["ref"]], record=record, day_summary=summary if summary.exists() else None)

    # -- days and briefs -----------------------------------------------------

    def close_day_if_over(self) -> Path | None:
        """Write the day summary once the day is over; returns its path when newly written."""
        with self.workspace.lock:
            world = self.world()
            if world.day == 0 or world.pending or not day_is_over(world):
                return None
            if due_for_reflection(world, self.agents()):
                return None  # evening reflections come before the summary
            return write_day_summary(self.workspace, world, self.agents())

    def brief(self, text: str, to: list[str] | None = None, importance: int = BRIEF_IMPORTANCE) -> Brief:
        """Creative Director feedback: a high-importance observation for each addressee now."""
        if not text.strip():
            raise GamemasterError("brief: the text is empty")
        to = list(dict.fromkeys(to)) if to else None
        with self.workspace.lock:
            recover(self.workspace)
            world = self.world()
            agents = self.agents()
            if not agents:
                raise GamemasterError("brief: the studio has no agents")
            unknown = [a for a in (to or []) if a not in agents]
            if unknown:
                raise GamemasterError(f"--to: unknown agent(s) {', '.join(unknown)}")
            received = self.received_ref(world)
            world.briefs_issued += 1
            brief = Brief(id=f"brief-{world.briefs_issued:03d}", text=text, to=to or None, created=received)
            world.briefs.append(brief)
            transaction = Transaction(label=f"brief {brief.id}")
            for agent_id in to or sorted(agents):
                stream = self.workspace.stream(agent_id)
                memory = Memory(
                    id=f"{agent_id}-{stream.next_number():03d}",
                    created=received,
                    type="observation",
                    description=phrase(world.language, "brief", text=text),
                    importance=importance,
                    tags=["creative-director", "brief"],
                    metadata={"source": "brief", "brief": brief.id},
                )
                transaction.add_memory(agent_id, memory)
                agent = agents[agent_id]
                agent.importance_accumulator += importance
                transaction.files[self.workspace.rel(self.workspace.agent_path(agent_id))] = dump_json(agent.dump())
            transaction.files[self.workspace.rel(self.workspace.world_path)] = dump_json(world.dump())
            commit(self.workspace, transaction)
            return brief

    def received_ref(self, world: World) -> str:
        """Where something from outside (a brief, an interview) is received: the next scene that will be opened."""
        if world.pending:
            day, scene = parse_scene_ref(world.pending)
            return scene_ref(day, scene + 1)
        spec = decide_next(world, self.agents())
        return spec.ref
