"""One's own news is told in the first person: an observation that names its holder in the third
person is said as the holder would say it, and passed on as their words."""

from __future__ import annotations

import pytest

from test_news import arrived, meet, plant, replies_of  # noqa: F401  (arrived is a fixture)
from gamemaster.backends.offline.person import first_person
from gamemaster.who_knows import who_knows

NAMES = ["Darius Keller", "Darius"]


@pytest.mark.parametrize("code, text, said", [
    ("de", "Darius wird ab Montag Lead Designer.", "Ich werde ab Montag Lead Designer."),
    ("de", "Darius bewirbt sich heimlich bei einem anderen Studio.", "Ich bewerbe mich heimlich bei einem anderen Studio."),
    ("de", "Darius Keller arbeitet ab Montag an seinem Turm.", "Ich arbeite ab Montag an meinem Turm."),
    ("de", "Darius kandidiert für den Betriebsrat. Die Wahl ist im Mai.",
     "Ich kandidiere für den Betriebsrat. Die Wahl ist im Mai."),
    ("de", "Darius hat gekündigt.", "Ich habe gekündigt."),
    ("de", "Darius vermisst seine Skizzen.", "Ich vermisse meine Skizzen."),  # regular, though it ends in „isst“
    ("de", "Darius übernimmt das Leveldesign.", "Ich übernehme das Leveldesign."),
    ("en", "Darius is promoted to lead designer.", "I am promoted to lead designer."),
    ("en", "Darius applies for a job at another studio.", "I apply for a job at another studio."),
    # Not sure, so as written: named elsewhere, again as „er“, or one of several subjects.
    ("de", "Der Verlag befördert Darius.", None),
    ("de", "Darius wird befördert, weil er die Türme gebaut hat.", None),
    ("de", "Darius und Leo gehen nach Berlin.", None),
    ("de", "Darius, unser Designer, geht.", None),
    # A possessive with someone else named beside it may be theirs; a reflexive is his.
    ("de", "Darius zeigt Vera ihre Skizzen.", None),
    ("de", "Darius bewirbt sich bei Vera.", "Ich bewerbe mich bei Vera."),
])
def test_an_own_observation_about_oneself_reads_in_the_first_person_where_that_is_sure(code, text, said):
    assert first_person(code, text, NAMES, ["Vera Kowalski", "Vera", "Leo"]) == said


def test_darius_tells_his_own_news_as_his_and_the_listener_passes_it_on_as_his_words(arrived, workspace):
    plant(workspace, "darius", "Darius wird ab Montag Lead Designer für die Knochentürme.", "day-001/scene-01")
    first = meet(arrived, "darius", "emre", topic="Das Innere der Türme")
    said = [r["says"] for r in replies_of(workspace, first.spec.ref, "darius")]
    assert any("„Ich werde ab Montag Lead Designer für die Knochentürme“" in s for s in said), said
    assert not any("Darius wird" in s for s in said), said
    # Told once: Emre knows it now, in the words Darius said it with.
    again = meet(arrived, "darius", "emre", topic="Das Innere der Türme")
    assert not any("Lead Designer" in r["says"] for r in replies_of(workspace, again.spec.ref, "darius"))
    # Emre passes it on as Darius' words, naming him.
    on = meet(arrived, "emre", "vera", topic="Das Innere der Türme")  # Vera draws the towers: it concerns her
    relayed = [r["says"] for r in replies_of(workspace, on.spec.ref, "emre") if "Lead Designer" in r["says"]]
    assert relayed and "Darius" in relayed[0] and "„Ich werde ab Montag Lead Designer" in relayed[0], relayed
    rows = {row.agent: row for row in who_knows(workspace, "Lead Designer Knochentürme").rows}
    assert (rows["vera"].knows, rows["vera"].source) == (True, "emre")


def test_own_news_that_cannot_be_turned_is_said_as_being_about_oneself(arrived, workspace):
    plant(workspace, "darius", "Der Verlag macht Darius ab Montag zum Lead Designer.", "day-001/scene-01")
    scene = meet(arrived, "darius", "emre", topic="Das Innere der Türme")
    said = [r["says"] for r in replies_of(workspace, scene.spec.ref, "darius") if "Lead Designer" in r["says"]]
    assert said and ("Es geht um mich: „" in said[0] or "Das betrifft mich selbst: „" in said[0]), said
