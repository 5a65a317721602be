"""``gamemaster day archive``: finished days packed, read back as they were, never today's."""

from __future__ import annotations

import json
import shutil
import tarfile

import faultkit as fk
from gamemaster.create import init_workspace


def _played(tmp_path, days: int = 2):
    root = tmp_path / "studio"
    init_workspace(root)
    proc = fk.run(root, "day", "advance", "--days", str(days), "--backend", "offline", timeout=3 * fk.HANG_GUARD)
    assert proc.returncode == 0, fk.show(proc)
    return root


def _tree(folder) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_archived_days_read_back_identically_and_unpack_to_the_same_bytes(tmp_path):
    root = _played(tmp_path)
    before = _tree(root / "scenes")
    report = fk.run(root, "report", "--out", str(tmp_path / "report-before"))
    assert report.returncode == 0, fk.show(report)
    cost = fk.run(root, "cost", "--json")
    knows = fk.run(root, "who-knows", "Knochentürme", "--json")
    shown = [fk.run(root, "memories", agent, "--json").stdout for agent in ("vera", "tobi")]

    packed = fk.run(root, "day", "archive")
    fk.assert_no_traceback(packed)
    assert packed.stdout.startswith("scenes/day-001/ → scenes/day-001.tar.xz: "), fk.show(packed)
    assert sorted(p.name for p in (root / "scenes").iterdir()) == ["day-001.tar.xz", "day-001.tar.xz.sha256", "day-002"]

    again = fk.run(root, "report", "--out", str(tmp_path / "report-after"))
    assert again.returncode == 0, fk.show(again)
    assert _tree(tmp_path / "report-after") == _tree(tmp_path / "report-before")
    assert fk.run(root, "cost", "--json").stdout == cost.stdout
    assert fk.run(root, "who-knows", "Knochentürme", "--json").stdout == knows.stdout
    assert [fk.run(root, "memories", agent, "--json").stdout for agent in ("vera", "tobi")] == shown
    valid = fk.validate(root)
    assert valid.returncode == 0, fk.show(valid)

    # Unpacked with plain tar, the folder is back, byte for byte.
    unpacked = tmp_path / "unpacked"
    with tarfile.open(root / "scenes" / "day-001.tar.xz") as tar:
        tar.extractall(unpacked, filter="data")
    restored = {f"day-001/{name}": data for name, data in _tree(unpacked / "day-001").items()}
    assert restored == {name: data for name, data in before.items() if name.startswith("day-001/")}
    assert len(restored) > 50

    nothing = fk.run(root, "day", "archive")
    assert nothing.stdout.startswith("nothing to archive"), fk.show(nothing)


def test_no_day_is_archived_while_an_interrupted_scene_waits(tmp_path):
    root = _played(tmp_path)
    journal = root / "state" / ".journal.json"
    journal.write_text(json.dumps({"scene": "day-002/scene-01"}), encoding="utf-8")
    proc = fk.run(root, "day", "archive")
    assert fk.assert_clean_error(proc, "state/.journal.json") and "nothing was archived" in proc.stderr
    assert (root / "scenes" / "day-001").is_dir() and not (root / "scenes" / "day-001.tar.xz").exists()


def test_an_archiving_stopped_before_the_folder_was_removed_is_finished_by_the_next(tmp_path):
    root = _played(tmp_path)
    kept = tmp_path / "kept"
    shutil.copytree(root / "scenes" / "day-001", kept)
    fk.run(root, "day", "archive")
    shutil.copytree(kept, root / "scenes" / "day-001")  # as if the run stopped before removing it
    (root / "scenes" / "day-001" / "scene-01" / "scene.json").unlink()  # ...halfway through
    proc = fk.run(root, "day", "archive")
    assert proc.returncode == 0, fk.show(proc)
    assert not (root / "scenes" / "day-001").exists()


def test_a_budget_check_over_packed_days_does_not_unpack_them(tmp_path, monkeypatch):
    from gamemaster import scene_files
    from gamemaster.archive import archive_days
    from gamemaster.costs import cost_report
    from gamemaster.workspace import Workspace

    root = tmp_path / "studio"
    init_workspace(root)
    workspace = Workspace(root)
    for day in ("day-001", "day-002"):  # usage of a pending scene in files, of an applied one in its record
        scene = root / "scenes" / day / "scene-01"
        (scene / "usage").mkdir(parents=True)
        (scene / "usage" / "01-vera.json").write_text(json.dumps(
            {"calls": [{"model": "claude-sonnet-4-5", "input_tokens": 1000, "output_tokens": 200}]}))
        if day == "day-002":
            (scene / "scene.json").write_text(json.dumps(
            {"usage": {"02-tobi": [{"model": "claude-sonnet-4-5", "input_tokens": 50, "output_tokens": 7, "cost_usd": 0.25}]}}))
    world = workspace.load_world()
    world.day = 3
    workspace.save_world(world)
    before = cost_report(workspace)
    assert [p.day for p in archive_days(workspace).packed] == ["day-001", "day-002"]
    assert cost_report(workspace) == before

    unpacked = []
    members = scene_files._members
    monkeypatch.setattr(scene_files, "_members", lambda *key: unpacked.append(key[0]) or members(*key))
    for _ in range(3):  # as `next --budget` does before every scene
        assert cost_report(workspace) == before
    assert unpacked == []
    assert before["total"]["calls"] == 2 and before["agents"]["tobi"]["usd"] == 0.25
    assert before["agents"]["vera"]["input_tokens"] == 1000


def test_archiving_many_days_says_how_far_it_has_come(tmp_path, monkeypatch, capsys):
    from gamemaster import archive
    from gamemaster.workspace import Workspace

    root = _played(tmp_path, days=3)
    monkeypatch.setattr(archive, "PROGRESS_DAYS", 2)  # as for ten days or more
    done = archive.archive_days(Workspace(root))
    assert [p.day for p in done.packed] == ["day-001", "day-002"]
    assert capsys.readouterr().err.splitlines() == ["gamemaster: archiving 2 days …",
                                                    "gamemaster: archiving days: 1 of 2 (50 %)",
                                                    "gamemaster: archived 2 days"]


def test_day_advance_packs_days_older_than_archive_after_and_reads_them_as_before(tmp_path):
    root = tmp_path / "studio"
    init_workspace(root)
    setting = fk.run(root, "config", "archive_after", "1")
    assert setting.returncode == 0, fk.show(setting)
    played = fk.run(root, "day", "advance", "--days", "2", "--backend", "offline", timeout=3 * fk.HANG_GUARD)
    assert played.returncode == 0, fk.show(played)
    # Day 2 has ended but is the day world.json is on: day 1 is the only finished day, and the newest one stays.
    assert sorted(p.name for p in (root / "scenes").iterdir()) == ["day-001", "day-002"]
    memories = json.loads(fk.run(root, "memories", "vera", "--json").stdout)["memories"]
    day_one = {p.relative_to(root).as_posix(): p.read_bytes() for p in (root / "scenes" / "day-001").rglob("*") if p.is_file()}

    third = fk.run(root, "day", "advance", "--backend", "offline", "--json", timeout=3 * fk.HANG_GUARD)
    assert third.returncode == 0, fk.show(third)
    assert [p["day"] for p in json.loads(third.stdout)["archived"]] == ["day-001"]
    assert sorted(p.name for p in (root / "scenes").iterdir()) == [
        "day-001.tar.xz", "day-001.tar.xz.sha256", "day-002", "day-003"]
    assert json.loads(fk.run(root, "memories", "vera", "--json").stdout)["memories"][:len(memories)] == memories
    from gamemaster import scene_files
    from gamemaster.workspace import Workspace

    workspace = Workspace(root)
    assert {p.relative_to(root).as_posix(): scene_files.read_bytes(workspace.scenes, p)
            for depth in ("*", "*/*", "*/*/*") for p in scene_files.glob(workspace.scenes, f"day-001/{depth}")
            if scene_files.is_file(workspace.scenes, p)} == day_one
    valid = fk.validate(root)
    assert valid.returncode == 0, fk.show(valid)


def test_by_default_a_week_of_finished_days_stays_folders_and_0_never_packs(tmp_path):
    root = tmp_path / "studio"
    init_workspace(root)
    world = json.loads((root / "state" / "world.json").read_text(encoding="utf-8"))
    world["day"] = 9  # nine finished days' folders, as if played
    (root / "state" / "world.json").write_text(json.dumps(world), encoding="utf-8")
    for day in range(1, 10):
        (root / "scenes" / f"day-{day:03d}" / "scene-01").mkdir(parents=True)
        (root / "scenes" / f"day-{day:03d}" / "scene-01" / "note.txt").write_text(f"Tag {day}", encoding="utf-8")
    from gamemaster.archive import archive_when_due
    from gamemaster.workspace import Workspace

    done = archive_when_due(Workspace(root))
    assert [p.day for p in done.packed] == ["day-001"]  # day 2 to 8: the seven newest finished days
    assert (root / "scenes" / "day-002" / "scene-01" / "note.txt").read_text(encoding="utf-8") == "Tag 2"
    world["archive_after"] = 0
    (root / "state" / "world.json").write_text(json.dumps(world), encoding="utf-8")
    assert archive_when_due(Workspace(root)) is None
    assert (root / "scenes" / "day-002").is_dir()
