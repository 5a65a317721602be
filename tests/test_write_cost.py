"""What applying a scene costs on disk: fsyncs follow what the scene changes, not the studio's size.

Bound per applied scene: one fsync per rewritten file, one per stream appended to,
one per folder that got a new name, and the journal's own two (its file, ``state/``).
"""

from __future__ import annotations

import os

import pytest

from gamemaster.backends.offline import OfflineBackend
from gamemaster.create import init_workspace
from gamemaster.gm import GameMaster
from gamemaster.loop import run_scene
from gamemaster.scenes import Force, SceneType
from studios import grow

JOURNAL_FSYNCS = 2  # the journal file and state/, before anything of the scene is written


def fsyncs_applying(tmp_path, monkeypatch, size: int, kind: str, people: list[str]):
    """The fsync calls of ``gm.apply`` for one scene in a studio of ``size``, and its transaction."""
    workspace = init_workspace(tmp_path / f"studio-{size}-{kind}")
    grow(workspace, size)
    gm, backend = GameMaster(workspace), OfflineBackend()
    run_scene(gm, backend)  # the day's ARRIVAL
    gm.open_next(Force(type=kind, participants=people, topic="Knochentürme"))
    pending = gm.pending()
    for turn in pending.missing():
        gm.store_reply(pending, turn, backend.reply(gm.build_request(pending, turn)))
    calls = []
    real = os.fsync

    def counted(fd):
        calls.append(fd)
        return real(fd)

    with monkeypatch.context() as patch:
        patch.setattr(os, "fsync", counted)  # fsio looks os.fsync up at call time
        result = gm.apply(gm.pending())
    return len(calls), result.transaction, workspace


def bound(transaction, workspace) -> int:
    folders = {(workspace.root / relative).parent for relative in transaction.files}
    return len(transaction.files) + len(transaction.appends) + len(folders) + JOURNAL_FSYNCS


def test_a_meeting_costs_one_fsync_per_change_and_per_folder(tmp_path, monkeypatch):
    count, transaction, workspace = fsyncs_applying(tmp_path, monkeypatch, 25, SceneType.MEETING, ["vera", "emre"])
    assert transaction.appends and transaction.files
    assert count <= bound(transaction, workspace)


def test_the_per_scene_overhead_does_not_grow_with_the_headcount(tmp_path, monkeypatch):
    # A MEETING leaves a notice in every stream (and so in every agent's accumulator): those
    # writes are the scene's content. What must stay flat is everything on top of them.
    overhead = {}
    for size in (7, 25):
        count, transaction, _ = fsyncs_applying(tmp_path, monkeypatch, size, SceneType.MEETING, ["vera", "emre"])
        overhead[size] = count - len(transaction.files) - len(transaction.appends)
    assert overhead[7] == overhead[25] <= 3 + JOURNAL_FSYNCS  # state/, agents/, the scene's folder


@pytest.mark.parametrize("size", [7, 25])
def test_a_two_person_work_scene_costs_the_same_in_any_studio(tmp_path, monkeypatch, size):
    count, transaction, workspace = fsyncs_applying(tmp_path, monkeypatch, size, SceneType.WORK, ["vera", "emre"])
    assert set(transaction.appends) <= {"vera", "emre"}
    assert not [f for f in transaction.files if f.startswith("state/agents/") and not f.endswith(("vera.json", "emre.json"))]
    assert count <= bound(transaction, workspace)
