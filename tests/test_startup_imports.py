"""Start-up: the commands Claude Code runs scene after scene load only what they use.

Each command runs in its own fresh interpreter, as from a terminal, on a bundled studio; the
test asserts on the set of modules it has imported when it ends, not on time (the machine's
load would make a timing test flaky; ``bench/startup.py`` measures the time).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gamemaster.backends.offline import OfflineBackend
from gamemaster.cli import command_word
from gamemaster.create import init_workspace
from gamemaster.gm import GameMaster
from gamemaster.workspace import Workspace

#: Runs ``gamemaster ARGS`` as ``python -m gamemaster`` does, then prints its module set.
RUN = (
    "import json, runpy, sys\n"
    "out, sys.argv = sys.argv[1], ['gamemaster', *sys.argv[2:]]\n"
    "try:\n"
    "    runpy.run_module('gamemaster', run_name='__main__', alter_sys=True)\n"
    "except SystemExit as exit:\n"
    "    assert not exit.code, exit.code\n"
    "with open(out, 'w') as f:\n"
    "    json.dump(sorted(sys.modules), f)\n"
)

#: Never needed to play a scene by hand: the API backend and its HTTP stack, Claude Code's SDK,
#: the MCP server, the offline player, the report, its Markdown and its templates (Jinja2).
NEVER = ("anthropic", "httpx", "httpx2", "claude_agent_sdk", "mcp", "gamemaster.backends.offline",
         "gamemaster.report", "gamemaster.mcp_server", "markdown_it", "jinja2", "markupsafe")
#: What a command that shows or stores one scene's part does not need: building prompts (the
#: memory selection, the reply contract naming every kind), spreading news, the other scene
#: kinds than the pending one (a WORK scene here: reading world.json, which holds MEETING's and
#: ENCOUNTER's settings, imports no kind), YAML (written with an artifact) and the search index.
ONE_SCENE = ("rich", "yaml", "sqlite3", "gamemaster.requests", "gamemaster.contract", "gamemaster.news",
             "gamemaster.kinds.reflection", "gamemaster.kinds.event", "gamemaster.kinds.gathering",
             "gamemaster.kinds.arrival", "gamemaster.kinds.meeting", "gamemaster.kinds.encounter")

#: Writing a scene back (the transaction, the gallery), taking a reply and the day summary: not
#: needed to show a prompt or the studio's state.
WRITE_BACK = ("gamemaster.scene_apply", "gamemaster.transaction", "gamemaster.writeback", "gamemaster.gallery",
              "gamemaster.summary")


def heavy(modules: list[str], extra: tuple[str, ...] = ()) -> str:
    """The loaded modules of NEVER and ``extra``, one line (empty: none), packages by their top."""
    names = (*NEVER, *extra)
    found = {n for m in modules for n in names if m == n or m.startswith(n + ".")}
    return " ".join(sorted(found))


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    """A bundled studio with one scene played (search indexes built) and the next one pending,
    the first character's reply as the SubagentStop hook gets it."""
    root = tmp_path_factory.mktemp("startup") / "studio"
    gm = GameMaster(init_workspace(root))
    pending, _ = gm.open_next()
    for turn, agent in enumerate(pending.turns):
        gm.submit_reply(agent, OfflineBackend().reply(gm.build_request(pending, turn)))
    gm.apply_pending()
    # A WORK scene next, not a talk in the break: a reply to it writes no follow-up prompt.
    world = json.loads(gm.workspace.world_path.read_text(encoding="utf-8"))
    world["kinds"]["encounter"]["per_day"] = 0
    gm.workspace.world_path.write_text(json.dumps(world, ensure_ascii=False), encoding="utf-8")
    pending, _ = gm.open_next()
    assert pending.spec.type == "WORK"
    first = pending.turns[0]
    event = {"hook_event_name": "SubagentStop", "agent_type": "character-" + first.replace("_", "-"),
             "last_assistant_message": OfflineBackend().reply(gm.build_request(pending, 0))}
    reply = pending.reply_path(0).relative_to(root)
    return root, first, json.dumps(event, ensure_ascii=False), reply


def modules_of(tmp_path, root, *args: str, stdin: str | None = None) -> list[str]:
    out = tmp_path / "modules.json"
    result = subprocess.run([sys.executable, "-c", RUN, str(out), "--root", str(root), *args],
                            input=stdin, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return json.loads(out.read_text())


def test_prompt_loads_no_backend_no_rich_no_index(studio, tmp_path):
    root, first, _, _ = studio
    assert heavy(modules_of(tmp_path, root, "prompt", first), ONE_SCENE + WRITE_BACK) == ""


def test_status_loads_rich_only_for_people(studio, tmp_path):
    root, _, _, _ = studio
    assert heavy(modules_of(tmp_path, root, "status", "--json"), ONE_SCENE + WRITE_BACK) == ""
    for_people = modules_of(tmp_path, root, "status")
    assert "rich.table" in for_people  # it prints a table
    assert heavy(for_people, tuple(m for m in ONE_SCENE if m != "rich")) == ""


def test_the_hook_stores_a_reply_without_a_backend_or_rich(studio, tmp_path):
    root, first, event, reply = studio
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(root), str(copy)], check=True)
    # Run once per reply: started without the command line's parser (typer) and its commands.
    assert heavy(modules_of(tmp_path, copy, "hook", "subagent-stop", stdin=event), ONE_SCENE + ("typer", "gamemaster.cli")) == ""
    assert json.loads((copy / reply).read_text(encoding="utf-8"))["agent"] == first  # it stored the reply


def test_the_hook_started_without_the_cli_says_a_problem_in_one_line_as_the_cli_does(studio, tmp_path):
    root, first, event, reply = studio
    runs = {}
    for how, argv in (("direct", ["-m", "gamemaster"]),
                      ("cli", ["-c", "import sys; from gamemaster.cli import app; app(prog_name='gamemaster')"])):
        copy = tmp_path / how
        subprocess.run(["cp", "-a", str(root), str(copy)], check=True)
        for stdin in ("not json", "[1]", event.replace(first.replace("_", "-"), "nobody")):
            result = subprocess.run([sys.executable, *argv, "--root", str(copy), "hook", "subagent-stop"],
                                    input=stdin, capture_output=True, text=True)
            runs.setdefault(how, []).append((result.returncode, result.stdout, result.stderr))
        assert not (copy / reply).exists()
    assert runs["direct"] == runs["cli"]
    assert [code for code, _, _ in runs["direct"]] == [1, 1, 0]
    assert runs["direct"][0][2].startswith("error: hook input is not JSON: ") and runs["direct"][0][2].count("\n") == 1
    assert runs["direct"][1][2] == "error: hook input is not a JSON object\n"


def answer_all(root: Path) -> GameMaster:
    """The pending scene of the studio at ``root`` with every reply in (the offline player's)."""
    gm = GameMaster(Workspace(root))
    pending = gm.require_pending()
    for turn, agent in enumerate(pending.turns):
        gm.submit_reply(agent, OfflineBackend().reply(gm.build_request(pending, turn)))
    return gm


def test_next_and_apply_load_no_backend_and_no_rich(studio, tmp_path):
    root, _, _, _ = studio
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(root), str(copy)], check=True)
    answer_all(copy)
    # Both write memories (the index) and build the next prompts; neither prints anything rich.
    assert heavy(modules_of(tmp_path, copy, "apply"), ("rich",)) == ""
    assert heavy(modules_of(tmp_path, copy, "next"), ("rich", "yaml")) == ""


def test_only_the_command_a_run_names_is_built_and_anything_unclear_builds_all():
    assert command_word(["--root", "studio", "next"]) == "next"
    assert command_word(["--root=studio", "status", "--json"]) == "status"
    assert command_word(["hook", "subagent-stop"]) == "hook"
    # Help, no command, or an option the command line does not know before it: all commands.
    assert command_word(["--help"]) is None
    assert command_word([]) is None
    assert command_word(["--root"]) is None
    assert command_word(["--verbose", "next"]) is None


def test_no_model_field_starts_from_a_builtin_factory():
    """pydantic reads a default factory's signature while building a model; a builtin's
    (``list``, ``dict``) is parsed with ``tokenize``, whose first use costs every command
    about 6 ms of start-up. Each model of the toolkit's modules starts its empty fields from
    ``gamemaster.defaults`` instead."""
    import importlib
    import inspect
    import pkgutil

    from pydantic import BaseModel

    import gamemaster

    found = []
    for info in pkgutil.walk_packages(gamemaster.__path__, "gamemaster."):
        if info.name.endswith("__main__"):
            continue  # runs the command line
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, BaseModel) and value.__module__ == info.name:
                found += [f"{info.name}.{name}.{field}" for field, spec in value.model_fields.items()
                          if inspect.isbuiltin(spec.default_factory) or isinstance(spec.default_factory, type)]
    assert found == []


def test_next_on_words_met_before_loads_no_stemmer_and_opens_the_same_scene(studio, tmp_path):
    """The stems a command computed are kept in ``state/.cache/stems.json``; a later command that
    meets only those words neither imports the Snowball stemmers nor stems, and its prompts are
    the same as with stemming. A damaged file is stemmed past, with the same prompts."""
    root, _, _, _ = studio
    between = tmp_path / "between"
    subprocess.run(["cp", "-a", str(root), str(between)], check=True)
    answer_all(between).apply_pending()
    stems = Path("state", ".cache", "stems.json")
    (between / stems).unlink(missing_ok=True)
    copies = {name: tmp_path / name for name in ("first", "again", "damaged")}
    for copy in copies.values():
        subprocess.run(["cp", "-a", str(between), str(copy)], check=True)

    first = modules_of(tmp_path, copies["first"], "next")
    assert "snowballstemmer" in first  # nothing stemmed before: the stemmer runs, and its stems are kept
    (copies["again"] / stems).write_bytes((copies["first"] / stems).read_bytes())
    (copies["damaged"] / stems).write_text('{"stemmer": "x", "stems": {"de": {"turm": 1', encoding="utf-8")
    assert "snowballstemmer" not in modules_of(tmp_path, copies["again"], "next")
    assert "snowballstemmer" in modules_of(tmp_path, copies["damaged"], "next")

    def scenes(copy):
        return {p.relative_to(copy): p.read_bytes() for p in (copy / "scenes").rglob("*") if p.is_file()}

    opened = scenes(copies["first"])
    assert any(p.name.endswith(".md") for p in opened)  # the prompts were written
    assert scenes(copies["again"]) == opened
    assert scenes(copies["damaged"]) == opened
