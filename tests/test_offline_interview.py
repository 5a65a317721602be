"""`gamemaster ask` played offline answers the question asked: who the character is, its plans,
whom it talks with, or what it knows about a matter — news it heard with whom it heard it from,
wherever `who-knows` says it holds it."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from gamemaster.backends.offline import OfflineBackend
from gamemaster.cli import app
from gamemaster.loop import run_scene
from gamemaster.scenes import Force, SceneType
from gamemaster.who_knows import who_knows
from test_news import NEWS, QUERY, plant


def ask(workspace, agent: str, question: str) -> tuple[str, str]:
    result = CliRunner().invoke(app, ["--root", str(workspace.root), "ask", agent, question])
    assert result.exit_code == 0, result.output
    said, _, rests = " ".join(result.output.split()).partition(" rests on: ")
    return said, rests


@pytest.fixture
def played(gm, workspace):
    run_scene(gm, OfflineBackend())  # the ARRIVAL
    plant(workspace, "vera", NEWS, "day-001/scene-01")
    for people in (["vera", "darius"], ["darius", "emre"]):
        run_scene(gm, OfflineBackend(), Force(type=SceneType.MEETING, participants=people, topic="Farbpalette"))
    return workspace


def test_ask_mentions_the_news_wherever_who_knows_says_it_is_held(played):
    holding = [row for row in who_knows(played, QUERY).rows if row.knows]
    assert {row.agent for row in holding} == {"vera", "darius", "emre"}
    for row in holding:
        said, rests = ask(played, row.agent, "Was weißt du über die Klapptafel im Artbook?")
        assert "Klapptafel mit Perlmutt-Lack" in said, (row.agent, said)
        assert row.memory in rests  # the memory who-knows found is the one the answer rests on
    said, _ = ask(played, "darius", "Was weißt du über die Klapptafel im Artbook?")
    assert "Vera hat erzählt: „Der Verlag lässt die Knochentürme im Artbook als Klapptafel" in said


def test_a_self_introduction_names_the_character_its_role_studio_and_interests(played):
    said, rests = ask(played, "darius", "Stell dich bitte kurz vor.")
    assert said.startswith("Darius Engel: Ich bin Darius Engel, Game Director, Lead Designer bei GenSoftworks.")
    assert "Lauschen als Kernmechanik" in said and rests == "no memory"


def test_asked_for_plans_it_gives_todays_plan_and_whom_it_wants_to_talk_to(played):
    from gamemaster.workspace import Workspace

    workspace = Workspace(played.root)
    wishing = [a for a in workspace.agent_ids() if workspace.load_agent(a).talk_wishes]
    assert wishing, "nobody in the played studio wants to talk with anyone"
    agent = workspace.load_agent(wishing[0])
    said, _ = ask(played, agent.id, "Was hast du heute vor?")
    assert agent.today_plan.text in said
    assert f"über „{agent.talk_wishes[0].topic}“ sprechen" in said


def test_asked_whom_it_works_with_it_names_those_it_talked_with_most(played):
    said, _ = ask(played, "darius", "Mit wem arbeitest du am liebsten zusammen?")
    assert "Am meisten zu tun habe ich mit" in said and "Emre" in said and "Vera" in said


FIXTURE = Path(__file__).parent / "fixtures" / "claude_interview"


def test_claude_answers_the_interview_prompt_as_recorded(workspace, gm):
    """Recorded: a real model given the character subagent's text and the interview prompt
    (fixtures/claude_interview); the prompt is still what `ask` builds and the answer is taken."""
    from gamemaster.interview import build, from_text

    run_scene(gm, OfflineBackend())  # the ARRIVAL, as in the recorded state
    question = "Stell dich bitte kurz vor und sag, was du heute vorhast."
    body = (workspace.root / ".claude/agents/character-darius.md").read_text(encoding="utf-8").split("---\n", 2)[2]
    assert body == (FIXTURE / "agent.md").read_text(encoding="utf-8")
    built = build(workspace, "darius", question)
    assert built.prompt == (FIXTURE / "prompt.md").read_text(encoding="utf-8")
    result = from_text(built, (FIXTURE / "darius.answer.json").read_text(encoding="utf-8"))
    assert "Lauschen als Kernmechanik" in result.answer and "Nami" in result.answer and "Finn" in result.answer
    assert "darius-010" in result.memories  # the plan it rests on, shown in the prompt


@pytest.mark.parametrize("question, asked", [
    ("Stell dich bitte kurz vor und sag, was du heute vorhast.", ["self", "plans"]),
    ("Welche Pläne hast du?", ["plans"]),
    ("Tell me about yourself.", ["self"]),  # every language's questions, whatever the studio's
    ("Hast du Angst vor dem Release?", []),  # a matter: „vor“ is not „was hast du … vor“
    ("Was machst du mit der Klapptafel?", []),
    ("Mit wem hat Vera über den Quittenbaum gesprochen?", []),  # about Vera, not the one asked
    ("Who do you think broke the build?", []),
])
def test_what_a_question_asks_for(question, asked):
    from gamemaster.backends.offline.interview import _asks

    assert _asks(question) == asked
