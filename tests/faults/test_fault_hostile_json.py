"""Issue 19, item 4: hostile JSON (a huge number, deep nesting, 1e999, NaN) in any file the tool
reads is reported as ``file:line: reason`` like any other invalid JSON, never as a traceback."""

from __future__ import annotations

import json

import pytest

import faultkit as fk
from gamemaster.gm import GameMaster
from gamemaster.replies import ReplyError

#: What a hostile file holds where a value belongs, and what the error must say about it.
HOSTILE = {
    "digits": ("9" * 5000, "more than 4300 digits"),
    "nested": ("[" * 100_000 + "]" * 100_000, "nested deeper than 100 levels"),
    "huge": ("1e999", "1e999"),
    "nan": ("NaN", "NaN"),
    "infinity": ("-Infinity", "-Infinity"),
}
KINDS = list(HOSTILE)


def _memory_line(workspace, kind: str) -> int:
    """A memory line whose metadata holds the hostile value; returns its line number."""
    path = workspace.memories_dir / "vera.jsonl"
    line = json.dumps({"id": "vera-900", "created": "day-000/scene-00", "type": "observation", "depth": 0,
                       "description": "Eine Zeile mit Tücken.", "importance": 3, "tags": [], "evidence": [],
                       "metadata": {"x": "PLACEHOLDER"}}, ensure_ascii=False)
    line = line.replace('"PLACEHOLDER"', HOSTILE[kind][0])
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")
    return path.read_bytes().count(b"\n")


def _json_file(path, key: str, kind: str) -> int:
    """``key``'s value in a pretty-printed JSON file replaced by the hostile one; returns its line."""
    lines = path.read_text(encoding="utf-8").split("\n")
    for number, text in enumerate(lines, start=1):
        if text.startswith(f'  "{key}": '):
            comma = "," if text.endswith(",") else ""
            lines[number - 1] = f'  "{key}": {HOSTILE[kind][0]}{comma}'
            path.write_text("\n".join(lines), encoding="utf-8")
            return number
    raise AssertionError(f"{path} has no top-level {key}")


def _assert_reported(proc, where: str, reason: str, exit_code: int = 1) -> None:
    fk.assert_no_traceback(proc)
    assert proc.returncode == exit_code, fk.show(proc)
    hits = [line for line in (proc.stdout + proc.stderr).splitlines() if f"{where}: " in line]
    assert hits, f"nothing names {where}\n{fk.show(proc)}"
    assert any(reason in line for line in hits), f"{where} is named without saying {reason!r}\n{fk.show(proc)}"


# -- a memory line ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_validate_reports_a_hostile_memory_line_with_file_and_line(tmp_path, kind):
    workspace = fk.studio(tmp_path)
    number = _memory_line(workspace, kind)

    proc = fk.validate(workspace.root)

    _assert_reported(proc, f"state/memories/vera.jsonl:{number}", HOSTILE[kind][1])


@pytest.mark.parametrize("kind", ["digits", "nested", "huge"])
def test_doctor_memories_and_next_report_a_hostile_memory_line_and_keep_it(tmp_path, kind):
    workspace = fk.studio(tmp_path)
    number = _memory_line(workspace, kind)
    before = (workspace.memories_dir / "vera.jsonl").read_bytes()

    doctor = fk.run(workspace.root, "doctor")
    listed = fk.run(workspace.root, "memories", "vera")
    opened = fk.run(workspace.root, "next")
    status = fk.run(workspace.root, "status")

    where = f"state/memories/vera.jsonl:{number}"
    _assert_reported(doctor, where, HOSTILE[kind][1])
    _assert_reported(listed, where, HOSTILE[kind][1], exit_code=0)
    _assert_reported(opened, where, HOSTILE[kind][1], exit_code=0)  # a warning; the scene opens
    fk.assert_no_traceback(status)
    assert status.returncode == 0, fk.show(status)
    assert (workspace.memories_dir / "vera.jsonl").read_bytes() == before  # reported, never dropped


# -- world.json and an agent file -----------------------------------------------------------


@pytest.mark.parametrize("kind", ["digits", "nested", "huge", "nan"])
@pytest.mark.parametrize("command", [("validate",), ("status",), ("doctor",), ("config",), ("next",)])
def test_a_hostile_world_file_is_named_with_its_line_by_every_command(tmp_path, kind, command):
    workspace = fk.studio(tmp_path)
    number = _json_file(workspace.world_path, "seed", kind)

    proc = fk.run(workspace.root, *command)

    _assert_reported(proc, f"state/world.json:{number}", HOSTILE[kind][1])


@pytest.mark.parametrize("kind", ["digits", "nested", "infinity"])
@pytest.mark.parametrize("command", [("validate",), ("status",), ("doctor",), ("next",)])
def test_a_hostile_agent_file_is_named_with_its_line_by_every_command(tmp_path, kind, command):
    workspace = fk.studio(tmp_path)
    number = _json_file(workspace.agents_dir / "vera.json", "importance_accumulator", kind)

    proc = fk.run(workspace.root, *command)

    _assert_reported(proc, f"state/agents/vera.json:{number}", HOSTILE[kind][1])


def test_config_does_not_write_a_hostile_world_back(tmp_path):
    workspace = fk.studio(tmp_path)
    _json_file(workspace.world_path, "seed", "huge")
    before = workspace.world_path.read_bytes()

    proc = fk.run(workspace.root, "config", "scenes_per_day", "7")

    fk.assert_clean_error(proc, "state/world.json", "1e999")
    assert workspace.world_path.read_bytes() == before


# -- replies --------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["digits", "nested", "huge"])
def test_reply_names_the_agent_and_why_a_hostile_reply_file_is_no_json(tmp_path, kind):
    workspace = fk.studio(tmp_path)
    assert fk.run(workspace.root, "next").returncode == 0
    reply = tmp_path / "vera.json"
    value = HOSTILE[kind][0]
    reply.write_text(value if kind == "nested" else f'{{"agent": "vera", "x": {value}}}', encoding="utf-8")

    from_file = fk.run(workspace.root, "reply", "vera", str(reply))
    from_stdin = fk.run(workspace.root, "reply", "vera", "-", input=reply.read_text(encoding="utf-8"))

    for proc in (from_file, from_stdin):
        text = fk.assert_clean_error(proc, "vera: reply:", HOSTILE[kind][1])
        assert "line 1" in text, fk.show(proc)
    assert not list((workspace.scenes / "day-001" / "scene-01" / "replies").glob("*.json"))


@pytest.mark.parametrize("kind", ["digits", "nested"])
def test_apply_replies_names_the_hostile_reply_file_and_line(tmp_path, kind):
    workspace = fk.studio(tmp_path)
    assert fk.run(workspace.root, "next").returncode == 0
    folder = tmp_path / "replies"
    folder.mkdir()
    value = HOSTILE[kind][0]
    (folder / "vera.json").write_text(f'{{\n  "agent": "vera",\n  "x": {value}\n}}\n', encoding="utf-8")

    proc = fk.run(workspace.root, "apply", "--replies", str(folder))

    fk.assert_clean_error(proc, f"{folder / 'vera.json'}:3: ", HOSTILE[kind][1])


def test_the_mcp_submit_reply_path_refuses_a_nested_reply_with_a_reason(tmp_path):
    workspace = fk.studio(tmp_path)
    fk.open_arrival(workspace)

    with pytest.raises(ReplyError) as raised:
        GameMaster(workspace).submit_reply("vera", HOSTILE["nested"][0])

    assert str(raised.value).startswith("vera: reply: ")
    assert HOSTILE["nested"][1] in str(raised.value)


@pytest.mark.parametrize("kind", ["digits", "nested"])
def test_the_subagent_stop_hook_says_why_its_input_is_no_json(tmp_path, kind):
    workspace = fk.studio(tmp_path)

    proc = fk.run(workspace.root, "hook", "subagent-stop", input=f'{{"x": {HOSTILE[kind][0]}}}')

    fk.assert_clean_error(proc, "hook input is not JSON", HOSTILE[kind][1])


# -- import ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["digits", "nested", "huge"])
def test_import_reports_a_hostile_memory_line_and_world_file(tmp_path, kind):
    source = fk.studio(tmp_path).root
    workspace = fk.Workspace(source)
    number = _memory_line(workspace, kind)
    world_line = _json_file(workspace.world_path, "seed", kind)

    proc = fk.run(tmp_path, "import", str(source), "--into", str(tmp_path / "copy"))

    _assert_reported(proc, f"state/memories/vera.jsonl:{number}", HOSTILE[kind][1])
    _assert_reported(proc, f"state/world.json:{world_line}", HOSTILE[kind][1])


# -- a number too long to read in an id or a scene ref -------------------------------------------


@pytest.mark.parametrize("field, value, reason", [
    ("id", "vera-" + "1" * 5000, "is not of the form agent-NNN (three to 18 digits)"),
    ("created", "day-" + "1" * 5000 + "/scene-01", "is not of the form day-XXX/scene-YY"),
])
def test_an_id_or_scene_with_thousands_of_digits_is_named_by_every_command(tmp_path, field, value, reason):
    workspace = fk.studio(tmp_path)
    path = workspace.memories_dir / "vera.jsonl"
    memory = {"id": "vera-901", "created": "day-000/scene-00", "type": "observation", "description": "Zahlen.",
              "importance": 3, field: value}
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(memory) + "\n")
    number = path.read_bytes().count(b"\n")
    _assert_reported(fk.validate(workspace.root), f"state/memories/vera.jsonl:{number}", reason)
    status = fk.run(workspace.root, "status")  # reads no memory line: nothing to say, and no traceback
    fk.assert_no_traceback(status)
    assert status.returncode == 0, fk.show(status)
    _assert_reported(fk.run(workspace.root, "next"), f"state/memories/vera.jsonl:{number}", reason, exit_code=0)
