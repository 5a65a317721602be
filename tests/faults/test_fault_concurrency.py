"""Issue 9, item 2: a second terminal running `next` / `prompt` never kills a running day."""

from __future__ import annotations

import subprocess
import threading
import time

import faultkit as fk

DEADLINE = 60.0  # seconds; `day advance --days 2` alone takes a few


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
    started = time.monotonic()

    def loop(commands):
        position = 0
        while advance.poll() is None and time.monotonic() - started < DEADLINE:
            proc = fk.run(root, *commands[position % len(commands)], timeout=DEADLINE)
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
        advance.wait(timeout=DEADLINE)
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
