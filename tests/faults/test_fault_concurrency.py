"""Issue 9, item 2: a second terminal running `next` / `prompt` never kills a running day."""

from __future__ import annotations

import subprocess
import threading

import faultkit as fk

#: A guard against a hang, not a speed limit: `day advance --days 2` takes a few seconds on an idle
#: machine and minutes on a busy one, and a correct program must not fail for being slow.
HANG_GUARD = 1800.0


def test_day_advance_survives_three_terminals_looping_next_and_prompt(tmp_path):
    workspace = fk.studio(tmp_path)
    root = workspace.root
    log = (tmp_path / "advance.err").open("w+", encoding="utf-8")
    advance = subprocess.Popen(
        [*fk.gm_cmd(root), "day", "advance", "--days", "2"],
        stdout=subprocess.DEVNULL,
        stderr=log,
        text=True,
        env=fk.env(),
    )
    runs: list[subprocess.CompletedProcess] = []
    guard = threading.Lock()
    def loop(commands):
        position = 0
        while advance.poll() is None:  # the other terminals go on for as long as the day runs
            proc = fk.run(root, *commands[position % len(commands)], timeout=HANG_GUARD)
            position += 1
            with guard:
                runs.append(proc)

    loopers = [
        threading.Thread(target=loop, args=([("next",)],)),
        threading.Thread(target=loop, args=([("next",), ("prompt", "vera")],)),
        threading.Thread(target=loop, args=([("prompt", "emre"), ("next",)],)),
    ]
    for thread in loopers:
        thread.start()
    try:
        advance.wait(timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        advance.kill()
        advance.wait()
    for thread in loopers:
        thread.join()
    log.seek(0)
    advance_err = log.read()
    log.close()

    assert runs, "the loopers never ran"
    assert "Traceback" not in advance_err, advance_err[-3000:]
    assert advance.returncode == 0, f"day advance exit {advance.returncode}\n{advance_err[-3000:]}"
    for proc in runs:
        fk.assert_no_traceback(proc)
        if proc.returncode != 0:
            assert proc.returncode == 1, fk.show(proc)
            lines = [line for line in proc.stderr.splitlines() if line.strip() and not line.startswith("warning:")]
            assert len(lines) == 1 and lines[0].startswith("error:"), fk.show(proc)
    fk.assert_valid(root)
    # Two day ends were reached: both summaries are there.
    assert (root / "scenes/day-001/summary.md").exists() and (root / "scenes/day-002/summary.md").exists()


def test_the_loser_of_a_race_is_told_another_process_moved_the_scene_on(tmp_path):
    import pytest
    from replies import valid_reply

    from gamemaster.backends.scripted import ScriptedBackend
    from gamemaster.gm import GameMaster
    from gamemaster.loop import run_scene
    from gamemaster.problems import GamemasterError

    workspace = fk.studio(tmp_path)
    mine = GameMaster(workspace)
    pending, _ = mine.open_next()
    reply = valid_reply(mine.build_request(pending, 0))
    run_scene(GameMaster(workspace), ScriptedBackend([valid_reply] * len(pending.turns)))  # the other terminal

    with pytest.raises(GamemasterError) as lost:
        mine.store_reply(pending, 0, reply)
    assert f"scene {pending.spec.ref} is no longer pending: another gamemaster process" in str(lost.value)
