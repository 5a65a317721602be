from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent))

import gamemaster.kinds as kinds  # noqa: E402
import gamemaster.retrieval as retrieval  # noqa: E402
import gamemaster.sections as sections  # noqa: E402
from gamemaster.cli import app  # noqa: E402
from gamemaster.gm import GameMaster  # noqa: E402
from gamemaster.create import init_workspace  # noqa: E402
from gamemaster.workspace import Workspace  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures"
#: The retrieval strategies of the toolkit as the tests know them (``_frozen_registry``).
BUILT_IN_STRATEGIES = ("hybrid", "ranked", "seed")
#: The fake ``claude`` executable (stream-json) the claude-code backend's tests run against.
FAKE_CLAUDE = Path(__file__).parent / "fake_claude.py"


@pytest.fixture(autouse=True)
def _no_api_key(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("GAMEMASTER_ROOT", raising=False)


@pytest.fixture(autouse=True)
def _frozen_registry(monkeypatch):
    """The built-in scene kinds, prompt sections and retrieval strategies only, in this process: a
    kind or section package installed where the tests run, or a strategy module added, changes no test. (The plug-in tests install theirs on the
    PYTHONPATH of the commands they run, each in its own process.)"""
    monkeypatch.setattr(kinds, "_installed", lambda: [])
    monkeypatch.setattr(sections, "_installed", lambda: [])
    monkeypatch.setattr(retrieval, "_scanned", lambda: list(BUILT_IN_STRATEGIES))
    kinds.forget()
    sections.forget()
    yield
    kinds.forget()
    sections.forget()


@pytest.fixture
def workspace(tmp_path) -> Workspace:
    """A fresh copy of the bundled studio."""
    return init_workspace(tmp_path / "studio")


@pytest.fixture
def gm(workspace) -> GameMaster:
    return GameMaster(workspace)


def write_agent(workspace: Workspace, agent_id: str, **fields) -> None:
    data = {"id": agent_id, "name": agent_id.capitalize() + " Test", "role": "Testrolle", "persona": "Testperson.",
            "artifact_kind": "notes", **fields}
    workspace.agents_dir.mkdir(parents=True, exist_ok=True)
    (workspace.agents_dir / f"{agent_id}.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def write_lines(workspace: Workspace, agent_id: str, lines: list) -> Path:
    path = workspace.memories_dir / f"{agent_id}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join((line if isinstance(line, str) else json.dumps(line, ensure_ascii=False)) + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    return path


def memory(agent: str, number: int, **fields) -> dict:
    base = {"id": f"{agent}-{number:03d}", "created": "day-001/scene-01", "type": "observation", "depth": 0,
            "description": f"Erinnerung {number}", "importance": 3, "tags": [], "evidence": [], "metadata": {}}
    base.update(fields)
    return base


def seed_select(stream, window: int, terms=(), focus_limit: int = 20, budget: int = 10**9):
    """Seed 001's literal rule through its strategy module, with a budget large enough not to cut."""
    from gamemaster.retrieval import Query, Settings, get_strategy

    settings = Settings(budget=budget, memory_window=window, focus_limit=focus_limit)
    return get_strategy("seed").select(stream, Query(tags=tuple(terms)), settings)


def section_ids(selection, name: str) -> list[str]:
    return [p.memory.id for p in sorted(selection.section(name), key=lambda p: p.offset)]


@pytest.fixture
def empty_workspace(tmp_path) -> Workspace:
    return init_workspace(tmp_path / "empty", empty=True)


@pytest.fixture
def cli(workspace):
    runner = CliRunner()

    def invoke(*args, input=None, root=None):
        return runner.invoke(app, ["--root", str(root or workspace.root), *args], input=input)

    return invoke


#: Test files that play whole days, start a process per command or drive a browser or Claude
#: Code: `pytest -m "not slow"` leaves them out for a quick run while editing (docs/how-to/tests.md).
@pytest.fixture
def fake(tmp_path, monkeypatch) -> Path:
    """A fake ``claude`` first on PATH; returns the folder it reads replies from and logs calls to."""
    folder = tmp_path / "fake"
    (folder / "replies").mkdir(parents=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "claude"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_CLAUDE}" "$@"\n', encoding="utf-8")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_CLAUDE_DIR", str(folder))
    monkeypatch.delenv("GAMEMASTER_CLAUDE_CLI", raising=False)
    return folder


SLOW = ("e2e/", "faults/", "test_report_browser.py", "test_report.py", "test_report_views.py", "test_integrity.py",
        "test_offline_days.py", "test_work_rooms.py")


def pytest_collection_modifyitems(config, items):
    tests = Path(__file__).parent
    for item in items:
        relative = Path(str(item.fspath)).relative_to(tests).as_posix()
        if relative.startswith(SLOW):
            item.add_marker(pytest.mark.slow)
