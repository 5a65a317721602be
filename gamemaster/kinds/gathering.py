"""GATHERING: what a character organised takes place: the host and those who accepted meet.

A reply proposes a gathering (``gatherings.py``): what, day, time of day, place, whom.
On its day, once its slot has come (``slots.py``), this scene seats the host and every
invitee who accepted - no ``kinds.meeting.max`` cap: a party of thirteen is thirteen people, and
each speaks once, one after another, seeing what was said before (the transcript is bounded
by ``transcript_budget`` like a meeting's). Everyone present hears every line (one room, the
heard memories of ``kinds/heard.py``). Like an EVENT it is an interruption and does not use
up one of the day's scenes.

Who accepted and did not come (at another gathering of the same slot, or left out when the
scene was forced) and who came uninvited are listed in the scene's ``attendance`` (in
``scene.json``) and in its reason, which ``next`` and ``scene run`` print.
"""

from __future__ import annotations

from ..gatherings import attendance, attendance_line, due, guests
from ..scenes import SceneSpec, slot_has_come
from .base import ReplyCheck, SceneKind, SceneWrite
from .heard import remember_heard


class GatheringKind(SceneKind):
    name = "GATHERING"
    requires = frozenset({"says"})
    order = 70
    decides = 40
    colour = "#7d6b3d"
    acting = True
    in_sequence = True
    counts_toward_day = False
    min_participants = 1
    reasons = {
        "gathering": {"en": "{gathering}: {host} invited for day {day} at {slot}: {what}",
                      "de": "{gathering}: {host} hat für Tag {day}, {slot}, eingeladen: {what}"},
    }

    def check(self, reply, ctx: ReplyCheck) -> list[str]:
        return [] if reply.says.strip() else ["says: a GATHERING turn must say something"]

    def choose(self, world, agents, roster):
        if world.day == 0 or not world.today:
            return None
        gathering = due(world, lambda slot: slot_has_come(world, slot))
        if gathering is None:
            return None
        people = guests(world, gathering, roster)
        if not people:
            return None
        return SceneSpec(type=self.name, day=world.day, scene=world.scene + 1, participants=people,
                         topic=self._topic(gathering), gathering_id=gathering.id, reason=self._reason(gathering))

    @staticmethod
    def _topic(gathering) -> str:
        return f"{gathering.what} ({gathering.place})"

    def _reason(self, gathering) -> str:
        return self.reason("gathering", gathering=gathering.id, host=gathering.host, day=f"{gathering.day:03d}",
                           slot=gathering.slot, what=gathering.what)

    def forced(self, world, agents, participants):
        gathering = due(world)
        if gathering is None:
            raise ValueError(f"no gathering is set for day {world.day:03d}: a character's reply proposes one")
        return participants or guests(world, gathering, sorted(agents))

    def forced_fields(self, world) -> dict:
        gathering = due(world)
        if gathering is None:
            return {}
        return {"gathering_id": gathering.id, "topic": self._topic(gathering)}

    def settle(self, world, agents, spec):
        gathering = next((g for g in world.gatherings if g.id == spec.gathering_id), None)
        if gathering is None:
            return spec
        seen = attendance(gathering, spec.participants)
        reason = spec.reason if spec.reason.startswith(gathering.id) else f"{self._reason(gathering)} ({spec.reason})"
        return spec.model_copy(update={"attendance": seen, "rooms": [list(spec.participants)],
                                       "reason": f"{reason}; {attendance_line(gathering, seen)}"})

    def before_replies(self, scene: SceneWrite) -> None:
        gathering = next((g for g in scene.world.gatherings if g.id == scene.spec.gathering_id), None)
        if gathering is not None:
            gathering.held = scene.spec.ref

    def write_back(self, scene: SceneWrite) -> None:
        remember_heard(scene)


KIND = GatheringKind()
