"""Minimal valid replies for any request: what scripted test backends answer with."""

from __future__ import annotations

from gamemaster.backends.base import ReplyRequest
from gamemaster.scenes import SceneType


def valid_reply(request: ReplyRequest, importance: int = 5, artifact: bool = True) -> dict:
    spec = request.spec
    reply: dict = {
        "agent": request.agent.id,
        "scene": spec.ref,
        "action": f"{request.agent.name} arbeitet.",
        "says": f"Hallo, hier spricht {request.agent.name}.",
        "memories": [
            {"description": f"Notiz von {request.agent.id} in {spec.ref}", "importance": importance, "tags": ["notiz"]}
        ],
    }
    if spec.type == SceneType.ARRIVAL:
        reply["plan"] = {"text": "Heute arbeite ich an den Knochentürmen.", "tags": ["bone-towers"], "importance": 4}
    if spec.type == SceneType.WORK and artifact:
        reply["artifacts"] = [
            {
                "title": f"Entwurf von {request.agent.name.split()[0]}",
                "kind": request.agent.artifact_kind,
                "content": "# Entwurf\n\nDie Türme wachsen.",
                "summary": f"{request.agent.name.split()[0]} hat einen Entwurf fertiggestellt.",
                "importance": 7,
                "tags": ["bone-towers"],
            }
        ]
    if "conversation" in spec.kind.allows and request.final_turn:
        reply["conversation"] = {"summary": f"Besprechung zu {spec.topic}", "importance": 6, "tags": ["meeting"]}
    if spec.type == SceneType.REFLECTION:
        ids = [m.id for m in request.memories][-3:]
        reply["insights"] = [
            {"description": f"Einsicht {n}", "importance": 7, "tags": ["insight"], "evidence": ids[n:n + 2] or ids}
            for n in range(3)
        ]
    return reply
