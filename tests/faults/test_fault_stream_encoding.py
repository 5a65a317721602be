"""Issue 9, item 8: a BOM, CRLF endings and a NUL byte in a memory stream lose nothing."""

from __future__ import annotations

import json
import re

import faultkit as fk

BOM = b"\xef\xbb\xbf"


def _add_bom(workspace, agent="vera"):
    path = workspace.memories_dir / f"{agent}.jsonl"
    data = path.read_bytes()
    path.write_bytes(BOM + data)
    return path, json.loads(data.split(b"\n", 1)[0])


def test_a_bom_on_line_one_keeps_that_memory_in_memories_and_in_the_prompt(tmp_path):
    workspace = fk.studio(tmp_path)
    _, first = _add_bom(workspace)
    assert first["id"] == "vera-001"
    snippet = first["description"][:40]

    listed = fk.run(workspace.root, "memories", "vera", "--json")
    fk.run(workspace.root, "next")
    prompt = fk.run(workspace.root, "prompt", "vera")

    fk.assert_no_traceback(listed)
    assert "vera-001" in [m["id"] for m in json.loads(listed.stdout)["memories"]], fk.show(listed)
    assert prompt.returncode == 0, fk.show(prompt)
    assert snippet in prompt.stdout, "vera-001 silently dropped out of vera's ARRIVAL prompt"


def test_validate_accepts_or_names_a_bom_and_new_lines_are_written_without_one(tmp_path):
    workspace = fk.studio(tmp_path)
    path, _ = _add_bom(workspace)

    played = fk.run(workspace.root, "scene", "run")
    check = fk.validate(workspace.root)

    assert played.returncode == 0, fk.show(played)
    fk.assert_no_traceback(check)
    problems = [line for line in check.stdout.splitlines() if line.startswith("state/")]
    for line in problems:
        assert line.startswith("state/memories/vera.jsonl:1:") and re.search(r"BOM|byte.order.mark", line, re.I), (
            f"a BOM must be accepted or named, not reported as: {line}\n{fk.show(check)}"
        )
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b""
    for number, raw in enumerate(lines[1:-1], start=2):
        assert not raw.startswith(BOM), f"line {number} written with a BOM"
        json.loads(raw)
    assert len(lines) - 1 > 8  # the scene appended to the stream


def test_crlf_line_endings_lose_nothing(tmp_path):
    workspace = fk.studio(tmp_path)
    path = workspace.memories_dir / "vera.jsonl"
    original = path.read_bytes()
    path.write_bytes(original.replace(b"\n", b"\r\n"))
    count = original.count(b"\n")

    listed = fk.run(workspace.root, "memories", "vera", "--json")
    played = fk.run(workspace.root, "scene", "run")
    check = fk.validate(workspace.root)

    fk.assert_no_traceback(listed)
    assert len(json.loads(listed.stdout)["memories"]) == count
    assert played.returncode == 0, fk.show(played)
    fk.assert_no_traceback(check)
    assert check.returncode == 0 or all(re.match(r"state/memories/vera\.jsonl:\d+: ", line) for line in check.stdout.splitlines()[:-1]), fk.show(check)
    ids = fk.stream_ids(workspace, "vera")
    assert ids[:count] == [f"vera-{n:03d}" for n in range(1, count + 1)] and len(ids) > count


def test_a_nul_byte_inside_a_line_is_reported_with_file_and_line_and_kept(tmp_path):
    workspace = fk.studio(tmp_path)
    path = workspace.memories_dir / "emre.jsonl"
    lines = path.read_bytes().split(b"\n")
    lines[2] = lines[2].replace(b'"description": "', b'"description": "Nul\x00hier ', 1)
    spoiled = lines[2]
    path.write_bytes(b"\n".join(lines))

    check = fk.validate(workspace.root)
    listed = fk.run(workspace.root, "memories", "emre")
    played = fk.run(workspace.root, "scene", "run")

    fk.assert_no_traceback(check)
    assert check.returncode == 1 and "state/memories/emre.jsonl:3:" in check.stdout, fk.show(check)
    fk.assert_no_traceback(listed)
    assert listed.returncode == 0, fk.show(listed)
    assert "state/memories/emre.jsonl:3" in listed.stderr, fk.show(listed)
    fk.assert_no_traceback(played)
    assert played.returncode == 0, fk.show(played)
    assert path.read_bytes().split(b"\n")[2] == spoiled  # reported, never deleted or rewritten
