"""A brief asks one character to organise a gathering: the offline player proposes it in its
next reply (what, day, time of day, place, whom), the invitees answer, and it takes place."""

from __future__ import annotations

import json

import faultkit as fk


def _world(root):
    return json.loads((root / "state/world.json").read_text(encoding="utf-8"))


def test_a_brief_to_organise_a_party_makes_the_offline_character_propose_it_and_it_is_held(tmp_path):
    workspace = fk.studio(tmp_path)
    assert _world(workspace.root)["first_weekday"] == "mon"  # day 4 is a Thursday
    proc = fk.run(workspace.root, "brief", "Organisiere am Donnerstag mittags eine Party und lade alle ein", "--to", "emre")
    assert proc.returncode == 0, fk.show(proc)
    assert fk.run(workspace.root, "day", "advance").returncode == 0
    gatherings = _world(workspace.root)["gatherings"]
    assert [(g["host"], g["day"], g["slot"], sorted(g["invited"])) for g in gatherings] == [
        ("emre", 4, "lunch", ["darius", "finn", "leo", "nami", "tobi", "vera"])]
    gathering = gatherings[0]
    assert "Party" in gathering["what"] and gathering["place"].strip()
    # Proposed in Emre's own reply, which says so aloud.
    reply = json.loads((workspace.scene_dir(gathering["created"]) / "replies").joinpath(
        next(p.name for p in sorted((workspace.scene_dir(gathering["created"]) / "replies").glob("*.json"))
             if json.loads(p.read_text(encoding="utf-8"))["agent"] == "emre")).read_text(encoding="utf-8"))
    assert reply["gathering"]["day"] == 4 and "Party" in reply["says"] and "Donnerstag" in reply["says"]
    for _ in range(3):
        assert fk.run(workspace.root, "day", "advance").returncode == 0
    gathering = _world(workspace.root)["gatherings"][0]
    assert gathering["held"] and gathering["held"].startswith("day-004/")
    record = json.loads((workspace.scene_dir(gathering["held"]) / "scene.json").read_text(encoding="utf-8"))
    assert record["type"] == "GATHERING" and record["slot"] == "lunch" and "emre" in record["participants"]
    # Nobody proposes it a second time.
    assert len(_world(workspace.root)["gatherings"]) == 1
    fk.assert_valid(workspace.root)


def test_the_same_brief_gives_the_same_proposal_for_the_same_seed(tmp_path):
    found = []
    for name in ("a", "b"):
        workspace = fk.studio(tmp_path / name)
        fk.run(workspace.root, "brief", "Plane für morgen Abend ein Quittenfest im Innenhof und lade Vera und Darius ein",
               "--to", "nami")
        assert fk.run(workspace.root, "day", "advance").returncode == 0
        found.append([{k: g[k] for k in ("host", "what", "day", "slot", "place", "invited", "created")}
                      for g in _world(workspace.root)["gatherings"]])
        # Said aloud to the two it invites, by name: the others at the table are not told „ihr“.
        folder = workspace.scene_dir(found[-1][0]["created"]) / "replies"
        [says] = [r["says"] for r in (json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json")))
                  if r["agent"] == "nami" and "Quittenfest" in r["says"]]
        assert "Darius und Vera, " in says, says
    assert found[0] == found[1]
    assert [(g["host"], g["day"], g["slot"], g["place"], sorted(g["invited"])) for g in found[0]] == [
        ("nami", 2, "evening", "Innenhof", ["darius", "vera"])]


def test_a_brief_for_a_day_further_ahead_than_a_reply_may_plan_proposes_nothing_and_the_day_plays(tmp_path):
    workspace = fk.studio(tmp_path)
    fk.run(workspace.root, "brief", "Organisiere an Tag 90 eine Feier und lade alle ein", "--to", "vera")
    proc = fk.run(workspace.root, "day", "advance")
    fk.assert_no_traceback(proc)
    assert proc.returncode == 0, fk.show(proc)
    assert _world(workspace.root)["gatherings"] == []
