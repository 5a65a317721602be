"""MEETING: two or more characters talk, turn by turn over several rounds, and each keeps
a conversation memory; everyone else notices that a meeting took place."""

from __future__ import annotations

from .base import ReplyCheck, SceneKind, SceneWrite
from .conversation import conversation_problems, remember_conversation

MEETING_NOTICE_IMPORTANCE = 2


class Meeting(SceneKind):
    name = "MEETING"
    acting = True
    in_sequence = True
    allows = frozenset({"conversation"})
    replans_on_news = True
    final_turn_phrase = "final_turn"
    min_participants = 2

    def turns(self, spec) -> list[str]:
        return [agent for _ in range(spec.rounds) for agent in spec.participants]

    def rounds(self, world) -> int:
        return world.meeting_rounds

    def check(self, reply, ctx: ReplyCheck) -> list[str]:
        return conversation_problems(self.name, reply, ctx)

    def write_back(self, scene: SceneWrite) -> None:
        from ..lang import join_names, phrase, short_name

        remember_conversation(scene)
        spec, agents = scene.spec, scene.agents
        names = join_names(scene.language, [short_name(agents[p].name) for p in spec.participants])
        for agent_id in agents:
            if agent_id in spec.participants:
                continue
            scene.remember(
                agent_id,
                type="observation",
                description=phrase(scene.language, "meeting_elsewhere", names=names),
                importance=MEETING_NOTICE_IMPORTANCE,
                tags=list(dict.fromkeys(["meeting", *spec.participants])),
                metadata={"source": "meeting", "participants": list(spec.participants)},
            )

    def choose(self, world, agents, roster):
        """Once work is under way, a talk wish becomes a meeting; never two in a row
        (a scene that does not count, like a reflection, does not break the row)."""
        from . import get_kind

        counted = [e.type for e in world.today if get_kind(e.type, strict=False).counts_toward_day]
        worked = any(e.type == "WORK" for e in world.today)
        if not worked or (counted and counted[-1] == self.name):
            return None
        return self.from_wishes(world, agents, roster)

    def from_wishes(self, world, agents, roster):
        """The oldest talk wish becomes the meeting (see ``fairness``)."""
        from ..scenes import SceneSpec
        from .fairness import oldest_wishes_first

        for agent_id, wish in oldest_wishes_first(world, agents, roster):
            partners = [p for p in wish.with_ if p in agents and p != agent_id]
            if partners:
                return SceneSpec(
                    type=self.name, day=world.day, scene=world.scene + 1, participants=[agent_id, *partners][: world.meeting_max],
                    topic=wish.topic, topic_tags=list(wish.tags), rounds=self.rounds(world),
                    reason=f"{agent_id} wants to talk with {', '.join(partners)} about {wish.topic}",
                )
        return None

    def play_offline(self, player) -> dict:
        from ..backends.offline import meeting

        return meeting.play(player)


KIND = Meeting()
