"""Word of mouth: someone not invited who hears of a gathering may answer it and come, and the
offline player tells those it is close to where it is going."""

from __future__ import annotations

import json
import re

import pytest

from replies import valid_reply
from test_gathering import PARTY, open_work_scene, proposal
from gamemaster.backends.offline import OfflineBackend
from gamemaster.loop import run_scene
from gamemaster.problems import GamemasterError
from gamemaster.scenes import Force
from gamemaster.schedule import Gathering
from gamemaster.word_of_mouth import names_gathering

NAMES = {"vera": "Vera Lind", "nami": "Nami Okafor", "leo": "Leo Brandt"}
FEST = Gathering(id="gathering-004", host="vera", what="Quittenfest", day=3, slot="lunch", place="Innenhof",
                 invited=["nami"], created="day-001/scene-02")


@pytest.mark.parametrize("speaker, says, named", [
    ("nami", "Ich gehe am Mittwoch zu Veras Quittenfest.", True),  # its words and the host
    ("vera", "Am Mittwoch gibt es das Quittenfest, kommt gern!", True),  # the host says it
    ("nami", "Das Quittenfest ist im Innenhof.", True),  # its words and the place
    ("leo", "Ist das wegen gathering-004?", True),  # its id
    ("nami", "Quittenfest? Klingt gut.", False),  # whose, and where, is not said
    ("nami", "Vera hat Quitten aus dem Garten mitgebracht.", False),  # another word, though the host
])
def test_a_line_names_a_gathering_by_its_words_and_whose_it_is(speaker, says, named):
    assert names_gathering("de", FEST, speaker, says, NAMES) is named


def test_a_word_of_two_does_not_name_a_gathering():
    evening = FEST.model_copy(update={"what": "Spieleabend mit Brettspielen"})
    assert not names_gathering("de", evening, "nami", "Vera, am Abend spielen wir weiter.", NAMES)
    assert names_gathering("de", evening, "nami", "Vera macht einen Spieleabend mit Brettspielen.", NAMES)


def test_who_hears_a_gathering_named_may_answer_it_and_comes_uninvited(gm, workspace, tmp_path):
    pending = open_work_scene(gm)
    gm.apply_pending({"vera": proposal(gm, pending, what="Quittenfest", invite=["darius"], slot="lunch")})
    pending, _ = gm.open_next(Force(type="ENCOUNTER", participants=["darius", "nami"]))
    first = valid_reply(gm.build_request(pending, 0))
    first["says"] = "Vera hat mich zum Quittenfest im Innenhof eingeladen. Ich gehe hin."
    second = valid_reply(gm.build_request(pending, 1))
    gm.apply_pending({"darius": [first], "nami": [second]})
    [gathering] = gm.world().gatherings
    assert gathering.heard == ["nami"]  # Darius is invited: he cannot hear of it
    # Nami's next prompt lists it as something she heard of, with its id.
    pending, _ = gm.open_next(Force(type="WORK", participants=["nami"]))
    prompt = gm.build_request(pending, 0).prompt
    assert "**Wovon du gehört hast** – eingeladen bist du nicht, aber wer davon weiß, kann kommen" in prompt
    assert "- gathering-001: Vera lädt ein: Quittenfest – Tag 001" in prompt
    assert "Eingeladen: Darius. Gehört von: Darius." in prompt  # whom it is for, and who told her
    answer = valid_reply(gm.build_request(pending, 0))
    answer["invitations"] = [{"gathering": "gathering-001", "answer": "accept", "because": "Quitten mag ich."}]
    gm.apply_pending({"nami": answer})
    [gathering] = gm.world().gatherings
    assert gathering.answers == {"nami": "accepted"} and gathering.reasons == {"nami": "Quitten mag ich."}
    assert gathering.accepted() == ["vera", "nami"]
    # The report lists who heard of it, and her yes with why.
    from gamemaster.report.build import build_report

    build_report(workspace, tmp_path / "site")
    page = (tmp_path / "site" / "days" / "day-001.html").read_text(encoding="utf-8")
    assert "Nami" in page.split("Davon gehört</dt><dd>")[1].split("</dd>")[0]
    assert "Quitten mag ich." in page.split("Zugesagt</dt><dd>")[1].split("</dd>")[0]
    # Leo heard nothing of it: his answer is refused, naming agent and field.
    pending, _ = gm.open_next(Force(type="WORK", participants=["leo"]))
    answer = valid_reply(gm.build_request(pending, 0))
    answer["invitations"] = [{"gathering": "gathering-001", "answer": "accept"}]
    with pytest.raises(GamemasterError, match="leo: invitations.0.gathering: leo is not invited to gathering-001 "
                                              "and has not heard of it"):
        gm.apply_pending({"leo": answer})
    gm.apply_pending({"leo": valid_reply(gm.build_request(pending, 0))})
    # At the gathering Nami is seated with the host, and the record says she came uninvited.
    pending, _ = gm.open_next(Force(type="GATHERING"))
    assert (pending.spec.type, pending.spec.participants) == ("GATHERING", ["vera", "nami"])
    record = json.loads((workspace.scene_dir(pending.spec.ref) / "scene.json").read_text(encoding="utf-8"))
    assert record["attendance"]["heard"] == ["nami"] and record["attendance"]["uninvited"] == ["nami"]
    assert "0 of 1 invited came" in record["reason"] and "came uninvited: nami" in record["reason"]


def test_the_offline_player_tells_those_it_is_close_to_and_they_decide_as_strangers_would_not(gm, workspace):
    # Darius accepted Vera's party on day 2; he tells the few he is close to when they listen.
    _hand_edit(workspace, [{**PARTY, "host": "vera", "day": 2, "slot": "lunch", "invited": ["darius"],
                            "answers": {"darius": "accepted"}}])
    told: list[str] = []
    while not gm.world().gatherings[0].held:
        backend = _Listening()
        going = gm.world().gatherings[0].accepted()
        before = set(gm.world().gatherings[0].asked())
        run_scene(gm, backend)
        mentioned = [request for request, says in backend.said if "„Quittenfest“" in says]
        # Said as a person says it: whose, when (day 2 is a Tuesday) and where.
        assert all(re.search(r"Vera lädt (am Dienstag|heute) zum Mittag (ein: |zu )„Quittenfest“,? (ein, )?Ort: Innenhof", says)
                   for _, says in backend.said if "„Quittenfest“" in says), backend.said
        # Who goes mentions it, only with one it is close to listening; said aloud, all who listen hear it.
        for request in mentioned:
            assert request.agent.id in going and request.agent.id != "vera"
            assert set(request.listeners) & set(request.partners[:3]) - before - {"vera"}
        expected = {p for request in mentioned for p in request.listeners if p != "vera"} - before
        assert set(gm.world().gatherings[0].heard) - before == expected
        told += sorted(expected)
    assert told, "nobody going sat with one they are close to"
    [gathering] = gm.world().gatherings
    answered = [p for p in told if p in gathering.answers]  # who had a scene after hearing of it
    assert answered, told
    for person in answered:  # by its own ties to Vera, saying why
        reason = gathering.reasons[person]
        assert reason.startswith("Eingeladen bin ich nicht"), gathering.reasons
        assert (gathering.answers[person] == "accepted") == ("kenne ich gut genug" in reason or "interessiert mich" in reason)
    record = json.loads((workspace.scene_dir(gathering.held) / "scene.json").read_text(encoding="utf-8"))
    came = [p for p in told if gathering.answers.get(p) == "accepted"]
    assert record["attendance"]["uninvited"] == came


class _Listening(OfflineBackend):
    """The offline player, keeping what each was asked and said."""

    def __init__(self):
        self.said = []

    def reply(self, request):
        said = super().reply(request)
        self.said.append((request, json.loads(said)["says"]))
        return said


def _hand_edit(workspace, gatherings: list[dict]) -> None:
    world = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    workspace.world_path.write_text(json.dumps({**world, "gatherings": gatherings}, ensure_ascii=False), encoding="utf-8")


def test_a_hand_edited_heard_list_naming_an_invitee_is_named_with_file_and_field(workspace):
    from gamemaster.validate import validate_workspace

    world = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    world["gatherings"] = [{**PARTY, "host": "vera", "invited": ["nami"], "heard": ["nami", "leo"],
                            "answers": {"leo": "accepted"}}]
    workspace.world_path.write_text(json.dumps(world, ensure_ascii=False), encoding="utf-8")
    problems = [str(p) for p in validate_workspace(workspace)]
    assert any("world.json" in p and "heard: nami invited or hosting already" in p for p in problems), problems
    world["gatherings"][0]["heard"] = ["leo"]  # an answer of one who heard of it is valid
    workspace.world_path.write_text(json.dumps(world, ensure_ascii=False), encoding="utf-8")
    assert not [p for p in validate_workspace(workspace) if "gatherings" in str(p)]
