"""Newer replaces older: a correction supersedes the rumour it corrects, for whoever holds both."""

from __future__ import annotations

import json

import pytest

from test_news import arrived, meet, plant_as, told  # noqa: F401 (fixture)
from gamemaster.backends.offline import OfflineBackend
from gamemaster.briefs import give_brief
from gamemaster.interview import build, run
from gamemaster.scenes import Force, SceneType
from gamemaster.updates import replaces, stale
from gamemaster.who_knows import who_knows

BRIEF = "Am Donnerstag ist Studioversammlung im großen Saal: Wir legen den Urlaubsplan für den Sommer fest."
RUMOUR = "Die Urlaubswünsche für den Sommer müssen bis Freitag im Urlaubsplan stehen."
# Shares one word with the brief, too few to concern everyone: it goes on only to whom the rumour went.
CORRECTION = "Die Urlaubswünsche müssen doch erst bis Montag im Urlaubsplan stehen."


@pytest.mark.parametrize("later, earlier, expected", [
    (CORRECTION, RUMOUR, True),
    (RUMOUR, CORRECTION, False),  # the correction says it corrects: the rumour heard again does not undo it
    ("Der Termin ist am Montag.", "Der Termin ist am Freitag.", True),  # a changed day
    ("Leo kandidiert doch nicht für den Betriebsrat.", "Leo kandidiert für den Betriebsrat.", True),
    ("Leo hat am Freitag Geburtstag.", "Leo kandidiert für den Betriebsrat.", False),  # another matter
    ("Der Shader-Compiler stürzt seit dem Treiber-Update ab.", "Der Shader-Compiler stürzt ab.", False),  # nothing changed
    ("Vorsicht, Vera, das verlegt den Termin der Studioversammlung auf Donnerstag.", "Hm, Vera, ich sehe „Türme“ anders.",
     False),  # a name in passing is no matter
    (RUMOUR, RUMOUR, False),
    ("Von Leo mitgenommen: " + CORRECTION, "Korrektur, von Emre: „" + CORRECTION + "“", False),  # the same correction
    ("Der Termin ist doch erst am Dienstag.", "Der Termin ist doch am Montag.", True),  # corrected again
    ("Von Leo mitgenommen: Die Studioversammlung zum Urlaubsplan ist auf Mittwoch verlegt.",
     "Von Leo mitgenommen: " + CORRECTION, False),  # whom one has it from is no matter
    ("Hast du schon gehört? Leo hat erzählt: „Der Termin ist doch am Montag.“", "Der Termin ist am Freitag.", True),
    ("The review moved to Monday.", "The review is on Friday.", True),
    ("Die Präsentation am Freitag. Abgesagt.", "Die Präsentation ist am Freitag.", True),  # a one-word correction
    # A line that quotes something else (dialogue one wrote) and corrects in its own words
    # (Claude as Nami, tests/fixtures/claude_correction).
    ("Hör mal: „Der Wind ist zu laut heute.“ Und noch eine Korrektur: Ich hatte dir gesagt, die Urlaubswünsche "
     "müssen bis Freitag im Urlaubsplan stehen. Vera hat das inzwischen berichtigt – erst bis Montag.", RUMOUR, True),
])
def test_a_later_item_replaces_an_earlier_one_on_the_same_matter_when_it_changes_something(later, earlier, expected):
    assert replaces("en" if later.startswith("The") else "de", later, earlier) is expected


def test_the_version_that_holds_is_the_last_in_a_chain_of_corrections():
    texts = ["Der Termin ist am Freitag.", "Der Termin ist doch am Montag.", "Der Termin ist am Freitag.",
             "Der Termin ist doch erst am Dienstag."]
    assert stale("de", texts) == {0: 3, 1: 3, 2: 3}


@pytest.fixture
def rumoured(arrived, workspace):
    give_brief(workspace, BRIEF)
    plant_as(workspace, "vera", RUMOUR, 8)
    first = meet(arrived, "vera", "nami", topic="Das Innere der Türme")
    assert told(workspace, first, "vera", "bis Freitag")
    plant_as(workspace, "vera", CORRECTION, 8)
    return arrived


def test_the_carrier_tells_the_correction_to_whom_it_told_the_rumour_and_the_rumour_no_more(rumoured, workspace):
    with_finn = meet(rumoured, "vera", "finn", topic="Eine Eröffnungsszene ohne Erklärtext")
    assert not told(workspace, with_finn, "vera", "Freitag")
    again = meet(rumoured, "vera", "nami", topic="Glaube und Rituale der Lauschenden")
    assert told(workspace, again, "vera", "bis Montag") and not told(workspace, again, "vera", "Freitag")
    # Nami heard both: she passes on neither the rumour nor, to one who never heard it, the correction.
    later = meet(rumoured, "nami", "leo", topic="Orientierung in den Aschen-Einöden")
    assert not told(workspace, later, "nami", "Freitag")
    rows = {row.agent: row for row in who_knows(workspace, "Urlaubswünsche Freitag").rows}
    assert rows["nami"].knows and "Montag" in rows["nami"].newer[1]
    assert rows["vera"].newer is not None and "Montag" in rows["vera"].newer[1]
    assert not rows["leo"].knows
    answer = run(build(workspace, "nami", "Bis wann müssen die Urlaubswünsche im Urlaubsplan stehen?"), OfflineBackend())
    assert "Montag" in answer.answer and "Freitag" not in answer.answer


def test_who_knows_names_the_version_each_character_holds(rumoured, workspace, cli):
    meet(rumoured, "vera", "nami", topic="Glaube und Rituale der Lauschenden")
    result = cli("who-knows", "Urlaubswünsche Freitag", "--json")
    assert result.exit_code == 0, result.output
    rows = {row["agent"]: row for row in json.loads(result.stdout)["characters"]}
    assert rows["nami"]["newer"]["text"].count("Montag") == 1 and rows["nami"]["from"] == "vera"
    assert rows["finn"]["newer"] is None and not rows["finn"]["knows"]
    table = cli("who-knows", "Urlaubswünsche Freitag").stdout
    nami = next(line for line in table.splitlines() if line.startswith("│ nami "))
    assert "holds" in table and rows["nami"]["newer"]["memory"] in nami
    recalled = json.loads(cli("recall", "nami", "Urlaubswünsche Freitag", "--json").stdout)["memories"]
    by_id = {m["id"]: m for m in recalled}
    old = by_id[rows["nami"]["memory"]]
    assert old["replaced_by"] == rows["nami"]["newer"]["memory"] and by_id[old["replaced_by"]]["replaced_by"] is None
    # The table's "why" column, read down the rows as one text (it wraps within its width).
    table = cli("recall", "nami", "Urlaubswünsche Freitag").stdout
    why = "".join(line.split("│")[5] for line in table.splitlines() if line.count("│") == 7)
    assert "replacedby" + old["replaced_by"] in "".join(why.split())


VERSIONS = "Wo eine neuere Zeile eine ältere zur selben Sache berichtigt, gilt die neuere"


def said_lately(gm, agent: str) -> str:
    gm.open_next(Force(type=SceneType.MEETING, participants=[agent, "leo"], topic="Zeitplan"))
    return gm.prompt_text(agent).split("**Was zuletzt gesagt wurde**", 1)[1]


def test_a_claude_character_who_heard_one_version_is_not_told_of_two(rumoured, workspace):
    section = said_lately(rumoured, "nami")
    assert "bis Freitag" in section and VERSIONS not in section


def test_a_claude_character_who_heard_two_versions_is_told_the_newer_holds(rumoured, workspace):
    meet(rumoured, "vera", "nami", topic="Glaube und Rituale der Lauschenden")
    section = said_lately(rumoured, "nami")
    assert "bis Freitag" in section and "bis Montag" in section and VERSIONS in section
