"""What a character took from what it heard, weighed by itself (``takeaways.py``): a reply's
``takeaways`` may name whose words the prompt showed, and each becomes a memory of its own."""

from __future__ import annotations

from typing import Collection

from .base import PromptSection, TurnFacts


def heard_from(exchanges, memories, agent_id: str, invitations=()) -> list[str]:
    """Whose words the prompt shows: the lines said lately, those its memories keep or are
    (``heard.written_by``), and the hosts of the gatherings it lists."""
    from .. import news
    from ..retrieval.heard import heard_lines, written_by

    kept = {speaker for m in memories for speaker, _ in heard_lines(m.metadata, m.id)}
    written = {written_by(m.metadata, m.id) for m in memories} - {None}
    hosts = {g.host for g in invitations}
    return sorted((set(news.heard_from(exchanges, agent_id)) | kept | written | hosts) - {agent_id})


def takeaway_problems(reply, agent: str, spec, roster: Collection[str], heard: Collection[str] | None) -> list[str]:
    """A takeaway weighs words the character heard: of the others in this conversation (MEETING,
    ENCOUNTER, GATHERING), or of those whose lines its prompt showed (said lately, or kept by a
    memory it shows); where the prompt was not recorded with them, of anyone in the studio."""
    here = [p for p in spec.participants if p != agent] if spec.kind.in_sequence else []
    heard = sorted(heard) if heard is not None else [a for a in roster if a != agent]
    problems = []
    for index, taken in enumerate(reply.takeaways):
        if taken.from_ in here or taken.from_ in heard:
            continue
        places = ([f"here: {', '.join(here)}"] if here else []) + [f"heard: {', '.join(heard) or 'nobody'}"]
        problems.append(f"takeaways.{index}.from: {taken.from_!r} is not someone whose words your prompt shows "
                        f"({'; '.join(places)})")
    return problems


class Takeaways(PromptSection):
    name = "takeaways"
    order = 130

    def request(self, gathered, turn: TurnFacts, prompt: str) -> dict:
        heard, recalled, found = (turn.gathered.get(name) for name in ("news", "recall", "gatherings"))
        return {"heard_from": heard_from(heard.exchanges if heard else [], recalled.memories if recalled else [],
                                         turn.agent.id, (found.invitations + found.engaged) if found else [])}

    def check(self, reply, ctx) -> list[str]:
        return takeaway_problems(reply, ctx.agent, ctx.spec, set(ctx.roster), ctx.heard_from)

    def write_back(self, scene, agent_id: str, reply) -> None:
        from ..takeaways import write_takeaways

        write_takeaways(scene, agent_id, reply)


SECTION = Takeaways()
