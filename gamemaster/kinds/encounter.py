"""ENCOUNTER: two characters cross paths (the kitchen, the hallway, lunch) and talk briefly.

One or two turns each, one after another; each keeps a conversation memory, a
talk wish between the two is settled by it and a new one may come out of it.
An encounter happens in the break between two of the day's scenes, like a coffee
break, so it does not use up one of them.

Whoever wants to talk with one colleague seeks them out in the next break (a wish
for several people is a MEETING's). A large studio has several such talks going
on in the same break, as it has several WORK rooms: the day's encounters, at most
``kinds.encounter.per_character`` for anyone and ``kinds.encounter.per_day`` in
all, are shared evenly among the day's other breaks. Lunch is the break everyone
takes: it holds what the day has left, and those without a wish sit with whom they
share the most interest tags. Two people who talked today already are not picked again.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from ..models import at_most
from ..scenes import SceneSpec, counted_scenes
from ..slots import lunch_position
from . import get_kind
from .base import KindSettings, ReplyCheck, SceneKind, SceneWrite
from .settings import settings_of
from .conversation import conversation_problems, remember_conversation
from .fairness import oldest_wishes_first, waited_longest


class EncounterSettings(KindSettings):
    """``kinds.encounter`` in world.json."""

    per_day: Annotated[int, Field(ge=0, description="ENCOUNTERs a day may have in all (they come between the counted scenes)"),
                       at_most(100, "`day advance` plays all of a day's scenes in one run")] = 20
    # A few short talks a day each: enough to seek out whoever one has something to tell, few
    # enough that they do not crowd out work (each is a conversation memory for both).
    per_character: Annotated[int, Field(ge=0, description="ENCOUNTERs one character may have a day"),
                             at_most(100, "each is one more conversation memory a day for the character")] = 2
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
        return settings_of(world, self.name).rounds

    def check(self, reply, ctx: ReplyCheck) -> list[str]:
        return conversation_problems(self.name, reply, ctx)

    def write_back(self, scene: SceneWrite) -> None:
        remember_conversation(scene)

    def choose(self, world, agents, roster):
        if world.day == 0 or len(roster) < 2 or not world.today:
            return None
        in_break = self._this_break(world)
        lunch = counted_scenes(world) == lunch_position(world.scenes_per_day)
        if self.room_in_break(world, len(roster), lunch) <= 0:
            return None
        talked = self._talked_today(world)
        busy = self._busy(world, in_break)
        pair = self._wished_pair(world, agents, roster, talked, busy)
        if pair is None and lunch:  # the others sit with whom they share interests
            pair = self._pair_by_interests(world, agents, [a for a in roster if a not in busy], talked,
                                           shared_only=bool(in_break))
        if pair is None:
            return None
        (first, second), topic, tags, why = pair
        return SceneSpec(type=self.name, day=world.day, scene=world.scene + 1, participants=[first, second],
                         topic=topic, topic_tags=tags, rounds=self.rounds(world),
                         reason=self.reason("lunch" if lunch else "hallway", first=first, second=second, why=why))

    def today(self, world, people: int) -> int:
        """Encounters the day may have: ``per_day``, and no more than everyone's ``per_character`` allow."""
        settings = settings_of(world, self.name)
        return min(settings.per_day, people * settings.per_character // 2)

    def left_today(self, world, people: int) -> int:
        return max(self.today(world, people) - sum(1 for e in world.today if e.type == self.name), 0)

    def per_break(self, world, people: int) -> int:
        """Encounters one break holds: the day's, spread evenly over the breaks between its counted scenes."""
        return -(-self.today(world, people) // max(world.scenes_per_day - 1, 1))

    def room_in_break(self, world, people: int, lunch: bool) -> int:
        """Encounters this break still has room for. Lunch is the break everyone takes: it holds
        what the day has left, not a share; a wish that comes up later waits for a MEETING."""
        left = self.left_today(world, people)
        if lunch:
            return left
        return min(left, self.per_break(world, people) - len(self._this_break(world)))

    def _this_break(self, world) -> list:
        """The encounters since the last scene that counts."""
        found = []
        for entry in reversed(world.today):
            if get_kind(entry.type, strict=False).counts_toward_day:
                break
            if entry.type == self.name:
                found.append(entry)
        return found

    def _busy(self, world, in_break) -> set[str]:
        """Who cannot cross paths now: in another talk of this break, or had their encounters today."""
        cap = settings_of(world, self.name).per_character
        had: dict[str, int] = {}
        for entry in world.today:
            if entry.type == self.name:
                for agent_id in entry.participants:
                    had[agent_id] = had.get(agent_id, 0) + 1
        return {a for e in in_break for a in e.participants} | {a for a, n in had.items() if n >= cap}

    @staticmethod
    def _talked_today(world) -> set[frozenset[str]]:
        pairs = set()
        for entry in world.today:
            if "conversation" in get_kind(entry.type, strict=False).allows:
                people = entry.participants
                pairs |= {frozenset((a, b)) for a in people for b in people if a < b}
        return pairs

    @staticmethod
    def _wished_pair(world, agents, roster, talked, busy):
        """The oldest wish to talk with one colleague whom the wisher can reach now."""
        for agent_id, wish in oldest_wishes_first(world, agents, roster):
            partners = [p for p in wish.with_ if p in agents and p != agent_id]
            if len(partners) != 1 or agent_id in busy or partners[0] in busy:
                continue
            partner = partners[0]
            if frozenset((agent_id, partner)) not in talked:
                return ((agent_id, partner), wish.topic, list(wish.tags),
                        f"{agent_id} wants to talk with {partner} about {wish.topic}")
        return None

    def _pair_by_interests(self, world, agents, roster, talked, shared_only=False):
        """The two who share the most interest tags; among equals those who waited longest to act
        (with ``shared_only``, none unless they share one)."""

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
        if best is None or (shared_only and not best[1]):
            return None
        (first, second), shared = best
        if shared:
            return (first, second), tags(first)[shared[0]], shared, self.reason("both_care", tags=", ".join(shared))
        return (first, second), None, [], "they have not talked today"


KIND = Encounter()
