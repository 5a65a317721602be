"""A retrieval strategy's sections reach the prompt whatever it labels them, and a prompt that asks
for evidence from the memories it shows but shows none is an error in `validate`."""

from __future__ import annotations

import dataclasses
import json

import gamemaster.day_memories as day_memories
import gamemaster.retrieval as retrieval
from gamemaster.retrieval import get_strategy


class Relabelled:
    """The world's strategy, with every memory it picks put in a section called ``label``."""

    def __init__(self, label: str, keep: bool = True):
        self.label, self.keep, self.picked = label, keep, []

    def select(self, stream, query, settings):
        selection = get_strategy("ranked").select(stream, query, settings)
        picked = [dataclasses.replace(p, section=self.label) for p in selection.picked] if self.keep else []
        self.picked += picked
        return dataclasses.replace(selection, picked=picked)


def test_memories_in_a_section_of_another_name_are_in_the_prompt(workspace, cli, monkeypatch):
    assert cli("day", "advance").exit_code == 0
    strategy = Relabelled("topic")
    monkeypatch.setattr(retrieval, "get_strategy", lambda name: strategy)
    assert cli("next", "--type", "work", "--with", "vera").exit_code == 0
    scene = workspace.scenes / json.loads(workspace.world_path.read_text(encoding="utf-8"))["pending"]
    shown = json.loads((scene / "shown/01-vera.json").read_text(encoding="utf-8"))
    prompt = (scene / "prompts/vera.md").read_text(encoding="utf-8")
    assert strategy.picked, "the strategy picked memories"
    for picked in strategy.picked:
        assert picked.memory.description in prompt and picked.memory.id in shown["memories"]


def test_a_reflection_prompt_without_memories_to_cite_is_an_error_in_validate(workspace, cli, monkeypatch):
    assert cli("day", "advance").exit_code == 0
    monkeypatch.setattr(retrieval, "get_strategy", lambda name: Relabelled("topic", keep=False))
    monkeypatch.setattr(day_memories, "shown", lambda *args: [])  # nor any chosen for the day
    assert cli("next", "--type", "reflection", "--with", "vera").exit_code == 0
    monkeypatch.undo()
    result = cli("validate")
    assert result.exit_code == 1
    shown = f"scenes/{json.loads(workspace.world_path.read_text(encoding='utf-8'))['pending']}/shown/01-vera.json"
    assert f"{shown}: vera: the REFLECTION prompt asks for evidence from the memories it shows, and shows none" \
        in result.output


def test_the_relevant_section_holds_what_a_strategy_labels_otherwise_and_leaves_out_what_is_excluded():
    from gamemaster.models import Memory
    from gamemaster.retrieval import Picked, Selection

    def picked(memory_id: str, section: str, offset: int) -> Picked:
        return Picked(Memory(id=memory_id, type="observation", description=memory_id, importance=5),
                      section, offset)

    selection = Selection("custom", 1000, "de", picked=[
        picked("vera-001", "recent", 1), picked("vera-002", "topic", 2), picked("vera-003", "relevant", 3), picked("vera-004", "topic", 4)])

    assert [p.memory.id for p in selection.section("relevant")] == ["vera-002", "vera-003", "vera-004"]
    assert [p.memory.id for p in selection.section("relevant", exclude={"vera-004"})] == ["vera-002", "vera-003"]
    assert [p.memory.id for p in selection.section("recent")] == ["vera-001"]
