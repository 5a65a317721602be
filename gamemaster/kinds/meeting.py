"""MEETING: two or more characters talk, turn by turn over several rounds, and each keeps
a conversation memory; others notice that a meeting took place and on what topic - by default those in the
participants' teams, at most ``kinds.meeting.notices_per_day`` times a day (``notice_recipients``)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ..lang import join_names, short_name
from ..models import at_most
from ..retrieval.heard import cut
from ..scenes import SceneSpec
from . import get_kind
from .base import KindSettings, ReplyCheck, SceneKind, SceneWrite
from .settings import settings_of
from .conversation import conversation_problems, remember_conversation
from .fairness import oldest_wishes_first

MEETING_NOTICE_IMPORTANCE = 2
#: Characters of the topic a notice names; a long topic (a brief's text) is cut at a word.
NOTICE_TOPIC_CHARS = 90


class MeetingSettings(KindSettings):
    """``kinds.meeting`` in world.json."""

    rounds: Annotated[int, Field(ge=2, description="rounds of a meeting: each participant speaks once a round"),
                      at_most(50, "each round is one more turn, one model call, for every participant")] = 2
    # Every turn carries the transcript, so a meeting's cost grows with the square of its size;
    # a brief to more people is an announcement.
    max: Annotated[int, Field(ge=2, description="participants a MEETING may have (a brief to more is an announcement)"),
                   at_most(50, "a meeting's cost grows with the square of its size")] = 6
    # So notices do not flood a large studio.
    notices: Annotated[Literal["team", "all", "none"], Field(
        description="who notices a meeting they were not in: the participants' teams (no team counts as one), "
                    "everyone or no one")] = "team"
    # So that in a large studio notices neither crowd the memory stream nor drive reflections.
    notices_per_day: Annotated[int, Field(ge=0, description="meeting notices one character gets a day at most"),
                               at_most(100, "a day has at most 100 scenes")] = 1

    former_names = {"rounds": "meeting_rounds", "max": "meeting_max", "notices": "meeting_notices",
                    "notices_per_day": "meeting_notices_per_day"}


def settings(world) -> MeetingSettings:
    return settings_of(world, "meeting")


def hears_of(world, agents, participants) -> list[str]:
    """Who, by ``kinds.meeting.notices``, hears of a meeting of ``participants`` (no daily cap)."""
    notices = settings(world).notices
    if notices == "none":
        return []
    others = [a for a in agents if a not in participants]
    if notices == "all":
        return others
    # A participant no longer on the roster counts as having no team.
    teams = {agents[p].team if p in agents else None for p in participants}
    return [a for a in others if agents[a].team in teams]


def notice_recipients(world, agents, spec) -> list[str]:
    """Who gets a notice of the meeting ``spec``: those who hear of it and have not yet had
    ``kinds.meeting.notices_per_day`` notices today.

    What each already got is worked out from today's logbook (the earlier MEETINGs and
    the same rule), not read from the streams: pure in world and agents, and the same
    whether or not ``spec`` is already in ``world.today``.
    """
    had: dict[str, int] = {}
    for entry in world.today:
        if entry.type == "MEETING" and entry.scene < spec.scene:
            for agent_id in hears_of(world, agents, entry.participants):
                had[agent_id] = had.get(agent_id, 0) + 1
    cap = settings(world).notices_per_day
    return [a for a in hears_of(world, agents, spec.participants) if had.get(a, 0) < cap]


class Meeting(SceneKind):
    name = "MEETING"
    requires = frozenset({"says"})
    requires_last = frozenset({"conversation"})
    order = 30
    decides = 70
    colour = "#8a5a9e"
    settings = MeetingSettings
    contract_rules = {"de": {"conversation": "eines MEETING"},
                      "en": {"conversation": "of a MEETING"}}
    reasons = {
        "wants_talk": {"en": "{who} wants to talk with {partners} about {topic}",
                       "de": "{who} möchte mit {partners} über „{topic}“ sprechen"},
    }
    #: The notice of a meeting to those not in it.
    phrases = {
        "de": {"elsewhere": "{names} hatten eine Besprechung.",
               "elsewhere_topic": "{names} hatten eine Besprechung zum Thema {topic}."},
        "en": {"elsewhere": "{names} had a meeting.", "elsewhere_topic": "{names} had a meeting on {topic}."},
    }
    final_turn = {
        "de": (
            "Das ist dein letzter Beitrag in dieser Besprechung: fasse sie im Feld "
            "`conversation` aus deiner Sicht zusammen. Hat vor dir schon jemand in dieser Runde ein "
            "Ergebnis festgehalten, übernimm es in deiner Zusammenfassung (oder widersprich ausdrücklich); "
            "sonst halte du eins fest, das die anderen übernehmen können."
        ),
        "en": (
            "This is your last turn in this meeting: summarise it from your view in `conversation`. If someone "
            "before you in this round stated an outcome, adopt it in your summary (or disagree explicitly); "
            "otherwise state one the others can adopt."
        ),
    }
    acting = True
    in_sequence = True
    allows = frozenset({"conversation"})
    replans_on_news = True
    min_participants = 2

    def turns(self, spec) -> list[str]:
        return [agent for _ in range(spec.rounds) for agent in spec.participants]

    def rounds(self, world) -> int:
        return settings(world).rounds

    def check(self, reply, ctx: ReplyCheck) -> list[str]:
        return conversation_problems(self.name, reply, ctx)

    def write_back(self, scene: SceneWrite) -> None:
        remember_conversation(scene)
        spec, agents = scene.spec, scene.agents
        names = join_names(scene.language, [short_name(agents[p].name) for p in spec.participants])
        # The topic, as everyone could see it on the door: the notice then says what the meeting was
        # about, and two meetings of the same people are two different notices. What was said stays
        # with those who were there.
        topic = " ".join((spec.topic or "").split()).rstrip(" .!?")
        notice = (self.say(scene.language, "elsewhere_topic", names=names, topic=cut(topic, NOTICE_TOPIC_CHARS))
                  if topic else self.say(scene.language, "elsewhere", names=names))
        for agent_id in notice_recipients(scene.world, agents, spec):
            scene.remember(
                agent_id,
                type="observation",
                description=notice,
                importance=MEETING_NOTICE_IMPORTANCE,
                tags=list(dict.fromkeys(["meeting", *spec.participants])),
                metadata={"source": "meeting", "participants": list(spec.participants)},
            )

    def choose(self, world, agents, roster):
        """Once work is under way, a talk wish becomes a meeting; never two in a row
        (a scene that does not count, like a reflection, does not break the row)."""

        counted = [e.type for e in world.today if get_kind(e.type, strict=False).counts_toward_day]
        worked = any(e.type == "WORK" for e in world.today)
        if not worked or (counted and counted[-1] == self.name):
            return None
        return self.from_wishes(world, agents, roster)

    def from_wishes(self, world, agents, roster):
        """The oldest talk wish becomes the meeting (see ``fairness``)."""

        for agent_id, wish in oldest_wishes_first(world, agents, roster):
            partners = [p for p in wish.with_ if p in agents and p != agent_id]
            if partners:
                return SceneSpec(
                    type=self.name, day=world.day, scene=world.scene + 1, participants=[agent_id, *partners][: settings(world).max],
                    topic=wish.topic, topic_tags=list(wish.tags), rounds=self.rounds(world),
                    reason=self.reason("wants_talk", who=agent_id, partners=", ".join(partners), topic=wish.topic),
                )
        return None


KIND = Meeting()
