"""What each scene kind requires and allows in a reply, through the public check."""

from __future__ import annotations

import pytest

from gamemaster.replies import ReplyError, check_reply, parse_reply
from gamemaster.scenes import SceneSpec

ROSTER = ["vera", "emre", "nami"]
EXISTING = {"vera-001", "vera-002", "vera-003"}

PLAN = {"text": "Heute die Türme.", "tags": ["bone-towers"], "importance": 4}
ARTIFACT = {"title": "Turmskizze", "kind": "concept", "content": "# Turm\n\nText.", "summary": "Vera skizziert.",
            "importance": 5, "tags": []}
INSIGHT = {"description": "Türme sind Körper.", "importance": 6, "tags": [], "evidence": ["vera-001"]}
CONVERSATION = {"summary": "Wir haben geredet.", "importance": 4, "tags": []}


def spec(kind: str, participants=("vera", "emre"), rounds: int = 1) -> SceneSpec:
    participants = list(participants)
    return SceneSpec(type=kind, day=1, scene=2, participants=participants, reason="test", rounds=rounds)


def problems(kind: str, final_turn: bool = True, participants=("vera", "emre"), **fields) -> list[str]:
    reply = parse_reply({"agent": "vera", "scene": "day-001/scene-02", "action": "Vera arbeitet.", **fields}, "vera")
    try:
        check_reply(reply, agent="vera", spec=spec(kind, participants), roster=ROSTER,
                    evidence_exists=lambda ids: [i for i in ids if i not in EXISTING], final_turn=final_turn)
    except ReplyError as exc:
        return exc.problems
    return []


@pytest.mark.parametrize("kind,fields,expected", [
    ("ARRIVAL", {"plan": PLAN}, []),
    ("ARRIVAL", {}, ["plan: an ARRIVAL reply must declare today's plan"]),
    ("ARRIVAL", {"plan": PLAN, "artifacts": [ARTIFACT]}, ["artifacts: only WORK scenes produce artifacts, this is ARRIVAL"]),
    ("WORK", {}, []),
    ("WORK", {"artifacts": [ARTIFACT], "plan": PLAN}, []),
    ("WORK", {"conversation": CONVERSATION}, ["conversation: only MEETING and ENCOUNTER replies carry one, this is WORK"]),
    ("WORK", {"insights": [INSIGHT] * 3}, ["insights: only REFLECTION scenes produce insights, this is WORK"]),
    ("MEETING", {"says": "Ich finde …", "conversation": CONVERSATION}, []),
    ("MEETING", {"conversation": CONVERSATION}, ["says: a MEETING turn must say something"]),
    ("MEETING", {"says": "Ja."}, ["conversation: the last turn of a MEETING must summarise it"]),
    ("MEETING", {"says": "Ja.", "conversation": CONVERSATION, "artifacts": [ARTIFACT]},
     ["artifacts: only WORK scenes produce artifacts, this is MEETING"]),
    ("ENCOUNTER", {"says": "Na?", "conversation": CONVERSATION}, []),
    ("ENCOUNTER", {"conversation": CONVERSATION}, ["says: an ENCOUNTER turn must say something"]),
    ("ENCOUNTER", {"says": "Na?"}, ["conversation: the last turn of an ENCOUNTER must summarise it"]),
    ("ENCOUNTER", {"says": "Na?", "conversation": CONVERSATION, "artifacts": [ARTIFACT]},
     ["artifacts: only WORK scenes produce artifacts, this is ENCOUNTER"]),
    ("REFLECTION", {"insights": [INSIGHT] * 3}, []),
    ("REFLECTION", {"insights": [INSIGHT] * 2}, ["insights: a REFLECTION needs 3 to 5 insights, got 2"]),
    ("REFLECTION", {"insights": [INSIGHT] * 6}, ["insights: a REFLECTION needs 3 to 5 insights, got 6"]),
    ("REFLECTION", {"insights": [INSIGHT, INSIGHT, {**INSIGHT, "evidence": ["vera-001", "vera-099"]}]},
     ["insights.2.evidence: vera-099 not in vera's memory stream"]),
])
def test_what_each_kind_requires_and_allows(kind, fields, expected):
    participants = ("vera",) if kind == "REFLECTION" else ("vera", "emre")
    assert problems(kind, participants=participants, **fields) == expected


def test_a_meeting_turn_before_the_last_needs_no_summary():
    assert problems("MEETING", final_turn=False, says="Erst mal: hallo.") == []


@pytest.mark.parametrize("kind", ["ARRIVAL", "WORK", "MEETING"])
def test_talk_wishes_name_colleagues_only(kind):
    extra = {"plan": PLAN} if kind == "ARRIVAL" else {"says": "Ja.", "conversation": CONVERSATION} if kind == "MEETING" else {}
    wishes = [{"with": ["vera"], "topic": "x"}, {"with": ["zoe"], "topic": "y"}, {"with": ["emre"], "topic": "z"}]
    assert problems(kind, talk_wishes=wishes, **extra) == [
        "talk_wishes.0.with: vera cannot talk to themselves",
        "talk_wishes.1.with: unknown agent 'zoe'",
    ]


def test_wrong_agent_and_scene_are_named():
    reply = parse_reply({"agent": "emre", "scene": "day-004/scene-02", "action": "x", "plan": PLAN}, "vera")
    with pytest.raises(ReplyError) as caught:
        check_reply(reply, agent="vera", spec=spec("ARRIVAL"), roster=ROSTER, evidence_exists=lambda ids: [])
    assert caught.value.problems == [
        "agent: expected 'vera', got 'emre'",
        "scene: expected 'day-001/scene-02' (the pending scene), got 'day-004/scene-02'",
    ]
