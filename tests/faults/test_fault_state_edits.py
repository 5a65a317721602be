"""Issue 9, items 3, 4, 9, 10, 12, 14: hand edits to state files meet clear errors, never silent loss."""

from __future__ import annotations

import json

import pytest

import faultkit as fk
from gamemaster import transaction as transaction_module
from gamemaster.backends.scripted import ScriptedBackend
from gamemaster.gm import GameMaster
from replies import valid_reply


# -- item 3: a participant without an agent file ---------------------------------------


@pytest.mark.parametrize("command", [("scene", "run"), ("day", "advance")])
def test_playing_a_scene_whose_participant_lost_its_agent_file_names_scene_and_agent(tmp_path, command):
    workspace = fk.studio(tmp_path)
    assert fk.run(workspace.root, "next").returncode == 0
    (workspace.agents_dir / "vera.json").unlink()

    proc = fk.run(workspace.root, *command)

    fk.assert_clean_error(proc, "vera", "day-001/scene-01")


def test_validate_reports_a_pending_participant_without_agent_file(tmp_path):
    workspace = fk.studio(tmp_path)
    assert fk.run(workspace.root, "next").returncode == 0
    (workspace.agents_dir / "vera.json").unlink()

    proc = fk.validate(workspace.root)

    fk.assert_no_traceback(proc)
    assert proc.returncode == 1, fk.show(proc)
    assert any("vera" in line and "day-001/scene-01" in line for line in proc.stdout.splitlines()), fk.show(proc)


# -- item 4: artifact_kind is checked with the agent file -----------------------------------


def _bad_kind(workspace, kind="Konzept-Art"):
    path = workspace.agents_dir / "vera.json"
    agent = fk.read_json(path)
    agent["artifact_kind"] = kind
    fk.write_json(path, agent)


def test_validate_reports_an_invalid_artifact_kind_in_the_agent_file(tmp_path):
    workspace = fk.studio(tmp_path)
    _bad_kind(workspace)

    proc = fk.validate(workspace.root)

    fk.assert_no_traceback(proc)
    assert proc.returncode == 1, fk.show(proc)
    assert any("state/agents/vera.json" in line and "artifact_kind" in line for line in proc.stdout.splitlines()), fk.show(proc)


def test_a_work_scene_with_an_invalid_artifact_kind_blames_the_agent_file_not_the_reply(tmp_path, monkeypatch):
    workspace = fk.studio(tmp_path)
    assert fk.run(workspace.root, "scene", "run").returncode == 0
    _bad_kind(workspace)
    fk.register_backends(monkeypatch)

    # Vera finishes an artifact of her own artifact_kind, as any character would.
    result = fk.cli(workspace.root, "scene", "run", "--type", "WORK", "--with", "vera", "--backend", "ValidReplyBackend")

    fk.assert_no_exception(result)
    assert result.exit_code == 1, fk.show_result(result)
    assert "state/agents/vera.json" in result.stderr and "artifact_kind" in result.stderr, fk.show_result(result)


# -- item 9: a hand edit after a crash is not silently undone -------------------------------


class Crash(BaseException):
    """Stands for the process dying: nothing after it runs."""


def _crash_after_the_journal(workspace, monkeypatch) -> None:
    """An ARRIVAL applied up to its journal and stream appends; the process dies before the file rewrites."""
    gm = GameMaster(workspace)
    pending = fk.open_arrival(workspace)
    backend = ScriptedBackend([valid_reply] * len(pending.turns))
    for turn in pending.missing():
        gm.store_reply(pending, turn, backend.reply(gm.build_request(pending, turn)))

    def die(*args, **kwargs):
        raise Crash("killed after the journal and the stream appends, before the file rewrites")

    monkeypatch.setattr(transaction_module, "atomic_write_text", die)
    with pytest.raises(Crash):
        gm.apply(pending)
    monkeypatch.undo()
    assert workspace.journal_path.exists()


def test_a_hand_edit_made_after_a_crash_is_not_undone_by_the_replay(tmp_path, monkeypatch):
    workspace = fk.studio(tmp_path)
    _crash_after_the_journal(workspace, monkeypatch)
    # The user, seeing the studio stopped, edits Vera by hand before running anything.
    vera_path = workspace.agents_dir / "vera.json"
    vera = fk.read_json(vera_path)
    edited = "Vera Kowalski, Concept Artist – VON HAND GEÄNDERT nach dem Absturz."
    vera["persona"] = edited
    fk.write_json(vera_path, vera)

    proc = fk.run(workspace.root, "next")

    fk.assert_no_traceback(proc)
    persona = fk.read_json(vera_path)["persona"]
    assert persona == edited, f"the hand edit of state/agents/vera.json was silently undone\n{fk.show(proc)}"
    if proc.returncode != 0:  # refusing loudly is fine: it must say which file and keep the journal
        fk.assert_clean_error(proc, "state/agents/vera.json")
        assert workspace.journal_path.exists()
    else:  # merged: the edit stays and the scene's own changes (Vera's plan) landed too
        assert fk.read_json(vera_path)["today_plan"] is not None
        fk.assert_valid(workspace.root)


def test_a_hand_edit_of_a_field_the_interrupted_scene_changes_is_refused_by_name(tmp_path, monkeypatch):
    workspace = fk.studio(tmp_path)
    _crash_after_the_journal(workspace, monkeypatch)
    vera_path = workspace.agents_dir / "vera.json"
    vera = fk.read_json(vera_path)
    vera["today_plan"] = {"text": "Von Hand: heute nur Türme.", "tags": []}
    fk.write_json(vera_path, vera)

    proc = fk.run(workspace.root, "next")

    fk.assert_clean_error(proc, "state/agents/vera.json", "today_plan")
    assert fk.read_json(vera_path)["today_plan"]["text"] == "Von Hand: heute nur Türme."
    assert workspace.journal_path.exists()


# -- item 10: a corrupt journal -----------------------------------------------------------


def _truncate_journal(workspace):
    workspace.journal_path.write_text('{"label": "scene day-001/scene-01", "appends": {"vera": [{"id": "vera-0', encoding="utf-8")


@pytest.mark.parametrize("command", [("next",), ("brief", "Mehr Asche.")])
def test_a_truncated_journal_gives_a_clear_error_naming_it(tmp_path, command):
    workspace = fk.studio(tmp_path)
    _truncate_journal(workspace)

    proc = fk.run(workspace.root, *command)

    fk.assert_clean_error(proc, "state/.journal.json")


def test_validate_reports_a_truncated_journal(tmp_path):
    workspace = fk.studio(tmp_path)
    _truncate_journal(workspace)

    proc = fk.validate(workspace.root)

    fk.assert_no_traceback(proc)
    assert proc.returncode == 1, fk.show(proc)
    assert any(".journal.json" in line and "warning:" not in line for line in proc.stdout.splitlines()), fk.show(proc)


# -- item 12: memory ids never repeat -----------------------------------------------------


def test_an_id_freed_by_deleting_the_last_line_is_never_handed_out_again(tmp_path):
    workspace = fk.studio(tmp_path)
    assert fk.run(workspace.root, "scene", "run").returncode == 0
    stream = workspace.memories_dir / "vera.jsonl"
    lines = stream.read_text(encoding="utf-8").splitlines(keepends=True)
    freed = json.loads(lines[-1])["id"]
    record = fk.read_json(workspace.scenes / "day-001/scene-01/scene.json")
    assert freed in [entry["id"] for entry in record["written"]]  # the scene record cites it
    stream.write_text("".join(lines[:-1]), encoding="utf-8")

    proc = fk.run(workspace.root, "brief", "Die Türme brauchen eine Biologie.", "--to", "vera")

    assert proc.returncode == 0, fk.show(proc)
    ids = fk.stream_ids(workspace, "vera")
    assert freed not in ids, f"{freed} was handed out again for a different memory (stream ends {ids[-3:]})"
    assert int(ids[-1].rsplit("-", 1)[1]) > int(freed.rsplit("-", 1)[1])


# -- item 14: one stray file in state/agents does not stop everything ------------------------


def _bak_copy(workspace):
    path = workspace.agents_dir / "vera.bak.json"
    path.write_bytes((workspace.agents_dir / "vera.json").read_bytes())
    return path


def _apple_double(workspace):
    path = workspace.agents_dir / "._vera.json"
    path.write_bytes(b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        \x00\x02\x00\x00\x00\t\x00\x00\x002\xff\xfe")
    return path


@pytest.mark.parametrize("stray", [_bak_copy, _apple_double], ids=["vera.bak.json", "._vera.json"])
def test_a_stray_file_in_state_agents_is_skipped_with_a_warning(tmp_path, stray):
    workspace = fk.studio(tmp_path)
    path = stray(workspace)

    status = fk.run(workspace.root, "status")
    nxt = fk.run(workspace.root, "next")
    check = fk.validate(workspace.root)

    for proc in (status, nxt, check):
        fk.assert_no_traceback(proc)
    assert status.returncode == 0, fk.show(status)
    assert "vera" in status.stdout and path.name in status.stderr, fk.show(status)
    assert nxt.returncode == 0, fk.show(nxt)
    assert "Vera Kowalski" in nxt.stdout
    assert path.name in check.stdout + check.stderr, fk.show(check)
