"""``validate`` on long streams: evidence across streams is checked without holding the memories."""

from __future__ import annotations

import json
import tracemalloc

import faultkit as fk
from gamemaster.create import init_workspace
from gamemaster.validate import validate_workspace
from gamemaster.workspace import Workspace


def _write_stream(root, agent: str, count: int, cite: dict[int, list[str]]) -> None:
    with open(root / "state" / "memories" / f"{agent}.jsonl", "w", encoding="utf-8") as handle:
        for n in range(1, count + 1):
            handle.write(json.dumps({
                "id": f"{agent}-{n:03d}", "created": f"day-{1 + n // 15:03d}/scene-01",
                "type": "reflection" if n in cite else "observation", "depth": 1 if n in cite else 0,
                "description": f"Notiz {n}: die Übergänge zwischen den Ebenen brauchen noch einen Orientierungspunkt.",
                "importance": 3, "tags": ["scope", "navigation"], "evidence": cite.get(n, []), "metadata": {},
            }, ensure_ascii=False) + "\n")


def _studio(tmp_path, count: int):
    root = tmp_path / "studio"
    init_workspace(root)
    _write_stream(root, "tobi", count, {})
    # vera cites tobi's memories: one that exists far down his stream, and one he never had.
    _write_stream(root, "vera", count, {count - 5: [f"tobi-{count - 1:03d}", f"vera-{count - 6:03d}"],
                                        count - 2: [f"tobi-{count + 7:03d}"]})
    return root


def test_validate_names_evidence_missing_from_another_stream(tmp_path):
    count = 3000
    root = _studio(tmp_path, count)
    proc = fk.validate(root)
    fk.assert_no_traceback(proc)
    assert proc.returncode == 1 and proc.stdout.splitlines() == [
        f"state/memories/vera.jsonl:{count - 2}: evidence: tobi-{count + 7:03d} not in state/memories/tobi.jsonl",
        "1 error(s), 0 warning(s)",
    ], fk.show(proc)


def test_validate_holds_no_memory_it_has_checked(tmp_path):
    count = 20_000
    root = _studio(tmp_path, count)
    workspace = Workspace(root)
    tracemalloc.start()
    problems = validate_workspace(workspace)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert [str(p) for p in problems if not p.warning] == [
        f"state/memories/vera.jsonl:{count - 2}: evidence: tobi-{count + 7:03d} not in state/memories/tobi.jsonl"
    ]
    # 40,000 memories held as models would be some 80 MB; an id table of them is 160 KB.
    assert peak < 8 << 20, f"peak of Python allocations {peak / 1e6:.0f} MB"
