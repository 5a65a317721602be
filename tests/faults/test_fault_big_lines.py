"""Issue 19, item 8: a memory line may be at most 1 MB. A longer one is reported with file:line,
never parsed, never indexed, never in a prompt; and no writer ever writes one."""

from __future__ import annotations

import json
import sqlite3

import pytest

import faultkit as fk
from gamemaster.gm import GameMaster
from gamemaster.models import Memory
from gamemaster.scenes import Force
from replies import valid_reply

LIMIT = 1_048_576
WORD = "Knochenturm "


def _long_line(workspace, size: int, agent: str = "vera", number: int = 900) -> int:
    """A valid memory of ``size`` bytes or more appended to ``agent``'s stream; returns its line."""
    path = workspace.memories_dir / f"{agent}.jsonl"
    line = json.dumps({"id": f"{agent}-{number}", "created": "day-000/scene-00", "type": "observation", "depth": 0,
                       "description": (WORD * (size // len(WORD) + 1)).strip(), "importance": 9,
                       "tags": ["knochenturm"], "evidence": [], "metadata": {}}, ensure_ascii=False)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")
    return path.read_bytes().count(b"\n")


def _indexed_ids(workspace, agent: str = "vera") -> set[str]:
    with sqlite3.connect(workspace.state / ".cache" / f"{agent}.search.sqlite") as db:
        return {row[0] for row in db.execute("SELECT mem_id FROM doc")}


def test_validate_and_doctor_name_a_line_longer_than_the_limit(tmp_path):
    workspace = fk.studio(tmp_path)
    number = _long_line(workspace, LIMIT + 10)
    before = (workspace.memories_dir / "vera.jsonl").read_bytes()

    checked = fk.validate(workspace.root)
    doctor = fk.run(workspace.root, "doctor")
    fixed = fk.run(workspace.root, "doctor", "--fix")

    for proc in (checked, doctor, fixed):
        fk.assert_no_traceback(proc)
        assert proc.returncode == 1, fk.show(proc)
        lines = [line for line in proc.stdout.splitlines() if line.startswith(f"state/memories/vera.jsonl:{number}: ")]
        assert lines and "1,048,576 bytes" in lines[0], fk.show(proc)
    assert (workspace.memories_dir / "vera.jsonl").read_bytes() == before  # reported, never cut or dropped


def test_a_line_of_exactly_the_limit_is_a_memory_like_any_other(tmp_path):
    workspace = fk.studio(tmp_path)
    path = workspace.memories_dir / "vera.jsonl"
    number = _long_line(workspace, LIMIT - 400)
    lines = path.read_bytes().split(b"\n")
    line = lines[number - 1]
    description = json.loads(line)["description"]
    padded = line.replace(description.encode(), (description + "x" * (LIMIT - len(line))).encode())
    assert len(padded) == LIMIT
    lines[number - 1] = padded
    path.write_bytes(b"\n".join(lines))

    fk.assert_valid(workspace.root)


def test_next_keeps_a_long_line_out_of_the_index_and_the_prompt_and_says_so(tmp_path):
    workspace = fk.studio(tmp_path)
    number = _long_line(workspace, 3 * LIMIT)

    opened = fk.run(workspace.root, "next")
    prompt = fk.run(workspace.root, "prompt", "vera")
    recalled = fk.run(workspace.root, "recall", "vera", "Knochenturm", "--json")

    fk.assert_no_traceback(opened)
    assert opened.returncode == 0, fk.show(opened)
    assert f"warning: state/memories/vera.jsonl:{number}: " in opened.stderr, fk.show(opened)
    assert prompt.returncode == 0 and "vera-900" not in prompt.stdout and WORD * 3 not in prompt.stdout
    assert "vera-900" not in _indexed_ids(workspace)
    assert "vera-001" in _indexed_ids(workspace)  # the lines around it are indexed as ever
    assert recalled.returncode == 0, fk.show(recalled)
    assert "vera-900" not in [m["id"] for m in json.loads(recalled.stdout)["memories"]]


def test_next_never_parses_a_50_mb_line(tmp_path, monkeypatch):
    """The whole of `next` in this process: no JSON text longer than the limit reaches the parser."""
    workspace = fk.studio(tmp_path)
    _long_line(workspace, 50 * LIMIT)
    parsed: list[int] = []
    real_decode = json.JSONDecoder.decode  # what json.loads and every decoder end in
    real_validate_json = Memory.model_validate_json.__func__

    def decode(self, text, *args, **kwargs):
        parsed.append(len(text))
        return real_decode(self, text, *args, **kwargs)

    def validate_json(cls, data, *args, **kwargs):
        parsed.append(len(data))
        return real_validate_json(cls, data, *args, **kwargs)

    monkeypatch.setattr(json.JSONDecoder, "decode", decode)
    monkeypatch.setattr(Memory, "model_validate_json", classmethod(validate_json))

    pending, opened = GameMaster(workspace).open_next()

    assert opened and "vera" in pending.spec.participants
    assert parsed, "no memory line was parsed at all"
    assert max(parsed) <= LIMIT, f"{max(parsed):,} characters handed to a JSON parser"


# -- writers ----------------------------------------------------------------------------------


def _assert_refused(proc, *needles: str) -> None:
    text = fk.assert_clean_error(proc, *needles)
    assert "1,048,576" in text or "131,072" in text, fk.show(proc)


def test_ask_remember_refuses_an_answer_too_long_for_a_memory_line(tmp_path):
    workspace = fk.studio(tmp_path)
    before = (workspace.memories_dir / "vera.jsonl").read_bytes()
    answer = tmp_path / "answer.txt"
    answer.write_text(WORD * (LIMIT // len(WORD) + 10), encoding="utf-8")

    proc = fk.run(workspace.root, "ask", "vera", "Was baust du?", "--answer", str(answer), "--remember")

    _assert_refused(proc, "vera", "answer")
    assert (workspace.memories_dir / "vera.jsonl").read_bytes() == before
    fk.assert_valid(workspace.root)


def _long_reply(workspace, tmp_path) -> dict:
    pending = fk.open_arrival(workspace)
    gm = GameMaster(workspace)
    reply = valid_reply(gm.build_request(pending, pending.turns.index("vera")))
    reply["memories"][0]["description"] = WORD * (2 * LIMIT // len(WORD))
    return reply


def test_reply_refuses_a_text_too_long_for_a_memory_line_and_names_agent_and_field(tmp_path):
    workspace = fk.studio(tmp_path)
    reply = _long_reply(workspace, tmp_path)
    source = tmp_path / "reply.json"
    source.write_text(json.dumps(reply, ensure_ascii=False), encoding="utf-8")

    proc = fk.run(workspace.root, "reply", "vera", str(source))

    _assert_refused(proc, "vera: memories.0.description: ")
    assert not (workspace.scenes / "day-001" / "scene-01" / "replies").exists() or not list(
        (workspace.scenes / "day-001" / "scene-01" / "replies").iterdir())
    fk.assert_valid(workspace.root)


def test_apply_refuses_a_stored_reply_edited_to_a_text_too_long_and_writes_nothing(tmp_path):
    workspace = fk.studio(tmp_path)
    pending = fk.open_arrival(workspace)
    gm = GameMaster(workspace)
    for turn in range(len(pending.turns)):
        gm.store_reply(pending, turn, valid_reply(gm.build_request(pending, turn)))
    stored = pending.reply_path(pending.turns.index("vera"))
    reply = fk.read_json(stored)
    reply["memories"][0]["description"] = WORD * (2 * LIMIT // len(WORD))
    fk.write_json(stored, reply)
    streams = fk.tree_snapshot(workspace.memories_dir)

    proc = fk.run(workspace.root, "apply")

    # The stored file's name (``07-vera.json``) names the agent's turn.
    _assert_refused(proc, f"{workspace.rel(stored)}: memories.0.description: ")
    assert fk.tree_snapshot(workspace.memories_dir) == streams
    checked = fk.validate(workspace.root)  # the edited reply is what is wrong, and validate says so
    assert checked.returncode == 1 and f"{workspace.rel(stored)}: memories.0.description: " in checked.stdout, fk.show(checked)


def test_apply_replies_refuses_a_text_too_long_and_writes_nothing(tmp_path):
    workspace = fk.studio(tmp_path)
    reply = _long_reply(workspace, tmp_path)
    folder = tmp_path / "replies"
    folder.mkdir()
    (folder / "vera.json").write_text(json.dumps(reply, ensure_ascii=False), encoding="utf-8")
    streams = fk.tree_snapshot(workspace.memories_dir)

    proc = fk.run(workspace.root, "apply", "--replies", str(folder))

    _assert_refused(proc, "vera: memories.0.description: ")
    assert fk.tree_snapshot(workspace.memories_dir) == streams
    fk.assert_valid(workspace.root)


@pytest.mark.parametrize("field", ["tags", "plan"])
def test_tags_and_plan_count_as_texts_too(tmp_path, field):
    workspace = fk.studio(tmp_path)
    pending = fk.open_arrival(workspace)
    gm = GameMaster(workspace)
    turn = pending.turns.index("vera")
    reply = valid_reply(gm.build_request(pending, turn))
    if field == "tags":
        reply["memories"][0]["tags"] = [f"tag-{n}" for n in range(LIMIT // 8)]
    else:
        reply["plan"]["text"] = WORD * (LIMIT // len(WORD) + 1)

    proc = fk.run(workspace.root, "reply", "vera", "-", input=json.dumps(reply, ensure_ascii=False))

    _assert_refused(proc, f"vera: {'memories.0.tags' if field == 'tags' else 'plan.text'}: ")


def test_a_meeting_whose_transcript_outgrows_a_memory_line_refuses_the_turn_that_would_overflow_it(tmp_path):
    workspace = fk.studio(tmp_path)
    gm = GameMaster(workspace)
    gm.open_next()  # the day's ARRIVAL first; then a meeting of two
    pending = gm.require_pending()
    for turn in range(len(pending.turns)):
        gm.store_reply(pending, turn, valid_reply(gm.build_request(pending, turn)))
    gm.apply(pending)
    pending, _ = gm.open_next(Force(type="MEETING", participants=["vera", "emre"], topic="Knochentürme"))
    speech = "Die Türme wachsen weiter. " * 3000  # about 78 KB: each turn alone is fine
    for turn in range(len(pending.turns)):
        reply = valid_reply(gm.build_request(pending, turn))
        reply["says"] = speech
        speaker = pending.turns[turn]
        proc = fk.run(workspace.root, "reply", speaker, "-", input=json.dumps(reply, ensure_ascii=False))
        if proc.returncode:
            break
        pending = gm.require_pending()
    else:
        pytest.fail("every turn of the long meeting was stored")

    _assert_refused(proc, f"{speaker}: says: ", "transcript")
    assert turn >= 1  # the first turns fit
