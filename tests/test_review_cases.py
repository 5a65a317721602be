"""Edge cases users hit: hand edits, partial replies, briefs mid-scene, unreadable files."""

from __future__ import annotations

import json

import pytest

from conftest import memory, section_ids, seed_select, write_agent, write_lines
from replies import valid_reply
from gamemaster.backends.scripted import ScriptedBackend
from gamemaster.briefs import give_brief
from gamemaster.loop import run_scene
from gamemaster.scenes import Force, SceneType
from gamemaster.transaction import recover
from gamemaster.validate import validate_workspace


def lines(workspace, agent):
    return [json.loads(l) for l in (workspace.memories_dir / f"{agent}.jsonl").read_text(encoding="utf-8").splitlines() if l.strip()]


def arrival(gm):
    run_scene(gm, ScriptedBackend([valid_reply] * 7))


def test_recovery_appends_exactly_the_missing_ids_even_after_a_hand_edit(gm, workspace, monkeypatch):
    arrival(gm)
    gm.open_next(Force(type=SceneType.WORK, participants=["emre"]))
    pending = gm.pending()
    gm.store_reply(pending, 0, valid_reply(gm.build_request(pending, 0)))
    import gamemaster.transaction as transaction_module

    def journal_only(workspace_, transaction):
        from gamemaster.fsio import atomic_write_json
        atomic_write_json(workspace_.journal_path, transaction.to_json())
        raise KeyboardInterrupt  # the process dies right after the journal

    monkeypatch.setattr(transaction_module, "commit", journal_only)
    with pytest.raises(KeyboardInterrupt):
        gm.apply(gm.pending())
    monkeypatch.undo()
    journaled = [m["id"] for m in json.loads(workspace.journal_path.read_text(encoding="utf-8"))["appends"]["emre"]]
    with (workspace.memories_dir / "emre.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"id": "emre-500", "type": "observation", "description": "von Hand", "importance": 3}) + "\n")
    assert recover(workspace) == "scene day-001/scene-02"
    ids = [m["id"] for m in lines(workspace, "emre")]
    assert all(i in ids for i in journaled) and len(ids) == len(set(ids))


def test_an_abandoned_scene_does_not_lend_its_replies_to_the_next(gm, workspace):
    arrival(gm)
    gm.open_next(Force(type=SceneType.WORK, participants=["darius"]))
    pending = gm.pending()
    gm.store_reply(pending, 0, valid_reply(gm.build_request(pending, 0)))
    world = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    world["pending"] = None  # the documented way to choose again (docs/how-to/hand-edit.md)
    workspace.world_path.write_text(json.dumps(world), encoding="utf-8")
    gm.open_next(Force(type=SceneType.MEETING, participants=["darius", "vera"], topic="Türme"))
    fresh = gm.pending()
    assert fresh.spec.type == SceneType.MEETING and fresh.replies == {}
    kept = workspace.scenes / ".abandoned" / "day-001_scene-02.1" / "replies" / "01-darius.json"
    assert json.loads(kept.read_text(encoding="utf-8"))["artifacts"]  # set aside, not deleted


def test_a_meeting_can_be_applied_turn_by_turn(gm, workspace, cli):
    arrival(gm)
    gm.open_next(Force(type=SceneType.MEETING, participants=["vera", "emre"], topic="Türme"))
    for turn, speaker in enumerate(["vera", "emre", "vera", "emre"]):
        pending = gm.pending()
        prompt = cli("prompt", speaker)
        assert prompt.exit_code == 0, prompt.output
        if turn:
            assert f"Beitrag {turn}" in prompt.output  # the turn before is in the transcript
        reply = valid_reply(gm.build_request(pending, turn))
        reply["says"] = f"Beitrag {turn + 1}"
        result = cli("apply", "--replies", "-", input=json.dumps({speaker: reply}))
        assert result.exit_code == 0, result.output
        if turn < 3:
            assert result.output.startswith(f"stored; day-001/scene-02 waits for: {turn + 2:02d}-")
    assert result.output.startswith("applied day-001/scene-02 MEETING")
    talk = [m for m in lines(workspace, "vera") if m["type"] == "conversation"]
    assert [t["says"] for t in talk[-1]["metadata"]["transcript"]] == ["Beitrag 1", "Beitrag 2", "Beitrag 3", "Beitrag 4"]


def test_a_brief_during_a_pending_scene_waits_for_the_next_one(gm, workspace):
    arrival(gm)
    gm.open_next(Force(type=SceneType.WORK, participants=["darius"]))
    brief = give_brief(gm.workspace, "Die Türme brauchen eine Biologie.", ["darius"])
    assert brief.created == "day-001/scene-03"
    backend = ScriptedBackend([valid_reply] * 2)
    run_scene(gm, backend)
    briefs_section = backend.requests[0].prompt.split("**Briefs des Creative Directors an dich:**")[1].split("**Was seit")[0]
    assert briefs_section.strip() == "—"  # received after this scene opened
    assert [b.id for b in gm.world().briefs] == ["brief-001"]  # not used up unseen
    outcome = run_scene(gm, backend)
    assert outcome.spec.brief_ids == ["brief-001"] and outcome.spec.participants == ["darius"]
    assert "brief-001: Die Türme brauchen eine Biologie." in backend.requests[1].prompt
    assert gm.world().briefs == []


def test_a_brief_to_the_same_agent_twice_is_delivered_once(gm, workspace):
    before = len(lines(workspace, "vera"))
    give_brief(gm.workspace, "Mehr Licht.", ["vera", "vera"])
    assert len(lines(workspace, "vera")) == before + 1
    assert [p for p in validate_workspace(workspace) if not p.warning] == []


def test_a_wish_naming_someone_unknown_is_cleared_by_the_talk_it_becomes(gm, workspace):
    arrival(gm)
    vera = json.loads((workspace.agents_dir / "vera.json").read_text(encoding="utf-8"))
    vera["talk_wishes"] = [{"with": ["emre", "bob"], "topic": "X"}]
    (workspace.agents_dir / "vera.json").write_text(json.dumps(vera, ensure_ascii=False), encoding="utf-8")
    assert any("unknown agent(s) bob" in str(p) for p in validate_workspace(workspace))
    world = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    world["reflection_threshold"] = 1000  # keep reflections out of this story
    workspace.world_path.write_text(json.dumps(world), encoding="utf-8")
    # Emre is the one colleague it names who exists: Vera seeks him out in the next break.
    outcome = run_scene(gm, ScriptedBackend([valid_reply] * 2))
    assert outcome.spec.type == "ENCOUNTER" and outcome.spec.participants == ["vera", "emre"]
    assert gm.agents()["vera"].talk_wishes == []


@pytest.mark.parametrize("args,message", [
    (["brief", ""], "brief: the text is empty"),
    (["next", "--type", "MEETING", "--with", "vera,vera"], "a MEETING needs at least two participants"),
])
def test_clear_errors_instead_of_tracebacks(cli, args, message):
    if args[0] == "next":
        assert cli("scene", "run").exit_code == 0  # the day's ARRIVAL
    result = cli(*args)
    assert result.exit_code == 1
    assert message in result.output and "Traceback" not in result.output


def test_a_reply_that_is_not_an_object_is_rejected_by_agent(cli):
    cli("next")
    result = cli("apply", "--replies", "-", input=json.dumps({"darius": 5}))
    assert result.exit_code == 1
    assert "darius: reply: expected a JSON object" in result.output


@pytest.mark.parametrize("target", ["state/world.json", "state/agents/vera.json"])
def test_unreadable_state_files_are_named(cli, workspace, target):
    (workspace.root / target).write_bytes(b'{"id": "\xff"}')
    for command in ("status", "validate"):
        result = cli(command)
        assert result.exit_code == 1
        assert f"{target}: not UTF-8" in result.output and "Traceback" not in result.output


def test_a_broken_pending_scene_record_is_named_by_validate(cli, workspace):
    cli("next")
    (workspace.scenes / "day-001/scene-01/scene.json").write_text("{kaputt", encoding="utf-8")
    result = cli("validate")
    assert result.exit_code == 1
    assert "scenes/day-001/scene-01/scene.json:1: not valid JSON" in result.output
    assert cli("status").exit_code == 1


def test_bad_reflection_lines_are_reported_with_their_own_line(empty_workspace):
    write_agent(empty_workspace, "ana")
    rows = [memory("ana", n) for n in range(1, 30)]
    rows[19] = memory("ana", 20, type="reflection", depth=1, evidence=["ana-001"], importance=11)
    rows[20] = memory("ana", 21, type="reflection", depth=1, evidence=["ana-001"], importance=0)
    rows[5] = memory("ana", 6, type="reflection", depth=1, evidence=["ana-001"])
    write_lines(empty_workspace, "ana", rows)
    selection = seed_select(empty_workspace.stream("ana"), window=5)
    assert sorted(p.line for p in selection.problems) == [20, 21]
    assert section_ids(selection, "reflections") == ["ana-006"]


def test_focused_selection_at_size_parses_only_what_it_needs(empty_workspace, monkeypatch):
    from gamemaster.models import Memory

    write_agent(empty_workspace, "ana")
    write_lines(empty_workspace, "ana", [memory("ana", n, tags=["bone-towers"]) for n in range(1, 20001)])
    stream = empty_workspace.stream("ana")
    parsed = []
    original = Memory.model_validate.__func__
    monkeypatch.setattr(Memory, "model_validate", classmethod(lambda cls, d, *a, **k: parsed.append(1) or original(cls, d, *a, **k)))
    found = stream.grep(["bone-towers"], limit=20, exclude={"ana-20000"})
    assert [(i.memory.id, i.line) for i in found] == [(f"ana-{n:03d}", n) for n in range(19980, 20000)]
    assert len(parsed) == 21
