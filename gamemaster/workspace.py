"""A workspace: the folder with ``state/``, ``prompts/``, ``gallery/`` and ``scenes/``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Mapping

from pydantic import ValidationError

from . import statefiles
from .fsio import WorkspaceLock, atomic_write_json
from .kinds import all_kinds
from .kinds.settings import former_checked, world_data
from .sections import all_sections
from .ids import WORKSPACE_FOLDERS, find_workspace, is_agent_id, no_agent, reads_inside  # noqa: F401 (find_workspace re-exported)
from .models import Agent, World
from .problems import GamemasterError, Problem, StateError, describe_validation_error
from .streams import MemoryStream

ROOT_ENV = "GAMEMASTER_ROOT"


#: The studio, prompt templates and Claude Code files as shipped, inside the package.
BUNDLED = Path(__file__).resolve().parent / "bundled"


def bundled_dir(name: str) -> Path:
    """A file or folder as shipped (``state``, ``prompts``, ``CLAUDE.md``…).

    Never the checkout's top-level copy: that one is a workspace and may have been played.
    """
    candidate = BUNDLED / name
    if candidate.exists():
        return candidate
    raise StateError(f"the bundled {name} is missing from the installation")


#: What makes a workspace playable from Claude Code; `init` copies it, `agents sync` adds the subagents.
CLAUDE_CODE_FILES = ("CLAUDE.md", ".claude/commands", ".claude/settings.json", ".claude/gamemaster.sh",
                     ".claude/.gitignore", ".mcp.json")


def resolve_root(root: str | Path | None, walk_up: bool = True) -> Path:
    """``--root`` or ``GAMEMASTER_ROOT`` as given; else the workspace the current folder lies in,
    found as git finds its repository (the current folder itself if it lies in none).

    ``walk_up=False``: the current folder itself, for commands that create a workspace there.
    """
    chosen = root or os.environ.get(ROOT_ENV)
    if chosen:
        return Path(chosen).expanduser().resolve()
    here = Path.cwd().resolve()
    return (find_workspace(here) if walk_up else None) or here


def refuse_nested(target: Path) -> None:
    """A new workspace goes into ``target`` (absolute): refused where there is one already,
    in ``target`` or around it; a workspace inside another would hide it from every command below."""
    found = find_workspace(target)
    if found == target:
        raise GamemasterError(f"{target} is a gamemaster workspace already (state/world.json)")
    if found is not None:
        raise GamemasterError(f"{target} lies inside the gamemaster workspace {found}; "
                              "a workspace cannot hold another one: choose a folder outside it")


class Workspace:
    def __init__(self, root: Path):
        self.root = root
        self.state = root / "state"
        self.world_path = self.state / "world.json"
        self.agents_dir = self.state / "agents"
        self.memories_dir = self.state / "memories"
        self.journal_path = self.state / ".journal.json"
        self.gallery = root / "gallery"
        self.scenes = root / "scenes"
        self.lock = WorkspaceLock(root / ".gamemaster.lock")
        #: What was skipped or doubtful while reading; the CLI prints these as warnings.
        self.warnings: list[Problem] = []
        #: path → (the file's bytes, the model parsed from them): a state file is parsed once
        #: for as long as its bytes stay the same, and a hand edit is still seen at once.
        self._parsed: dict[Path, tuple[bytes, object]] = {}
        #: path → (a parsed model shared read-only, what ``kept`` made of it once)
        self._kept: dict[Path, tuple[object, object]] = {}

    def rel(self, path: Path) -> str:
        return statefiles.rel(self.root, path)

    def require(self) -> None:
        if not self.world_path.exists():
            raise StateError(
                f"{self.root} is not a gamemaster workspace (no state/world.json); "
                "run `gamemaster init` or pass --root"
            )

    # -- reading state -----------------------------------------------------

    def state_file(self, path: Path) -> Path:
        """``path``, unless a symbolic link takes it out of the workspace (``statefiles.state_file``)."""
        return statefiles.state_file(self.root, path)

    def read_json(self, path: Path) -> dict:
        """A JSON object from a state file; every failure names the file (and line)."""
        return statefiles.read_json(self.root, path)

    def _parsed_model(self, path: Path, model, shared: bool = False):
        """``model`` from a state file, parsed again only when the file's bytes changed.

        Callers change what they get, so each gets its own copy; ``shared``: the one instance
        kept for these bytes, for a reader that changes nothing (a snapshot: a hundred agents
        copied for every scene were a tenth of a 100-character day)."""
        self.state_file(path)
        try:
            raw = path.read_bytes()
        except OSError:
            raw = None
        cached = self._parsed.get(path)
        if raw is not None and cached is not None and cached[0] == raw:
            return cached[1] if shared else cached[1].model_copy(deep=True)
        try:
            parsed = model.model_validate(self.read_json(path))
        except ValidationError as exc:
            reason = describe_validation_error(exc)
            problems = [Problem(self.rel(path), None, describe_validation_error(exc, only=error)) for error in exc.errors()]
            raise StateError(f"{self.rel(path)}: {reason}", problems) from None
        if raw is not None:
            self._parsed[path] = (raw, parsed if shared else parsed.model_copy(deep=True))
        return parsed

    def kept(self, path: Path, parsed: object, make):
        """``make(parsed)`` for a model ``_parsed_model`` shares, made once while ``path`` holds
        the same bytes (a snapshot's frozen agent): an unchanged file costs nothing again."""
        found = self._kept.get(path)
        if found is None or found[0] is not parsed:
            found = self._kept[path] = (parsed, make(parsed))
        return found[1]

    def readable(self, path: Path) -> Path | None:
        """``path`` if reading it reads a file in the workspace; else None and a warning naming it.

        For every file read because a state file names it or a folder walk found it
        (artifacts, stored replies, scene records): a symbolic link out of the workspace
        is never followed to read, copy or publish a file (``ids.reads_inside``)."""
        if reads_inside(self.root, path):
            return path
        self.warn(Problem(self.rel(path), None, "not read: it leads outside the workspace (a symbolic link or ../)", warning=True))
        return None

    def load_world(self) -> World:
        self.require()
        world = self._parsed_model(self.world_path, World)
        former_checked(world)  # an old world.json's flat keys: a conflict stops every command, as it did
        return world

    def agent_ids(self) -> list[str]:
        """Ids of the agent files; a file that cannot be one (a backup copy, an editor's or
        the Finder's hidden file) is skipped with a warning instead of stopping every command."""
        ids = []
        for path in sorted(self.agents_dir.glob("*.json")):
            if not path.is_file():
                continue
            if is_agent_id(path.stem):
                ids.append(path.stem)
            else:
                self.warn(Problem(self.rel(path), None, "skipped: not an agent file (its name is not an agent id)", warning=True))
        return ids

    def warn(self, problem: Problem) -> None:
        if problem not in self.warnings:
            self.warnings.append(problem)

    def check_agents(self, agent_ids: list[str], where: str = "") -> list[str]:
        """``agent_ids`` if the studio has each of them; else the one message for ids it does not
        have (``where``: the option they came from, e.g. ``--to: ``)."""
        known = self.agent_ids()
        unknown = [a for a in agent_ids if a not in known]
        if unknown:
            raise GamemasterError(where + no_agent(unknown, known))
        return agent_ids

    def check_agent(self, agent_id: str) -> str:
        return self.check_agents([agent_id])[0]

    def load_agent(self, agent_id: str, shared: bool = False) -> Agent:
        """The agent's file as a model (``shared``: read-only, see ``_parsed_model``)."""
        if not is_agent_id(agent_id) or not (self.agents_dir / f"{agent_id}.json").is_file():
            self.check_agent(agent_id)  # an id typed by hand: say which agent was meant
        path = self.agent_path(agent_id)
        agent = self._parsed_model(path, Agent, shared)
        if agent.id != agent_id:
            reason = f"id: {agent.id!r} does not match the file name {agent_id!r}"
            raise StateError(f"{self.rel(path)}: {reason}", [Problem(self.rel(path), None, reason)])
        return agent

    def agent_files(self) -> dict[str, Path]:
        """Each agent's id → its file, for the ids ``agent_ids`` finds: what a snapshot reads, named once."""
        return {agent_id: self.agent_path(agent_id) for agent_id in self.agent_ids()}

    def load_shared(self, agent_ids: Iterable[str]) -> dict[str, Agent]:
        """Each agent read-only (``load_agent(shared=True)``), all at once."""
        return {agent_id: self.load_agent(agent_id, shared=True) for agent_id in agent_ids}

    def kept_each(self, files: Mapping[str, Path], parsed: Mapping[str, object], make) -> dict[str, object]:
        """``kept`` for each of ``parsed`` (id → shared model), by its file in ``files``."""
        return {key: self.kept(files[key], model, make) for key, model in parsed.items()}

    def load_agents(self) -> dict[str, Agent]:
        return {agent_id: self.load_agent(agent_id) for agent_id in self.agent_ids()}

    def stream(self, agent_id: str) -> MemoryStream:
        return statefiles.open_stream(self.root, agent_id)

    # -- writing state -----------------------------------------------------

    def agent_path(self, agent_id: str) -> Path:
        return statefiles.agent_path(self.root, agent_id)

    def inside(self, path: Path) -> Path:
        """``path``, if it lies in the workspace; a StateError otherwise. Every write checks this."""
        return statefiles.inside(self.root, path)

    def check_output_folder(self, out: Path, option: str, default: str) -> None:
        """Refuse a folder of output (a report, a recording) that is the workspace itself or lies in
        one of the folders the workspace reads: what is written there would be read as state,
        scenes, artifacts, lore or templates, or stop every command."""
        shown = self.rel(out) if out.is_relative_to(self.root) else str(out)
        if out == self.root.resolve():
            raise GamemasterError(f"{option} {shown}: the workspace itself; it needs a folder of its own (default: {default})")
        for name in WORKSPACE_FOLDERS:
            if out.is_relative_to((self.root / name).resolve()):
                raise GamemasterError(f"{option} {shown}: inside the workspace's {name}/; "
                                      f"it needs a folder of its own (default: {default})")

    def save_agent(self, agent: Agent) -> None:
        atomic_write_json(self.agent_path(agent.id), agent.dump())

    def save_world(self, world: World) -> None:
        atomic_write_json(self.world_path, world_data(world))

    # -- scenes ------------------------------------------------------------

    def scene_dir(self, ref: str) -> Path:
        return statefiles.scene_dir(self.root, ref)

    def day_dir(self, day: int) -> Path:
        return self.scenes / f"day-{day:03d}"

    def template_path(self, name: str) -> Path:
        """The workspace's own template if it has one, else the bundled one, else the one a
        kind or prompt section from another package ships beside its module
        (``SceneKind.template_file``, ``PromptSection.template_file``)."""
        local = self.root / "prompts" / name
        if local.is_file():
            return local
        bundled = bundled_dir("prompts") / name
        if bundled.is_file():
            return bundled
        shipped = next((k.template_file for k in all_kinds().values() if k.template == name), None)
        if shipped is None:
            shipped = next((s.template_file for s in all_sections().values() if s.template == name), None)
        return shipped if shipped is not None and shipped.is_file() else bundled
