"""The lists of scene kinds in CLAUDE.md, the /scene command and the plugin's scene skill are
written from the registry (``kind_docs.py``): a committed copy that is not what it writes is stale."""

from __future__ import annotations

from pathlib import Path

import pytest

from gamemaster.claude_plugin import plugin_dir, rendered
from gamemaster.kind_docs import with_kinds

REPO = Path(__file__).resolve().parent.parent
GENERATED = ["CLAUDE.md", ".claude/commands/scene.md", "gamemaster/bundled/CLAUDE.md",
             "gamemaster/bundled/.claude/commands/scene.md"]


@pytest.mark.parametrize("relative", GENERATED)
def test_the_committed_lists_of_kinds_are_what_the_registry_writes(relative):
    text = (REPO / relative).read_text(encoding="utf-8")
    assert "<!--kinds:" in text, f"{relative} lists no kinds"
    assert with_kinds(text) == text, f"{relative} is stale: python -m gamemaster.kind_docs {relative}"


def test_the_plugin_skills_are_rendered_with_the_kinds():
    skill = (plugin_dir() / "skills/scene/SKILL.md").read_bytes()
    assert skill == rendered()["skills/scene/SKILL.md"]
    assert b"<!--kinds:side-by-side-->ARRIVAL, WORK, REFLECTION, EVENT<!--/kinds-->" in skill


def test_a_list_that_is_not_one_is_named():
    with pytest.raises(ValueError, match=r"<!--kinds:sideways-->: not a list of kinds"):
        with_kinds("(<!--kinds:sideways-->A<!--/kinds-->)")
