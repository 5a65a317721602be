"""Issue 19, the smaller things a new user hit: a command run in a subfolder of the workspace.

Commands run as a user runs them: in their own process, from a folder, without ``--root``
unless the test is about it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import faultkit as fk


def run_in(cwd: Path, *args: str, env: dict | None = None, input: str | None = None) -> subprocess.CompletedProcess:
    """``gamemaster ARGS`` started in ``cwd``, as from a terminal there."""
    return subprocess.run([sys.executable, "-m", "gamemaster", *args], cwd=cwd, capture_output=True, text=True,
                          env=env or fk.env(), input=input, stdin=None if input is not None else subprocess.DEVNULL,
                          timeout=60)


def only_error(proc: subprocess.CompletedProcess) -> str:
    """The one ``error:`` line a refused command prints, after exit 1 and no traceback."""
    fk.assert_no_traceback(proc)
    assert proc.returncode == 1, fk.show(proc)
    errors = fk.error_lines(proc)
    assert len(errors) == 1 and proc.stderr.strip() == errors[0], fk.show(proc)
    return errors[0]


# -- the workspace is found from a subfolder, as git finds its repository ---------------------


def test_status_in_a_subfolder_of_the_workspace_shows_that_workspace(tmp_path):
    workspace = fk.studio(tmp_path)
    deep = workspace.gallery / "skizzen" / "alt"
    deep.mkdir(parents=True)

    proc = run_in(deep, "status")

    fk.assert_no_traceback(proc)
    assert proc.returncode == 0, fk.show(proc)
    assert "GenSoftworks · day 000 · scene 00" in proc.stdout
    assert "not a gamemaster workspace" not in proc.stderr


def test_next_in_a_subfolder_writes_into_the_workspace_and_nowhere_below(tmp_path):
    workspace = fk.studio(tmp_path)

    proc = run_in(workspace.gallery, "next")

    assert proc.returncode == 0, fk.show(proc)
    assert fk.read_json(workspace.world_path)["pending"] == "day-001/scene-01"
    assert (workspace.scenes / "day-001" / "scene-01" / "scene.json").is_file()
    assert sorted(p.name for p in workspace.gallery.iterdir()) == []


def test_root_and_environment_are_taken_as_given_and_never_walked_up(tmp_path):
    workspace = fk.studio(tmp_path)

    by_option = run_in(tmp_path, "--root", str(workspace.gallery), "status")
    by_env = run_in(tmp_path, "status", env={**fk.env(), "GAMEMASTER_ROOT": str(workspace.gallery)})

    for proc in (by_option, by_env):
        assert only_error(proc) == (f"error: {workspace.gallery} is not a gamemaster workspace (no state/world.json); "
                                    "run `gamemaster init` or pass --root")


def test_outside_any_workspace_the_walk_stops_and_says_where_it_started(tmp_path):
    folder = tmp_path / "irgendwo" / "tief"
    folder.mkdir(parents=True)

    proc = run_in(folder, "status")

    assert only_error(proc) == (f"error: {folder} is not a gamemaster workspace (no state/world.json); "
                                "run `gamemaster init` or pass --root")


def test_init_in_a_subfolder_of_a_workspace_refuses_and_creates_nothing(tmp_path):
    workspace = fk.studio(tmp_path)
    before = fk.tree_snapshot(workspace.root)

    here = run_in(workspace.gallery, "init")
    below = run_in(workspace.root, "init", "zweites")
    by_root = run_in(tmp_path, "--root", str(workspace.scenes), "init")

    for proc, target in ((here, workspace.gallery), (below, workspace.root / "zweites"), (by_root, workspace.scenes)):
        assert only_error(proc) == (f"error: {target} lies inside the gamemaster workspace {workspace.root}; "
                                    "a workspace cannot hold another one: choose a folder outside it")
    assert fk.tree_snapshot(workspace.root) == before
    assert not (workspace.root / "zweites").exists()


def test_init_on_a_workspace_names_it(tmp_path):
    workspace = fk.studio(tmp_path)
    before = fk.tree_snapshot(workspace.root)

    proc = run_in(workspace.root, "init")

    assert only_error(proc) == f"error: {workspace.root} is a gamemaster workspace already (state/world.json)"
    assert fk.tree_snapshot(workspace.root) == before


def test_import_into_a_folder_inside_a_workspace_refuses(tmp_path):
    workspace = fk.studio(tmp_path)
    source = fk.studio(tmp_path / "quelle")
    target = workspace.root / "importiert"

    proc = run_in(workspace.root, "import", str(source.root), "--into", str(target))

    assert only_error(proc) == (f"error: {target} lies inside the gamemaster workspace {workspace.root}; "
                                "a workspace cannot hold another one: choose a folder outside it")
    assert not target.exists()


def test_the_mcp_server_started_in_a_subfolder_serves_the_workspace(tmp_path):
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    workspace = fk.studio(tmp_path)
    server = StdioServerParameters(command=sys.executable, args=["-m", "gamemaster", "mcp"],
                                   cwd=str(workspace.gallery), env=fk.env())

    async def status() -> dict:
        async with Client(server) as client:
            result = await client.call_tool("status", {})
            assert not result.is_error, result.content[0].text
            return json.loads(result.content[0].text)

    assert anyio.run(status)["studio"] == "GenSoftworks"


def test_the_hook_run_in_the_workspace_still_stores_the_reply(tmp_path):
    from replies import valid_reply

    from gamemaster.gm import GameMaster

    workspace = fk.studio(tmp_path)
    pending = fk.open_arrival(workspace)
    gm = GameMaster(workspace)
    turn = pending.turns.index("vera")
    reply = json.dumps(valid_reply(gm.build_request(pending, turn)), ensure_ascii=False)
    event = {"hook_event_name": "SubagentStop", "agent_type": "character-vera", "last_assistant_message": reply,
             "cwd": str(workspace.root)}
    environment = {k: v for k, v in fk.env().items() if k != "CLAUDE_PROJECT_DIR"}

    proc = run_in(workspace.root, "hook", "subagent-stop", env=environment, input=json.dumps(event))

    assert proc.returncode == 0 and proc.stdout == "", fk.show(proc)
    replies = sorted((workspace.scenes / pending.spec.ref / "replies").glob("*.json"))
    assert [fk.read_json(path)["agent"] for path in replies] == ["vera"]
