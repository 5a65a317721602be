"""A whole day of the bundled studio that Claude played, replayed through the real loop and write-back.

``fixtures/claude_days/<name>/`` holds the studio before the day (``before.txt`` names the folder
with its ``state/`` and ``gallery/``) and the day as a gamemaster recording (``recording/``):
every prompt a character was given and its reply as the model wrote it, never edited. The README
says which model played it, when and how. ``--backend replay`` answers each turn from it; what
the toolkit refuses here is its own finding, not the model's.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES
from gamemaster.backends.replay import ReplayBackend
from gamemaster.create import init_workspace
from gamemaster.gm import GameMaster
from gamemaster.loop import advance_days
from gamemaster.pending import scene_record
from gamemaster.recording import Recording
from gamemaster.validate import validate_workspace
from gamemaster.who_knows import who_knows

DAYS = FIXTURES / "claude_days"
DAY2 = DAYS / "day2"


def studio_before(folder: Path, tmp_path: Path):
    before = (folder / (folder / "before.txt").read_text(encoding="utf-8").strip()).resolve()
    workspace = init_workspace(tmp_path / "studio")
    for part in ("state", "gallery"):
        shutil.rmtree(workspace.root / part, ignore_errors=True)
        shutil.copytree(before / part, workspace.root / part)
    return workspace


def lines(workspace, agent):
    path = workspace.memories_dir / f"{agent}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def replayed(tmp_path_factory):
    """Day 2 played again from its recording: the studio after it, what was said, the backend."""
    workspace = studio_before(DAY2, tmp_path_factory.mktemp("day2"))
    gm = GameMaster(workspace)
    gm.close_day_if_over()  # day 1 was over when the day was played: its summary is written first
    backend = ReplayBackend(source=DAY2 / "recording")
    events: list[tuple[str, dict]] = []
    report = advance_days(gm, backend, days=1, listen=lambda event, data: events.append((event, data)))
    return workspace, gm, backend, events, report


def test_the_recording_is_a_whole_day_of_every_kind_played_by_claude():
    recording = Recording(DAY2 / "recording")
    kinds = {recording.scene(ref).type for ref in recording.scenes}
    assert {"ARRIVAL", "WORK", "MEETING", "ENCOUNTER", "GATHERING", "REFLECTION"} <= kinds
    assert all(ref.startswith("day-002/") for ref in recording.scenes)


def test_every_reply_claude_wrote_is_accepted_on_the_first_try(replayed):
    workspace, gm, backend, events, report = replayed
    recording = backend.recording
    assert [data for event, data in events if event == "invalid"] == []
    turns = sum(len(outcome.spec.turns) for outcome in report.scenes)
    assert backend.replayed == turns == 50 and not backend.live
    assert len(report.summaries) == 1 and gm.world().day == 2 and gm.world().pending is None
    assert [outcome.spec.ref for outcome in report.scenes] == sorted(recording.scenes)
    # When it was played, one reply was refused: Tobi weighed what Vera's invitation said, and
    # an invitation's host did not count as someone whose words the prompt showed. The toolkit
    # takes it now; the same text, stored again, is the second attempt in the recording.
    refused = recording.turn("day-002/scene-07", "01-tobi", 1)
    assert not refused.accepted and "takeaways.0.from: 'vera' is not someone" in refused.error
    assert recording.turn("day-002/scene-07", "01-tobi", 2).reply == refused.reply
    assert recording.most_attempts() == 2


def test_the_gatherings_proposed_at_the_arrival_are_held_that_afternoon_by_those_who_came(replayed):
    workspace, gm, *_ = replayed
    proposed = [g for g in gm.world().gatherings if g.created == "day-002/scene-01"]
    assert [(g.id, g.host, g.day, g.slot) for g in proposed] == [
        ("gathering-001", "darius", 2, "afternoon"), ("gathering-002", "finn", 2, "afternoon"),
        ("gathering-003", "vera", 2, "afternoon")]
    held = {g.id: scene_record(workspace, g.held) for g in proposed}
    assert all(record.day == 2 and record.slot == "afternoon" and record.type == "GATHERING" for record in held.values())
    # Everyone who accepted came, except a host of another gathering at the same time.
    assert held["gathering-001"].participants == ["darius", "leo", "nami", "tobi"]
    assert held["gathering-001"].attendance["absent"] == []
    assert (held["gathering-002"].participants, held["gathering-002"].attendance["absent"]) == (["finn", "vera"], ["darius"])
    assert (held["gathering-003"].participants, held["gathering-003"].attendance["absent"]) == (["emre"], ["vera"])


def test_the_news_planted_in_finns_stream_reached_the_studio_from_him(replayed):
    workspace = replayed[0]
    rows = {row.agent: row for row in who_knows(workspace, "Demo 12. Dezember").rows}
    assert (rows["finn"].source, rows["finn"].memory, rows["finn"].since) == ("self", "finn-020", "day-001/scene-10")
    assert {agent: (row.knows, row.source, row.since) for agent, row in rows.items() if agent != "finn"} == {
        agent: (True, "finn", "day-002/scene-01") for agent in ("darius", "emre", "leo", "nami", "tobi", "vera")}
    # Vera and Emre sat at his table that morning: they heard him say it.
    for agent in ("emre", "vera"):
        heard = [m for m in lines(workspace, agent) if m["created"] == "day-002/scene-01" and m["metadata"].get("source") == "heard"]
        assert any(line["speaker"] == "finn" and "12. Dezember" in line["says"] for m in heard for line in m["metadata"]["heard"])


def test_the_work_scenes_left_their_artifacts_in_the_gallery(replayed):
    workspace, gm, _, _, report = replayed
    artifacts = [path for outcome in report.scenes if outcome.spec.type == "WORK" for path in outcome.result.artifacts]
    assert len(artifacts) == 6 and all((workspace.root / path).stat().st_size > 500 for path in artifacts)


def test_validate_is_clean_after_the_day(replayed):
    workspace = replayed[0]
    assert [str(p) for p in validate_workspace(workspace) if not p.warning] == []
