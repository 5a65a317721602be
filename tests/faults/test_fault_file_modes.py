"""Issue 9, item 11: atomic rewrites keep the file's mode and write through symlinks."""

from __future__ import annotations

import os
import stat

import faultkit as fk


def _umask_022():
    os.umask(0o022)


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_rewrites_keep_the_mode_of_the_file_they_replace(tmp_path):
    workspace = fk.studio(tmp_path)
    os.chmod(workspace.world_path, 0o664)
    os.chmod(workspace.agents_dir / "vera.json", 0o640)

    proc = fk.run(workspace.root, "scene", "run", preexec_fn=_umask_022)

    assert proc.returncode == 0, fk.show(proc)
    assert fk.read_json(workspace.agents_dir / "vera.json")["last_scene"] == "day-001/scene-01"  # rewritten
    assert oct(_mode(workspace.world_path)) == oct(0o664), "state/world.json lost its mode"
    assert oct(_mode(workspace.agents_dir / "vera.json")) == oct(0o640), "state/agents/vera.json lost its mode"


def test_new_files_get_the_umask_default_mode(tmp_path):
    workspace = fk.studio(tmp_path)

    proc = fk.run(workspace.root, "day", "advance", preexec_fn=_umask_022)

    assert proc.returncode == 0, fk.show(proc)
    day = workspace.scenes / "day-001"
    written = {
        "a gallery file": next(workspace.gallery.rglob("*.md")),
        "the day summary": day / "summary.md",
        "a stored reply": next((day / "scene-01" / "replies").glob("*.json")),
        "a scene record": day / "scene-01" / "scene.json",
    }
    modes = {what: oct(_mode(path)) for what, path in written.items()}
    assert modes == {what: oct(0o644) for what in written}, modes


def test_a_symlinked_agent_file_is_written_through_to_its_target(tmp_path):
    workspace = fk.studio(tmp_path)
    shared = workspace.root / "characters"
    shared.mkdir()
    link = workspace.agents_dir / "vera.json"
    target = shared / "vera.json"
    os.replace(link, target)
    link.symlink_to(os.path.relpath(target, link.parent))

    proc = fk.run(workspace.root, "scene", "run")

    assert proc.returncode == 0, fk.show(proc)
    assert link.is_symlink(), "state/agents/vera.json was replaced by a plain copy"
    assert fk.read_json(target)["last_scene"] == "day-001/scene-01", "the symlink's target was not updated"
