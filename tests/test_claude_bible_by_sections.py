"""The bible by its sections, read by a real model (``fixtures/claude_bible_by_sections``, README
there): the prompt is still what the toolkit builds for that state, the recorded reply is taken,
and the library it asked for in its plan reaches its next WORK scene as excerpts."""

from __future__ import annotations

import json
from pathlib import Path

from gamemaster.backends.offline import OfflineBackend
from gamemaster.gm import GameMaster
from gamemaster.scene_spec import Force

FIXTURE = Path(__file__).parent / "fixtures" / "claude_bible_by_sections"


def test_claude_asks_for_the_library_the_bible_names_and_gets_excerpts(workspace, cli):
    assert cli("config", "model", "claude-opus-4-7").exit_code == 0
    assert cli("day", "advance").exit_code == 0
    assert cli("next").exit_code == 0
    assert (workspace.root / ".claude/agents/character-vera.md").read_text(encoding="utf-8") == \
        (FIXTURE / "agent-vera.md").read_text(encoding="utf-8")
    shown = cli("prompt", "vera")
    assert shown.exit_code == 0, shown.output
    assert shown.output == (FIXTURE / "vera.prompt.md").read_text(encoding="utf-8")
    bible = shown.output.split("## Studio-Bibel", 1)[1].split("# Du bist", 1)[0]
    assert bible.count("hier nur seine Abschnitte: ") == 3 and "zu lang für hier" not in bible

    stored = cli("reply", "vera", str(FIXTURE / "vera.answer.json"))
    assert stored.exit_code == 0 and "stored vera's reply" in stored.output, stored.output
    gm = GameMaster(workspace)
    pending = gm.require_pending()
    for turn, agent in enumerate(pending.turns):
        if agent != "vera":
            gm.submit_reply(agent, OfflineBackend().reply(gm.build_request(pending, turn)))
    gm.apply_pending()
    plan = json.loads((workspace.agent_path("vera")).read_text(encoding="utf-8"))["today_plan"]["text"]
    assert "schlage ich in der Bibliothek nach" in plan

    work, _ = gm.open_next(Force(type="WORK", participants=["vera"]))
    request = gm.build_request(work, 0)
    read = {excerpt.path for excerpt in request.library}
    assert read & {"library/stilhandbuch.md", "library/lore-bibel.md"}, request.library
    # Shown as text, not as pointers into a bible the prompt does not hold whole.
    assert all(excerpt.text in request.prompt for excerpt in request.library)
