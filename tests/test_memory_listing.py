"""`gamemaster memories`: what a listing shows, as it is written, at any length."""

from __future__ import annotations

import json

from gamemaster.cli.memory import TABLE_ROWS
from gamemaster.models import Memory


def _append(workspace, descriptions: list[str], tags=("lore",)) -> list[str]:
    """Memories appended to vera's stream by hand (as a user or another tool would); their ids."""
    path = workspace.root / "state/memories/vera.jsonl"
    ids = []
    with open(path, "a", encoding="utf-8") as handle:
        for number, description in enumerate(descriptions, start=500):
            memory = {"id": f"vera-{number}", "created": "day-001/scene-01", "type": "observation",
                      "description": description, "importance": 3, "tags": list(tags)}
            handle.write(json.dumps(memory, ensure_ascii=False) + "\n")
            ids.append(memory["id"])
    return ids


def test_a_listing_shows_markup_and_control_characters_as_written(cli, workspace):
    _append(workspace, ["[b]Rot[/b] \x1b[31m"], tags=("farbe",))
    for args in (("memories", "vera", "--last", "1"), ("memories", "vera", "--tag", "farbe")):
        shown = cli(*args).output
        assert "[b]Rot[/b]" in shown, shown  # not taken for rich markup (bold "Rot")
        assert "\x1b" not in shown and "\\x1b[31m" in shown  # no escape sequence reaches the terminal


def test_a_long_listing_is_a_line_per_memory_with_every_memory(cli, workspace):
    ids = _append(workspace, [f"Notiz {n} über die Knochentürme" for n in range(TABLE_ROWS)] + ["Erste Zeile\nzweite"])
    shown = cli("memories", "vera", "--tag", "lore").output.splitlines()
    assert len(shown) == TABLE_ROWS + 1
    assert [line.split("  ")[0] for line in shown] == ids
    assert shown[0] == "vera-500  day-001/scene-01  observation  3  Notiz 0 über die Knochentürme  [lore]"
    assert shown[-1].endswith("  3  Erste Zeile\\nzweite  [lore]")  # one memory, one line


def test_the_json_listing_has_a_memory_per_line_and_every_field(cli, workspace):
    ids = _append(workspace, ["Eins", "Zwei\nmit Zeilenumbruch"], tags=("zahl",))
    text = cli("memories", "vera", "--tag", "zahl", "--json").output
    data = json.loads(text)
    assert [m["id"] for m in data["memories"]] == ids and data["problems"] == []
    # Every field of the memory as its model has it, defaults included (the lines were written without them).
    assert data["memories"][0] == Memory.model_validate(data["memories"][0]).model_dump(mode="json")
    assert data["memories"][0]["evidence"] == [] and data["memories"][0]["depth"] == 0
    rows = [line for line in text.splitlines() if line.lstrip().startswith('{"id"')]
    assert [json.loads(line.strip().rstrip(","))["id"] for line in rows] == ids  # grep finds a memory on one line
    assert json.loads(cli("memories", "vera", "--tag", "nirgends", "--json").output) == {"memories": [], "problems": []}


def test_half_a_surrogate_pair_in_metadata_is_listed_as_its_escape(cli, workspace):
    path = workspace.root / "state/memories/vera.jsonl"
    with open(path, "a", encoding="utf-8") as handle:
        handle.write('{"id": "vera-600", "created": "day-001/scene-01", "type": "observation", "description": "Notiz",'
                     ' "importance": 3, "tags": ["halb"], "metadata": {"note": "\\ud800"}}\n')
    result = cli("memories", "vera", "--tag", "halb", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["memories"][0]["metadata"] == {"note": "\ud800"}
    assert '"note": "\\ud800"' in result.output
