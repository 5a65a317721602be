"""Issue 20, item 1: a reply's takeaways name someone whose words the prompt never showed (not
in the conversation, not heard lately, not kept by a memory it shows); one clear line, nothing
stored."""

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
    request = gm.build_request(pending, 0)
    body = valid_reply(request)
    stranger = sorted(set(gm.agents()) - set(request.heard_from) - {"vera", "darius"})[0]
    body["takeaways"] = [{"from": stranger, "what": "Das Artbook kommt später."}]
    path = tmp_path / "vera.json"
    path.write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")
    scene_before = fk.tree_snapshot(pending.dir)

    proc = fk.run(workspace.root, "reply", "vera", str(path))

    text = fk.assert_clean_error(proc, "vera", "takeaways.0.from", f"'{stranger}'", "here: darius")
    assert len(fk.error_lines(proc)) == 1, text
    assert {k: v for k, v in fk.tree_snapshot(pending.dir).items() if "/prompts/" not in k} == {
        k: v for k, v in scene_before.items() if "/prompts/" not in k}
