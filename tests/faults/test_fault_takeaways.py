"""Issue 20, item 1: a reply's takeaways name someone who was not there; one clear line, nothing stored."""

from __future__ import annotations

import json

import faultkit as fk
from gamemaster.gm import GameMaster
from replies import valid_reply


def test_a_takeaway_from_someone_absent_is_rejected_naming_agent_and_field(tmp_path):
    workspace = fk.studio(tmp_path)
    assert fk.run(workspace.root, "scene", "run").returncode == 0  # the ARRIVAL, offline
    opened = fk.run(workspace.root, "next", "--type", "meeting", "--with", "vera,darius", "--topic", "Knochentürme")
    assert opened.returncode == 0, fk.show(opened)
    gm = GameMaster(workspace)
    pending = gm.pending()
    body = valid_reply(gm.build_request(pending, 0))
    body["takeaways"] = [{"from": "finn", "what": "Finn hat gesagt, das Artbook kommt später."}]
    path = tmp_path / "vera.json"
    path.write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")
    scene_before = fk.tree_snapshot(pending.dir)

    proc = fk.run(workspace.root, "reply", "vera", str(path))

    text = fk.assert_clean_error(proc, "vera", "takeaways.0.from", "'finn'", "present: darius")
    assert len(fk.error_lines(proc)) == 1, text
    assert {k: v for k, v in fk.tree_snapshot(pending.dir).items() if "/prompts/" not in k} == {
        k: v for k, v in scene_before.items() if "/prompts/" not in k}
