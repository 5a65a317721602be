"""The search index of a large stream: a build that is killed leaves nothing behind."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

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
    deadline = time.monotonic() + fk.HANG_GUARD  # waits for the build to start, however long that takes
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


def test_memories_by_tag_and_type_lists_exactly_what_a_full_scan_lists(tmp_path):
    root = tmp_path / "studio"
    init_workspace(root)
    _big_stream(root, "vera", 3000)
    path = root / "state" / "memories" / "vera.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    cat = json.loads(lines[10])
    lines[10] = json.dumps({**cat, "tags": ["katze", "scope"], "type": "reflection", "depth": 1}, ensure_ascii=False)
    lines[20] = json.dumps({**json.loads(lines[20]), "tags": ["Katze"]}, ensure_ascii=False)  # another tag
    lines[30] = json.dumps({**json.loads(lines[30]), "tags": ["katze"], "importance": 99}, ensure_ascii=False)
    lines[1499] = '{"id": "vera-1500", "description": '  # cut by hand
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    listed = fk.run(root, "memories", "vera", "--tag", "katze", "--json")
    fk.assert_no_traceback(listed)
    shown = json.loads(listed.stdout)
    assert [m["id"] for m in shown["memories"]] == ["vera-011"]
    assert shown["problems"] == [
        "state/memories/vera.jsonl:31: importance: Input should be less than or equal to 10",
        "state/memories/vera.jsonl:1500: not valid JSON: Expecting value (column 36)",
    ]
    typed = json.loads(fk.run(root, "memories", "vera", "--type", "reflection", "--json").stdout)
    assert [m["id"] for m in typed["memories"]] == ["vera-011"]
    assert typed["problems"] == ["state/memories/vera.jsonl:1500: not valid JSON: Expecting value (column 36)"]


def test_memories_by_tag_holds_no_list_of_every_indexed_line(tmp_path):
    import tracemalloc

    from gamemaster.memory_list import indexed_matching
    from gamemaster.workspace import Workspace

    root = tmp_path / "studio"
    init_workspace(root)
    stream = Workspace(root).stream("vera")
    peaks = []
    for count in (2000, 20000):
        _big_stream(root, "vera", count)
        assert indexed_matching(stream, "de", "nirgends", None, None, None) == ([], [])  # builds the index
        tracemalloc.start()
        assert indexed_matching(stream, "de", "nirgends", None, None, None) == ([], [])
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    # ten times the lines, about the same memory (a list of every line's span: ~2 MB more)
    assert peaks[1] < peaks[0] + 300_000, peaks


def test_a_next_killed_while_indexes_are_built_side_by_side_leaves_nothing_behind(tmp_path):
    """Three large streams are built by three processes; the `next` that started them is killed.
    Its children finish their own builds (renamed into place); its own side file (and journal) is
    taken over or removed by the next build, which completes the scene with the memories found."""
    root = tmp_path / "studio"
    init_workspace(root)
    big = ["vera", "leo", "nami"]
    for agent in big:
        _big_stream(root, agent, 30_000)  # some 10 MB each: built side by side
    cache = root / "state" / ".cache"
    proc = subprocess.Popen([*fk.gm_cmd(root), "next"], env=fk.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def pid_of(side: Path) -> str:  # vera.search.sqlite.building-PID, or its -journal
        return side.name.partition(".building-")[2].split("-")[0]

    deadline = time.monotonic() + fk.HANG_GUARD  # waits for the builds to start, however long that takes
    while time.monotonic() < deadline and proc.poll() is None and len({pid_of(p) for p in cache.glob("*.building-*")}) < 2:
        time.sleep(0.02)
    assert proc.poll() is None, "the builds ended before they could be killed"
    building = {pid_of(p) for p in cache.glob("*.building-*")}
    assert len(building) >= 2, "the builds run in more than one process"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    # The children's side files become indexes when they finish; only the killed one's stays.
    while time.monotonic() < deadline and any(pid_of(p) != str(proc.pid) for p in cache.glob("*.building-*")):
        time.sleep(0.1)
    assert {pid_of(p) for p in cache.glob("*.building-*")} <= {str(proc.pid)}

    again = fk.run(root, "next")
    fk.assert_no_traceback(again)
    assert "day-001/scene-01 ARRIVAL" in again.stdout, fk.show(again)
    assert [p.name for p in cache.glob("*.search.sqlite?*")] == []  # no side file, journal or partial build
    assert all((cache / f"{agent}.search.sqlite").exists() for agent in big)
    for agent in big:
        found = fk.run(root, "recall", agent, "Katze Hausmeister", "--json")
        assert "Die Katze des Hausmeisters heißt Minka." in found.stdout, fk.show(found)
