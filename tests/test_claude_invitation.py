"""Invitations answered by a real model (``fixtures/claude_invitation``, README there): the
prompts are still what the toolkit builds for that state, and the recorded answers — a decline
because the character's work fills that time, an acceptance — are taken, with their reasons."""

from __future__ import annotations

import json
from pathlib import Path

from gamemaster.backends.offline import OfflineBackend
from gamemaster.briefs import give_brief
from gamemaster.gatherings import guests
from gamemaster.loop import run_scene
from gamemaster.scenes import Force

FIXTURE = Path(__file__).parent / "fixtures" / "claude_invitation"


def recorded_state(gm, workspace) -> None:
    """The state the model played: see the fixture's README."""
    backend = OfflineBackend()
    run_scene(gm, backend)
    pending, _ = gm.open_next(Force(type="WORK", participants=["vera"]))
    reply = json.loads(backend.reply(gm.build_request(pending, 0)))
    reply["gathering"] = {"what": "Quittenfest im Innenhof", "day": 2, "slot": "lunch", "place": "Innenhof",
                          "invite": ["nami", "leo"]}
    gm.apply_pending({"vera": reply})
    give_brief(workspace, "Am Dienstag mittags zeigst du dem Verlag den Stand deiner Arbeit.", to=["nami"])
    gm.open_next(Force(type="WORK", participants=["nami", "leo"]))


def test_claude_declines_what_its_work_fills_and_says_why_and_the_toolkit_keeps_it(gm, workspace, cli):
    recorded_state(gm, workspace)
    for agent in ("nami", "leo"):
        body = (workspace.root / f".claude/agents/character-{agent}.md").read_text(encoding="utf-8").split("---\n", 2)[2]
        assert body == (FIXTURE / f"agent-{agent}.md").read_text(encoding="utf-8")
        shown = cli("prompt", agent)
        assert shown.exit_code == 0, shown.output
        assert shown.output == (FIXTURE / f"{agent}.prompt.md").read_text(encoding="utf-8")
    for agent in ("nami", "leo"):
        stored = cli("reply", agent, str(FIXTURE / f"{agent}.answer.json"))
        assert stored.exit_code == 0 and f"stored {agent}'s reply" in stored.output, stored.output
    applied = cli("apply")
    assert applied.exit_code == 0, applied.output
    world = gm.world()
    party = next(g for g in world.gatherings if g.id == "gathering-001")
    assert party.answers == {"nami": "declined", "leo": "accepted"}
    assert party.reasons["nami"] == ("Am Dienstag Mittag zeige ich dem Verlag den Stand meiner Arbeit, "
                                     "das fällt genau auf das Quittenfest.")
    assert party.reasons["leo"].startswith("Eine Mittagspause mit Quitten im Innenhof nehme ich gern mit")
    assert guests(world, party, workspace.agent_ids()) == ["vera", "leo"]
    memories = [i.memory for i in workspace.stream("nami").scan()[0]]
    [answer] = [m for m in memories if m.metadata.get("gathering") == "gathering-001" and "abgesagt" in m.description]
    assert answer.description.endswith("Warum: Am Dienstag Mittag zeige ich dem Verlag den Stand meiner Arbeit, "
                                       "das fällt genau auf das Quittenfest.")
    # She told Leo, who heard it: a line of hers his stream keeps.
    heard = [i.memory for i in workspace.stream("leo").scan()[0] if i.memory.metadata.get("source") == "heard"]
    said = "ich Vera fürs Quittenfest absagen"
    assert any(said in m.description or said in json.dumps(m.metadata, ensure_ascii=False) for m in heard)
