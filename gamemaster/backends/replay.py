"""The replay backend: a recording played back, turn by turn, for nothing.

Each request is answered with the reply recorded for the same scene, turn and attempt. A
prompt that is no longer the one recorded is said (which of its sections changed) and still
answered from the recording, unless ``strict``: then it counts as not recorded. A turn the
recording does not have stops the run with one line naming the scene and the character, or
is played live by the ``fallback`` backend, which the notice says.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from ..problems import GamemasterError
from ..recording import Recording, RecordingError
from ..recording.sections import differences
from ..scenes import Force, decide_next
from .base import Answer, Capabilities, ReplyRequest
from .registry import get_backend


class NotRecorded(GamemasterError):
    """A turn the recording has no answer for, and no fallback to play it."""


class ReplayBackend:
    name = "replay"
    capabilities = Capabilities(local=True)
    #: What ``--backend replay`` takes: the recording, a backend for what it lacks, strictness,
    #: and the fallback's own options.
    command_options = ("source", "fallback", "strict", "model", "concurrency")

    def __init__(self, source: str | Path | None = None, fallback: str | None = None, strict: bool = False, **fallback_options):
        if source is None:
            raise GamemasterError("--backend replay plays a recording: name its folder with --from DIR")
        root = Path(source).expanduser().resolve()
        if not root.exists():
            raise RecordingError(f"{root}: no such folder")
        self.recording = Recording(root)
        self.strict = strict
        self.fallback = _fallback(fallback, fallback_options)
        self.asked: Counter[tuple[str, str]] = Counter()
        self.replayed = 0
        self.changed: list[str] = []
        self.live: list[str] = []
        attempts = self.recording.most_attempts()
        retries = max(attempts - 1, self.fallback.capabilities.retries if self.fallback else 0)
        self.capabilities = Capabilities(local=self.fallback is None or self.fallback.capabilities.local, retries=retries)
        manifest = self.recording.manifest
        self.notice = (f"playing the recording in {root} ({len(self.recording.scenes)} scene(s), "
                       f"{self.recording.turns} answer(s), of {manifest.get('studio')!r} begun {manifest.get('started')})"
                       + (f"; what it lacks is played by {self.fallback.name}" if self.fallback else ""))

    def follow(self, world, agents) -> tuple[Force | None, str | None]:
        """The recorded scene where the Game Master would choose another now (and why it is said);
        a scene the Creative Director forced is forced again."""
        try:
            chosen = decide_next(world, agents)
        except ValueError:
            return None, None
        recorded = self.recording.scene(chosen.ref)
        if recorded is None:
            return None, None
        if recorded.forced:
            return Force(**recorded.forced), None
        if (chosen.type, chosen.participants) == (recorded.type, recorded.participants):
            return None, None
        if any(agent not in agents for agent in recorded.participants):
            return None, None  # a studio without them: the turns are asked and said missing
        return Force(type=recorded.type, participants=recorded.participants, topic=recorded.topic), (
            f"{chosen.ref}: the Game Master now chooses {chosen.type} with {', '.join(chosen.participants)}; "
            f"replaying the recorded {recorded.type} with {', '.join(recorded.participants)}")

    def reply(self, request: ReplyRequest) -> Answer:
        ref, agent = request.spec.ref, request.agent.id
        label = f"{request.turn + 1:02d}-{agent}"
        self.asked[(ref, label)] += 1
        attempt = self.asked[(ref, label)]
        record = self.recording.turn(ref, label, attempt)
        changed = differences(record.prompt, request.prompt) if record else []
        if record is not None and not (changed and self.strict):
            self.replayed += 1
            notice = None
            if changed:
                self.changed.append(f"{ref} {label}")
                notice = f"{ref} {label}: the prompt differs from the recording: {'; '.join(changed)}"
            return Answer(text=record.reply, model=record.model, notice=notice)
        why = _missing(self.recording.root, ref, label, agent, attempt, request.previous_error, changed)
        if self.fallback is None:
            raise NotRecorded(f"{why}; --fallback <backend> plays such turns live")
        self.live.append(f"{ref} {label}")
        answer = self.fallback.reply(request)
        answer = answer if isinstance(answer, Answer) else Answer(text=answer)
        answer.backend = answer.backend or self.fallback.name
        answer.notice = f"{why}; played by {self.fallback.name}"
        return answer

    def summary(self) -> str:
        parts = [f"replayed {self.replayed} answer(s) from {self.recording.root}"]
        if self.changed:
            parts.append(f"{len(self.changed)} to a prompt that differs from the recording ({', '.join(self.changed)})")
        if self.live:
            parts.append(f"{len(self.live)} played by {self.fallback.name} ({', '.join(self.live)})")
        return "; ".join(parts)


def _fallback(name: str | None, options: dict):
    given = {key: value for key, value in options.items() if value is not None}
    if name is None:
        if given:
            raise GamemasterError(f"{', '.join('--' + key for key in given)} only apply with --fallback (the backend that plays what the recording lacks)")
        return None
    if name == ReplayBackend.name:
        raise GamemasterError("--fallback replay: a recording cannot stand in for itself")
    return get_backend(name, **given)


def _missing(root: Path, ref: str, label: str, agent: str, attempt: int, previous_error: str | None, changed: list[str]) -> str:
    if changed:
        return f"{ref} {label}: {agent}'s prompt differs from the recording in {root} ({'; '.join(changed)}) and --strict is set"
    if attempt > 1 and previous_error:
        return (f"{ref} {label}: {agent}'s recorded reply is refused now ({previous_error}) and the recording "
                f"in {root} has no attempt {attempt}")
    return f"{ref} {label}: {agent}'s answer is not in the recording in {root}"
