"""A correction told on by a real model (``fixtures/claude_correction``, README there): the prompt
is still what the toolkit builds for that state — it shows the character its own line that told
the old version, and says the newer holds — and the recorded reply is taken; the listener then
holds the correction."""

from __future__ import annotations

import json
from pathlib import Path

from gamemaster.backends.offline import OfflineBackend
from gamemaster.briefs import give_brief
from gamemaster.loop import run_scene
from gamemaster.scenes import Force, SceneType
from gamemaster.who_knows import who_knows

FIXTURE = Path(__file__).parent / "fixtures" / "claude_correction"
BRIEF = "Am Donnerstag ist Studioversammlung im großen Saal: Wir legen den Urlaubsplan für den Sommer fest."
RUMOUR = "Die Urlaubswünsche für den Sommer müssen bis Freitag im Urlaubsplan stehen."
CORRECTION = "Die Urlaubswünsche müssen doch erst bis Montag im Urlaubsplan stehen."


def plant(workspace, agent: str, text: str, created: str) -> None:
    path = workspace.memories_dir / f"{agent}.jsonl"
    count = sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    line = {"id": f"{agent}-{count + 1:03d}", "created": created, "type": "observation", "depth": 0,
            "description": text, "importance": 8, "tags": [], "evidence": [], "metadata": {}}
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line, ensure_ascii=False) + "\n")


def meet(gm, *people: str, topic: str):
    return run_scene(gm, OfflineBackend(), Force(type=SceneType.MEETING, participants=list(people), topic=topic))


def recorded_state(gm, workspace):
    """The state the model played: see the fixture's README."""
    arrival = run_scene(gm, OfflineBackend())
    give_brief(workspace, BRIEF)
    plant(workspace, "vera", RUMOUR, arrival.spec.ref)
    meet(gm, "vera", "nami", topic="Das Innere der Türme")
    told = meet(gm, "nami", "leo", topic="Orientierung in den Aschen-Einöden")
    plant(workspace, "vera", CORRECTION, told.spec.ref)
    meet(gm, "vera", "nami", topic="Glaube und Rituale der Lauschenden")
    pending, _ = gm.open_next(Force(type="WORK", participants=["nami", "leo"]))
    return pending


def test_claude_tells_the_one_it_told_the_rumour_the_correction_and_the_toolkit_keeps_it(gm, workspace, cli, tmp_path):
    pending = recorded_state(gm, workspace)
    body = (workspace.root / ".claude/agents/character-nami.md").read_text(encoding="utf-8").split("---\n", 2)[2]
    assert body == (FIXTURE / "agent-nami.md").read_text(encoding="utf-8")
    shown = cli("prompt", "nami")
    assert shown.exit_code == 0, shown.output
    assert shown.output == (FIXTURE / "nami.prompt.md").read_text(encoding="utf-8")
    said = shown.output.split("**Was zuletzt gesagt wurde**", 1)[1].split("## Deine Aufgabe", 1)[0]
    assert "Du (day-001/scene-03, zu Leo)" in said and "bis Freitag im Urlaubsplan stehen" in said
    assert "gilt die neuere" in said and "bis Montag im Urlaubsplan stehen" in said
    stored = cli("reply", "nami", str(FIXTURE / "nami.answer.json"))
    assert stored.exit_code == 0 and "stored nami's reply" in stored.output, stored.output
    leo = tmp_path / "leo.json"
    leo.write_text(OfflineBackend().reply(gm.build_request(pending, 1)), encoding="utf-8")
    assert cli("reply", "leo", str(leo)).exit_code == 0
    applied = cli("apply")
    assert applied.exit_code == 0, applied.output
    rows = {row.agent: row for row in who_knows(workspace, "Urlaubswünsche Freitag").rows}
    assert rows["leo"].knows and rows["leo"].source == "nami"
    assert rows["leo"].newer is not None and "bis Montag" in rows["leo"].newer[1]
    assert rows["nami"].newer is not None
