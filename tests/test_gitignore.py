"""``init`` keeps what the tool derives out of a studio's git repository (issue 40, item 1):
``state/.cache/`` is rebuilt from the state files, the lock and the journal exist while the tool
runs. A ``.gitignore`` the folder has keeps its own lines."""

from __future__ import annotations

import subprocess

import pytest

from gamemaster.create import IGNORED, init_workspace


def test_init_writes_a_gitignore_for_derived_files(tmp_path):
    workspace = init_workspace(tmp_path / "studio")
    lines = (workspace.root / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert [line for line in lines if not line.startswith("#")] == list(IGNORED)


def test_a_gitignore_of_ones_own_keeps_its_lines_and_gets_the_missing(tmp_path):
    root = tmp_path / "studio"
    root.mkdir()
    (root / ".gitignore").write_text("notes/private.md\nstate/.cache/", encoding="utf-8")  # no newline at the end
    init_workspace(root)
    lines = (root / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert lines[:2] == ["notes/private.md", "state/.cache/"]
    assert [line for line in lines[2:] if line and not line.startswith("#")] == [
        line for line in IGNORED if line != "state/.cache/"]
    before = (root / ".gitignore").read_text(encoding="utf-8")
    from gamemaster.create import keep_derived_out_of_git

    keep_derived_out_of_git(root)
    assert (root / ".gitignore").read_text(encoding="utf-8") == before  # nothing added twice


def test_git_leaves_the_derived_files_out_and_keeps_the_state(tmp_path):
    if subprocess.run(["git", "--version"], capture_output=True).returncode != 0:
        pytest.skip("git is not installed")
    from gamemaster.backends.offline import OfflineBackend
    from gamemaster.gm import GameMaster
    from gamemaster.loop import run_scene

    workspace = init_workspace(tmp_path / "studio")
    run_scene(GameMaster(workspace), OfflineBackend())
    assert list((workspace.state / ".cache").iterdir())  # the search indexes were built
    subprocess.run(["git", "init", "-q"], cwd=workspace.root, check=True)
    listed = subprocess.run(["git", "ls-files", "--others", "--exclude-standard"], cwd=workspace.root,
                            capture_output=True, text=True, check=True).stdout.splitlines()
    assert "state/world.json" in listed and "state/memories/vera.jsonl" in listed
    assert not [path for path in listed if path.startswith("state/.cache/") or path == ".gamemaster.lock"]
