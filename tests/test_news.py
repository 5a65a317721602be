"""News is passed on: a character tells what its listeners do not know yet, attributed, once per
listener; a meeting has one outcome; what a character took away is validated and kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from replies import valid_reply
from gamemaster.backends.offline import OfflineBackend
from gamemaster.backends.scripted import ScriptedBackend
from gamemaster.kinds.settings import settings_of
from gamemaster.loop import SceneFailed, run_scene
from gamemaster.retrieval import recall
from gamemaster.scenes import Force, SceneType
from gamemaster.who_knows import who_knows

NEWS = "Der Verlag lässt die Knochentürme im Artbook als Klapptafel mit Perlmutt-Lack drucken."
QUERY = "Knochentürme Klapptafel Perlmutt"


def lines(workspace, agent):
    path = workspace.memories_dir / f"{agent}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def plant(workspace, agent: str, text: str, created: str) -> None:
    path = workspace.memories_dir / f"{agent}.jsonl"
    count = sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    line = {"id": f"{agent}-{count + 1:03d}", "created": created, "type": "observation", "depth": 0,
            "description": text, "importance": 9, "tags": ["news"], "evidence": [], "metadata": {}}
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line, ensure_ascii=False) + "\n")


def meet(gm, *people: str, topic: str = "Farbpalette der Sumpfstädte"):
    return run_scene(gm, OfflineBackend(), Force(type=SceneType.MEETING, participants=list(people), topic=topic))


def replies_of(workspace, ref: str, agent: str) -> list[dict]:
    folder = workspace.scene_dir(ref) / "replies"
    found = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]
    return [r for r in found if r["agent"] == agent]


@pytest.fixture
def arrived(gm, workspace):
    run_scene(gm, ScriptedBackend([valid_reply] * 7))
    plant(workspace, "vera", NEWS, "day-001/scene-01")
    return gm


def test_news_travels_from_vera_to_darius_to_emre_and_who_knows_shows_the_chain(arrived, workspace):
    first = meet(arrived, "vera", "darius")
    second = meet(arrived, "darius", "emre")
    rows = {row.agent: row for row in who_knows(workspace, QUERY).rows}
    assert (rows["vera"].knows, rows["vera"].source) == (True, "self")
    assert (rows["darius"].knows, rows["darius"].source, rows["darius"].since) == (True, "vera", first.spec.ref)
    assert (rows["emre"].knows, rows["emre"].source, rows["emre"].since) == (True, "darius", second.spec.ref)
    # Passed on attributed: darius says whom he has it from.
    darius = " ".join(r["says"] for r in replies_of(workspace, second.spec.ref, "darius"))
    assert "Vera" in darius and "Klapptafel mit Perlmutt-Lack" in darius
    assert not any(rows[a].knows for a in ("finn", "leo", "nami", "tobi"))


def test_a_character_does_not_tell_the_same_listener_the_same_news_twice(arrived, workspace):
    first = meet(arrived, "vera", "darius")
    assert any("Klapptafel" in r["says"] for r in replies_of(workspace, first.spec.ref, "vera"))
    again = meet(arrived, "vera", "darius", topic="Lauschen als Kernmechanik")
    for agent in ("vera", "darius"):
        assert not any("Klapptafel" in r["says"] for r in replies_of(workspace, again.spec.ref, agent)), agent
    # With someone new at the table, vera tells it again - to the one who does not know.
    third = meet(arrived, "vera", "darius", "nami", topic="Das Innere der Türme")
    assert any("Klapptafel" in r["says"] for r in replies_of(workspace, third.spec.ref, "vera"))


def test_the_listener_takes_the_news_away_from_its_teller(arrived, workspace):
    outcome = meet(arrived, "vera", "darius")
    darius = [m for m in lines(workspace, "darius") if m["created"] == outcome.spec.ref and m["type"] == "conversation"]
    assert [t["speaker"] for t in darius[0]["metadata"]["takeaways"] if "Klapptafel mit Perlmutt-Lack" in t["says"]] == [
        "vera"]


def test_meeting_participants_remember_one_shared_outcome(arrived, workspace):
    outcome = meet(arrived, "vera", "darius", "nami", topic="Das Innere der Türme")
    summaries = {m["id"].split("-")[0]: m["description"] for a in ("vera", "darius", "nami")
                 for m in lines(workspace, a) if m["created"] == outcome.spec.ref and m["type"] == "conversation"}
    assert set(summaries) == {"vera", "darius", "nami"}
    # The outcome is the last sentence of each summary: the same proposal, whoever remembers it.
    owner = outcome.spec.kind.turns(outcome.spec)[-3]
    ends = {a: s.rsplit(". ", 1)[-1] for a, s in summaries.items()}
    others = {a: e for a, e in ends.items() if a != owner}
    assert len(set(others.values())) == 1, ends
    assert ends[owner].replace("von mir", "").split(",")[0] == next(iter(others.values())).split(",")[0], ends


def meeting_reply(extra: dict):
    def reply(request):
        body = valid_reply(request)
        if request.agent.id == "vera":
            body.update(extra)
        return body
    return reply


def heard_at_arrival(workspace, agent: str) -> tuple[set[str], set[str]]:
    """Whom ``agent`` heard at the ARRIVAL (its table) and whom it did not."""
    heard = next(m for m in lines(workspace, agent) if m["metadata"].get("source") == "heard")
    table = {h["speaker"] for h in heard["metadata"]["heard"]} - {agent}
    return table, {a for a in ("darius", "emre", "finn", "leo", "nami", "tobi", "vera") if a not in table | {agent}}


@pytest.mark.parametrize("who, problem", [
    ("stranger", "is not someone whose words your prompt shows (here: darius; heard: "),
    ("vera", "takeaways.0.from: 'vera' is not someone whose words your prompt shows (here: darius; heard: "),
    (None, "takeaways.0.what: Field required"),
])
def test_a_takeaway_must_weigh_words_the_prompt_showed(gm, workspace, who, problem):
    run_scene(gm, ScriptedBackend([valid_reply] * 7))
    table, elsewhere = heard_at_arrival(workspace, "vera")
    stranger = sorted(elsewhere - {"darius"})[0]
    taken = [{"from": "darius"}] if who is None else [{"from": stranger if who == "stranger" else who, "what": "x"}]
    turns = 2 * settings_of(gm.world(), "meeting").rounds
    with pytest.raises(SceneFailed) as failure:
        run_scene(gm, ScriptedBackend([meeting_reply({"takeaways": taken})] * turns),
                  Force(type=SceneType.MEETING, participants=["vera", "darius"], topic="Knochentürme"))
    assert "vera's reply" in str(failure.value) and problem in str(failure.value)


def test_what_was_heard_side_by_side_is_weighed_by_the_listener_in_its_next_reply(gm, workspace):
    # Seed 001: the agent scores importance. A line heard at the ARRIVAL is written at the fixed
    # weight of anything heard; the listener's own weight comes in its next scene, in any kind.
    run_scene(gm, ScriptedBackend([valid_reply] * 7))
    table, _ = heard_at_arrival(workspace, "vera")
    speaker = sorted(table)[0]
    gm.open_next(Force(type=SceneType.WORK, participants=["vera"]))
    prompt = gm.prompt_text("vera")
    assert "`takeaways`" in prompt.split("## Deine Aufgabe")[0]  # asked for where the new lines are
    before = gm.agents()["vera"].importance_accumulator
    taken = [{"from": speaker, "what": "Der Publisher zieht die Demo auf den 12. Dezember vor.", "importance": 9}]
    outcome = run_scene(gm, ScriptedBackend([meeting_reply({"takeaways": taken})]))
    weighed = [m for m in lines(workspace, "vera") if m["metadata"].get("source") == "takeaway"]
    assert [(m["importance"], m["metadata"]["from"], m["created"]) for m in weighed] == [(9, speaker, outcome.spec.ref)]
    assert "Demo auf den 12. Dezember" in weighed[0]["description"]
    gained = sum(m["importance"] for m in lines(workspace, "vera") if m["created"] == outcome.spec.ref)
    assert gm.agents()["vera"].importance_accumulator == before + gained and gained >= 9
    # Recalled like any memory, by its words and from whom.
    assert any(p.memory.id == weighed[0]["id"] for p in recall(workspace, "vera", "Demo Dezember Publisher").picked)


def test_a_takeaway_is_kept_with_the_conversation_and_recalled_from_its_speaker(gm, workspace):
    run_scene(gm, ScriptedBackend([valid_reply] * 7))
    turns = 2 * settings_of(gm.world(), "meeting").rounds
    taken = [{"from": "darius", "what": "Der Publisher will die Quittenlaterne als Sammlerfigur."}]
    run_scene(gm, ScriptedBackend([meeting_reply({"takeaways": taken})] * turns),
              Force(type=SceneType.MEETING, participants=["vera", "darius"], topic="Knochentürme"))
    conversation = [m for m in lines(workspace, "vera") if m["type"] == "conversation"][-1]
    assert conversation["metadata"]["takeaways"] == [{"speaker": "darius", "says": taken[0]["what"]} for _ in range(2)]
    picked = recall(workspace, "vera", "Quittenlaterne Sammlerfigur").picked
    assert any(p.memory.id == conversation["id"] and any("Quittenlaterne" in h for h in p.heard) for p in picked)
    row = next(r for r in who_knows(workspace, "Quittenlaterne Sammlerfigur").rows if r.agent == "vera")
    assert (row.knows, row.source) == (True, "darius")


def test_claude_characters_see_what_they_heard_lately_and_are_asked_to_pass_it_on(arrived, workspace):
    meet(arrived, "vera", "darius")
    arrived.open_next(Force(type=SceneType.MEETING, participants=["darius", "emre"], topic="Zeitplan"))
    prompt = arrived.prompt_text("darius")
    section = prompt.split("**Was zuletzt gesagt wurde**", 1)[1]
    assert "Vera (day-001/scene-02)" in section and "Klapptafel mit Perlmutt-Lack" in section
    assert "takeaways" in prompt


@pytest.mark.parametrize("says", [
    "Stellt euch vor, Vera meinte vorhin, dass die Eröffnungsszene einen eigenen Sprecher aus Lyon bekommt!",
    "Habt ihr schon gehört? Die Eröffnungsszene bekommt einen eigenen Sprecher aus Lyon.",
    "Wusstest du schon, dass die Eröffnungsszene einen eigenen Sprecher aus Lyon bekommt? Klingt gut.",
])
def test_news_a_claude_character_relays_in_its_own_words_is_passed_on_by_an_offline_listener(arrived, workspace, says):
    offline = OfflineBackend()

    def reply(request):
        if request.agent.id == "darius":  # as a Claude character would put it: no template of the phrase bank
            return {**valid_reply(request), "says": says}
        return offline.reply(request)

    turns = 2 * settings_of(arrived.world(), "meeting").rounds
    run_scene(arrived, ScriptedBackend([reply] * turns),
              Force(type=SceneType.MEETING, participants=["darius", "emre"], topic="Farbpalette der Sumpfstädte"))
    second = meet(arrived, "emre", "nami")  # the opening scene is what Nami works on
    emre = " ".join(r["says"] for r in replies_of(workspace, second.spec.ref, "emre"))
    assert "Darius" in emre and "eigenen Sprecher aus Lyon" in emre, emre
    rows = {row.agent: row for row in who_knows(workspace, "Eröffnungsszene Sprecher Lyon").rows}
    assert (rows["nami"].knows, rows["nami"].source) == (True, "emre")


LYON = "Die Eröffnungsszene bekommt einen eigenen Sprecher aus Lyon."


@pytest.mark.parametrize("darius_holds", [True, False])
def test_plain_news_said_without_a_cue_word_is_passed_on_when_its_speaker_held_it(arrived, workspace, darius_holds):
    """What a line passes on is read from who said it: Darius (as a Claude or human character
    would) says it plainly; what he held as news when he said it makes it news to his listener."""
    if darius_holds:
        plant(workspace, "darius", LYON, "day-001/scene-01")
    offline = OfflineBackend()

    def reply(request):
        if request.agent.id == "darius":
            return {**valid_reply(request), "says": "Emre, die Eröffnungsszene bekommt einen eigenen Sprecher aus Lyon. "
                                                    "Ich finde, das passt."}
        return offline.reply(request)

    turns = 2 * settings_of(arrived.world(), "meeting").rounds
    run_scene(arrived, ScriptedBackend([reply] * turns),
              Force(type=SceneType.MEETING, participants=["darius", "emre"], topic="Farbpalette der Sumpfstädte"))
    second = meet(arrived, "emre", "nami")  # the opening scene is what Nami works on
    rows = {row.agent: row for row in who_knows(workspace, "Eröffnungsszene Sprecher Lyon").rows}
    assert (rows["nami"].knows, rows["nami"].source) == ((True, "emre") if darius_holds else (False, None))
    emre = " ".join(r["says"] for r in replies_of(workspace, second.spec.ref, "emre"))
    assert ("Sprecher aus Lyon" in emre) is darius_holds, emre


def test_the_sentences_a_line_passes_on_are_those_on_the_matter_its_speaker_held():
    from gamemaster.passing import passes_on

    held = ["Leo kandidiert für den Betriebsrat, hat er mir heute früh erzählt.", LYON]
    said = ("Morgen! Leo kandidiert für den Betriebsrat. Ich nehme mir heute die Kammern vor. "
            "Und Vera zeichnet die Türme.")
    assert passes_on("de", said, held) == ["Leo kandidiert für den Betriebsrat"]
    assert passes_on("de", "Ich spiele heute Ilka, Leo.", held) == []  # a name in passing is no matter
    assert passes_on("de", said, []) == []
    # Whom it was said to is not part of what is passed on; a name it is about is.
    names = ["Leo", "Tobi", "Emre"]
    assert passes_on("de", "Emre, Tobi, Leo kandidiert für den Betriebsrat.", held, names) == [
        "Leo kandidiert für den Betriebsrat"]
    assert passes_on("de", "Emre und Tobi, die Eröffnungsszene bekommt einen eigenen Sprecher aus Lyon!", held,
                     names) == ["Die Eröffnungsszene bekommt einen eigenen Sprecher aus Lyon"]
    # Once, not again with the sentence after it; and an address does not dilute the matter.
    assert passes_on("de", "Emre, die Eröffnungsszene bekommt einen eigenen Sprecher aus Lyon. Ich finde, das passt.",
                     held, names) == ["Die Eröffnungsszene bekommt einen eigenen Sprecher aus Lyon"]
    assert passes_on("de", "Emre, Tobi, Vera, Leo kandidiert für den Betriebsrat.", held, names + ["Vera"]) == [
        "Leo kandidiert für den Betriebsrat"]
    # A name followed by what it is („Leo, unser Producer, …“) is whom it is about: it stays.
    assert passes_on("de", "Leo, unser Producer, kandidiert für den Betriebsrat.", held, names) == [
        "Leo, unser Producer, kandidiert für den Betriebsrat"]


def test_the_host_of_an_invitation_the_prompt_shows_counts_as_heard(gm, workspace):
    # What a gathering is about is its host's own words: a character shown the invitation may
    # weigh them (`takeaways`) though it never heard the host speak.
    run_scene(gm, ScriptedBackend([valid_reply] * 7))
    _, elsewhere = heard_at_arrival(workspace, "vera")
    host = sorted(elsewhere)[0]
    draft = {"what": "Pin-up an der Konzeptwand: zwei Richtungen für die Kammern.", "day": gm.world().day + 1,
             "slot": "morning", "place": "Konzeptwand", "invite": ["vera"]}
    run_scene(gm, ScriptedBackend([lambda request: {**valid_reply(request), "gathering": draft}]),
              Force(type=SceneType.WORK, participants=[host]))
    gm.open_next(Force(type=SceneType.WORK, participants=["vera"]))
    assert "Pin-up an der Konzeptwand" in gm.prompt_text("vera")
    taken = [{"from": host, "what": "Morgen früh soll ich zwei Richtungen an die Wand hängen.", "importance": 6}]
    run_scene(gm, ScriptedBackend([meeting_reply({"takeaways": taken})]))
    weighed = [m for m in lines(workspace, "vera") if m["metadata"].get("source") == "takeaway"]
    assert [(m["metadata"]["from"], m["importance"]) for m in weighed] == [(host, 6)]


def test_a_confidence_stays_with_the_one_it_was_told_to(arrived, workspace):
    plant(workspace, "vera", "Erzähl es niemandem: Tobi bewirbt sich heimlich bei einem Studio in Lyon.",
          "day-001/scene-01")
    scenes = [meet(arrived, "vera", "darius"), meet(arrived, "vera", "emre", "nami", topic="Das Innere der Türme")]
    rows = {row.agent: row for row in who_knows(workspace, "Tobi bewirbt Studio Lyon").rows}
    assert [agent for agent, row in rows.items() if row.knows] == ["vera"]
    for scene in scenes:
        assert not any("Lyon" in r["says"] for r in replies_of(workspace, scene.spec.ref, "vera"))
    # The other news she holds she still passes on.
    assert rows and who_knows(workspace, QUERY).rows and \
        {r.agent for r in who_knows(workspace, QUERY).rows if r.knows} >= {"vera", "darius", "emre", "nami"}


def test_news_about_a_listener_is_said_to_them_and_they_do_not_tell_it_on_about_themselves(arrived, workspace):
    about = "Darius wird ab Montag Art Director für die Knochentürme."
    plant(workspace, "vera", about, "day-001/scene-01")
    with_him = meet(arrived, "vera", "darius", topic="Das Innere der Türme")
    said = [r["says"] for r in replies_of(workspace, with_him.spec.ref, "vera") if "Art Director" in r["says"]]
    assert len(said) == 1 and "Darius, " in said[0], said  # addressed: „Darius, das betrifft dich: …“
    rows = {row.agent: row for row in who_knows(workspace, "Darius Art Director Knochentürme").rows}
    assert (rows["darius"].knows, rows["darius"].source) == (True, "vera")
    # Darius does not tell on what is said about him, in the third person.
    later = meet(arrived, "darius", "emre", topic="Das Innere der Türme")
    assert not any("Art Director" in r["says"] for r in replies_of(workspace, later.spec.ref, "darius"))
    with_emre = meet(arrived, "vera", "emre", topic="Das Innere der Türme")
    assert any("Art Director" in r["says"] for r in replies_of(workspace, with_emre.spec.ref, "vera"))


@pytest.mark.parametrize("says, items", [
    ("Neuigkeiten aus der Technik: das Build-System ist seit heute früh kaputt.",
     ["aus der Technik: das Build-System ist seit heute früh kaputt"]),
    ("Ich habe eine Neuigkeit: Leo kandidiert für den Betriebsrat.", ["Leo kandidiert für den Betriebsrat"]),
])
def test_news_cues_are_whole_words_and_not_the_players_own_titles(says, items):
    from gamemaster.backends.offline.told import told_in

    assert told_in("de", says) == items


def test_the_players_own_meeting_titles_are_no_news():
    from gamemaster.backends.offline.told import told_in
    from gamemaster.backends.offline.phrase_banks import phrase_bank

    for code in ("de", "en"):
        for title in phrase_bank(code)["news"]["wish_topics"]:
            said = "Zum Thema " + title.format(short="Der Verlag will die Knochentürme im Artbook…", source="Vera")
            assert told_in(code, said) == [], said


def test_news_planted_by_hand_with_a_day_0_date_is_passed_on(gm, workspace):
    run_scene(gm, ScriptedBackend([valid_reply] * 7))
    plant(workspace, "vera", NEWS, "day-000/scene-00")  # after the day's ARRIVAL in her stream: written since the studio began
    meet(gm, "vera", "darius")
    rows = {row.agent: row for row in who_knows(workspace, QUERY).rows}
    assert (rows["darius"].knows, rows["darius"].source) == (True, "vera")


def test_the_backstory_a_studio_starts_with_is_not_news(gm, workspace):
    before = {a: len(lines(workspace, a)) for a in ("vera", "darius")}
    assert before["vera"] > 3  # the bundled studio's day-0 memories, some of importance 7 or more
    run_scene(gm, ScriptedBackend([valid_reply] * 7))
    scene = meet(gm, "vera", "darius")
    from gamemaster.backends.offline.told import told_in

    assert [told_in("de", r["says"]) for r in replies_of(workspace, scene.spec.ref, "vera")] == [[], []]


def test_a_line_planted_at_the_end_of_a_stream_is_as_recent_as_its_place():
    """On day 5 the window is days 3–5: a line dated day 0 written after them counts, as news
    (importance 7 or more); the backstory before the first day does not."""
    from gamemaster.models import Memory
    from gamemaster.news import held, recent_memories

    def memory(number: int, created: str, importance: int = 8) -> Memory:
        return Memory.model_validate({"id": f"vera-{number:03d}", "created": created, "type": "observation",
                                      "description": f"Notiz {number}", "importance": importance})

    stream = [memory(1, "day-000/scene-00"), memory(2, "day-002/scene-01"), memory(3, "day-004/scene-02", 5),
              memory(4, "day-000/scene-00")]
    recent = recent_memories(stream, 5)
    assert [m.id for m in recent] == ["vera-003", "vera-004"]
    assert [m.id for m in held(recent)] == ["vera-004"]
    assert [m.id for m in held(stream)] == ["vera-002", "vera-004"]  # vera-001: the backstory


# -- passing on is a choice: whom it concerns, who is close, what the whole studio was told ------

PLAYTEST = "Im Playtest hat niemand die Orientierung in den Aschen-Einöden ohne Karte gefunden."


def plant_as(workspace, agent: str, text: str, importance: int) -> None:
    plant(workspace, agent, text, "day-001/scene-01")
    path = workspace.memories_dir / f"{agent}.jsonl"
    rows = lines(workspace, agent)
    rows[-1]["importance"] = importance
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def told(workspace, scene, agent: str, words: str) -> bool:
    return any(words in r["says"] for r in replies_of(workspace, scene.spec.ref, agent))


def test_news_goes_to_whom_it_concerns_by_what_they_work_on(arrived, workspace):
    # Leo works on orientation in the Aschen-Einöden (her interests, shown in the roster); Nami on
    # Ilka and an opening scene; neither is one of the two vera talked with.
    plant_as(workspace, "vera", PLAYTEST, 8)
    with_nami = meet(arrived, "vera", "nami", topic="Das Innere der Türme")
    with_leo = meet(arrived, "vera", "leo", topic="Das Innere der Türme")
    assert not told(workspace, with_nami, "vera", "ohne Karte")
    assert told(workspace, with_leo, "vera", "ohne Karte")
    knowing = {r.agent for r in who_knows(workspace, "Playtest Orientierung Karte").rows if r.knows}
    assert knowing == {"vera", "leo"}


def test_own_news_is_told_to_the_few_one_is_close_to(arrived, workspace):
    bike = "Mein Fahrrad ist gestern Abend vor der Tür gestohlen worden, samt Korb."
    plant_as(workspace, "vera", bike, 8)
    with_nami = meet(arrived, "vera", "nami", topic="Das Innere der Türme")
    with_emre = meet(arrived, "vera", "emre", topic="Das Innere der Türme")  # they talked about the towers
    assert not told(workspace, with_nami, "vera", "Fahrrad")
    assert told(workspace, with_emre, "vera", "Fahrrad")
    # Heard, not lived: emre passes it on to whom it concerns, and a stolen bike concerns nobody's work.
    later = meet(arrived, "emre", "nami", topic="Glaube und Rituale der Lauschenden")
    assert not told(workspace, later, "emre", "Fahrrad")


def test_a_change_to_what_the_whole_studio_was_told_concerns_everyone(arrived, workspace):
    from gamemaster.briefs import give_brief

    give_brief(workspace, "Am Donnerstag ist Studioversammlung im großen Saal: Wir legen den Urlaubsplan fest.")
    assert lines(workspace, "nami")[-1]["metadata"] == {"source": "brief", "brief": "brief-001", "everyone": True}
    plant_as(workspace, "vera", "Die Studioversammlung zum Urlaubsplan ist auf Mittwochmorgen verlegt.", 8)
    with_nami = meet(arrived, "vera", "nami", topic="Das Innere der Türme")
    assert told(workspace, with_nami, "vera", "Mittwochmorgen")
    # Nami passes the change on too: it is everyone's business.
    later = meet(arrived, "nami", "finn", topic="Eine Eröffnungsszene ohne Erklärtext")
    assert told(workspace, later, "nami", "Mittwochmorgen")


def test_the_roster_says_what_each_colleague_works_on_and_their_team(gm, workspace):
    path = workspace.agent_path("tobi")
    agent = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**agent, "team": "Rendering"}, ensure_ascii=False), encoding="utf-8")
    run_scene(gm, ScriptedBackend([valid_reply] * 7))
    gm.open_next(Force(type=SceneType.WORK, participants=["vera"]))
    prompt = gm.prompt_text("vera")
    assert ("- Tobias „Tobi“ Richter (`tobi`): Technical Artist; Team Rendering; arbeitet an: Fallende Asche und "
            "Nebel in Echtzeit, Prozedurales Wachstum der Türme entlang der Nervenbahnen, Lesbare Silhouetten auf "
            "Distanz") in prompt


JUDGEMENT = Path(__file__).parent / "fixtures" / "claude_judgement"


def test_a_claude_character_tells_what_concerns_its_listeners_and_keeps_a_confidence(gm, workspace):
    """Recorded: a real model's first turn in a meeting, holding three things (fixtures/claude_judgement)."""
    run_scene(gm, OfflineBackend())
    for text, importance in [
        ("Im Playtest heute früh hat niemand die Orientierung in den Aschen-Einöden ohne Karte gefunden – "
         "alle sind im Kreis gelaufen.", 8),
        ("Tobi hat mir im Vertrauen erzählt, dass er sich heimlich bei einem Studio in Lyon bewirbt. "
         "Erzähl es niemandem, hat er gesagt.", 8),
        ("Mein Fahrrad ist gestern Abend vor der Tür gestohlen worden, samt Korb.", 6),
    ]:
        plant_as(workspace, "vera", text, importance)
    pending, _ = gm.open_next(Force(type=SceneType.MEETING, participants=["vera", "nami", "finn", "leo"],
                                    topic="Wie geht es mit dem Innern der Türme weiter?"))
    prompt = gm.prompt_text("vera")
    # What the decision needs is in the prompt: what Leo works on, and the three memories.
    assert "(`leo`): QA-Leitung, Community; arbeitet an: Orientierung in den Aschen-Einöden" in prompt
    assert all(words in prompt for words in ("ohne Karte gefunden", "Studio in Lyon", "Fahrrad"))
    gm.store_reply(pending, 0, (JUDGEMENT / "vera.answer.json").read_text(encoding="utf-8"), None)
    run_scene(gm, OfflineBackend())  # the meeting's other turns
    knowing = lambda query: {r.agent for r in who_knows(workspace, query).rows if r.knows}  # noqa: E731
    assert knowing("Playtest Orientierung Karte Kreis") == {"vera", "nami", "finn", "leo"}
    assert knowing("Tobi bewirbt heimlich Lyon") == {"vera"}
    assert knowing("Fahrrad gestohlen Korb") == {"vera"}


def test_news_about_a_colleague_is_about_them_and_not_about_one_whose_name_theirs_holds():
    from gamemaster.backends.offline.news import Item, about

    class Seen:  # what `about` reads of a player: the roster's names (and where it keeps what it found of them)
        colleagues = {"darius": "Darius Engel", "darius_2": "Darius „Darius 2“ Engel"}
        req = type("Req", (), {"colleagues": colleagues, "roster": {**colleagues, "vera": "Vera Kowalski"}})()
        memo: dict = {}

        @staticmethod
        def name_of(agent_id):
            return {"darius": "Darius", "darius_2": "Darius 2"}[agent_id]

    item = Item("Der Publisher will die Skizzen von Darius 2 für das Cover.", "vera", 8, 1)
    assert about(Seen, item, "darius_2") and not about(Seen, item, "darius")
    both = Item("Darius und Darius 2 zeigen die Skizzen.", "vera", 8, 1)
    assert about(Seen, both, "darius") and about(Seen, both, "darius_2")
