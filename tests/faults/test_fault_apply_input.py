"""Issue 9, item 6: `apply --replies DIR` rejects unreadable entries like every other reply route."""

from __future__ import annotations

import json

import pytest

import faultkit as fk
from gamemaster.gm import GameMaster
from replies import valid_reply


def _not_utf8(path):
    path.write_bytes('{"agent": "vera", "action": "Vera zeichnet \xe4rgerlich."}'.encode("latin-1"))


def _a_folder(path):
    path.mkdir()
    (path / "reply.json").write_text("{}", encoding="utf-8")


@pytest.mark.parametrize("spoil", [_not_utf8, _a_folder], ids=["not-utf8", "folder"])
def test_apply_replies_rejects_an_unreadable_entry_naming_it_and_stores_nothing(tmp_path, spoil):
    workspace = fk.studio(tmp_path)
    assert fk.run(workspace.root, "next").returncode == 0
    gm = GameMaster(workspace)
    pending = gm.pending()
    folder = tmp_path / "replies-in"
    folder.mkdir()
    for turn, agent in enumerate(pending.turns):
        if agent != "vera":
            (folder / f"{agent}.json").write_text(json.dumps(valid_reply(gm.build_request(pending, turn)), ensure_ascii=False), encoding="utf-8")
    spoil(folder / "vera.json")
    state_before = fk.tree_snapshot(workspace.state)
    scene_before = fk.tree_snapshot(pending.dir)

    proc = fk.run(workspace.root, "apply", "--replies", str(folder))

    fk.assert_clean_error(proc, "vera.json")
    assert fk.tree_snapshot(pending.dir) == scene_before, "replies were stored although one entry was rejected"
    assert {k: v for k, v in fk.tree_snapshot(workspace.state).items() if ".cache" not in k} == {
        k: v for k, v in state_before.items() if ".cache" not in k
    }
