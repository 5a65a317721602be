"""An incremental report build after one that overlapped a run (issue 39, item 7): a page is
rendered from the state as loaded, its fingerprint from the files as read a moment later, so a
scene written back in between left a page that no later build renewed. A build during which the
workspace changed is not trusted by the next one."""

from __future__ import annotations

import json

from gamemaster.backends.offline import OfflineBackend
from gamemaster.loop import advance_days
from gamemaster.report import build

CHANGED = "Geändert, während der Bericht gebaut wurde."


def test_a_page_built_while_a_scene_was_written_is_rebuilt_by_the_next_build(gm, workspace, tmp_path, monkeypatch):
    advance_days(gm, OfflineBackend(), days=1)
    record_path = workspace.scene_dir("day-001/scene-01") / "scene.json"
    loaded = build.load_studio

    def while_a_scene_is_written(ws):
        studio = loaded(ws)
        record = json.loads(record_path.read_text(encoding="utf-8"))
        record["written"][0]["description"] = CHANGED  # written back after the state was read
        record_path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
        world = json.loads(workspace.world_path.read_text(encoding="utf-8"))
        workspace.world_path.write_text(json.dumps(world, ensure_ascii=False, indent=1), encoding="utf-8")
        return studio

    monkeypatch.setattr(build, "load_studio", while_a_scene_is_written)
    build.build_report(workspace, tmp_path / "site")
    day = tmp_path / "site" / "days" / "day-001.html"
    assert CHANGED not in day.read_text(encoding="utf-8")  # the state as it was loaded
    monkeypatch.setattr(build, "load_studio", loaded)
    again = build.build_report(workspace, tmp_path / "site")
    assert CHANGED in day.read_text(encoding="utf-8")  # it stayed the old page
    assert "days/day-001.html" in again.written
    third = build.build_report(workspace, tmp_path / "site")
    assert "days/day-001.html" in third.unchanged  # and is trusted again once nothing moved
