"""Whom a character wants to talk with, and about what: kept with the character until a
conversation takes it up (how new wishes join the old is the kind's ``merge_talk_wishes``)."""

from __future__ import annotations

from ..models import TalkWish
from .base import PromptSection


class TalkWishes(PromptSection):
    name = "talk_wishes"
    order = 140

    def check(self, reply, ctx) -> list[str]:
        known, problems = set(ctx.roster), []
        for index, wish in enumerate(reply.talk_wishes):
            for partner in wish.with_:
                if partner == ctx.agent:
                    problems.append(f"talk_wishes.{index}.with: {ctx.agent} cannot talk to themselves")
                elif partner not in known:
                    problems.append(f"talk_wishes.{index}.with: unknown agent {partner!r}")
        return problems

    def write_back(self, scene, agent_id: str, reply) -> None:
        created = scene.spec.ref
        wishes = [TalkWish.model_validate({**w.model_dump(by_alias=True), "created": created}) for w in reply.talk_wishes]
        agent = scene.updated[agent_id]
        agent.talk_wishes = scene.spec.kind.merge_talk_wishes(agent.talk_wishes, wishes)


SECTION = TalkWishes()
