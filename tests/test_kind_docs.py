"""The lists of scene kinds in CLAUDE.md, the /scene command and the plugin's scene skill are
written from the registry (``kind_docs.py``): a committed copy that is not what it writes is stale."""

from __future__ import annotations

from pathlib import Path

import pytest

from gamemaster.claude_plugin import plugin_dir, rendered
from gamemaster.kind_docs import with_kinds

REPO = Path(__file__).resolve().parent.parent
GENERATED = ["CLAUDE.md", ".claude/commands/scene.md", "gamemaster/bundled/CLAUDE.md",
             "gamemaster/bundled/.claude/commands/scene.md", "docs/reference/state-files.md"]


@pytest.mark.parametrize("relative", GENERATED)
def test_the_committed_lists_of_kinds_are_what_the_registry_writes(relative):
    text = (REPO / relative).read_text(encoding="utf-8")
    assert "<!--kinds:" in text or "<!--kind-settings-->" in text, f"{relative} lists no kinds"
    assert with_kinds(text) == text, f"{relative} is stale: python -m gamemaster.kind_docs {relative}"


def test_the_plugin_skills_are_rendered_with_the_kinds():
    skill = (plugin_dir() / "skills/scene/SKILL.md").read_bytes()
    assert skill == rendered()["skills/scene/SKILL.md"]
    assert b"<!--kinds:side-by-side-->ARRIVAL, WORK, REFLECTION, EVENT<!--/kinds-->" in skill


def test_a_list_that_is_not_one_is_named():
    with pytest.raises(ValueError, match=r"<!--kinds:sideways-->: not a list of kinds"):
        with_kinds("(<!--kinds:sideways-->A<!--/kinds-->)")


@pytest.mark.parametrize("relative", ["docs/reference/state-files.md", "CLAUDE.md", "gamemaster/bundled/CLAUDE.md"])
def test_the_kinds_settings_are_tabled_with_default_bounds_and_reason(relative):
    text = (REPO / relative).read_text(encoding="utf-8")
    assert ("| `kinds.meeting.rounds` | `2` | 2 to 50 (each round is one more turn, one model call, for every "
            "participant) | rounds of a meeting: each participant speaks once a round |") in text
    assert "| `kinds.work.rooms` | unset | 1 to 100, or unset (" in text
    assert "| `kinds.meeting.notices` | `\"team\"` | `team`, `all`, `none` |" in text


def test_a_stale_settings_table_is_written_anew():
    stale = "before\n<!--kind-settings-->\n| `kinds.meeting.rounds` | `3` |\n<!--/kind-settings-->\nafter"
    fresh = with_kinds(stale)
    assert fresh != stale and fresh.startswith("before\n<!--kind-settings-->\n| setting | default | allowed | meaning |")
    assert fresh.endswith("<!--/kind-settings-->\nafter") and with_kinds(fresh) == fresh
