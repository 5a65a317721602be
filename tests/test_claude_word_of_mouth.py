"""A gathering heard of by word of mouth, answered by a real model (``fixtures/claude_word_of_mouth``,
README there): the prompt is still what the toolkit builds for that state, and the recorded answer
is taken, with its reason."""

from __future__ import annotations

import json
from pathlib import Path

from gamemaster.backends.offline import OfflineBackend
from gamemaster.gatherings import attendance, guests
from gamemaster.loop import run_scene
from gamemaster.scenes import Force

FIXTURE = Path(__file__).parent / "fixtures" / "claude_word_of_mouth"


def recorded_state(gm, workspace) -> None:
    """The state the model played: see the fixture's README."""
    backend = OfflineBackend()
    run_scene(gm, backend)  # day 1's ARRIVAL
    pending, _ = gm.open_next(Force(type="WORK", participants=["vera"]))
    reply = json.loads(backend.reply(gm.build_request(pending, 0)))
    reply["gathering"] = {"what": "Quittenfest im Innenhof", "day": 2, "slot": "lunch", "place": "Innenhof",
                          "invite": ["darius"]}
    gm.apply_pending({"vera": reply})
    run_scene(gm, backend, Force(type="WORK", participants=["darius"]))  # he answers the invitation
    run_scene(gm, backend, Force(type="ENCOUNTER", participants=["darius", "nami"]))  # and tells Nami
    gm.open_next(Force(type="WORK", participants=["nami"]))


def test_claude_answers_a_gathering_it_only_heard_of_and_comes_uninvited(gm, workspace, cli):
    recorded_state(gm, workspace)
    body = (workspace.root / ".claude/agents/character-nami.md").read_text(encoding="utf-8").split("---\n", 2)[2]
    assert body == (FIXTURE / "agent-nami.md").read_text(encoding="utf-8")
    shown = cli("prompt", "nami")
    assert shown.exit_code == 0, shown.output
    assert shown.output == (FIXTURE / "nami.prompt.md").read_text(encoding="utf-8")
    stored = cli("reply", "nami", str(FIXTURE / "nami.answer.json"))
    assert stored.exit_code == 0 and "stored nami's reply" in stored.output, stored.output
    applied = cli("apply")
    assert applied.exit_code == 0, applied.output
    [party] = gm.world().gatherings
    assert (party.invited, party.heard) == (["darius"], ["nami"])
    assert party.answers == {"darius": "accepted", "nami": "accepted"}
    # Why, in her own words, from her persona (she listens to people to write them).
    assert party.reasons["nami"] == ("Wenn Vera nichts dagegen hat, komme ich gern dazu, denn beim Essen erzählen "
                                     "Leute Dinge, die sie im Meeting nie sagen würden.")
    memories = [i.memory for i in workspace.stream("nami").scan()[0]]
    [answer] = [m for m in memories if m.metadata.get("gathering") == "gathering-001"]
    # She did not answer Vera, who never invited her: she decided to go.
    assert answer.description.startswith("Ich gehe ohne Einladung hin, Vera lädt ein: Quittenfest im Innenhof – Tag 002")
    # On day 2 at lunch she is seated with the host and the one invited, as one come uninvited.
    present = guests(gm.world(), party, workspace.agent_ids())
    assert present == ["vera", "darius", "nami"]
    assert attendance(party, present)["uninvited"] == ["nami"]
