"""Memory streams: the seed's lines, every bad-line class, tail reads, appends, the index."""

from __future__ import annotations

import json
import shutil

import pytest

from conftest import FIXTURES, memory, write_agent, write_lines
from gamemaster.models import Memory
from gamemaster.validate import validate_workspace


def test_seed_example_lines_load_unchanged(empty_workspace):
    for name in ("emre", "vera"):
        write_agent(empty_workspace, name)
        shutil.copy(FIXTURES / "seed001" / f"{name}.jsonl", empty_workspace.memories_dir / f"{name}.jsonl")
    found, problems = empty_workspace.stream("emre").scan()
    assert [item.memory.id for item in found] == ["emre-042", "emre-043"]
    assert problems == []
    raw = [json.loads(line) for line in (FIXTURES / "seed001" / "emre.jsonl").read_text(encoding="utf-8").splitlines()]
    # Every field the seed wrote comes back with the same value.
    for original, item in zip(raw, found):
        dumped = item.memory.model_dump(mode="json")
        assert {k: dumped[k] for k in original} == original
    assert found[1].memory.created is None and found[1].memory.depth == 0
    vera = empty_workspace.stream("vera").scan()[0][0].memory
    assert vera.metadata["style_tags"] == ["organic", "dark-fantasy", "architectural"]
    # The seed's artifact points at an image that is not in the repo: a warning, not an error.
    problems = validate_workspace(empty_workspace)
    assert [str(p) for p in problems] == [
        "state/memories/vera.jsonl:1: warning: artifact_path gallery/concepts/day-003_bone-towers_v1.png does not exist"
    ]


BAD_LINES = [
    ("not json", "{not json", "not valid JSON: Expecting property name"),
    ("missing field", json.dumps({k: v for k, v in memory("ana", 2).items() if k != "description"}), "description: Field required"),
    ("importance 0", json.dumps(memory("ana", 2, importance=0)), "importance: Input should be greater than or equal to 1"),
    ("importance 11", json.dumps(memory("ana", 2, importance=11)), "importance: Input should be less than or equal to 10"),
    ("unknown type", json.dumps(memory("ana", 2, type="dream")), "type: Input should be 'observation'"),
    ("duplicate id", json.dumps(memory("ana", 1)), "id: duplicate 'ana-001' (first on line 1)"),
    ("unknown evidence", json.dumps(memory("ana", 2, type="reflection", depth=1, evidence=["ana-077"])), "evidence: ana-077 not in this stream"),
    ("created format", json.dumps(memory("ana", 2, created="day-3/scene-4")), "created: Value error, 'day-3/scene-4' is not of the form day-XXX/scene-YY"),
    ("id of another agent", json.dumps(memory("bob", 2)), "id: 'bob-002' does not belong to agent 'ana'"),
    ("short id", json.dumps(memory("ana", 2, id="ana-2")), "is not of the form agent-NNN"),
]


@pytest.mark.parametrize("label,line,reason", BAD_LINES, ids=[b[0] for b in BAD_LINES])
def test_bad_lines_are_reported_with_file_and_line_and_kept(empty_workspace, label, line, reason):
    write_agent(empty_workspace, "ana")
    path = write_lines(empty_workspace, "ana", [memory("ana", 1), line, memory("ana", 3)])
    before = path.read_bytes()
    problems = [p for p in validate_workspace(empty_workspace) if not p.warning]
    assert len(problems) == 1, problems
    assert str(problems[0]).startswith("state/memories/ana.jsonl:2: ")
    assert reason in str(problems[0])
    assert path.read_bytes() == before  # reported, never deleted


def test_validate_cli_exits_1_and_names_file_and_line(empty_workspace, cli):
    write_agent(empty_workspace, "ana")
    write_lines(empty_workspace, "ana", [memory("ana", 1), json.dumps(memory("ana", 2, importance=11))])
    result = cli("validate", root=empty_workspace.root)
    assert result.exit_code == 1
    assert "state/memories/ana.jsonl:2: importance: Input should be less than or equal to 10" in result.output


def test_ids_grow_past_999(empty_workspace):
    write_agent(empty_workspace, "ana")
    write_lines(empty_workspace, "ana", [memory("ana", 998), memory("ana", 999)])
    stream = empty_workspace.stream("ana")
    assert stream.next_number() == 1000
    new = Memory(id="ana-1000", created="day-002/scene-01", type="observation", description="Tausend", importance=2)
    stream.append([new])
    assert stream.next_number() == 1001
    found, problems = stream.scan()
    assert problems == [] and found[-1].memory.id == "ana-1000"


def test_hand_added_fields_survive_and_unterminated_last_line_is_not_glued(empty_workspace):
    write_agent(empty_workspace, "ana")
    path = empty_workspace.memories_dir / "ana.jsonl"
    path.write_text(json.dumps(memory("ana", 1, mood="müde")), encoding="utf-8")  # no final newline
    stream = empty_workspace.stream("ana")
    stream.append([Memory(id="ana-002", created="day-001/scene-02", type="plan", description="Plan", importance=4)])
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2
    assert json.loads(lines[0])["mood"] == "müde"
    assert json.loads(lines[1])["id"] == "ana-002"
    assert stream.scan()[0][0].memory.model_dump()["mood"] == "müde"


def test_tail_reads_only_the_end_of_a_large_stream(empty_workspace, monkeypatch):
    write_agent(empty_workspace, "ana")
    lines = [memory("ana", n, description=f"Erinnerung {n} " + "x" * 200) for n in range(1, 3001)]
    write_lines(empty_workspace, "ana", lines)
    stream = empty_workspace.stream("ana")
    stream.index()  # the derived index is built once
    parsed = []
    original = Memory.model_validate.__func__

    def counting(cls, data, *args, **kwargs):
        parsed.append(1)
        return original(cls, data, *args, **kwargs)

    monkeypatch.setattr(Memory, "model_validate", classmethod(counting))
    found, problems = stream.tail(50)
    assert [i.memory.id for i in found] == [f"ana-{n:03d}" for n in range(2951, 3001)]
    assert [i.line for i in found] == list(range(2951, 3001))
    assert len(parsed) <= 60  # never the whole stream


def test_index_follows_hand_edits(empty_workspace):
    write_agent(empty_workspace, "ana")
    path = write_lines(empty_workspace, "ana", [memory("ana", 1), memory("ana", 2)])
    stream = empty_workspace.stream("ana")
    assert stream.next_number() == 3
    with path.open("a", encoding="utf-8") as handle:  # a user appends by hand
        handle.write(json.dumps(memory("ana", 40, type="reflection", depth=1, evidence=["ana-001"])) + "\n")
    assert stream.next_number() == 41
    reflections, _ = stream.reflections()
    assert [r.memory.id for r in reflections] == ["ana-040"]


@pytest.mark.parametrize("ending", [b"\n", b""], ids=["newline at the end", "no newline at the end"])
def test_the_index_counts_memories_past_blank_lines_wherever_they_stand(empty_workspace, monkeypatch, ending):
    from gamemaster import streams

    write_agent(empty_workspace, "ana")
    good = [json.dumps(memory("ana", n)).encode() for n in (1, 2, 3, 1200, 5)]
    blanks = [b"", b"  ", b"\t\r", b"\r", b" \t "]
    lines = [blanks[1], good[0], blanks[0], blanks[0], good[1] + b"\r", blanks[2], good[2], blanks[3], good[3],
             blanks[4], good[4], b" x ", blanks[0]]
    (empty_workspace.memories_dir / "ana.jsonl").write_bytes(b"\n".join(lines) + ending)
    pieces = streams.line_pieces
    monkeypatch.setattr(streams, "line_pieces", lambda handle: pieces(handle, 7))  # blank lines at a piece's ends
    index = empty_workspace.stream("ana").rebuild_index()
    # Counted as the lines are: the blank ones are not memories; a line " x " is (a bad one).
    expected_lines = len(lines) - (1 if ending == b"" and lines[-1] == b"" else 0)
    assert index.lines == expected_lines
    assert index.memories == sum(1 for line in lines[:expected_lines] if line.strip(b" \t\r"))
    assert index.max_number == 1200


def test_bad_line_in_the_window_is_reported_not_silently_dropped(empty_workspace):
    write_agent(empty_workspace, "ana")
    write_lines(empty_workspace, "ana", [memory("ana", 1), "{broken", memory("ana", 3)])
    found, problems = empty_workspace.stream("ana").tail(50)
    assert [i.memory.id for i in found] == ["ana-001", "ana-003"]
    assert [str(p) for p in problems][0].startswith("state/memories/ana.jsonl:2: ")


def test_a_full_scan_reads_the_stream_line_by_line_not_whole(empty_workspace, monkeypatch):
    from pathlib import Path

    write_agent(empty_workspace, "ana")
    path = write_lines(empty_workspace, "ana", [memory("ana", 1), "", "{kaputt", memory("ana", 2)])
    whole = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda p: (_ for _ in ()).throw(AssertionError("read whole"))
                        if p == path else whole(p))
    found, problems = empty_workspace.stream("ana").scan()
    first = len(json.dumps(memory("ana", 1), ensure_ascii=False)) + 1
    assert [(m.memory.id, m.line, m.offset) for m in found] == [
        ("ana-001", 1, 0), ("ana-002", 4, first + 1 + len("{kaputt") + 1)]
    assert [p.line for p in problems] == [3]
