"""The fake API's characters: replies written by hand from the prompt text alone.

Nothing here imports the project: a reply built by the project's own offline player
would share any defect of request building and validation, and the test could not
see it. The rules follow only what the prompt tells a character (the answer format
at its top, the scene kind in "## Die Szene: KIND (ref)", the task at its end):

- every reply: ``agent`` and ``scene`` from "Antworte mit …", an ``action``, ``says``
  and one observation in ``memories`` whose text names agent and scene (``note``), so
  the test can find it in the character's stream afterwards;
- ARRIVAL: the ``plan`` it requires;
- WORK: one artifact of the kind the task names ("Art normalerweise `…`");
- REFLECTION: three insights citing the character's own memory ids shown in the prompt;
- MEETING, ENCOUNTER: ``conversation`` when the prompt says it is the last turn;
- GATHERING, EVENT: the common part only.
"""

from __future__ import annotations

import re

REPLY_REF = re.compile(r'Antworte mit `"agent": "([^"]+)"` und `"scene": "([^"]+)"`')
SCENE_KIND = re.compile(r"^## Die Szene: ([A-Z]+) \(", re.M)
#: A memory line in the prompt: ``- [vera-004 · day-001/scene-02 · observation · …``.
SHOWN_ID = re.compile(r"^- \[([a-z0-9_]+-\d{3,}) · ", re.M)
ARTIFACT_KIND = re.compile(r"Art normalerweise `([^`]+)`")
LAST_TURN = "Das ist dein letzter Beitrag"


def note(agent: str, ref: str) -> str:
    """The memory each reply asks to keep; the test looks for it in the character's stream."""
    return f"E2E-Notiz von {agent} zu {ref}: die Knochentürme wachsen nur nachts."


def artifact_title(agent: str, ref: str) -> str:
    return f"E2E-Skizze von {agent} ({ref})"


def reply_for(text: str) -> dict | None:
    """The valid reply to the scene prompt in ``text`` (system prompt and messages), or None
    when ``text`` holds no scene prompt."""
    found = REPLY_REF.search(text)
    kind_found = SCENE_KIND.search(text)
    if not found or not kind_found:
        return None
    agent, ref = found.groups()
    kind = kind_found.group(1)
    reply: dict = {
        "agent": agent,
        "scene": ref,
        "action": f"{agent} legt das Notizbuch auf den Tisch und hört zu.",
        "says": f"Ich glaube, die Türme wachsen nur, wenn niemand hinsieht ({agent}, {ref}).",
        "memories": [{"type": "observation", "description": note(agent, ref), "importance": 4,
                      "tags": ["e2e", "bone-towers"]}],
    }
    if kind == "ARRIVAL":
        reply["plan"] = {"text": "Heute kläre ich, warum die Türme nachts wachsen.", "tags": ["bone-towers"],
                         "importance": 5}
    elif kind == "WORK":
        artifact_kind = ARTIFACT_KIND.search(text)
        reply["artifacts"] = [{
            "title": artifact_title(agent, ref),
            "kind": artifact_kind.group(1) if artifact_kind else "notes",
            "content": "## Beobachtung\n\nDie Türme wachsen nachts um einen Wirbel. "
                       "Tagsüber ruhen sie und knarren leise im Wind der Aschen-Einöden.\n",
            "summary": f"{agent} hängt eine Skizze zu den nachts wachsenden Türmen an die Wand.",
            "importance": 5,
            "tags": ["e2e", "bone-towers"],
        }]
    elif kind == "REFLECTION":
        own = list(dict.fromkeys(i for i in SHOWN_ID.findall(text) if i.startswith(agent + "-")))
        reply["insights"] = [
            {"description": f"Einsicht {n} von {agent}: die Türme folgen einem Rhythmus.", "importance": 6,
             "tags": ["e2e"], "evidence": own[n - 1:n + 1] or own[:1]}
            for n in range(1, 4)
        ]
    elif kind in ("MEETING", "ENCOUNTER") and LAST_TURN in text:
        reply["conversation"] = {"summary": f"{agent} hat über die wachsenden Türme gesprochen.",
                                 "importance": 4, "tags": ["e2e"]}
    return reply
