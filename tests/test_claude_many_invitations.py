"""Sixty invitations answered by a real model (``fixtures/claude_many_invitations``, README there):
the prompt lists the 50 soonest (what one reply may answer) and says how many more there are,
and the recorded answer — all 50, one accepted a time of day, the rest of it declined — is taken."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from gamemaster.backends.offline import OfflineBackend
from gamemaster.loop import run_scene
from gamemaster.scenes import Force

FIXTURE = Path(__file__).parent / "fixtures" / "claude_many_invitations"
OTHERS = ["darius", "emre", "finn", "leo", "nami", "tobi"]
THINGS = ["Quittenfest", "Skizzenabend", "Knochenturm-Runde", "Aschespaziergang", "Farbenkunde", "Lesekreis",
          "Kaffeeprobe", "Nebelwanderung", "Modellbau", "Klangprobe"]


def recorded_state(gm, workspace) -> None:
    """Day 1's ARRIVAL played offline; sixty gatherings over four days, each inviting Vera and one
    colleague; a WORK scene of Vera's opened."""
    run_scene(gm, OfflineBackend())
    world = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    world["gatherings"] = [
        {"id": f"gathering-{n + 1:03d}", "host": OTHERS[n % 6], "what": f"{THINGS[n % 10]} {n + 1}", "day": 1 + n // 15,
         "slot": ("lunch", "afternoon", "evening")[n % 3] if n < 15 else ("morning", "lunch", "afternoon", "evening")[n % 4],
         "place": "Innenhof", "invited": ["vera", OTHERS[(n + 1) % 6]], "created": "day-001/scene-01"}
        for n in range(60)]
    world["gatherings_issued"] = 60
    workspace.world_path.write_text(json.dumps(world, ensure_ascii=False, indent=2), encoding="utf-8")
    gm.open_next(Force(type="WORK", participants=["vera"]))


def test_claude_answers_the_fifty_invitations_shown_and_the_toolkit_takes_them(gm, workspace, cli):
    recorded_state(gm, workspace)
    body = (workspace.root / ".claude/agents/character-vera.md").read_text(encoding="utf-8").split("---\n", 2)[2]
    assert body == (FIXTURE / "agent-vera.md").read_text(encoding="utf-8")
    shown = cli("prompt", "vera")
    assert shown.exit_code == 0, shown.output
    assert shown.output == (FIXTURE / "vera.prompt.md").read_text(encoding="utf-8")
    assert "Dazu kommen 10 weitere Einladungen" in shown.output
    stored = cli("reply", "vera", str(FIXTURE / "vera.answer.json"))
    assert stored.exit_code == 0 and "stored vera's reply" in stored.output, stored.output
    applied = cli("apply")
    assert applied.exit_code == 0, applied.output
    world = gm.world()
    answered = {g.id: g.answers["vera"] for g in world.gatherings if "vera" in g.answers}
    assert len(answered) == 50 and Counter(answered.values()) == {"declined": 37, "accepted": 13}
    # One gathering a time of day: no two accepted ones on the same day and slot.
    taken = [(g.day, g.slot) for g in world.gatherings if g.answers.get("vera") == "accepted"]
    assert len(taken) == len(set(taken))
    # The next prompt lists the ten it had not seen, now open.
    gm.open_next(Force(type="WORK", participants=["vera"]))
    again = cli("prompt", "vera").output
    waiting = again.split("**Einladungen an dich**", 1)[1].split("\n\n", 1)[0]
    assert sorted(line.split(":")[0][2:] for line in waiting.splitlines() if line.startswith("- gathering-")) == \
        sorted(g.id for g in world.gatherings if "vera" not in g.answers)
    assert "weitere Einladungen" not in again
