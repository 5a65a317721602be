"""Issue 9, item 7: a full disk gives one error line and loses nothing; the next run resumes.

The disk fills up in a child process: RLIMIT_FSIZE makes every write past the
limit fail with EFBIG (SIGXFSZ ignored), the way ENOSPC fails a write.
"""

from __future__ import annotations

import re
import resource
import signal

import pytest

import faultkit as fk

PATH_IN_WORKSPACE = re.compile(r"(state|scenes|gallery)/\S+")
NOTHING_LOST = re.compile(r"nothing (was |is |has been )?lost|resume", re.I)


def _limit(size: int):
    def preexec():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return preexec


@pytest.mark.parametrize("limit", [4_000, 30_000], ids=["full-at-first-scene", "full-mid-day"])
def test_a_full_disk_gives_one_error_line_and_the_next_run_resumes_valid(tmp_path, limit):
    workspace = fk.studio(tmp_path)
    root = workspace.root

    full = fk.run(root, "day", "advance", "--days", "2", preexec_fn=_limit(limit))

    fk.assert_no_traceback(full)
    assert full.returncode == 1, fk.show(full)
    lines = [line for line in full.stderr.splitlines() if line.strip() and not line.startswith("warning:")]
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1 and len(lines) <= 3, fk.show(full)
    assert PATH_IN_WORKSPACE.search(errors[0]) or str(root) in errors[0], f"the error names no file: {errors[0]}"
    assert NOTHING_LOST.search(full.stderr), f"no hint that nothing was lost: {full.stderr}"

    # Keep: what the full disk left is valid, and a normal run finishes the days.
    fk.assert_valid(root)
    resumed = fk.run(root, "day", "advance", "--days", "2")
    assert resumed.returncode == 0, fk.show(resumed)
    fk.assert_valid(root)
    for agent in workspace.agent_ids():
        numbers = [int(i.rsplit("-", 1)[1]) for i in fk.stream_ids(workspace, agent)]
        assert numbers == list(range(1, len(numbers) + 1)), f"{agent}: ids lost or repeated"
