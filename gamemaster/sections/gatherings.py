"""Gatherings a character organises, and the invitations it answers (``gatherings.py``): the
prompt lists what is open for it, a reply's ``gathering`` and ``invitations`` are checked
against the studio as the scene found it and written back into the world."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..gatherings import (answer_problems, declined, engagements, open_invitations, proposal_problems, render_invitations,
                          soonest, write_reply)
from ..reply_models import INVITATION_ANSWERS_MAX
from ..scenes import scenes_left
from .base import PromptSection, TurnFacts


@dataclass
class Open:
    #: The invitations the prompt asks it to answer: the soonest, at most a reply's worth.
    invitations: list = field(default_factory=list)
    engaged: list = field(default_factory=list)
    turned_down: list = field(default_factory=list)
    #: Open invitations left out of the list.
    more: int = 0


class Gatherings(PromptSection):
    name = "gatherings"
    order = 120

    def gather(self, turn: TurnFacts) -> Open:
        world, agent_id, day = turn.world, turn.agent.id, turn.spec.day
        waiting = open_invitations(world, agent_id, day)
        invitations = soonest(waiting, INVITATION_ANSWERS_MAX)
        return Open(invitations, soonest(engagements(world, agent_id, day), INVITATION_ANSWERS_MAX),
                    soonest(declined(world, agent_id, day), INVITATION_ANSWERS_MAX), len(waiting) - len(invitations))

    def values(self, found: Open, turn: TurnFacts) -> dict[str, str]:
        from ..word_of_mouth import told_by

        agent_id, language = turn.agent.id, turn.language
        heard = turn.gathered.get("news")
        exchanges = heard.exchanges if heard else []
        tellers = {g.id: told_by(language, g, exchanges, agent_id, turn.names)
                   for g in found.invitations if agent_id not in g.invited}
        return {"invitations": render_invitations(language, turn.world, found.invitations, turn.names, found.engaged,
                                                  found.turned_down, agent_id, tellers, found.more)}

    def request(self, found: Open, turn: TurnFacts, prompt: str) -> dict:
        return {"invitations": found.invitations, "engagements": found.engaged}

    def check(self, reply, ctx) -> list[str]:
        world, known = ctx.world, set(ctx.roster)
        problems = []
        if reply.gathering is not None:
            left = scenes_left(world, ctx.spec) if world is not None else None
            problems += proposal_problems(reply.gathering, ctx.agent, ctx.spec, known, left,
                                          len(world.gatherings) if world is not None else 0)
        return problems + answer_problems(reply.invitations, ctx.agent, ctx.spec.day,
                                          world.gatherings if world is not None else None)

    def write_back(self, scene, agent_id: str, reply) -> None:
        write_reply(scene, agent_id, reply)


SECTION = Gatherings()
