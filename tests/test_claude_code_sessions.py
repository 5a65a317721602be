"""A character's ``claude`` kept between its turns of a MEETING, through the real Agent SDK
against the fake ``claude`` (``fake_claude.py``): one process per character and scene, the
next turn sends only what changed, and what the character is shown adds up to its prompt."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("claude_agent_sdk", reason="the [claude-code] extra (claude-agent-sdk) is part of [test]")

from gamemaster.backends import get_backend  # noqa: E402
from gamemaster.backends.claude_sessions import continued  # noqa: E402
from gamemaster.create import init_workspace  # noqa: E402
from gamemaster.gm import GameMaster  # noqa: E402
from gamemaster.lang import phrase  # noqa: E402
from gamemaster.loop import run_scene  # noqa: E402
from gamemaster.scene_spec import Force  # noqa: E402

from replies import valid_reply  # noqa: E402

BUNDLED_AGENTS = Path(__file__).parent.parent / "gamemaster" / "bundled" / "state" / "agents"
LEAD = phrase("de", "prompt_continued", line="\x00").split("\x00")[0]


def _arrived(tmp_path: Path, fake: Path):
    """Emre and Vera's arrival played through Claude Code; the fake's call log emptied after it."""
    workspace = init_workspace(tmp_path / "two", empty=True)
    for agent in ("emre", "vera"):
        shutil.copy(BUNDLED_AGENTS / f"{agent}.json", workspace.agents_dir / f"{agent}.json")
    gm = GameMaster(workspace)
    pending, _ = gm.open_next()
    for turn in pending.missing():
        request = gm.build_request(pending, turn)
        _queue(fake, request.agent.id, valid_reply(request))
    backend = get_backend("claude-code")
    run_scene(gm, backend)
    shutil.rmtree(fake / "calls")
    return workspace, gm, backend


@pytest.fixture
def met(tmp_path, fake):
    """Emre and Vera arrive, then meet for two rounds (emre, vera, emre, vera) through Claude Code."""
    workspace, gm, backend = _arrived(tmp_path, fake)
    for agent, other in (("emre", "Vera"), ("vera", "Emre")):
        turns = [_says(agent, "day-001/scene-02", f"{other}, erste Runde von {agent}.")]
        last = _says(agent, "day-001/scene-02", f"{other}, zweite Runde von {agent}.")
        last["conversation"] = {"summary": f"{agent} fasst die Besprechung zusammen.", "importance": 5, "tags": ["meeting"]}
        _queue(fake, agent, *turns, last)
    outcome = run_scene(gm, backend, Force(type="MEETING", participants=["emre", "vera"]))
    assert outcome.spec.turns == ["emre", "vera", "emre", "vera"]
    return workspace, outcome, backend


def _says(agent: str, ref: str, text: str) -> dict:
    return {"agent": agent, "scene": ref, "action": f"{agent} lehnt sich zurück.", "says": text}


def _queue(fake: Path, agent: str, *answers) -> None:
    texts = [a if isinstance(a, str) else json.dumps(a, ensure_ascii=False) for a in answers]
    (fake / "replies" / f"{agent}.json").write_text(json.dumps(texts, ensure_ascii=False), encoding="utf-8")


def _call(fake: Path, agent: str, n: int) -> dict:
    return json.loads((fake / "calls" / f"{agent}-{n}.json").read_text(encoding="utf-8"))


def _rebuilt(first: str, then: str) -> str:
    """The prompt a character holds after ``then``: ``first`` up to the line it names, and the rest."""
    assert then.startswith(LEAD)
    named, body = then[len(LEAD):].split("\n\n", 1)
    line = named[: named.index("“")]
    lines = first.splitlines(keepends=True)
    at = [i for i, text in enumerate(lines) if text.strip() == line]
    assert len(at) == 1, f"the line {line!r} marks {len(at)} places"
    return "".join(lines[: at[0] + 1]) + body


def _prompt(workspace, outcome, label: str) -> str:
    return (workspace.scene_dir(outcome.spec.ref) / "prompts" / f"{label}.md").read_text(encoding="utf-8")


def test_a_meeting_keeps_one_claude_per_character_and_sends_only_what_changed(met, fake):
    workspace, outcome, _ = met
    emre, vera = [_call(fake, "emre", 0), _call(fake, "emre", 1)], [_call(fake, "vera", 0), _call(fake, "vera", 1)]
    # Two processes for four turns: each character's second turn went to the claude of its first.
    assert emre[0]["pid"] == emre[1]["pid"] and vera[0]["pid"] == vera[1]["pid"]
    assert emre[0]["pid"] != vera[0]["pid"]
    first, then = emre[1]["messages"]
    assert emre[1]["messages"][0] == emre[0]["messages"][0]
    full = _prompt(workspace, outcome, "03-emre")
    # The system prompt (persona, this scene's memories) is not sent again, nor the scene's header.
    assert then.startswith(LEAD) and "## Die Szene: MEETING" not in then and len(then) < len(first)
    assert "Emre, erste Runde von vera." in then  # what was said since
    assert "letzter Beitrag" in then  # and what is asked of a last turn
    # What the character holds is exactly its prompt for the turn, from the system prompt on.
    assert full.endswith(_rebuilt(first, then))
    vera_full = _prompt(workspace, outcome, "04-vera")
    assert vera_full.endswith(_rebuilt(*vera[1]["messages"]))


def test_what_a_kept_claude_answered_lands_as_any_reply(met, fake):
    workspace, outcome, _ = met
    stream = (workspace.memories_dir / "emre.jsonl").read_text(encoding="utf-8")
    assert "Emre, zweite Runde von vera." in stream  # what emre heard vera say in her last turn
    assert "emre fasst die Besprechung zusammen." in stream
    heard = (workspace.memories_dir / "vera.jsonl").read_text(encoding="utf-8")
    assert "Vera, zweite Runde von emre." in heard and "vera fasst die Besprechung zusammen." in heard


def test_each_turn_of_a_kept_claude_is_charged_once(met, fake):
    """Claude Code reports a kept ``claude``'s cost as a running total; a turn records its own part."""
    workspace, outcome, _ = met
    usage = workspace.scene_dir(outcome.spec.ref) / "usage"
    calls = [call for path in sorted(usage.glob("*.json"))
             for call in json.loads(path.read_text(encoding="utf-8"))["calls"]]
    assert len(calls) == 4 and [call["cost_usd"] for call in calls] == [0.0125] * 4
    assert _call(fake, "emre", 1)["pid"] == _call(fake, "emre", 0)["pid"]  # the second was a kept claude's


def test_no_claude_is_kept_after_a_characters_last_turn(met):
    _, _, backend = met
    assert len(backend._sessions) == 0


def test_scenes_that_are_not_played_in_turns_start_one_claude_per_character(tmp_path, fake):
    workspace, gm, backend = _arrived(tmp_path, fake)
    pending, _ = gm.open_next(Force(type="WORK", participants=["emre", "vera"]))
    for turn in pending.missing():
        _queue(fake, pending.turns[turn], valid_reply(gm.build_request(pending, turn)))
    run_scene(gm, backend)
    calls = [_call(fake, agent, 0) for agent in ("emre", "vera")]
    assert calls[0]["pid"] != calls[1]["pid"] and all(len(call["messages"]) == 1 for call in calls)


def test_the_continuation_names_a_line_that_marks_one_place():
    before = "Kopf\n—\nBisher gesagt:\n\n—\n\nDu bist dran (1 von 4).\n"
    after = "Kopf\n—\nBisher gesagt:\n\n**Vera**: Hallo.\n\nDu bist dran (3 von 4).\n"
    sent = continued(before, after, "de")
    assert sent == LEAD + "Bisher gesagt:“ derselbe wie oben. Ab dort lautet er jetzt so:\n\n" \
        "**Vera**: Hallo.\n\nDu bist dran (3 von 4).\n"
    # "—" occurs twice in the shared start: it cannot be the line named.
    twice = continued("A\n—\nB\n—\nx\n", "A\n—\nB\n—\ny\n", "de")
    assert "„B“" in twice and twice.endswith("\n\n—\ny\n")
    # Nothing shared, or only lines that occur twice: the whole prompt again.
    assert continued("x\n", "y\n", "de") == "y\n"
    assert continued("—\n—\nx\n", "—\n—\ny\n", "en") == "—\n—\ny\n"
    # A line that occurs again further on in what the character holds marks no one place either.
    later = continued("A\nB\nC\nB\n", "A\nB\nD\n", "de")
    assert "„A“" in later and later.endswith("\n\nB\nD\n")
    # The same prompt again (asked again with the same error): never a lead with nothing after it.
    same = continued("A\nB\n", "A\nB\n", "de")
    assert "„A“" in same and same.endswith("\n\nB\n")
    assert continued("A\n", "A\n", "de") == "A\n"


FIXTURE = Path(__file__).parent / "fixtures" / "claude_session"


def test_claude_answers_a_continued_prompt_as_it_asks(tmp_path):
    """Recorded: a real model given a kept claude's second message (fixtures/claude_session)."""
    read = lambda name: (FIXTURE / name).read_text(encoding="utf-8")  # noqa: E731
    assert continued(read("user1.md"), read("full2.md"), "de") == read("user2.md")
    from gamemaster.backends.base import split_prompt
    from gamemaster.loop import ask

    gm = GameMaster(init_workspace(tmp_path / "studio"))
    offline = get_backend("offline")
    run_scene(gm, offline)
    pending, _ = gm.open_next(Force(type="MEETING", participants=["emre", "vera"]))
    ask(gm, offline, pending, 0)
    ask(gm, offline, pending, 1)
    assert split_prompt(gm.build_request(pending, 2))[1] == read("full2.md")
    reply = gm.store_reply(pending, 2, read("emre.answer2.json"), None)
    assert reply.conversation is not None and "Silhouettenstudie" in reply.conversation.summary
    assert [t.from_ for t in reply.takeaways] == ["vera"]
    assert "Tobi" in reply.says and "Nervenbahnen" in reply.says  # what Tobi said, told to Vera whom it concerns
    assert [w.with_ for w in reply.talk_wishes] == [["tobi"]]


def test_a_kept_claude_that_is_gone_by_the_next_turn_is_started_again(tmp_path, fake):
    (fake / "mode").write_text("once", encoding="utf-8")
    workspace, gm, backend = _arrived(tmp_path, fake)
    for agent in ("emre", "vera"):
        last = _says(agent, "day-001/scene-02", f"zweite Runde von {agent}.")
        last["conversation"] = {"summary": f"{agent} fasst zusammen.", "importance": 5, "tags": ["meeting"]}
        _queue(fake, agent, _says(agent, "day-001/scene-02", f"erste Runde von {agent}."), last)
    run_scene(gm, backend, Force(type="MEETING", participants=["emre", "vera"]))
    second = _call(fake, "emre", 1)
    assert second["pid"] != _call(fake, "emre", 0)["pid"]
    assert len(second["messages"]) == 1 and not second["messages"][0].startswith(LEAD)  # the whole prompt again
    assert "emre fasst zusammen." in (workspace.memories_dir / "emre.jsonl").read_text(encoding="utf-8")
