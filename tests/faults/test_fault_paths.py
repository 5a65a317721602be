"""Issue 9, item 1: ids from hand-editable files never become paths outside the workspace.

Each test puts a sentinel folder beside the workspace (``victim/``) and checks that
nothing beside the workspace changed, and that ``validate`` reports the bad value
as an error naming the file and the field.
"""

from __future__ import annotations

import json

import faultkit as fk


def _arrival_reply(agent: str, ref: str) -> str:
    return json.dumps(
        {
            "agent": agent,
            "scene": ref,
            "action": "schreibt",
            "says": "hallo",
            "plan": {"text": "Heute zeichne ich.", "tags": ["plan"], "importance": 3},
        }
    )


def test_reply_for_a_hand_edited_participant_path_writes_nothing_outside_the_workspace(tmp_path):
    workspace, victim = fk.with_sentinel(tmp_path)
    assert fk.run(workspace.root, "next").returncode == 0
    record_path = fk.pending_record_path(workspace)
    record = fk.read_json(record_path)
    # The reply file is scenes/day-001/scene-01/replies/08-<id>.json: "08-.." is a new
    # folder, then six more levels up reach tmp_path, beside the workspace.
    evil = "../" * 7 + "victim/settings"
    record["participants"].append(evil)
    fk.write_json(record_path, record)
    before = fk.outside_files(tmp_path, workspace)

    proc = fk.run(workspace.root, "reply", evil, "-", input=_arrival_reply(evil, record["ref"]))

    fk.assert_no_traceback(proc)
    assert fk.outside_files(tmp_path, workspace) == before, (
        "a file beside the workspace was written: "
        + (victim / "settings.json").read_text(encoding="utf-8") + f" mode {oct((victim / 'settings.json').stat().st_mode)}\n"
        + fk.show(proc)
    )
    assert proc.returncode == 1, fk.show(proc)


def test_validate_reports_a_path_as_a_scene_participant(tmp_path):
    workspace, _ = fk.with_sentinel(tmp_path)
    assert fk.run(workspace.root, "next").returncode == 0
    record_path = fk.pending_record_path(workspace)
    record = fk.read_json(record_path)
    record["participants"].append("../../../../victim/settings")
    fk.write_json(record_path, record)

    proc = fk.validate(workspace.root)

    fk.assert_no_traceback(proc)
    assert proc.returncode == 1, fk.show(proc)
    rel = workspace.rel(record_path)
    assert any(rel in line and "participants" in line for line in proc.stdout.splitlines()), fk.show(proc)


def test_validate_and_next_reject_a_path_as_world_pending(tmp_path):
    workspace, _ = fk.with_sentinel(tmp_path)
    world = fk.read_json(workspace.world_path)
    world["pending"] = "../../victim/scene-01"
    fk.write_json(workspace.world_path, world)
    before = fk.outside_files(tmp_path, workspace)

    check = fk.validate(workspace.root)
    nxt = fk.run(workspace.root, "next")

    fk.assert_no_traceback(check)
    assert check.returncode == 1, fk.show(check)
    assert any("state/world.json" in line and "pending" in line for line in check.stdout.splitlines()), fk.show(check)
    fk.assert_clean_error(nxt, "state/world.json", "pending")
    assert fk.outside_files(tmp_path, workspace) == before


def test_validate_reports_a_path_as_a_brief_addressee_and_play_stays_inside(tmp_path):
    workspace, _ = fk.with_sentinel(tmp_path)
    world = fk.read_json(workspace.world_path)
    world["briefs"] = [{"id": "brief-001", "text": "Mehr Knochen.", "to": ["../../../victim/settings"], "created": "day-001/scene-01", "seen_by": []}]
    world["briefs_issued"] = 1
    fk.write_json(workspace.world_path, world)
    before = fk.outside_files(tmp_path, workspace)

    check = fk.validate(workspace.root)
    fk.run(workspace.root, "scene", "run")

    fk.assert_no_traceback(check)
    assert check.returncode == 1, fk.show(check)
    assert any("state/world.json" in line and "brief" in line for line in check.stdout.splitlines()), fk.show(check)
    assert fk.outside_files(tmp_path, workspace) == before


def test_validate_reports_a_path_in_a_talk_wish_as_an_error(tmp_path):
    workspace, _ = fk.with_sentinel(tmp_path)
    agent_path = workspace.agents_dir / "vera.json"
    agent = fk.read_json(agent_path)
    agent["talk_wishes"] = [{"with": ["../../../victim/settings"], "topic": "Knochentürme", "tags": []}]
    fk.write_json(agent_path, agent)

    check = fk.validate(workspace.root)

    fk.assert_no_traceback(check)
    errors = [line for line in check.stdout.splitlines() if "state/agents/vera.json" in line and "talk_wishes" in line]
    assert errors and not any("warning:" in line for line in errors), fk.show(check)
    assert check.returncode == 1, fk.show(check)


def test_validate_reports_a_path_as_artifact_kind_and_a_work_scene_stays_inside(tmp_path):
    workspace, _ = fk.with_sentinel(tmp_path)
    agent_path = workspace.agents_dir / "vera.json"
    agent = fk.read_json(agent_path)
    agent["artifact_kind"] = "../../../etc"
    fk.write_json(agent_path, agent)
    before = fk.outside_files(tmp_path, workspace)

    check = fk.validate(workspace.root)
    fk.run(workspace.root, "scene", "run")
    work = fk.run(workspace.root, "scene", "run", "--type", "WORK", "--with", "vera")

    fk.assert_no_traceback(work)
    assert fk.outside_files(tmp_path, workspace) == before
    fk.assert_no_traceback(check)
    assert check.returncode == 1, fk.show(check)
    assert any("state/agents/vera.json" in line and "artifact_kind" in line for line in check.stdout.splitlines()), fk.show(check)


def test_a_reply_artifact_kind_with_dotdot_is_rejected_and_writes_nothing_outside(tmp_path):
    workspace, _ = fk.with_sentinel(tmp_path)
    assert fk.run(workspace.root, "scene", "run").returncode == 0
    assert fk.run(workspace.root, "next", "--type", "WORK", "--with", "vera").returncode == 0
    ref = fk.read_json(workspace.world_path)["pending"]
    reply = {
        "agent": "vera",
        "scene": ref,
        "action": "zeichnet",
        "artifacts": [
            {"title": "Ausbruch", "kind": "../../../victim", "content": "# x\n\ny", "summary": "Vera zeichnet.", "importance": 5}
        ],
    }
    before = fk.outside_files(tmp_path, workspace)

    proc = fk.run(workspace.root, "reply", "vera", "-", input=json.dumps(reply))

    fk.assert_clean_error(proc, "vera", "kind")
    assert fk.outside_files(tmp_path, workspace) == before
    assert not list(workspace.scenes.glob(f"{ref}/replies/*.json"))


def test_apply_replies_naming_a_scene_outside_scenes_reads_nothing_there(tmp_path):
    """With no scene pending, `apply` looks up the scene a reply names; a path must not be followed."""
    workspace, victim = fk.with_sentinel(tmp_path)
    folder = tmp_path / "replies-in"
    folder.mkdir()
    (folder / "vera.json").write_text(json.dumps({"agent": "vera", "scene": "../../victim", "action": "x"}), encoding="utf-8")

    proc = fk.run(workspace.root, "apply", "--replies", str(folder))

    fk.assert_no_traceback(proc)
    # victim/scene.json says "applied": only following the path could find that out.
    assert "already applied" not in proc.stdout + proc.stderr, fk.show(proc)
    assert proc.returncode == 1, fk.show(proc)
