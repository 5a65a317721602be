"""The studio as one command step sees it: the world and the agents, read once and immutable.

A ``Snapshot`` is what the decision (which scene is next), prompt building and write-back are
given, instead of each loading ``state/world.json`` and the agent files again. Its models are
frozen copies: assigning a field, appending to a list or setting a key raises, so nothing
downstream can change what a later step of the same command will read. Write-back works on
``working_world()`` and ``working_agent()``, mutable deep copies of what it changes, which reach
the files only through the scene's transaction.

A snapshot stays current while the files it was read from are unchanged; ``is_current`` checks
that by their stat stamps (no read): a commit, another gamemaster process or a hand edit
replaces or rewrites a file, and the next step reads a fresh snapshot.
"""

from __future__ import annotations

from copy import deepcopy
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from pydantic import BaseModel, ConfigDict

from .ids import is_agent_id
from .models import Agent, World
from .parsed_lines import stamp as file_stamp
from .statefiles import open_stream
from .streams import MemoryStream
from .workspace import Workspace


class FrozenList(list):
    """A list of a snapshot's model: reading works as on any list, changing it raises."""

    def _refuse(self, *args, **kwargs):
        raise TypeError("a snapshot's lists cannot be changed; change a working copy (working_world, working_agent) instead")

    append = extend = insert = remove = pop = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse

    def __deepcopy__(self, memo):
        # model_copy(deep=True) of a frozen model: a plain list, as the model had when parsed.
        return [deepcopy(item, memo) for item in self]

    def __copy__(self):
        return list(self)


class FrozenDict(dict):
    """A dict of a snapshot's model: reading works as on any dict, changing it raises."""

    def _refuse(self, *args, **kwargs):
        raise TypeError("a snapshot's mappings cannot be changed; change a working copy (working_world, working_agent) instead")

    __setitem__ = __delitem__ = __ior__ = _refuse
    setdefault = update = pop = popitem = clear = _refuse

    def __deepcopy__(self, memo):
        return {deepcopy(k, memo): deepcopy(v, memo) for k, v in self.items()}

    def __copy__(self):
        return dict(self)


_FROZEN_CLASSES: dict[type, type] = {}


def _frozen_class(cls: type[BaseModel]) -> type[BaseModel]:
    """``cls`` with ``frozen=True``: the same fields, validators and dump, no assignment."""
    frozen = _FROZEN_CLASSES.get(cls)
    if frozen is None:
        config = ConfigDict(**{**cls.model_config, "frozen": True})
        frozen = type(cls.__name__, (cls,), {"model_config": config, "__module__": cls.__module__,
                                            "__qualname__": cls.__qualname__})
        _FROZEN_CLASSES[cls] = frozen
    return frozen


def freeze(value: Any) -> Any:
    """An immutable copy of ``value``: models frozen, lists and dicts read-only, all the way down."""
    if isinstance(value, BaseModel):
        fields = {name: freeze(getattr(value, name)) for name in type(value).model_fields}
        extra = {name: freeze(item) for name, item in (value.__pydantic_extra__ or {}).items()}
        return _frozen_class(type(value)).model_construct(value.model_fields_set, **fields, **extra)
    if isinstance(value, list):
        return FrozenList(freeze(item) for item in value)
    if isinstance(value, dict):
        return FrozenDict({key: freeze(item) for key, item in value.items()})
    return value


@dataclass(frozen=True)
class Snapshot:
    """``world`` and ``agents`` (id → agent), frozen; agents are read when first asked for."""

    workspace: Workspace = field(repr=False, compare=False)
    #: The world as parsed, never handed out: ``working_world`` copies it.
    _world: World = field(repr=False)
    _world_stamp: tuple | None = field(repr=False)

    @classmethod
    def read(cls, workspace: Workspace) -> Snapshot:
        stamp = file_stamp(workspace.world_path)  # before the read: a change in between reads again
        return cls(workspace, workspace.load_world(), stamp)

    @cached_property
    def world(self) -> World:
        return freeze(self._world)

    @cached_property
    def _agents(self) -> tuple[dict[str, Agent], dict[Path, tuple | None], dict[str, Path]]:
        files = self.workspace.agent_files()
        stamps = {path: file_stamp(path) for path in files.values()}  # before the read, as the world's
        # Shared with the workspace's cache of parsed files: never changed here, only copied.
        return self.workspace.load_shared(files), stamps, files

    @cached_property
    def agents(self) -> Mapping[str, Agent]:
        return MappingProxyType(self.workspace.kept_each(self._agents[2], self._agents[0], freeze))

    def stream(self, agent_id: str) -> MemoryStream:
        """``agent_id``'s memory stream (``Workspace.stream``): what a step reads memories from."""
        return open_stream(self.workspace.root, agent_id)

    def working_world(self) -> World:
        """A mutable deep copy of the world, for write-back to change."""
        return self._world.model_copy(deep=True)

    def working_agent(self, agent_id: str) -> Agent:
        """A mutable deep copy of one agent: write-back copies only those a scene changes."""
        return self._agents[0][agent_id].model_copy(deep=True)

    def with_world(self, world: World) -> Snapshot:
        """This snapshot after its own step saved ``world``: the agents read stay, nothing is read again."""
        after = Snapshot(self.workspace, world, file_stamp(self.workspace.world_path))
        for name in ("_agents", "agents"):
            if name in self.__dict__:
                after.__dict__[name] = self.__dict__[name]
        return after

    def is_current(self) -> bool:
        """Whether the files this snapshot was read from are still the same (stat only)."""
        if file_stamp(self.workspace.world_path) != self._world_stamp:
            return False
        if "_agents" not in self.__dict__:
            return True
        stamps = self._agents[1]
        files = {p for p in self.workspace.agents_dir.glob("*.json") if p.is_file() and is_agent_id(p.stem)}
        return files == set(stamps) and all(file_stamp(path) == stamp for path, stamp in stamps.items())
