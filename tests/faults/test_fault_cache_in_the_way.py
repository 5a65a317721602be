"""Derived files in the way (issue 39, item 5): ``state/.cache/`` is the tool's own and rebuilt
from the state, so a folder where one of its files goes, or a plain file where the folder goes,
is moved aside with one warning and the command goes on; nothing of it is deleted."""

from __future__ import annotations

import shutil

import pytest

import faultkit as fk


def _fresh_cache(workspace):
    shutil.rmtree(workspace.state / ".cache", ignore_errors=True)
    (workspace.state / ".cache").mkdir()


@pytest.mark.parametrize("name", ["vera.search.sqlite.building-999999", "vera.search.sqlite", "vera.json",
                                  "stems.json"])
def test_a_folder_where_a_derived_file_goes_is_moved_aside(tmp_path, name):
    workspace = fk.studio(tmp_path)
    _fresh_cache(workspace)
    blocker = workspace.state / ".cache" / name
    blocker.mkdir()
    (blocker / "keep.txt").write_text("mine", encoding="utf-8")
    proc = fk.run(workspace.root, "recall", "vera", "Knochentürme")
    fk.assert_no_traceback(proc)
    assert proc.returncode == 0, fk.show(proc)
    assert "vera-" in proc.stdout  # her memories were read
    said = [line for line in proc.stderr.splitlines() if f"state/.cache/{name} was a folder" in line]
    assert len(said) == 1 and "moved aside to state/.cache/set-aside-1-" + name in said[0], fk.show(proc)
    assert (workspace.state / ".cache" / f"set-aside-1-{name}" / "keep.txt").read_text(encoding="utf-8") == "mine"
    again = fk.run(workspace.root, "recall", "vera", "Knochentürme")
    assert again.returncode == 0 and "moved aside" not in again.stderr, fk.show(again)


def test_a_plain_file_where_the_cache_folder_goes_is_moved_aside(tmp_path):
    workspace = fk.studio(tmp_path)
    shutil.rmtree(workspace.state / ".cache", ignore_errors=True)
    (workspace.state / ".cache").write_text("not a folder", encoding="utf-8")
    proc = fk.run(workspace.root, "recall", "vera", "Knochentürme")
    fk.assert_no_traceback(proc)
    assert proc.returncode == 0 and "vera-" in proc.stdout, fk.show(proc)
    assert "state/.cache was not a folder" in proc.stderr and "state/set-aside-1-.cache" in proc.stderr, fk.show(proc)
    assert (workspace.state / "set-aside-1-.cache").read_text(encoding="utf-8") == "not a folder"
    assert (workspace.state / ".cache").is_dir()
    fk.assert_valid(workspace.root)
