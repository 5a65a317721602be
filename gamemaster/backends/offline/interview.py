"""The offline player in an interview: answers from what the character recalls, citing it.

It invents nothing: every sentence is built from a recalled memory, and the
memory's id goes into the answer's ``memories``.
"""

from __future__ import annotations

import random
import re

from ...models import Memory
from ..base import InterviewRequest

LINES = {
    "de": {
        "opening": ["Da fällt mir einiges ein.", "Lass mich nachdenken.", "Ja, daran erinnere ich mich."],
        "first": "{text}",
        "more": ["Außerdem: {text}", "Und dann noch: {text}", "Dazu passt: {text}"],
        "reflection": "Für mich heißt das: {text}",
        "nothing": "Dazu fällt mir ehrlich gesagt nichts ein – davon weiß ich nichts.",
    },
    "en": {
        "opening": ["A few things come to mind.", "Let me think.", "Yes, I remember that."],
        "first": "{text}",
        "more": ["Also: {text}", "And then: {text}", "Related to that: {text}"],
        "reflection": "What I take from it: {text}",
        "nothing": "Honestly, nothing comes to mind about that; I don't know.",
    },
}
MOST = 3


def answer(request: InterviewRequest) -> dict:
    lines = LINES.get((request.language or "de").split("-")[0], LINES["en"])
    rng = random.Random(f"{request.seed}:{request.agent.id}:{request.question}")
    by_id = {m.id: m for m in request.memories}
    chosen = [by_id[i] for i in request.relevant if i in by_id][:MOST]
    if not chosen:
        return {"answer": lines["nothing"], "memories": []}
    parts = [rng.choice(lines["opening"])]
    for position, memory in enumerate(chosen):
        text = _sentence(memory)
        if memory.type == "reflection":
            parts.append(lines["reflection"].format(text=text))
        elif position == 0:
            parts.append(lines["first"].format(text=text))
        else:
            parts.append(rng.choice(lines["more"]).format(text=text))
    return {"answer": " ".join(parts), "memories": [m.id for m in chosen]}


def _sentence(memory: Memory) -> str:
    text = re.sub(r"\s+", " ", memory.description).strip()
    return text if text.endswith((".", "!", "?", "…", "“", "\"")) else text + "."
