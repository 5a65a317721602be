"""Helpers for the fault suite: run gamemaster as a user would and judge what they see.

Importable from the test modules beside it (pytest puts this folder on sys.path);
``tests/conftest.py`` puts ``tests/`` there too, so ``replies`` and ``conftest``
helpers are available as well.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from gamemaster.backends.base import Capabilities
from gamemaster.gm import GameMaster
from gamemaster.create import init_workspace
from gamemaster.workspace import Workspace

ERROR_LINE = re.compile(r"^error: ", re.M)


def env() -> dict:
    environment = {**os.environ, "PYTHONUNBUFFERED": "1"}
    environment.pop("ANTHROPIC_API_KEY", None)
    environment.pop("GAMEMASTER_ROOT", None)
    return environment


def gm_cmd(root: Path) -> list[str]:
    return [sys.executable, "-m", "gamemaster", "--root", str(root)]


#: How long a command may run before it counts as hung. A command of the fault suite takes well
#: under a second on an idle machine; at a load of 30 it took up to a minute, so this only ever
#: fails a hang, never a slow machine.
HANG_GUARD = 600.0


def run(root: Path, *args: str, input: str | None = None, preexec_fn=None,
        timeout: float = HANG_GUARD, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``gamemaster --root ROOT ARGS`` in its own process, as from a terminal (in ``cwd``: by
    default the tests' own folder, the checkout, whose package ``python -m`` then runs)."""
    return subprocess.run(
        [*gm_cmd(root), *args],
        capture_output=True,
        text=True,
        input=input,
        env=env(),
        preexec_fn=preexec_fn,
        timeout=timeout,
        cwd=cwd,
    )


def installed_package(site: Path, package: str, files: dict[str, str], entry_points: str) -> Path:
    """A package ``package`` in ``site`` with ``files`` (name → text) and the ``.dist-info`` that
    installing it leaves, declaring ``entry_points`` (the text of its entry_points.txt)."""
    folder = site / package
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    info = site / f"{package}-0.1.dist-info"
    info.mkdir()
    name = package.replace("_", "-")
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(entry_points, encoding="utf-8")
    return folder


def show(proc: subprocess.CompletedProcess) -> str:
    return f"exit {proc.returncode}\n--- stdout\n{proc.stdout[-3000:]}\n--- stderr\n{proc.stderr[-3000:]}"


def assert_no_traceback(proc: subprocess.CompletedProcess) -> None:
    assert "Traceback (most recent call last)" not in proc.stderr + proc.stdout, show(proc)


def error_lines(proc: subprocess.CompletedProcess) -> list[str]:
    return [line for line in proc.stderr.splitlines() if line.startswith("error:")]


def assert_clean_error(proc: subprocess.CompletedProcess, *needles: str) -> str:
    """Exit 1, no traceback, and an ``error:`` line that names every needle (file, field, agent…)."""
    assert_no_traceback(proc)
    assert proc.returncode == 1, show(proc)
    text = proc.stderr
    assert ERROR_LINE.search(text), show(proc)
    for needle in needles:
        assert needle in text, f"the error does not name {needle!r}\n{show(proc)}"
    return text


def validate(root: Path) -> subprocess.CompletedProcess:
    return run(root, "validate")


def assert_valid(root: Path) -> None:
    proc = validate(root)
    assert_no_traceback(proc)
    assert proc.returncode == 0, show(proc)


def tree_snapshot(folder: Path) -> dict[str, tuple[str, int]]:
    """Every file and folder below ``folder``: content hash and mode (symlinks as links)."""
    snap: dict[str, tuple[str, int]] = {}
    if not folder.exists():
        return snap
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        st = path.lstat()
        if path.is_symlink():
            snap[rel] = ("link:" + os.readlink(path), st.st_mode)
        elif path.is_dir():
            snap[rel] = ("dir", st.st_mode)
        else:
            snap[rel] = (hashlib.sha256(path.read_bytes()).hexdigest(), st.st_mode)
    return snap


def studio(tmp_path: Path) -> Workspace:
    return init_workspace(tmp_path / "studio")


def with_sentinel(tmp_path: Path) -> tuple[Workspace, Path]:
    """A fresh studio and, beside it, a folder of files the tool must never touch."""
    workspace = studio(tmp_path)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "settings.json").write_text('{"keep": "me"}\n', encoding="utf-8")
    os.chmod(victim / "settings.json", 0o644)
    (victim / "scene.json").write_text('{"status": "applied"}\n', encoding="utf-8")
    return workspace, victim


def outside_files(tmp_path: Path, workspace: Workspace) -> dict:
    """Everything beside the workspace (the tmp folder minus the workspace itself)."""
    snap = {}
    for child in sorted(tmp_path.iterdir()):
        if child == workspace.root:
            continue
        snap[child.name] = tree_snapshot(child) if child.is_dir() else ("file", child.read_bytes())
    return snap


def read_json(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def write_json(path: Path, data) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def stream_ids(workspace: Workspace, agent: str) -> list[str]:
    ids = []
    for raw in (workspace.memories_dir / f"{agent}.jsonl").read_bytes().split(b"\n"):
        raw = raw.strip().lstrip(b"\xef\xbb\xbf")
        if raw:
            try:
                ids.append(json.loads(raw)["id"])
            except ValueError:
                pass
    return ids


def open_arrival(workspace: Workspace):
    """``gamemaster next`` on a fresh studio: the day-001 ARRIVAL, pending."""
    pending, _ = GameMaster(workspace).open_next()
    return pending


def pending_record_path(workspace: Workspace) -> Path:
    world = read_json(workspace.world_path)
    return workspace.scenes / world["pending"] / "scene.json"


# -- backends that print what a character says -------------------------------------


class _SaysBackend:
    """Answers every request with a minimal valid reply whose ``says`` is ``SAYS``."""

    name = "scripted"
    capabilities = Capabilities()
    SAYS = ""

    def reply(self, request):
        from replies import valid_reply

        reply = valid_reply(request)
        reply["says"] = self.SAYS
        return json.dumps(reply, ensure_ascii=False)


class MarkupSaysBackend(_SaysBackend):
    SAYS = "[bold]Knochen[/bold] und [red]Turm[/red]"


class StrayTagSaysBackend(_SaysBackend):
    SAYS = "Mark [/x] innen"


class ValidReplyBackend(_SaysBackend):
    """``tests/replies.valid_reply`` as is: a WORK reply finishes one artifact of the agent's ``artifact_kind``."""

    def reply(self, request):
        from replies import valid_reply

        return json.dumps(valid_reply(request), ensure_ascii=False)


class BadKindBackend(_SaysBackend):
    """A WORK reply whose artifact names a kind no gallery folder may have."""

    def reply(self, request):
        from replies import valid_reply

        reply = valid_reply(request)
        for artifact in reply.get("artifacts", []):
            artifact["kind"] = "Konzept-Art"
        return json.dumps(reply, ensure_ascii=False)


def register_backends(monkeypatch) -> None:
    """Make the backends above selectable with ``--backend`` for in-process CLI runs."""
    from gamemaster import backends

    for name in ("MarkupSaysBackend", "StrayTagSaysBackend", "ValidReplyBackend", "BadKindBackend"):
        monkeypatch.setitem(backends.BACKENDS, name, f"faultkit:{name}")


def cli(root: Path, *args: str, input: str | None = None):
    """``gamemaster --root ROOT ARGS`` in this process (for monkeypatched backends)."""
    from typer.testing import CliRunner

    from gamemaster.cli import app

    return CliRunner().invoke(app, ["--root", str(root), *args], input=input)


def show_result(result) -> str:
    import traceback

    tb = "".join(traceback.format_exception(result.exception)) if result.exception and not isinstance(result.exception, SystemExit) else ""
    return f"exit {result.exit_code}\n--- stdout\n{result.stdout[-3000:]}\n--- stderr\n{result.stderr[-3000:]}\n{tb[-3000:]}"


def assert_no_exception(result) -> None:
    """In process, a traceback is an exception that escaped the command."""
    assert result.exception is None or isinstance(result.exception, SystemExit), show_result(result)
