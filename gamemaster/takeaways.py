"""What a character took from what it heard, weighed by the character itself.

Seed 001 has the agent score a memory's importance. What a character hears side by side
(ARRIVAL, WORK, EVENT) is written when it is said, before the listener could weigh it:
a heard memory at ``kinds.heard.HEARD_IMPORTANCE``, the publisher's bombshell like a
greeting. In its next reply the listener says in ``takeaways`` what it took from it and how
much that matters (1–10); each weighed takeaway becomes a memory of its own at that
importance, so it counts in the accumulator and in recall like any memory. In a
conversation (MEETING, ENCOUNTER) an unweighed takeaway stays where it always was, with the
conversation memory; elsewhere one without a weight is kept at the weight of anything heard.
"""

from __future__ import annotations

from .kinds.base import SceneWrite
from .kinds.heard import HEARD_IMPORTANCE
from .lang import phrase, short_name
from .reply_models import Reply

SOURCE = "takeaway"


def write_takeaways(scene: SceneWrite, agent_id: str, reply: Reply) -> None:
    # The same takeaway said again in a later turn of the same scene is not a second memory.
    mine = [r for a, r in scene.turns if a == agent_id]
    said_before = {(t.from_, t.what) for r in mine[:next(i for i, r in enumerate(mine) if r is reply)]
                   for t in r.takeaways}
    for taken in reply.takeaways:
        if (taken.from_, taken.what) in said_before or kept_with_conversation(scene, taken):
            continue
        speaker = scene.agents.get(taken.from_)
        name = short_name(speaker.name) if speaker else taken.from_
        scene.remember(
            agent_id,
            type="observation",
            description=phrase(scene.language, "takeaway", name=name, what=" ".join(taken.what.split())),
            importance=taken.importance if taken.importance is not None else HEARD_IMPORTANCE,
            tags=["heard", SOURCE, taken.from_],
            # Not kept as a line of the speaker's (``metadata.heard``/``takeaways``): these are the
            # listener's own words about what the speaker said, which its heard memory keeps.
            metadata={"source": SOURCE, "from": taken.from_, "weighed": taken.importance is not None},
        )


def kept_with_conversation(scene: SceneWrite, taken) -> bool:
    """An unweighed takeaway from someone in this conversation stays where it always was: in the
    conversation memory beside the transcript (``kinds.conversation``). One from someone heard
    elsewhere is not their line in this conversation, and a GATHERING keeps no such memory."""
    return (taken.importance is None and "conversation" in scene.spec.kind.allows
            and taken.from_ in scene.spec.participants)
