"""The tests run against the built-in kinds, sections and strategies (``conftest._frozen_registry``):
a kind package installed where they run, or a strategy module added, is found by the toolkit but
changes no test's registry."""

from __future__ import annotations

import sys

import pytest

import gamemaster.kinds as kinds
import gamemaster.retrieval as retrieval
import gamemaster.retrieval.strategies as strategies
import gamemaster.sections as sections
from gamemaster.problems import StateError

BUILT_IN = ["ARRIVAL", "WORK", "MEETING", "REFLECTION", "ENCOUNTER", "EVENT", "GATHERING"]

MODULE = '''
from gamemaster.kinds import SceneKind
from gamemaster.sections import PromptSection


class Coffee(SceneKind):
    name = "COFFEE"
    decides = 1  # asked before every other kind: it would be chosen first


class Mood(PromptSection):
    name = "mood"


KIND, SECTION = Coffee(), Mood()
'''


def test_an_installed_kind_and_section_are_found_but_not_in_the_tests_registry(tmp_path, monkeypatch):
    (tmp_path / "coffee_kind.py").write_text(MODULE, encoding="utf-8")
    info = tmp_path / "coffee_kind-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: coffee-kind\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[gamemaster.kinds]\ncoffee = coffee_kind:KIND\n\n"
                                           "[gamemaster.sections]\nmood = coffee_kind:SECTION\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert sorted(kinds.all_kinds()) == sorted(BUILT_IN)
    assert "mood" not in sections.all_sections()
    # What the toolkit itself finds there (the functions the fixture stands in for).
    monkeypatch.undo()
    monkeypatch.syspath_prepend(str(tmp_path))
    kinds.forget()
    sections.forget()
    try:
        assert "COFFEE" in kinds.all_kinds() and "mood" in sections.all_sections()
    finally:
        sys.modules.pop("coffee_kind", None)
        kinds.forget()
        sections.forget()


def test_a_strategy_module_added_is_found_by_the_toolkit_but_not_in_the_tests_registry(tmp_path, monkeypatch):
    (tmp_path / "nearest.py").write_text("STRATEGY = None\n", encoding="utf-8")
    monkeypatch.setattr(strategies, "__path__", [*strategies.__path__, str(tmp_path)])
    assert retrieval.available() == ["hybrid", "ranked", "seed"]
    with pytest.raises(StateError, match=r"unknown strategy 'nearest' \(known: hybrid, ranked, seed\)"):
        retrieval.get_strategy("nearest")
    # What the toolkit itself finds there (the function the fixture stands in for).
    monkeypatch.undo()
    monkeypatch.setattr(strategies, "__path__", [*strategies.__path__, str(tmp_path)])
    assert retrieval.available() == ["hybrid", "nearest", "ranked", "seed"]
