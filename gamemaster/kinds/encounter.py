"""ENCOUNTER: two characters cross paths (the kitchen, the hallway, lunch) and talk briefly.

One or two turns each, one after another; each keeps a conversation memory, a
talk wish between the two is settled by it and a new one may come out of it.
An encounter happens between the day's scenes, like a coffee break, so it does
not use up one of them; ``kinds.encounter.per_day`` bounds how many a day has.

It is chosen at the day's lunch slot (half of ``scenes_per_day`` done), and
when two people want to talk but a MEETING cannot follow right now (there was
one just before): they meet in the hallway instead. Two people who talked
today already are not picked again; without a talk wish, the pair with the
most shared interest tags is.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from ..models import at_most
from ..scenes import SceneSpec, counted_scenes
from ..slots import lunch_position
from . import get_kind, meeting
from .base import KindSettings, ReplyCheck, SceneKind, SceneWrite
from .conversation import conversation_problems, remember_conversation
from .fairness import oldest_wishes_first, waited_longest


class EncounterSettings(KindSettings):
    """``kinds.encounter`` in world.json."""

    per_day: Annotated[int, Field(ge=0, description="ENCOUNTERs a day may have (they come between the counted scenes)"),
                       at_most(100, "`day advance` plays all of a day's scenes in one run")] = 2
    rounds: Annotated[int, Field(ge=1, le=2, description="turns each of the two takes in an ENCOUNTER")] = 1

    former_names = {"per_day": "encounters_per_day", "rounds": "encounter_rounds"}


class Encounter(SceneKind):
    name = "ENCOUNTER"
    requires = frozenset({"says"})
    requires_last = frozenset({"conversation"})
    order = 50
    decides = 60
    colour = "#b7791f"
    settings = EncounterSettings
    contract_rules = {"de": {"conversation": "einer ENCOUNTER"},
                      "en": {"conversation": "of an ENCOUNTER"}}
    reasons = {
        "lunch": {"en": "{first} and {second} cross paths at lunch: {why}",
                  "de": "{first} und {second} treffen sich beim Mittagessen: {why}"},
        "hallway": {"en": "{first} and {second} cross paths in the hallway: {why}",
                    "de": "{first} und {second} begegnen sich auf dem Flur: {why}"},
        "both_care": {"en": "both care about {tags}", "de": "beiden liegt {tags} am Herzen"},
    }
    final_turn = {
        "de": "Das ist dein letzter Beitrag in dieser Begegnung: fasse sie im Feld `conversation` aus deiner Sicht zusammen.",
        "en": "This is your last turn in this encounter: summarise it from your view in `conversation`.",
    }
    acting = True
    in_sequence = True
    counts_toward_day = False
    allows = frozenset({"conversation"})
    min_participants = max_participants = 2

    def turns(self, spec) -> list[str]:
        return [agent for _ in range(spec.rounds) for agent in spec.participants]

    def rounds(self, world) -> int:
        return world.kind_settings(self.name).rounds

    def check(self, reply, ctx: ReplyCheck) -> list[str]:
        return conversation_problems(self.name, reply, ctx)

    def write_back(self, scene: SceneWrite) -> None:
        remember_conversation(scene)

    def choose(self, world, agents, roster):
        if world.day == 0 or len(roster) < 2 or not world.today or world.today[-1].type == self.name:
            return None
        if sum(1 for e in world.today if e.type == self.name) >= world.kind_settings(self.name).per_day:
            return None
        counted = counted_scenes(world)
        lunch = counted == lunch_position(world.scenes_per_day) and not self._since_lunch(world)
        last_counted = next((e for e in reversed(world.today) if get_kind(e.type, strict=False).counts_toward_day), None)
        hallway = last_counted is not None and last_counted.type == meeting.KIND.name  # no MEETING may follow one
        if not (lunch or hallway):
            return None
        talked = self._talked_today(world)
        pair = self._wished_pair(world, agents, roster, talked)
        if pair is None and lunch:
            pair = self._pair_by_interests(world, agents, roster, talked)
        if pair is None:
            return None
        (first, second), topic, tags, why = pair
        return SceneSpec(type=self.name, day=world.day, scene=world.scene + 1, participants=[first, second],
                         topic=topic, topic_tags=tags, rounds=self.rounds(world),
                         reason=self.reason("lunch" if lunch else "hallway", first=first, second=second, why=why))

    def _since_lunch(self, world) -> bool:
        """An encounter already happened since the last scene that counts (lunch is taken)."""

        for entry in reversed(world.today):
            if entry.type == self.name:
                return True
            if get_kind(entry.type, strict=False).counts_toward_day:
                return False
        return False

    @staticmethod
    def _talked_today(world) -> set[frozenset[str]]:
        pairs = set()
        for entry in world.today:
            if "conversation" in get_kind(entry.type, strict=False).allows:
                people = entry.participants
                pairs |= {frozenset((a, b)) for a in people for b in people if a < b}
        return pairs

    @staticmethod
    def _wished_pair(world, agents, roster, talked):
        for agent_id, wish in oldest_wishes_first(world, agents, roster):
            for partner in wish.with_:
                if partner in agents and partner != agent_id and frozenset((agent_id, partner)) not in talked:
                    return ((agent_id, partner), wish.topic, list(wish.tags),
                            f"{agent_id} wants to talk with {partner} about {wish.topic}")
        return None

    def _pair_by_interests(self, world, agents, roster, talked):
        """The two who share the most interest tags; among equals those who waited longest to act."""

        def tags(agent_id) -> dict[str, str]:
            found = {}
            for interest in agents[agent_id].interests:
                for tag in interest.tags:
                    found.setdefault(tag, interest.topic)
            return found

        best = None
        order = waited_longest(world, agents, roster)
        for i, first in enumerate(order):
            for second in order[i + 1:]:
                if frozenset((first, second)) in talked:
                    continue
                shared = sorted(set(tags(first)) & set(tags(second)))
                if best is None or len(shared) > len(best[1]):
                    best = ((first, second), shared)
        if best is None:
            return None
        (first, second), shared = best
        if shared:
            return (first, second), tags(first)[shared[0]], shared, self.reason("both_care", tags=", ".join(shared))
        return (first, second), None, [], "they have not talked today"


KIND = Encounter()
