"""What a prompt section is: one feature of a character's turn, whole, in one module.

A section gathers what it needs for one turn (``gather``: from the turn's facts and what the
sections before it gathered), fills placeholders of the prompt (``values``), hands the same facts
typed to the backends (``request``), adds reply fields and lines of the reply contract
(``reply_fields``, ``contract_lines``), checks what a reply says there (``check``) and writes it
back (``write_back`` for each reply, ``after_replies`` once a scene). ``requests.build_request``
and ``writeback.plan_scene`` are loops over the sections a kind uses, in ``order``: a section
may read what an earlier one gathered (``TurnFacts.gathered``), the way a Concordia component
reads another's state.

A built-in section has its placeholders in ``character.md``: where it stands there decides what
an API caches. A section from elsewhere ships a template fragment beside its module
(``template``), filled with its ``values`` and shown where ``character.md`` has ``$sections``.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ClassVar

if TYPE_CHECKING:
    from ..kinds.base import ReplyCheck, SceneKind, SceneWrite
    from ..models import Agent, World
    from ..pending import Pending
    from ..problems import Problem
    from ..reply_models import Reply
    from ..scene_spec import SceneSpec
    from ..streams import MemoryStream


@dataclass
class TurnFacts:
    """One character's turn of a pending scene, as its sections see it: the studio as the scene
    found it, the character's own memory stream (a character reads only its own mind), and where
    the studio keeps its files: not the workspace to reach into."""

    pending: "Pending"
    turn: int
    world: "World"
    agents: dict[str, "Agent"]
    #: id → name of everyone in the studio.
    names: dict[str, str]
    #: The character's own memory stream.
    stream: "MemoryStream"
    #: An agent id → how colleagues call them (``retrieval.speaker_names``).
    name_of: Callable[[str], str]
    #: The workspace folder (its ``library/``), and where a template is read from (its ``prompts/`` first).
    root: Path
    find: Callable[[str], Path]
    #: Where a file it reads past is reported (``Workspace.warn``).
    warn: "Callable[[Problem], None] | None" = None
    #: Bad memory lines met on the way are added here (None: not collected).
    warnings: "list[Problem] | None" = None
    #: section name → what it gathered, for the sections after it.
    gathered: dict[str, Any] = field(default_factory=dict)

    @property
    def spec(self) -> "SceneSpec":
        return self.pending.spec

    @property
    def agent(self) -> "Agent":
        return self.agents[self.pending.turns[self.turn]]

    @property
    def language(self) -> str:
        return self.world.language

    @property
    def model(self) -> str | None:
        """The model the character is played with as far as the studio names it (its own, else the
        world's; a backend's ``--model`` comes after the prompt is written); None: the backend's choice."""
        return self.agent.model or self.world.model

    @property
    def first_turn(self) -> bool:
        """The character's first turn of this scene (a MEETING gives it several)."""
        return self.pending.turns[self.turn] not in self.pending.turns[: self.turn]

    @property
    def final_turn(self) -> bool:
        return self.pending.is_final_turn(self.turn)



class PromptSection:
    """The defaults: a section that gathers nothing, shows nothing and writes nothing."""

    name: ClassVar[str]
    #: Where it runs among the sections (lowest first): for gathering, checking and writing back.
    order: ClassVar[int] = 1000
    #: Its template fragment, beside its module (None: its placeholders are in ``character.md``).
    template: ClassVar[str | None] = None
    #: Reply fields it adds to every reply model of the kinds that use it: name → (type, default),
    #: as ``pydantic.create_model`` takes them. The built-in sections' fields are ``Reply``'s own.
    reply_fields: ClassVar[dict[str, tuple[Any, Any]]] = {}
    #: Its lines in the reply contract, per language (for its own ``reply_fields``).
    contract_lines: ClassVar[dict[str, list[str]]] = {}

    @property
    def template_file(self) -> Path | None:
        """Its fragment as shipped beside its module (a workspace's ``prompts/`` comes first)."""
        return Path(inspect.getfile(type(self))).with_name(self.template) if self.template else None

    def used_in(self, kind: "SceneKind") -> bool:
        """Whether scenes of ``kind`` have it."""
        return True

    def gather(self, turn: TurnFacts) -> Any:
        """What it needs for this turn (kept in ``turn.gathered[name]`` for later sections)."""
        return None

    def values(self, gathered: Any, turn: TurnFacts) -> dict[str, str]:
        """The placeholders it fills: in ``character.md`` or in its own fragment."""
        return {}

    def request(self, gathered: Any, turn: TurnFacts, prompt: str) -> dict[str, Any]:
        """``ReplyRequest`` fields it fills for the backends, knowing the finished ``prompt``."""
        return {}

    def settle(self, gathered: Any, turn: TurnFacts, prompt: str, segments: list[str]) -> Any:
        """What it shows instead, now that the ``prompt`` and its cacheable ``segments`` are known
        (``prompts.CACHE_MARKERS``); None: as it is. The prompt is then built once more."""
        return None

    def offline(self, request: Any) -> dict[str, Any]:
        """What the offline player puts in its reply's own fields (``reply_fields``)."""
        return {}

    def check(self, reply: "Reply", ctx: "ReplyCheck") -> list[str]:
        """Problems with what a reply says in its fields, as ``field: reason`` strings."""
        return []

    def write_back(self, scene: "SceneWrite", agent_id: str, reply: "Reply") -> None:
        """What one reply's fields change (memories through ``scene.remember``, the agents in
        ``scene.updated``, the world in ``scene.world``, files in ``scene.files``)."""

    def after_replies(self, scene: "SceneWrite") -> None:
        """What it changes once every reply is written, before the kind's own write-back."""
