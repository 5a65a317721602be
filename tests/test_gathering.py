"""Characters invite and organise: a reply proposes a gathering, invitees answer, it takes place
at its time of day with the host and those who accepted; the day's slots time events too."""

from __future__ import annotations

import json

import pytest

from replies import valid_reply
from test_scenes import MORNING, ROSTER, agents, world
from gamemaster.backends.offline import play
from gamemaster.problems import GamemasterError
from gamemaster.scenes import Force, decide_next

PARTY = {"id": "gathering-001", "host": "ana", "what": "Quittenfest", "day": 1, "slot": "lunch", "place": "Innenhof",
         "invited": ["bob", "cem", "dia"], "answers": {"bob": "accepted", "cem": "declined"},
         "created": "day-001/scene-01"}
#: ARRIVAL and two more counted scenes of a six-scene day: the next one is the lunch scene.
BEFORE_LUNCH = MORNING + [("WORK", ROSTER)]
AT_LUNCH = BEFORE_LUNCH + [("WORK", ROSTER)]


def open_work_scene(gm):
    """Day 1's ARRIVAL played with valid replies, then the next scene opened."""
    pending, _ = gm.open_next()
    gm.apply_pending({a: valid_reply(gm.build_request(pending, t)) for t, a in enumerate(pending.turns)})
    pending, _ = gm.open_next(Force(type="WORK", participants=["vera"]))
    return pending


def proposal(gm, pending, **gathering):
    reply = valid_reply(gm.build_request(pending, 0))
    reply["gathering"] = {"what": "Quittenfest im Innenhof", "day": 1, "slot": "Abend", "place": "Innenhof",
                          "invite": ["darius", "nami"], **gathering}
    return reply


def test_a_reply_proposing_a_gathering_creates_it_and_each_invitee_remembers_the_invitation(gm, workspace):
    pending = open_work_scene(gm)
    gm.apply_pending({"vera": proposal(gm, pending)})
    [gathering] = gm.world().gatherings
    assert (gathering.id, gathering.host, gathering.day, gathering.slot, gathering.invited) == (
        "gathering-001", "vera", 1, "evening", ["darius", "nami"])
    for guest in ("darius", "nami"):
        [memory] = [m for m in [i.memory for i in workspace.stream(guest).scan()[0]] if m.metadata.get("gathering") == "gathering-001"]
        assert memory.description == "Vera lädt ein: Quittenfest im Innenhof – Tag 001 (Montag, 2. November 2026), Abend, Ort: Innenhof."
        assert memory.metadata["host"] == "vera" and memory.importance == 6
    assert not [m for m in [i.memory for i in workspace.stream("leo").scan()[0]] if m.metadata.get("gathering")]
    # The next prompt of an invitee shows the open invitation and how to answer it.
    pending, _ = gm.open_next(Force(type="WORK", participants=["nami"]))
    prompt = gm.build_request(pending, 0).prompt
    assert ("gathering-001: Vera lädt ein: Quittenfest im Innenhof – Tag 001 (Montag, 2. November 2026), Abend, Ort: Innenhof. "
            "Eingeladen: du und Darius.") in prompt  # whom it is for, as an invitee would know
    assert "`invitations`" in prompt
    answer = valid_reply(gm.build_request(pending, 0))
    answer["invitations"] = [{"gathering": "gathering-001", "answer": "accept"}]
    gm.apply_pending({"nami": answer})
    assert gm.world().gatherings[0].answers == {"nami": "accepted"}
    assert gm.world().gatherings[0].accepted() == ["vera", "nami"]


def test_a_prompt_lists_what_the_character_accepted_and_hosts_with_ids_so_it_can_take_an_answer_back(gm):
    pending = open_work_scene(gm)
    gm.apply_pending({"vera": proposal(gm, pending)})
    pending, _ = gm.open_next(Force(type="WORK", participants=["nami"]))
    answer = valid_reply(gm.build_request(pending, 0))
    answer["invitations"] = [{"gathering": "gathering-001", "answer": "accept"}]
    gm.apply_pending({"nami": answer})
    when = "Quittenfest im Innenhof – Tag 001 (Montag, 2. November 2026), Abend, Ort: Innenhof."
    pending, _ = gm.open_next(Force(type="WORK", participants=["nami", "vera"]))
    nami, vera = (gm.build_request(pending, turn).prompt for turn in (0, 1))
    # Accepted: no longer an open invitation, but listed by id with how to take it back.
    assert "**Einladungen an dich**" not in nami
    assert "**Wozu du zugesagt hast oder selbst einlädst**" in nami and f"- gathering-001: Vera lädt ein: {when}" in nami
    assert f"- gathering-001: Du lädst ein: {when}" in vera
    answer = valid_reply(gm.build_request(pending, 0))
    answer["invitations"] = [{"gathering": "gathering-001", "answer": "decline"}]
    gm.apply_pending({"nami": answer, "vera": valid_reply(gm.build_request(pending, 1))})
    assert gm.world().gatherings[0].answers == {"nami": "declined"}
    pending, _ = gm.open_next(Force(type="WORK", participants=["nami"]))
    nami = gm.build_request(pending, 0).prompt
    assert "**Wozu du zugesagt hast" not in nami
    assert "**Wozu du abgesagt hast** – umentscheiden kannst du im Feld `invitations`:" in nami
    assert f"- gathering-001: Vera lädt ein: {when}" in nami


def test_inviting_everyone_invites_the_whole_studio_but_the_host(gm):
    pending = open_work_scene(gm)
    gm.apply_pending({"vera": proposal(gm, pending, invite=["alle"])})
    assert gm.world().gatherings[0].invited == ["darius", "emre", "finn", "leo", "nami", "tobi"]


@pytest.mark.parametrize("change, error", [
    ({"day": 0}, "vera: gathering.day: Input should be greater than or equal to 1"),
    ({"day": 10**12}, "vera: gathering.day: Input should be less than or equal to 1000000"),
    ({"day": 2 + 28}, "vera: gathering.day: at most 28 days ahead (day 029), not day 30"),
    ({"slot": "brunch"}, "vera: gathering.slot: Value error, 'brunch' is not a time of day (choose morning, lunch, afternoon, evening)"),
    ({"invite": ["darius", "dariuss"]}, "vera: gathering.invite: no agent 'dariuss'; did you mean 'darius'?"),
    ({"invite": ["vera"]}, "vera: gathering.invite: invite someone besides yourself"),
    ({"invite": ["darius"] * 501}, "vera: gathering.invite: List should have at most 500 items"),
    ({"what": "x" * 601}, "vera: gathering.what: String should have at most 600 characters"),
])
def test_an_invalid_proposal_is_rejected_naming_agent_and_field_and_nothing_is_written(gm, change, error):
    pending = open_work_scene(gm)
    with pytest.raises(GamemasterError) as caught:
        gm.apply_pending({"vera": proposal(gm, pending, **change)})
    assert error.replace("(day 029)", "(day 29)") in str(caught.value)
    assert gm.world().gatherings == [] and gm.pending() is not None


def test_a_proposal_for_a_slot_already_over_today_is_rejected(gm):
    pending = open_work_scene(gm)
    gm.apply_pending({"vera": proposal(gm, pending)})
    for _ in range(2):
        pending, _ = gm.open_next(Force(type="WORK", participants=["leo"]))
        gm.apply_pending({"leo": valid_reply(gm.build_request(pending, 0))})
    pending, _ = gm.open_next(Force(type="WORK", participants=["vera"]))
    assert pending.spec.slot == "afternoon"
    with pytest.raises(GamemasterError, match="vera: gathering.slot: the morning of day 1 is over "
                                              r"\(this scene is in the afternoon\)"):
        gm.apply_pending({"vera": proposal(gm, pending, slot="morning")})


def test_answering_an_invitation_one_does_not_have_is_rejected(gm):
    pending = open_work_scene(gm)
    gm.apply_pending({"vera": proposal(gm, pending)})
    pending, _ = gm.open_next(Force(type="WORK", participants=["leo"]))
    reply = valid_reply(gm.build_request(pending, 0))
    reply["invitations"] = [{"gathering": "gathering-001", "answer": "accept"},
                            {"gathering": "gathering-009", "answer": "decline"}]
    with pytest.raises(GamemasterError) as caught:
        gm.apply_pending({"leo": reply})
    assert "leo: invitations.0.gathering: leo is not invited to gathering-001" in str(caught.value)
    assert "leo: invitations.1.gathering: no gathering 'gathering-009'" in str(caught.value)


def test_the_offline_player_answers_by_its_plan_and_the_same_way_every_time(gm):
    pending = open_work_scene(gm)
    gm.apply_pending({"vera": proposal(gm, pending, invite=["alle"], slot="lunch")})
    pending, _ = gm.open_next(Force(type="WORK", participants=["nami", "leo"]))
    request = gm.build_request(pending, 0)
    first, again = play(request), play(request)
    assert first["invitations"] == again["invitations"]
    assert [a["gathering"] for a in first["invitations"]] == ["gathering-001"]
    # Today's plan names lunch: the slot clashes, so the answer is no whatever the draw.
    busy = request.agent.model_copy(update={"today_plan": request.agent.today_plan.model_copy(
        update={"text": "Mittags Playtest mit Finn, danach Feinschliff."})})
    from dataclasses import replace

    assert answered(play(replace(request, agent=busy))) == [("gathering-001", "decline")]
    # The answer does not change the rest of the reply: the same draws as without invitations.
    without = play(replace(request, invitations=[]))
    assert {k: v for k, v in first.items() if k != "invitations"} == without


def test_a_gathering_takes_place_at_its_slot_with_the_host_and_those_who_accepted():
    assert decide_next(world(today=BEFORE_LUNCH, gatherings=[PARTY]), agents()).type != "GATHERING"
    spec = decide_next(world(today=AT_LUNCH, gatherings=[PARTY]), agents())
    assert (spec.type, spec.participants, spec.gathering_id, spec.slot) == ("GATHERING", ["ana", "bob"], "gathering-001", "lunch")
    assert spec.attendance == {"invited": ["bob", "cem", "dia"], "heard": [], "accepted": ["bob"], "declined": ["cem"],
                               "no_answer": ["dia"], "absent": [], "uninvited": []}
    assert spec.reason == ("gathering-001: ana invited for day 001 at lunch: Quittenfest; host present, 1 of 3 invited "
                           "came; 1 declined; 1 did not answer")
    assert spec.turns == ["ana", "bob"]
    held = {**PARTY, "held": "day-001/scene-05"}
    assert decide_next(world(today=AT_LUNCH, gatherings=[held]), agents()).type != "GATHERING"
    # Another day's gathering waits for its day.
    assert decide_next(world(today=AT_LUNCH, gatherings=[{**PARTY, "day": 2}]), agents()).type != "GATHERING"


def test_a_gathering_has_no_meeting_cap():
    many = {f"p{n:02d}": {} for n in range(14)}
    roster = agents()
    from gamemaster.models import Agent

    for agent_id in many:
        roster[agent_id] = Agent(id=agent_id, name=agent_id, role="r", persona="p")
    party = {**PARTY, "invited": sorted(many), "answers": {a: "accepted" for a in many}}
    spec = decide_next(world(today=AT_LUNCH, gatherings=[party]), roster)
    assert spec.participants == ["ana", *sorted(many)] and len(spec.participants) == 15


def test_an_event_set_for_lunch_comes_at_lunch_not_right_after_the_arrival():
    lunch = {"id": "event-001", "text": "Mittags Pizza für alle.", "day": 1, "slot": "lunch"}
    assert decide_next(world(today=MORNING, events=[lunch]), agents()).type != "EVENT"
    assert decide_next(world(today=BEFORE_LUNCH, events=[lunch]), agents()).type != "EVENT"
    spec = decide_next(world(today=AT_LUNCH, events=[lunch]), agents())
    assert (spec.type, spec.event_id, spec.slot) == ("EVENT", "event-001", "lunch")
    assert spec.reason == "event event-001 (day 001, lunch): Mittags Pizza für alle."
    # Without a slot an event is in the morning, right after ARRIVAL, as before.
    assert decide_next(world(today=MORNING, events=[{**lunch, "slot": "morning"}]), agents()).type == "EVENT"


@pytest.mark.parametrize("per_day, slots", [
    (6, ["morning", "morning", "morning", "lunch", "afternoon", "evening"]),
    (2, ["morning", "evening"]),
    (4, ["morning", "morning", "lunch", "evening"]),
])
def test_the_scenes_of_a_day_fall_into_slots_in_order(per_day, slots):
    from gamemaster.slots import slot_at

    assert [slot_at(done, per_day) for done in range(per_day)] == slots


def test_the_scene_record_shows_who_accepted_and_did_not_come_and_who_came_uninvited(gm, workspace):
    pending = open_work_scene(gm)
    gm.apply_pending({"vera": proposal(gm, pending, slot="lunch")})
    for guest in ("darius", "nami"):
        pending, _ = gm.open_next(Force(type="WORK", participants=[guest]))
        reply = valid_reply(gm.build_request(pending, 0))
        reply["invitations"] = [{"gathering": "gathering-001", "answer": "accept"}]
        gm.apply_pending({guest: reply})
    pending, _ = gm.open_next(Force(type="GATHERING", participants=["vera", "nami", "leo"]))
    record = json.loads((workspace.scene_dir(pending.spec.ref) / "scene.json").read_text(encoding="utf-8"))
    assert record["attendance"]["absent"] == ["darius"]
    assert record["attendance"]["uninvited"] == ["leo"]
    assert "accepted but absent: darius; came uninvited: leo" in record["reason"]


def test_a_proposal_for_today_in_the_days_last_scene_is_rejected_as_never_held(gm):
    # Gatherings are held before one of the day's counted scenes; after the last one none is
    # left, and before this rule the gathering was stored and never held.
    pending = open_work_scene(gm)
    gm.apply_pending({"vera": valid_reply(gm.build_request(pending, 0))})
    while gm.world().scenes_per_day - sum(1 for e in gm.world().today if e.type in ("WORK", "MEETING")) > 1:
        pending, _ = gm.open_next(Force(type="WORK", participants=["leo"]))
        gm.apply_pending({"leo": valid_reply(gm.build_request(pending, 0))})
    pending, _ = gm.open_next(Force(type="WORK", participants=["vera"]))
    assert pending.spec.slot == "evening"
    with pytest.raises(GamemasterError, match="vera: gathering.day: day 1 has no scene left after this one; "
                                              "choose day 2 or later"):
        gm.apply_pending({"vera": proposal(gm, pending, slot="evening")})
    gm.apply_pending({"vera": proposal(gm, pending, slot="evening", day=2)})
    assert [(g.day, g.slot) for g in gm.world().gatherings] == [(2, "evening")]


def test_a_gathering_proposed_at_the_mornings_arrival_for_the_same_day_is_accepted_and_held_that_day(gm):
    # At the ARRIVAL of day 2 the studio's log still holds day 1's scenes until the ARRIVAL is
    # written back; the reply is judged against its own scene (day 2, morning), not that log.
    from gamemaster.backends.offline import OfflineBackend
    from gamemaster.loop import advance_days, run_scene

    advance_days(gm, OfflineBackend(), days=1)
    pending, _ = gm.open_next()
    assert (pending.spec.type, pending.spec.day) == ("ARRIVAL", 2)
    replies = {a: valid_reply(gm.build_request(pending, t)) for t, a in enumerate(pending.turns)}
    replies["finn"]["gathering"] = {"what": "Krisenrunde zum Zeitplan", "day": 2, "slot": "lunch",
                                    "place": "Küche", "invite": ["alle"]}
    gm.apply_pending(replies)
    [gathering] = gm.world().gatherings
    assert (gathering.host, gathering.day, gathering.slot) == ("finn", 2, "lunch")
    while gathering.held is None and gm.world().day == 2:
        run_scene(gm, OfflineBackend())
        [gathering] = gm.world().gatherings
    assert gathering.held is not None and gathering.held.startswith("day-002/")


def answered(reply: dict) -> list[tuple[str, str]]:
    return [(a["gathering"], a["answer"]) for a in reply["invitations"]]


def invite_to_tuesday_lunch(gm, **gathering):
    """Vera, in a WORK scene of day 1, invites Nami and Leo to a gathering on day 2 (a Tuesday) at lunch."""
    pending = open_work_scene(gm)
    gm.apply_pending({"vera": proposal(gm, pending, invite=["nami", "leo"], day=2, slot="lunch", **gathering)})


def offline_turn(gm, who: str):
    """``who``'s next WORK scene: its request and the offline reply to it."""
    pending, _ = gm.open_next(Force(type="WORK", participants=[who]))
    request = gm.build_request(pending, 0)
    return pending, request, play(request)


def test_the_offline_player_declines_a_gathering_at_a_time_its_work_already_has(gm, workspace):
    from dataclasses import replace

    from gamemaster.briefs import give_brief

    invite_to_tuesday_lunch(gm)
    give_brief(workspace, "Am Dienstag mittags zeigst du dem Verlag den Stand deiner Arbeit.", to=["nami"])
    _, request, reply = offline_turn(gm, "nami")
    [brief] = [m for m in request.since if m.metadata.get("source") == "brief"]
    assert "Tag 002" in brief.description  # the memory keeps what „am Dienstag“ meant
    assert answered(reply) == [("gathering-001", "decline")]
    assert reply["invitations"][0]["because"] == (
        "Da habe ich schon etwas vor: „Am Dienstag mittags zeigst du dem Verlag den Stand deiner Arbeit“")
    # The brief is the reason: without it Nami, who knows Vera, would come.
    without = replace(request, since=[m for m in request.since if m is not brief],
                      memories=[m for m in request.memories if m.metadata.get("source") != "brief"])
    assert answered(play(without)) == [("gathering-001", "accept")]
    # Work at another time of that day, or at lunch on another day, leaves the lunch free.
    for text in ("Am Dienstag abends zeigst du dem Verlag den Stand deiner Arbeit. (am Dienstag = Tag 002)",
                 "Am Mittwoch mittags zeigst du dem Verlag den Stand deiner Arbeit. (am Mittwoch = Tag 003)"):
        other = replace(without, since=[*without.since, brief.model_copy(update={"description": text})])
        assert answered(play(other)) == [("gathering-001", "accept")], text


def test_the_offline_player_goes_to_those_it_knows_or_for_what_it_cares_about(gm):
    from dataclasses import replace

    invite_to_tuesday_lunch(gm)
    _, request, reply = offline_turn(gm, "nami")
    assert answered(reply) == [("gathering-001", "accept")]
    invitation = [m for m in request.since if m.metadata.get("source") == "invitation"]
    # Nothing in its mind from or about Vera, and she is not someone it talks with: a stranger's party.
    stranger = replace(request, memories=[m for m in request.memories if m.metadata.get("source") == "invitation"],
                       since=invitation, partners=[])
    assert play(stranger)["invitations"] == [{"gathering": "gathering-001", "answer": "decline",
                                              "because": "Ich kenne Vera kaum, und das Thema ist nicht meins."}]
    # The same stranger's gathering on something Nami cares about („Trauer um einen toten Titanen“).
    [gathering] = request.invitations
    reading = gathering.model_copy(update={"what": "Lesung im Innenhof: Trauer um einen toten Titanen"})
    assert play(replace(stranger, invitations=[reading]))["invitations"] == [
        {"gathering": "gathering-001", "answer": "accept", "because": "Trauer um einen toten Titanen – das interessiert mich."}]
    # Someone it talked with lately counts as known, even with no memory of it in the prompt.
    assert answered(play(replace(stranger, partners=["vera"]))) == [("gathering-001", "accept")]


def test_a_guest_whose_work_comes_to_fill_the_slot_changes_its_answer_and_does_not_come(gm, workspace):
    from gamemaster.briefs import give_brief
    from gamemaster.gatherings import guests

    invite_to_tuesday_lunch(gm)
    pending, _, reply = offline_turn(gm, "nami")
    gm.apply_pending({"nami": reply})
    assert gm.world().gatherings[0].answers == {"nami": "accepted"}
    give_brief(workspace, "Am Dienstag mittags zeigst du dem Verlag den Stand deiner Arbeit.", to=["nami"])
    pending, request, reply = offline_turn(gm, "nami")
    assert [g.id for g in request.engagements] == ["gathering-001"] and not request.invitations
    assert answered(reply) == [("gathering-001", "decline")]
    gm.apply_pending({"nami": reply})
    [gathering] = gm.world().gatherings
    why = "Da habe ich schon etwas vor: „Am Dienstag mittags zeigst du dem Verlag den Stand deiner Arbeit“"
    assert gathering.answers == {"nami": "declined"} and gathering.reasons == {"nami": why}
    assert "nami" not in guests(gm.world(), gathering, workspace.agent_ids())
    # Nami remembers saying no and why, and a later scene does not decline it again.
    answers = [m for m in [i.memory for i in workspace.stream("nami").scan()[0]] if m.metadata.get("source") == "invitation"
               and "abgesagt" in m.description]
    assert [m.description for m in answers] == [
        "Ich habe Vera abgesagt: Quittenfest im Innenhof – Tag 002 (Dienstag, 3. November 2026), Mittag, Ort: Innenhof. "
        f"Warum: {why}"]
    _, request, reply = offline_turn(gm, "nami")
    assert "invitations" not in reply and [g.id for g in request.engagements] == []


def test_the_report_shows_why_each_invitee_answered_as_it_did(gm, workspace, tmp_path):
    from gamemaster.report.build import build_report

    invite_to_tuesday_lunch(gm)
    pending, _ = gm.open_next(Force(type="WORK", participants=["nami", "leo"]))
    replies = {a: valid_reply(gm.build_request(pending, t)) for t, a in enumerate(pending.turns)}
    replies["nami"]["invitations"] = [{"gathering": "gathering-001", "answer": "decline",
                                       "because": "Mittags <b>bin</b> ich beim Verlag."}]
    replies["leo"]["invitations"] = [{"gathering": "gathering-001", "answer": "accept"}]
    gm.apply_pending(replies)
    out = tmp_path / "site"
    build_report(workspace, out)
    page = (out / "days" / "day-001.html").read_text(encoding="utf-8")
    assert "Mittags &lt;b&gt;bin&lt;/b&gt; ich beim Verlag." in page  # the invitee's words, escaped
    declined = page.split("Abgesagt</dt><dd>")[1].split("</dd>")[0]
    assert "Nami" in declined and "beim Verlag" in declined and "Leo" not in declined


def test_a_reason_longer_than_a_sentence_or_two_is_refused_naming_the_field(gm):
    invite_to_tuesday_lunch(gm)
    pending, _ = gm.open_next(Force(type="WORK", participants=["nami"]))
    reply = valid_reply(gm.build_request(pending, 0))
    reply["invitations"] = [{"gathering": "gathering-001", "answer": "decline", "because": "x" * 301}]
    with pytest.raises(GamemasterError, match=r"nami: invitations\.0\.because"):
        gm.apply_pending({"nami": reply})
    assert gm.world().gatherings[0].answers == {}


def test_a_hand_edited_reason_of_someone_not_invited_is_named_with_file_and_field(workspace):
    from gamemaster.validate import validate_workspace

    world = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    world["gatherings"] = [{**PARTY, "host": "vera", "invited": ["nami"], "answers": {"nami": "declined"},
                            "reasons": {"nami": "Verlag.", "leo": "Keine Lust."}}]
    workspace.world_path.write_text(json.dumps(world, ensure_ascii=False), encoding="utf-8")
    problems = [str(p) for p in validate_workspace(workspace)]
    assert any("world.json" in p and "reasons: leo not invited" in p for p in problems), problems


def test_an_invitation_to_many_counts_the_guests_instead_of_naming_them():
    from gamemaster.gatherings import guest_list
    from gamemaster.models import Gathering

    many = [f"p{n:02d}" for n in range(12)]
    party = Gathering(**{**PARTY, "invited": many, "answers": {}})
    names = {a: a.upper() for a in many}
    assert guest_list("de", party, names, "p03") == "Eingeladen: du und 11 weitere."
    assert guest_list("en", party, names, "ana") == "Invited: 12 others."
    few = Gathering(**{**PARTY, "invited": ["bob", "cem"], "answers": {}})
    assert guest_list("de", few, {"bob": "Bob Berg", "cem": "Cem „Cemo“ Kaya"}, "ana") == "Eingeladen: Bob und Cemo."


def test_a_reason_naming_a_long_gathering_still_fits_the_answer(gm):
    from dataclasses import replace

    from gamemaster.reply_models import Reply

    invite_to_tuesday_lunch(gm)
    _, request, _ = offline_turn(gm, "nami")
    [party] = request.invitations
    long = party.model_copy(update={"id": "gathering-002", "what": "Lesung: " + "ein sehr langer Abend, " * 25})
    reply = play(replace(request, invitations=[party], engagements=[long]))
    assert answered(reply) == [("gathering-001", "decline")]  # the lunch is taken by the other one
    assert len(reply["invitations"][0]["because"]) <= 300
    Reply.model_validate(reply)
