"""A kind's settings stand under its name in world.json (``"kinds": {"meeting": {"rounds": 2}}``).

A world.json written before (flat keys such as ``meeting_rounds``) plays as it did, ``validate``
and ``doctor`` name each old key with its new name, and ``doctor --fix`` writes the world in the
new form, keeping everything else; a key under both names is one error line naming it.
"""

from __future__ import annotations

import json
import os
import stat

import faultkit as fk

#: The kind settings of a world.json from before they were namespaced, with their new places.
OLD = {"meeting_rounds": 3, "work_group_size": 2, "encounters_per_day": 1, "encounter_rounds": 2,
       "meeting_notices": "all"}
NEW = {"meeting": {"rounds": 3, "notices": "all"}, "work": {"group_size": 2}, "encounter": {"per_day": 1, "rounds": 2}}


def old_world(workspace) -> dict:
    """The studio's world.json as an old workspace has it: flat kind keys, and a key of the user's own."""
    data = fk.read_json(workspace.world_path)
    data.pop("kinds", None)
    data.update(OLD)
    data["note"] = "kept by hand"
    fk.write_json(workspace.world_path, data)
    return data


def test_old_flat_keys_still_play_as_they_say(tmp_path):
    workspace = fk.studio(tmp_path)
    old_world(workspace)

    for args in (("scene", "run", "--backend", "offline"),
                 ("scene", "run", "--backend", "offline", "--type", "meeting", "--with", "vera,emre")):
        proc = fk.run(workspace.root, *args)
        assert proc.returncode == 0, fk.show(proc)
    meeting = workspace.root / "scenes/day-001/scene-02"
    # meeting_rounds 3: each of the two speaks three times.
    assert sorted(p.name for p in (meeting / "replies").iterdir()) == [
        "01-vera.json", "02-emre.json", "03-vera.json", "04-emre.json", "05-vera.json", "06-emre.json"]


def test_validate_and_doctor_name_each_old_key_with_its_new_name(tmp_path):
    workspace = fk.studio(tmp_path)
    old_world(workspace)

    proc = fk.validate(workspace.root)
    assert proc.returncode == 0, fk.show(proc)
    assert ("state/world.json: warning: meeting_rounds: an old name, read as kinds.meeting.rounds "
            "(`gamemaster doctor --fix` writes it there)") in proc.stdout.splitlines(), fk.show(proc)
    assert sum("an old name" in line for line in proc.stdout.splitlines()) == len(OLD)

    proc = fk.run(workspace.root, "doctor")
    fk.assert_no_traceback(proc)
    assert "state/world.json: meeting_rounds 3: an old name — moved to kinds.meeting.rounds" in proc.stdout.splitlines()
    assert "state/world.json: work_group_size 2: an old name — moved to kinds.work.group_size" in proc.stdout.splitlines()


def test_doctor_fix_writes_the_namespaced_form_losing_nothing_and_keeping_the_mode(tmp_path):
    workspace = fk.studio(tmp_path)
    before = old_world(workspace)
    os.chmod(workspace.world_path, 0o640)

    proc = fk.run(workspace.root, "doctor", "--fix")
    assert proc.returncode == 0, fk.show(proc)

    after = fk.read_json(workspace.world_path)
    assert not set(OLD) & set(after)
    for kind, settings in NEW.items():
        assert after["kinds"][kind].items() >= settings.items(), after["kinds"]
    # Nothing else lost or changed: every other key as it was, the user's own one last.
    # (The doctor writes the world whole, so events gain their unset fields, as any fix does.)
    for key, value in before.items():
        if key not in OLD and key != "events":
            assert after[key] == value, key
    assert [(e["id"], e["text"]) for e in after["events"]] == [(e["id"], e["text"]) for e in before["events"]]
    assert list(after)[-1] == "note" and list(after).index("kinds") < list(after).index("seed")
    assert stat.S_IMODE(workspace.world_path.stat().st_mode) == 0o640

    # Idempotent: a second fix finds nothing and writes nothing.
    written = workspace.world_path.read_bytes()
    proc = fk.run(workspace.root, "doctor", "--fix")
    assert proc.returncode == 0, fk.show(proc)
    assert "an old name" not in proc.stdout
    assert workspace.world_path.read_bytes() == written
    assert fk.validate(workspace.root).stdout == "0 error(s), 0 warning(s)\n"


def test_a_setting_under_both_names_is_one_line_naming_both(tmp_path):
    workspace = fk.studio(tmp_path)
    data = fk.read_json(workspace.world_path)
    data["meeting_rounds"] = 5  # the bundled world says kinds.meeting.rounds 2
    fk.write_json(workspace.world_path, data)
    before = workspace.world_path.read_bytes()

    for command in (("validate",), ("next",), ("doctor", "--fix")):
        proc = fk.run(workspace.root, *command)
        fk.assert_no_traceback(proc)
        assert proc.returncode == 1, fk.show(proc)
        lines = [line for line in (proc.stdout + proc.stderr).splitlines() if "meeting_rounds" in line]
        assert len(lines) == 1 and ("state/world.json: " in lines[0] and "meeting_rounds: the old name of "
                                    "kinds.meeting.rounds, which is set too; remove meeting_rounds" in lines[0]), fk.show(proc)
        assert workspace.world_path.read_bytes() == before

    # The same value under both names: the fix removes the old one.
    data["meeting_rounds"] = 2
    fk.write_json(workspace.world_path, data)
    proc = fk.run(workspace.root, "doctor", "--fix")
    assert proc.returncode == 0, fk.show(proc)
    assert "meeting_rounds 2: an old name — removed: kinds.meeting.rounds holds the same value" in proc.stdout
    assert "meeting_rounds" not in fk.read_json(workspace.world_path)


def test_settings_of_a_kind_not_installed_are_kept_with_a_warning(tmp_path):
    workspace = fk.studio(tmp_path)
    data = fk.read_json(workspace.world_path)
    data["kinds"]["lunch"] = {"courses": 2}  # its package was uninstalled
    fk.write_json(workspace.world_path, data)

    proc = fk.validate(workspace.root)
    assert proc.returncode == 0, fk.show(proc)
    assert ("state/world.json: warning: kinds.lunch: no scene kind LUNCH is installed; its settings are kept as they are"
            in proc.stdout.splitlines()), fk.show(proc)
    proc = fk.run(workspace.root, "config", "seed", "8")
    assert proc.returncode == 0, fk.show(proc)
    assert fk.read_json(workspace.world_path)["kinds"]["lunch"] == {"courses": 2}


def test_a_bad_value_under_an_old_name_is_named_by_the_old_name(tmp_path):
    workspace = fk.studio(tmp_path)
    data = fk.read_json(workspace.world_path)
    del data["kinds"]["meeting"]["rounds"]
    data["meeting_rounds"] = 1  # a meeting has two rounds at least
    fk.write_json(workspace.world_path, data)
    before = workspace.world_path.read_bytes()

    for command in (("status",), ("validate",)):
        proc = fk.run(workspace.root, *command)
        fk.assert_no_traceback(proc)
        lines = [line.strip() for line in (proc.stdout + proc.stderr).splitlines() if "world.json" in line]
        assert lines == ["state/world.json: meeting_rounds (read as kinds.meeting.rounds): Input should be greater "
                         "than or equal to 2"], fk.show(proc)
    assert workspace.world_path.read_bytes() == before


def test_a_section_in_capitals_is_named_as_having_no_effect(tmp_path):
    workspace = fk.studio(tmp_path)
    data = fk.read_json(workspace.world_path)
    data["kinds"]["Meeting"] = {"rounds": 9}
    fk.write_json(workspace.world_path, data)

    proc = fk.validate(workspace.root)
    assert ("state/world.json: warning: kinds.Meeting: a section's name is its kind's in lower case; as "
            "kinds.meeting it would be read, as it is it has no effect") in proc.stdout.splitlines(), fk.show(proc)
    assert fk.read_json(workspace.world_path)["kinds"]["Meeting"] == {"rounds": 9}  # nothing lost


def test_a_bad_kind_setting_is_named_by_its_place(tmp_path):
    workspace = fk.studio(tmp_path)
    data = fk.read_json(workspace.world_path)
    data["kinds"]["meeting"]["rounds"] = 1000
    data["kinds"]["arrival"] = {"rounds": 2}
    fk.write_json(workspace.world_path, data)

    proc = fk.validate(workspace.root)
    assert proc.returncode == 1, fk.show(proc)
    lines = proc.stdout.splitlines()
    assert ("state/world.json: kinds.meeting.rounds: at most 50: each round is one more turn, one model call, "
            "for every participant") in lines, fk.show(proc)
    assert ("state/world.json: kinds.arrival: this kind has no settings (kinds with settings: work, meeting, "
            "encounter)") in lines, fk.show(proc)
    assert json.loads(workspace.world_path.read_text(encoding="utf-8")) == data
