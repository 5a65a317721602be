"""Who notices a MEETING they were not in: the participants' teams, everyone or no one,
at most ``kinds.meeting.notices_per_day`` notices a character a day."""

from __future__ import annotations

import json
import re

import pytest
from pydantic import ValidationError

from replies import valid_reply
from gamemaster.backends.scripted import ScriptedBackend
from gamemaster.kinds import get_kind
from gamemaster.kinds.meeting import notice_recipients
from gamemaster.kinds.settings import settings_of
from gamemaster.lang import PHRASES
from gamemaster.loop import run_scene
from gamemaster.models import Agent, SceneEntry, World
from gamemaster.problems import StateError
from gamemaster.scenes import Force, SceneSpec, SceneType

TEAMS = {"ana": "art", "bob": "art", "cem": "code", "dia": "code", "eli": None, "fay": None}


def agents(teams=TEAMS) -> dict[str, Agent]:
    return {a: Agent(id=a, name=a.title(), role="r", persona="p", team=t) for a, t in teams.items()}


def world(today=(), **settings) -> World:
    entries = [SceneEntry(scene=i + 1, type=t, participants=p) for i, (t, p) in enumerate(today)]
    return World(studio="Test", day=1, scene=len(entries), today=entries, **settings)


def meeting(world: World, *participants: str) -> SceneSpec:
    return SceneSpec(type="MEETING", day=1, scene=world.scene + 1, participants=list(participants), topic="t", reason="test")


MORNING = [("ARRIVAL", list(TEAMS)), ("WORK", ["ana", "cem"])]


def test_by_default_only_the_participants_teams_notice():
    w = world(MORNING)
    assert notice_recipients(w, agents(), meeting(w, "ana", "cem")) == ["bob", "dia"]


def test_characters_without_a_team_are_one_team_together():
    w = world(MORNING)
    assert notice_recipients(w, agents(), meeting(w, "ana", "eli")) == ["bob", "fay"]
    # Nobody has a team: everyone not in the meeting notices it, as before teams existed.
    untaught = agents({a: None for a in TEAMS})
    assert notice_recipients(w, untaught, meeting(w, "ana", "eli")) == ["bob", "cem", "dia", "fay"]


def test_all_and_none():
    w = world(MORNING, meeting_notices="all")
    assert notice_recipients(w, agents(), meeting(w, "ana", "cem")) == ["bob", "dia", "eli", "fay"]
    w = world(MORNING, meeting_notices="none")
    assert notice_recipients(w, agents(), meeting(w, "ana", "cem")) == []


def test_the_daily_cap_counts_the_notices_earlier_meetings_gave():
    w = world(MORNING + [("MEETING", ["ana", "cem"]), ("WORK", ["bob"])], meeting_notices_per_day=1)
    # bob and dia heard of the first meeting; only fay is new to the second one.
    assert notice_recipients(w, agents(), meeting(w, "cem", "eli")) == ["fay"]
    # A cap of 2 lets a second notice through, and no more.
    w = world(MORNING + [("MEETING", ["ana", "cem"]), ("WORK", ["bob"])], meeting_notices_per_day=2)
    assert notice_recipients(w, agents(), meeting(w, "ana", "cem")) == ["bob", "dia"]
    w = world(MORNING + [("MEETING", ["ana", "cem"]), ("WORK", ["bob"]), ("MEETING", ["ana", "dia"]), ("WORK", ["eli"])],
              meeting_notices_per_day=2)
    # bob heard of both, dia was in the second one.
    assert notice_recipients(w, agents(), meeting(w, "ana", "cem")) == ["dia"]


def test_the_cap_is_the_same_with_the_meeting_already_in_the_log():
    w = world(MORNING + [("MEETING", ["ana", "cem"])], meeting_notices_per_day=1)
    spec = SceneSpec(type="MEETING", day=1, scene=3, participants=["ana", "cem"], topic="t", reason="test")
    assert notice_recipients(w, agents(), spec) == ["bob", "dia"]


def test_a_departed_participant_counts_as_having_no_team():
    w = world(MORNING)
    spec = meeting(w, "ana", "gone")
    assert notice_recipients(w, agents(), spec) == ["bob", "eli", "fay"]


@pytest.mark.parametrize("team", ["", " audio", "audio\n", "x" * 41, "a\tb"])
def test_a_team_is_a_short_name(team):
    with pytest.raises(ValidationError):
        Agent(id="ana", name="Ana", role="r", persona="p", team=team)


def test_a_team_is_kept_in_the_agent_file_and_no_team_leaves_it_out():
    assert Agent(id="ana", name="Ana", role="r", persona="p", team="Level Design").dump()["team"] == "Level Design"
    assert "team" not in Agent(id="ana", name="Ana", role="r", persona="p").dump()


def test_world_settings_are_checked_by_the_meeting_kind():
    # The world is a value: it reads a kind's settings (and their old flat names) without the kinds;
    # the MEETING kind refuses what it cannot play, naming the key as the file has it.
    for world, named in ((World(studio="Test", meeting_notices="some"), "meeting_notices (read as kinds.meeting.notices)"),
                         (World(studio="Test", kinds={"meeting": {"notices_per_day": -1}}), "kinds.meeting.notices_per_day")):
        with pytest.raises(StateError, match=rf"^state/world\.json: {re.escape(named)}: "):
            settings_of(world, "meeting")
    for section in (3, None):  # a section that is no object is the kind's to refuse, as any other
        with pytest.raises(StateError, match=r"^state/world\.json: kinds\.meeting: "):
            settings_of(World(studio="Test", kinds={"meeting": section}), "meeting")


# -- written back in the bundled studio -----------------------------------------


def lines(workspace, agent):
    path = workspace.memories_dir / f"{agent}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def set_json(path, **fields):
    data = json.loads(path.read_text(encoding="utf-8"))
    data.update(fields)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def set_meeting(path, **fields):
    data = json.loads(path.read_text(encoding="utf-8"))
    data.setdefault("kinds", {}).setdefault("meeting", {}).update(fields)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def play_meeting(gm, *participants):
    turns = 2 * len(participants) * settings_of(gm.world(), "meeting").rounds
    return run_scene(gm, ScriptedBackend([valid_reply] * turns),
                     Force(type=SceneType.MEETING, participants=list(participants), topic="Knochentürme"))


def noticed(workspace, gm, ref):
    return sorted(a for a in gm.agents() if any(m["created"] == ref and m["metadata"].get("source") == "meeting"
                                                 for m in lines(workspace, a)))


def test_team_notices_and_the_cap_in_written_memories(gm, workspace):
    run_scene(gm, ScriptedBackend([valid_reply] * 7))
    for agent_id, team in {"vera": "art", "finn": "art", "darius": "code", "tobi": "code", "emre": "audio"}.items():
        set_json(workspace.agent_path(agent_id), team=team)
    set_meeting(workspace.world_path, notices_per_day=1)
    first = play_meeting(gm, "vera", "darius")
    assert noticed(workspace, gm, first.spec.ref) == ["finn", "tobi"]
    notice = next(m for m in lines(workspace, "finn") if m["created"] == first.spec.ref)
    assert (notice["type"], notice["importance"]) == ("observation", 2)
    # finn has had today's notice; leo and nami (no team) hear of their own meeting partner.
    second = play_meeting(gm, "vera", "leo")
    assert noticed(workspace, gm, second.spec.ref) == ["nami"]
    assert gm.agents()["vera"].team == "art"


def test_none_leaves_only_the_participants_conversations(gm, workspace):
    run_scene(gm, ScriptedBackend([valid_reply] * 7))
    set_meeting(workspace.world_path, notices="none")
    outcome = play_meeting(gm, "vera", "darius")
    assert noticed(workspace, gm, outcome.spec.ref) == []
    assert "conversation" in [m["type"] for m in lines(workspace, "vera") if m["created"] == outcome.spec.ref]


def test_the_notice_phrases_are_the_meeting_kind_s_own_not_the_studio_s():
    meeting = get_kind("MEETING")
    assert meeting.say("de", "elsewhere_topic", names="Vera und Emre", topic="Türme") == \
        "Vera und Emre hatten eine Besprechung zum Thema Türme."
    assert meeting.say("en", "elsewhere", names="Vera and Emre") == "Vera and Emre had a meeting."
    assert meeting.say("fr", "elsewhere", names="Vera et Emre") == "Vera et Emre had a meeting."  # English for a language it lacks
    assert get_kind("EVENT").say("de", "event", text="Serverausfall") == "Ereignis im Studio: Serverausfall"
    # lang.py keeps only the studio-wide sentences: no kind's phrase is there too.
    kind_phrases = {name for kind in ("MEETING", "EVENT") for table in get_kind(kind).phrases.values() for name in table}
    assert not {"meeting_elsewhere", "meeting_elsewhere_topic", "event"} & set(PHRASES["de"]) | (kind_phrases & set(PHRASES["de"]))
