"""The import graph of gamemaster/: no cycle, a value layer at the bottom, and every function-local
import of the package's own modules listed here with the reason it is local.

The graph counts every import, also those inside functions (they are cycles all the same, only
deferred), except ``if TYPE_CHECKING:`` blocks, as /work/shared/hooks/import_cycles.py does.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "gamemaster"

_STARTUP = ("start-up: `gamemaster --help` and every command load all command groups, so a command "
            "imports what it works with only when it runs")

_SECTION = ("the sections are found by importing each (pkgutil), and the reply hook, `status` and `prompt` need "
            "their reply fields and checks: what builds a prompt (the search index, the news, the reply contract) "
            "or writes an artifact (YAML) loads only when that runs")

#: The one place that says which modules import their own package's modules inside functions,
#: and why. Every other import is at the top of its module. A module imported at start-up
#: (``python -X importtime -m gamemaster --help``) defers what only some commands need.
LAZY_IMPORTS: dict[str, str] = {
    "gamemaster.__main__": "every Bash call of a Claude Code session runs the PreToolUse hook; one that is not a "
                           "character's is let through before the CLI loads (0.022 s of CPU instead of 0.194)",
    "gamemaster.command_run": "start-up of every command, and of the SubagentStop hook started without the CLI: "
                              "the workspace, the Game Master and the reply hook load when the command runs",
    "gamemaster.cli": _STARTUP,
    "gamemaster.cli.agents": _STARTUP,
    "gamemaster.cli.common": _STARTUP,
    "gamemaster.cli.config": _STARTUP,
    "gamemaster.cli.cost": _STARTUP,
    "gamemaster.cli.day": _STARTUP,
    "gamemaster.cli.doctor": _STARTUP,
    "gamemaster.cli.hook": _STARTUP,
    "gamemaster.cli.mcp": _STARTUP,
    "gamemaster.cli.memory": _STARTUP,
    "gamemaster.cli.play": _STARTUP,
    "gamemaster.cli.plugin": _STARTUP,
    "gamemaster.cli.report": _STARTUP,
    "gamemaster.cli.scene": _STARTUP,
    "gamemaster.cli.studio": _STARTUP,
    "gamemaster.cli.workspace": _STARTUP,
    "gamemaster.backends": "start-up: the CLI lists backends for --help; the request types (pydantic) load "
                           "when a backend is used",
    "gamemaster.backends.registry": "start-up: as gamemaster.backends",
    "gamemaster.claude_code": "start-up of the SubagentStop hook, run after every subagent of a session: "
                              "it loads the Game Master only when the subagent was a character with a turn, "
                              "and the prompt templates (and the reply contract) only to write subagent files",
    "gamemaster.claude_fence": "start-up of every command: the PreToolUse hook's module loads only for "
                                "`hook pre-tool-use`, which Claude Code runs for each read and spawn",
    "gamemaster.gm": "start-up of `prompt`, `status` and the hook: opening a scene and building a prompt (memory "
                     "selection, the reply contract naming every kind) load only when a prompt is built; taking a reply, "
                     "writing a scene back and the day summary only when they run",
    "gamemaster.writeback": "start-up of every command that loads the Game Master: the news module (and the "
                            "retrieval package under it) loads only when a scene is written back",
    "gamemaster.day_memories": "start-up of the hook, which loads the request builder: the search index "
                               "(sqlite3) loads only when a prompt looks up the day's memories",
    "gamemaster.mcp_server": "start-up of `gamemaster mcp`: the server lists its tools before any is "
                             "called; each tool loads its module when called",
    "gamemaster.retrieval": "strategies are found by name (pkgutil) when one is asked for, like kinds",
    "gamemaster.lookup": "start-up of every command that plays a scene: the retrieval stack loads with a "
                         "character's first lookup, not with the loop",
    "gamemaster.streams": "start-up: the search index (sqlite3) is loaded only by the commands that "
                          "append to a stream, not by those that read one",
    "gamemaster.sections.artifacts": _SECTION,
    "gamemaster.sections.briefs": _SECTION,
    "gamemaster.sections.day_memories": _SECTION,
    "gamemaster.sections.gatherings": _SECTION,
    "gamemaster.sections.library": _SECTION,
    "gamemaster.sections.news": _SECTION,
    "gamemaster.sections.recall": _SECTION,
    "gamemaster.sections.takeaways": _SECTION,
    "gamemaster.scene_spec": "a value below the registry: a scene record reads without importing any kind; "
                             "``SceneSpec.kind`` looks its kind up when asked",
}

#: The value layer: what a scene, a request and a reply are, and the state files. It imports only
#: itself: reading world.json or a scene record imports no kind. (``SceneSpec.kind`` asks the
#: registry when called, the one import upwards, listed in ``LAZY_IMPORTS``.)
VALUE_LAYER = {
    "gamemaster.scene_spec", "gamemaster.turns", "gamemaster.reply_models", "gamemaster.topics",
    "gamemaster.models", "gamemaster.ids", "gamemaster.slots", "gamemaster.lang", "gamemaster.linesize",
    "gamemaster.jsontext", "gamemaster.problems", "gamemaster.schedule", "gamemaster.defaults", "gamemaster.calendar",
}
#: What the value layer's one lazy import reaches: the registry, which imports only ``kinds/base.py``.
REGISTRY = {"gamemaster.kinds"}


def _modules() -> dict[str, Path]:
    mods = {}
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        mods[name.removesuffix(".__init__")] = path
    return mods


def _edges() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """module → the own modules it imports; and the same for imports inside functions only."""
    mods = _modules()
    edges: dict[str, set[str]] = defaultdict(set)
    local: dict[str, set[str]] = defaultdict(set)
    for module, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = {id(x) for n in ast.walk(tree) if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test)
                for b in n.body for x in ast.walk(b)}
        inside = {id(x) for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                  for x in ast.walk(n)}
        for node in ast.walk(tree):
            if id(node) in skip or not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = node.module or ""
                if node.level:
                    parts = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
                    parts = parts[: len(parts) - (node.level - 1)]
                    base = ".".join(parts + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            for target in targets:
                while target and target not in mods:
                    target = target.rpartition(".")[0]
                if target and target != module:
                    edges[module].add(target)
                    if id(node) in inside:
                        local[module].add(target)
    return edges, local


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    sys.setrecursionlimit(10_000)

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in list(edges):
        if v not in index:
            visit(v)
    return found


def test_the_package_has_no_import_cycle():
    edges, _ = _edges()
    assert _cycles(edges) == []


def test_the_value_layer_imports_nothing_above_it():
    edges, local = _edges()
    static = {m: edges[m] - local[m] for m in VALUE_LAYER}
    assert {m: sorted(static[m] - VALUE_LAYER) for m in VALUE_LAYER if static[m] - VALUE_LAYER} == {}
    assert {m: sorted(local[m] - VALUE_LAYER) for m in VALUE_LAYER if local[m] - VALUE_LAYER} == {
        "gamemaster.scene_spec": sorted(REGISTRY)}
    # The registry imports only base.py; the kinds it finds are imported by name, never statically.
    assert edges["gamemaster.kinds"] <= {"gamemaster.kinds.base", "gamemaster.found", "gamemaster.problems"}
    assert edges["gamemaster.kinds.base"] <= VALUE_LAYER


def test_every_function_local_import_of_the_package_is_listed_with_its_reason():
    _, local = _edges()
    assert sorted(m for m in local if m not in LAZY_IMPORTS) == []
    assert sorted(m for m in LAZY_IMPORTS if m not in local) == []  # listed but no longer lazy: drop it


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
