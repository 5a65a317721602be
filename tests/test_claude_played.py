"""Scenes Claude played, replayed: every reply a real model wrote is accepted as it was written.

Each folder under ``fixtures/claude_scenes/`` holds the studio as it stood before its first scene
(``before/``), the scenes in order (``steps.json``) and each character's reply as the model gave it
(``replies/``, never edited; ``before.txt`` instead of ``before/`` names another folder's start),
and the memory ids each prompt showed (``shown/``, what its evidence is checked against);
its README says which model played it, when and how. A reply the
toolkit refuses here is the toolkit's finding, not the model's.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES
from gamemaster.create import init_workspace
from gamemaster.gm import GameMaster
from gamemaster.scenes import Force

SCENES = FIXTURES / "claude_scenes"


def lines(workspace, agent):
    path = workspace.memories_dir / f"{agent}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def studio_before(folder: Path, tmp_path: Path):
    # A folder played from the same start as another names that one's ``before/`` in ``before.txt``.
    before = folder / "before" if (folder / "before").is_dir() else \
        folder / (folder / "before.txt").read_text(encoding="utf-8").strip()
    workspace = init_workspace(tmp_path / "studio")
    for part in ("state", "gallery"):
        shutil.rmtree(workspace.root / part, ignore_errors=True)
        shutil.copytree(before / part, workspace.root / part)
    return workspace


def play(folder: Path, gm: GameMaster, step: dict) -> None:
    force = step.get("force")
    pending, _ = gm.open_next(Force(type=force["type"], participants=force["with"], topic=force.get("topic"))
                              if force else None)
    assert (pending.spec.ref, pending.spec.type) == (step["scene"], step["type"])
    for turn, (agent, reply) in enumerate(step["turns"]):
        see_what_the_model_saw(folder, gm, turn)
        # Stored as `gamemaster reply` stores it: the model's text, prose and fences included.
        gm.submit_reply(agent, (folder / reply).read_text(encoding="utf-8"))
    gm.apply_pending()


def see_what_the_model_saw(folder: Path, gm: GameMaster, turn: int) -> None:
    """The memory ids the model's prompt showed, as recorded when it played (``shown/``): its
    evidence is checked against those, not against what a later selection would show. Whose words
    a takeaway may weigh is the rule's of now, from the prompt recorded as the turn opened."""
    pending = gm.pending()
    recorded = folder / "shown" / pending.spec.ref / f"{pending.label(turn)}.json"
    now = pending.dir / "shown" / f"{pending.label(turn)}.json"
    assert now.exists(), f"{pending.spec.ref} turn {turn}: its prompt was not recorded when the turn opened"
    data = json.loads(now.read_text(encoding="utf-8"))
    data["memories"] = json.loads(recorded.read_text(encoding="utf-8"))["memories"]
    now.write_text(json.dumps(data), encoding="utf-8")


@pytest.mark.parametrize("name", sorted(p.name for p in SCENES.iterdir() if p.is_dir()))
def test_every_reply_a_real_model_wrote_is_accepted_as_written(name, tmp_path):
    folder = SCENES / name
    workspace = studio_before(folder, tmp_path)
    gm = GameMaster(workspace)
    for step in json.loads((folder / "steps.json").read_text(encoding="utf-8")):
        play(folder, gm, step)
        assert gm.world().pending is None


def test_the_day_2_arrival_holds_the_gatherings_proposed_for_that_afternoon_and_weighs_what_was_heard(tmp_path):
    folder = SCENES / "day2"
    workspace = studio_before(folder, tmp_path)
    gm = GameMaster(workspace)
    [arrival] = [s for s in json.loads((folder / "steps.json").read_text(encoding="utf-8")) if s["type"] == "ARRIVAL"]
    play(folder, gm, arrival)
    gatherings = gm.world().gatherings
    # Proposed at the morning ARRIVAL of day 2 for its afternoon: accepted for day 2, not moved on.
    assert gatherings and {(g.day, g.slot) for g in gatherings} == {(2, "afternoon")}
    assert "finn" in {g.host for g in gatherings}
    weighed = [m for agent in gm.agents() for m in lines(workspace, agent) if m["metadata"].get("source") == "takeaway"]
    assert weighed and all(m["metadata"]["weighed"] and 1 <= m["importance"] <= 10 for m in weighed)
