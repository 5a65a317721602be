"""Crash safety, the writers' lock, and applying the same scene twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from replies import valid_reply
from gamemaster import transaction as transaction_module
from gamemaster.backends.scripted import ScriptedBackend
from gamemaster.fsio import LockBusy, WorkspaceLock
from gamemaster.gm import GameMaster
from gamemaster.loop import run_scene
from gamemaster.scenes import Force, SceneType
from gamemaster.validate import validate_workspace


class Crash(BaseException):
    """Stands for the process dying: nothing after it runs."""


def state_files(workspace):
    return {
        p.relative_to(workspace.root).as_posix(): p.read_bytes()
        for folder in (workspace.state, workspace.gallery)
        for p in folder.rglob("*")
        if p.is_file() and ".cache" not in p.parts and p.name != ".journal.json"
    }


def ids(workspace, agent):
    path = workspace.memories_dir / f"{agent}.jsonl"
    return [json.loads(line)["id"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def play_work_scene(gm):
    run_scene(gm, ScriptedBackend([valid_reply] * 7))  # ARRIVAL
    gm.open_next(Force(type=SceneType.WORK, participants=["vera", "emre", "nami"]))
    pending = gm.pending()
    backend = ScriptedBackend([valid_reply] * 3)
    for turn in pending.missing():
        gm.store_reply(pending, turn, backend.reply(gm.build_request(pending, turn)))
    return pending


@pytest.fixture
def reference(tmp_path_factory):
    """The state after a clean, uninterrupted WORK scene."""
    from gamemaster.create import init_workspace

    workspace = init_workspace(tmp_path_factory.mktemp("ref") / "studio")
    gm = GameMaster(workspace)
    gm.apply(play_work_scene(gm))
    return state_files(workspace)




def test_a_crash_at_any_step_of_a_scene_leaves_state_that_resumes_exactly(tmp_path, reference, monkeypatch):
    from gamemaster.streams import MemoryStream
    from gamemaster.create import init_workspace

    real_write, real_append = transaction_module.atomic_write_text, MemoryStream.append
    real_sync = transaction_module.fsync_dirs
    crash_at = 0
    while True:
        workspace = init_workspace(tmp_path / f"crash-{crash_at}")
        gm = GameMaster(workspace)
        pending = play_work_scene(gm)
        steps = []

        def step(name, real):
            def wrapped(*args, **kwargs):
                if len(steps) == crash_at:
                    raise Crash(name)
                steps.append(name)
                return real(*args, **kwargs)
            return wrapped

        monkeypatch.setattr(transaction_module, "atomic_write_text", step("write", real_write))
        monkeypatch.setattr(MemoryStream, "append", step("append", real_append))
        # The folders are synced once after every write, before the journal goes: a step of its own.
        monkeypatch.setattr(transaction_module, "fsync_dirs", step("sync folders", real_sync))
        try:
            gm.apply(pending)
        except Crash:
            pass
        else:
            break  # every step has had its crash
        finally:
            monkeypatch.undo()
        assert workspace.journal_path.exists()
        # What the crash left is valid state; only the journal waits.
        assert [p for p in validate_workspace(workspace) if not p.warning] == []
        # The next command finishes the scene: the clean run's state, nothing twice.
        GameMaster(workspace).recover()
        assert not workspace.journal_path.exists()
        assert state_files(workspace) == reference, f"crash before step {crash_at}"
        for agent in ("vera", "emre", "nami", "darius"):
            assert len(ids(workspace, agent)) == len(set(ids(workspace, agent)))
        crash_at += 1
    assert crash_at >= 9  # 3 streams appended + agents, scene record, world, 3 artifacts, folder sync


def test_a_crash_before_the_journal_changes_nothing_and_apply_can_run_again(workspace, reference, monkeypatch):
    gm = GameMaster(workspace)
    pending = play_work_scene(gm)
    before = state_files(workspace)

    def die(*args, **kwargs):
        raise Crash("journal")

    monkeypatch.setattr(transaction_module, "atomic_write_json", die)
    with pytest.raises(Crash):
        gm.apply(pending)
    monkeypatch.undo()
    assert state_files(workspace) == before and gm.world().pending == pending.spec.ref
    gm.apply(gm.pending())
    assert state_files(workspace) == reference


def _inside_a_new_scene(root, before: int) -> bool:
    """This run has written the world since `before` and is inside a scene (its plan is on disk)."""
    try:
        if (root / "state/world.json").stat().st_mtime_ns == before:
            return False
        world = json.loads((root / "state/world.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return bool(world.get("pending")) or (root / "state/.journal.json").exists()


def test_killed_day_advance_resumes_without_losing_or_duplicating(tmp_path):
    root = tmp_path / "studio"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("ANTHROPIC_API_KEY", None)
    gm_cmd = [sys.executable, "-m", "gamemaster", "--root", str(root)]
    subprocess.run([*gm_cmd, "init"], check=True, capture_output=True, env=env)
    mid_scene = 0
    # Each kill waits for the run to be inside a scene (its plan written), then a little longer each
    # time: on progress, not on the clock, so a slow start on a busy machine kills nothing too early.
    for attempt in range(6):
        before = (root / "state/world.json").stat().st_mtime_ns
        process = subprocess.Popen([*gm_cmd, "day", "advance", "--days", "3"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        while process.poll() is None and not _inside_a_new_scene(root, before):
            time.sleep(0.005)
        time.sleep(0.1 * attempt)
        process.send_signal(signal.SIGKILL)
        process.wait()
        world = json.loads((root / "state/world.json").read_text(encoding="utf-8"))
        mid_scene += bool(world["pending"]) or (root / "state/.journal.json").exists()
        check = subprocess.run([*gm_cmd, "validate"], capture_output=True, text=True, env=env)
        assert check.returncode == 0, check.stdout + check.stderr
    assert mid_scene >= 1  # at least one kill interrupted a scene
    finished = subprocess.run([*gm_cmd, "day", "advance", "--json"], capture_output=True, text=True, env=env)
    assert finished.returncode == 0, finished.stderr
    from gamemaster.workspace import Workspace

    workspace = Workspace(root)
    for agent in workspace.agent_ids():
        all_ids = ids(workspace, agent)
        assert len(all_ids) == len(set(all_ids))
        numbers = [int(i.rsplit("-", 1)[1]) for i in all_ids]
        assert numbers == list(range(1, len(numbers) + 1))  # no gaps: nothing lost in between
    assert (root / "scenes/day-001/summary.md").exists()
    assert subprocess.run([*gm_cmd, "validate"], capture_output=True, env=env).returncode == 0


def test_the_lock_keeps_a_second_writer_out(workspace):
    with WorkspaceLock(workspace.root / ".gamemaster.lock"):
        other = WorkspaceLock(workspace.root / ".gamemaster.lock", timeout=0.2)
        with pytest.raises(LockBusy, match="another gamemaster process is writing"):
            other.__enter__()
    with WorkspaceLock(workspace.root / ".gamemaster.lock", timeout=0.2):
        pass  # free again once the first writer is done


def test_applying_the_same_replies_twice_writes_nothing_twice(workspace, cli, tmp_path):
    assert cli("next").exit_code == 0
    gm = GameMaster(workspace)
    pending = gm.pending()
    folder = tmp_path / "replies"
    folder.mkdir()
    for turn, agent in enumerate(pending.turns):
        (folder / f"{agent}.json").write_text(json.dumps(valid_reply(gm.build_request(pending, turn)), ensure_ascii=False), encoding="utf-8")
    first = cli("apply", "--replies", str(folder))
    assert first.exit_code == 0, first.output
    assert first.output.startswith("applied day-001/scene-01 ARRIVAL: 21 memories")
    after_first = state_files(workspace)
    second = cli("apply", "--replies", str(folder))
    assert second.exit_code == 0
    assert "already applied; nothing written" in second.output
    assert state_files(workspace) == after_first
    (workspace.scenes / "day-001/scene-01/scene.json").write_text("{", encoding="utf-8")
    damaged = cli("apply", "--replies", str(folder))
    assert damaged.exit_code == 1 and "scenes/day-001/scene-01/scene.json:1: not valid JSON" in damaged.output


def test_temp_files_a_killed_writer_left_are_cleaned_by_the_next_writer(workspace, cli):
    import os
    import subprocess
    import sys

    assert cli("next").exit_code == 0
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        leftovers = [
            workspace.state / f".world.json.{dead_pid}-0a1b2c3d.tmp",
            workspace.scenes / f"day-001/scene-01/prompts/.vera.md.{dead_pid}-00ff00ff.tmp",
            workspace.state / ".vera.json.k3j2.tmp",  # no owner in the name, and an hour old
        ]
        in_flight = workspace.scenes / f"day-001/scene-01/prompts/.emre.md.{live.pid}-12345678.tmp"
        for path in [*leftovers, in_flight]:
            path.write_text("{halb", encoding="utf-8")
        os.utime(leftovers[2], (os.path.getmtime(leftovers[2]) - 3600,) * 2)
        GameMaster(workspace).recover()
        assert not any(path.exists() for path in leftovers)
        assert in_flight.exists()  # another process is still writing it
    finally:
        live.kill()
        live.wait()
    in_flight.unlink()
    assert cli("validate").exit_code == 0
