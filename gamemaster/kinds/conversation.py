"""What the kinds where people talk share: every turn says something, each speaker's last
turn sums the talk up, and each keeps it as a conversation memory."""

from __future__ import annotations

from ..linesize import text_too_long
from .base import ReplyCheck, SceneWrite


def conversation_problems(kind: str, reply, ctx: ReplyCheck) -> list[str]:
    problems = []
    article = "an" if kind[:1] in "AEIOU" else "a"
    if not reply.says.strip():
        problems.append(f"says: {article} {kind} turn must say something")
    elif ctx.said_before and text_too_long(reply.says) is None:
        # Every speaker's conversation memory keeps the whole transcript.
        too_long = text_too_long([*ctx.said_before, reply.says])
        if too_long:
            problems.append(f"says: with this turn the {kind}'s transcript would take {too_long}")
    if ctx.final_turn and reply.conversation is None:
        problems.append(f"conversation: the last turn of {article} {kind} must summarise it")
    return problems


def remember_conversation(scene: SceneWrite) -> None:
    """A conversation memory for every speaker from their last turn's summary; the talk
    wishes among exactly these people are settled."""
    spec = scene.spec
    transcript = []
    for agent_id, reply in scene.turns:
        passes = scene.passes(agent_id, reply.says)
        transcript.append({"speaker": agent_id, "says": reply.says, **({"passes": passes} if passes else {})})
    finals = {a: r for a, r in scene.turns}  # a speaker's last turn carries their summary
    for agent_id in spec.participants:
        others = [p for p in spec.participants if p != agent_id]
        note = finals[agent_id].conversation
        # What they took away from the others here, from all their turns, is kept with what was said
        # (``retrieval/heard.py``); a takeaway from someone heard elsewhere is a memory of its own.
        taken = [{"speaker": t.from_, "says": t.what} for a, r in scene.turns if a == agent_id for t in r.takeaways
                 if t.from_ in spec.participants]
        scene.remember(
            agent_id,
            type="conversation",
            description=note.summary,
            importance=note.importance,
            tags=list(dict.fromkeys([*note.tags, *others])),
            metadata={"with": others, "topic": spec.topic, "transcript": transcript,
                      **({"takeaways": taken} if taken else {})},
        )
        scene.updated[agent_id].talk_wishes = [
            w for w in scene.updated[agent_id].talk_wishes
            if not set(w.with_) & set(scene.agents) <= set(spec.participants)
        ]
