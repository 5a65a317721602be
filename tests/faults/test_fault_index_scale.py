"""The search index of a large stream: a build that is killed leaves nothing behind."""

from __future__ import annotations

import json
import signal
import subprocess
import time

import faultkit as fk
from gamemaster.create import init_workspace


def _big_stream(root, agent: str, count: int) -> None:
    lines = []
    for n in range(1, count + 1):
        text = (f"Notiz {n}: die Übergänge zwischen den Ebenen der Knochentürme brauchen noch einen klaren "
                f"Orientierungspunkt, sagt das Team nach dem Playtest Nummer {n % 97}.")
        if n == count:
            text = "Die Katze des Hausmeisters heißt Minka."
        lines.append(json.dumps({"id": f"{agent}-{n:03d}", "created": f"day-{1 + n // 15:03d}/scene-01",
                                 "type": "observation", "depth": 0, "description": text, "importance": 3,
                                 "tags": ["scope"], "evidence": [], "metadata": {}}, ensure_ascii=False))
    (root / "state" / "memories" / f"{agent}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_a_build_killed_midway_leaves_no_temporary_files_and_the_next_one_completes(tmp_path):
    root = tmp_path / "studio"
    init_workspace(root)
    _big_stream(root, "vera", 40_000)  # some 14 MB: a build of several seconds
    temp = tmp_path / "tmp"
    temp.mkdir()
    cache = root / "state" / ".cache"
    proc = subprocess.Popen([*fk.gm_cmd(root), "recall", "vera", "Katze Hausmeister"],
                            env={**fk.env(), "TMPDIR": str(temp)}, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    # Killed once the build is under way: its side file (or, before, its temporary folder) exists.
    while time.monotonic() < deadline and proc.poll() is None:
        if list(temp.iterdir()) or list(cache.glob("*.building-*")):
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the build ended before it could be killed"
    time.sleep(0.3)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    time.sleep(1)  # a helper process the build started would have its last word by now
    assert [p.name for p in temp.iterdir()] == []

    again = fk.run(root, "recall", "vera", "Katze Hausmeister", "--json")
    fk.assert_no_traceback(again)
    assert "Die Katze des Hausmeisters heißt Minka." in again.stdout, fk.show(again)
    assert sorted(p.name for p in cache.glob("vera.search.sqlite*")) == ["vera.search.sqlite"]
