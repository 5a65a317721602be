"""What a scene kind is: one object that knows everything particular to its scenes.

A kind says who takes part when it is chosen (from the state, pure), whether
its turns run side by side or one after another, what its replies must and may
carry, what writing it back changes beyond what every scene changes, whether
it uses up one of the day's scenes, and when the studio chooses it. (How the offline player plays it is the player's
business: ``backends/offline/composers.py``.) The
rest of the toolkit asks the kind and never branches on its name.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Collection, Iterable

from pydantic import BaseModel, ConfigDict

from ..reply_models import Reply

if TYPE_CHECKING:
    from ..models import Agent, Memory, TalkWish, World
    from ..replies import Reply
    from ..scenes import SceneSpec

#: Reply sections only some kinds allow (parts of a reply, not the prompt sections of ``sections/``);
#: every kind allows memories, plan, talk wishes, gatherings, invitation answers and takeaways (what
#: one took from what one heard, heard in any scene).
SECTIONS = ("artifacts", "insights", "conversation")

#: How the contract's rule for a section names a kind that allows it (``plan``: requires it) and
#: has no word of its own in ``contract_rules``, per language.
RULE_WORDS = {
    "de": {"conversation": "einer {name}-Szene", "artifacts": "{name}", "insights": "{name}", "plan": "{name}"},
    "en": {"conversation": "of a {name} scene", "artifacts": "{name}", "insights": "{name}", "plan": "{name}"},
}
#: What asks the speaker of a kind that allows a conversation for its summary in its last turn,
#: where the kind has no words of its own (``final_turn``).
FINAL_TURN = {
    "de": "Das ist dein letzter Beitrag in dieser Szene ({name}): fasse sie im Feld `conversation` aus deiner Sicht zusammen.",
    "en": "This is your last turn in this {name} scene: summarise it from your view in `conversation`.",
}


class KindSettings(BaseModel):
    """A kind's own settings: ``kinds.<kind>`` in ``state/world.json`` (``kinds/settings.py``).

    Each field carries its bounds and, through ``models.at_most``, the reason for its upper
    one; its ``description`` is what the generated settings table (``kind_docs.py``) says it means."""

    model_config = ConfigDict(extra="forbid", defer_build=True, allow_inf_nan=False)

    #: field → the flat ``world.json`` key it had before settings were namespaced (read, and moved by ``doctor --fix``).
    former_names: ClassVar[dict[str, str]] = {}


@dataclass
class ReplyCheck:
    """What a kind's reply rules may look at besides the reply."""

    agent: str
    spec: "SceneSpec"
    roster: Iterable[str]
    #: ids → the ones missing from the agent's memory stream
    evidence_exists: Callable[[list[str]], list[str]]
    final_turn: bool
    #: The memory ids the agent's prompt for this turn showed; None where that was not recorded.
    shown: "Collection[str] | None" = None
    #: What was said in the scene's turns before this one.
    said_before: tuple[str, ...] = ()
    #: The studio as the scene found it (its gatherings are what invitations may answer); None: not checked.
    world: "World | None" = None
    #: Whose words the agent's prompt showed as heard (``sections/takeaways.py``); None: not recorded.
    heard_from: "Collection[str] | None" = None


@dataclass
class SceneWrite:
    """The scene being written back, for a kind's own effects.

    ``remember(agent, **fields)`` adds a memory (with id and ``created``);
    ``updated`` holds the agents as they will be saved.
    """

    spec: "SceneSpec"
    turns: list[tuple[str, "Reply"]]
    agents: dict[str, "Agent"]
    updated: dict[str, "Agent"]
    remember: Callable[..., "Memory"]
    language: str
    #: The world as it will be saved (the scene already in its log).
    world: "World"
    #: agent → the library excerpts its prompt showed (``Excerpt.as_dict``)
    readings: dict[str, list[dict]] = field(default_factory=dict)
    #: ``remembers(agent, description)``: does one of the agent's newest memories (``news.TAIL``)
    #: say this word for word already? For what the tool would otherwise write again (a re-read).
    remembers: Callable[[str, str], bool] = lambda agent, description: False
    #: ``passes(agent, says)``: the sentences of the agent's line that pass on something it held as
    #: news (``passing.py``), kept with the line for its listeners.
    passes: Callable[[str, str], list[str]] = lambda agent, says: []
    #: The world as the scene found it (what the replies were asked against).
    found: "World | None" = None
    #: id → name of everyone in the studio.
    names: dict[str, str] = field(default_factory=dict)
    #: Files the scene writes besides the streams, agents and world (path relative to the workspace → text).
    files: dict[str, str] = field(default_factory=dict)
    #: The gallery files it writes, in order.
    artifacts: list[str] = field(default_factory=list)
    #: ``gallery_path(kind, day, name)``: the next free gallery path for an artifact (taken at once).
    gallery_path: Callable[[str, int, str], str] = field(default=lambda kind, day, name: _no_gallery())
    #: ``depth_of(ids)``: the deepest reflection depth among the memories cited.
    depth_of: Callable[[list[str]], int] = lambda ids: 0
    #: ``stream_of(agent)``: an agent's memory stream as the scene found it (the day's memories are chosen from it).
    stream_of: Callable[[str], Any] = field(default=lambda agent: _no_streams())
    #: ``name_of(agent)``: how colleagues call an agent (``retrieval.speaker_names``).
    name_of: Callable[[str], str] = lambda agent: agent


def _no_gallery() -> str:
    raise RuntimeError("this scene was set up to write no artifacts (SceneWrite.gallery_path)")


def _no_streams():
    raise RuntimeError("this scene was set up to read no streams (SceneWrite.stream_of)")


class SceneKind:
    """The defaults: a scene of one or more characters side by side, one reply each."""

    name: ClassVar[str]
    #: Turns one after another, each speaker seeing what was said (MEETING, ENCOUNTER).
    in_sequence: ClassVar[bool] = False
    #: Uses up one of the day's ``scenes_per_day``.
    counts_toward_day: ClassVar[bool] = True
    #: Taking part counts as acting (``Agent.last_acted``): who waited longest acts next.
    acting: ClassVar[bool] = False
    #: Which of ``SECTIONS`` a reply may carry.
    allows: ClassVar[frozenset[str]] = frozenset()
    #: Reply fields its replies must carry besides those every reply must (``agent``, ``scene``,
    #: ``action``): what the prompt names as required (``claims.reply_fields``); ``check`` refuses a
    #: reply without them.
    requires: ClassVar[frozenset[str]] = frozenset()
    #: Required in a speaker's last turn only (a conversation's summary).
    requires_last: ClassVar[frozenset[str]] = frozenset()
    #: The short label after "only … scenes" in a reply error.
    describes_section: ClassVar[dict[str, str]] = {}
    #: News since the last scene (a brief, a colleague's artifact) asks for a new plan.
    replans_on_news: ClassVar[bool] = False
    #: Without a topic, memory is ranked against the plan's tags too.
    recalls_by_plan: ClassVar[bool] = False
    #: Without a topic, memory is ranked against the character's interests even with a plan.
    recalls_by_interests: ClassVar[bool] = False
    #: Its replies cite evidence from the memories the prompt shows (a prompt showing none is an error).
    cites_evidence: ClassVar[bool] = False
    #: Its prompts offer excerpts from the reference library (``library.py``).
    consults_library: ClassVar[bool] = False
    #: What asks a speaker for the summary in their last turn, per language (empty: nothing).
    final_turn: ClassVar[dict[str, str]] = {}
    #: Its words in the reply contract's rules, per language: section (``SECTIONS``, or
    #: ``plan`` where the kind requires one) → how the rule names this kind, e.g. WORK's
    #: ``{"de": {"artifacts": "WORK"}}``; ``contract.py`` joins them over every kind.
    contract_rules: ClassVar[dict[str, dict[str, str]]] = {}
    #: What the Game Master writes for its scenes (a meeting notice), per language: language →
    #: name → template, filled in by ``say``; the studio-wide sentences are ``lang.PHRASES``.
    phrases: ClassVar[dict[str, dict[str, str]]] = {}
    #: Lines of its own for the reply contract (for fields of its own ``reply_model``), per language.
    contract_lines: ClassVar[dict[str, list[str]]] = {}
    #: Why the Game Master chose one of its scenes: name → template per language. The English one
    #: is what ``reason`` writes into the scene's record; ``reasons.reason`` reads a stored reason back
    #: through the English templates of every kind and shows it in the studio's language, so a
    #: change of wording here changes both. Fields named in ``reasons.REASON_IDS`` hold character ids;
    #: a more specific template comes before one it would also match.
    reasons: ClassVar[dict[str, dict[str, str]]] = {}
    #: What a reply to one of its scenes is (``gamemaster schema --type KIND``): ``Reply`` or a subclass.
    reply_model: ClassVar[type[Reply]] = Reply
    #: The colour of its scenes in the report (badges, bars).
    colour: ClassVar[str] = "#6b6b6b"
    #: Where it is described for the Game Master (CLAUDE.md, the /scene command): per language.
    summary: ClassVar[dict[str, str]] = {}
    #: Where the kind is listed (error messages, ``--help``, the report): lowest first.
    order: ClassVar[int] = 1000
    #: Where ``scenes.decide_next`` asks it whether its scene is due (lowest first; the
    #: Creative Director's briefs are asked at 50); None: only played when forced.
    decides: ClassVar[int | None] = None
    #: Its settings (``kinds.<kind>`` in world.json, read with ``kinds.settings.settings_of``); None: it has none.
    settings: ClassVar[type[KindSettings] | None] = None
    #: How many participants a scene of this kind can have.
    min_participants: ClassVar[int] = 1
    max_participants: ClassVar[int | None] = None

    @property
    def template(self) -> str:
        """The prompt template with this kind's task (in ``prompts/``)."""
        return f"{self.name.lower()}.md"

    @property
    def template_file(self) -> Path:
        """Where the kind ships its template: beside its module. A workspace's ``prompts/`` and
        the toolkit's bundled prompts come first (``Workspace.template_path``)."""
        return Path(inspect.getfile(type(self))).with_name(self.template)

    def reason(self, name: str, **values) -> str:
        """The English reason ``name`` of ``reasons``, filled in: what a scene's record keeps."""
        return self.reasons[name]["en"].format(**values)

    def phrase(self, table: dict[str, str], language: str) -> str:
        """The entry of a per-language table for ``language``, else the English one, else none."""
        return table.get(language, table.get("en", ""))

    def say(self, language: str, name: str, **values) -> str:
        """Its phrase ``name`` in ``language`` (English for a language it lacks), filled in."""
        return self.phrases.get(language, self.phrases.get("en", {}))[name].format(**values)

    def turns(self, spec: "SceneSpec") -> list[str]:
        return list(spec.participants)

    def rounds(self, world: "World") -> int:
        return 1

    def required(self, final_turn: bool) -> frozenset[str]:
        """What a reply must carry: ``requires``, and in a speaker's last turn ``requires_last`` and,
        where the kind allows a conversation, the conversation (it is what the talk is kept as)."""
        if not final_turn:
            return self.requires
        return self.requires | self.requires_last | (frozenset({"conversation"}) & self.allows)

    def rule_word(self, section: str, language: str) -> str:
        """How the contract's rule for ``section`` names this kind: its ``contract_rules`` word, else
        its name (``RULE_WORDS``); empty where the rule is not about it (it does not allow the
        section; for ``plan``: does not require one)."""
        concerned = section in self.requires if section == "plan" else section in self.allows
        if not concerned:
            return ""
        own = self.contract_rules.get(language, self.contract_rules.get("en", {})).get(section)
        return own or RULE_WORDS.get(language, RULE_WORDS["en"])[section].format(name=self.name)

    def final_turn_request(self, language: str) -> str:
        """What asks a speaker for what its last turn must carry: ``final_turn``, else, where the
        kind allows a conversation, the default words (``FINAL_TURN``); empty: nothing is asked."""
        own = self.phrase(self.final_turn, language)
        if own or "conversation" not in self.allows:
            return own
        return FINAL_TURN.get(language, FINAL_TURN["en"]).format(name=self.name)

    def check(self, reply: "Reply", ctx: ReplyCheck) -> list[str]:
        """Problems particular to this kind, as ``field: reason`` strings."""
        return []

    def merge_talk_wishes(self, current: list["TalkWish"], new: list["TalkWish"]) -> list["TalkWish"]:
        known = {(tuple(w.with_), w.topic) for w in current}
        return current + [w for w in new if (tuple(w.with_), w.topic) not in known]

    def before_replies(self, scene: SceneWrite) -> None:
        """What this kind writes before the replies' own memories (what happened to them)."""

    def write_back(self, scene: SceneWrite) -> None:
        """What this kind changes beyond every scene's memories, artifacts and plans."""

    def settle_accumulators(self, updated: dict[str, "Agent"], spec: "SceneSpec") -> None:
        """After the scene's importance is added to the accumulators."""

    def starts_day(self) -> bool:
        return False

    def choose(self, world: "World", agents: dict[str, "Agent"], roster: list[str]) -> "SceneSpec | None":
        """This kind's scene if the state calls for one now (pure); the registry asks in order."""
        return None

    def forced(self, world: "World", agents: dict[str, "Agent"], participants: list[str]) -> list[str]:
        """The participants when the Creative Director forces this kind (``participants`` may be empty)."""
        return participants or sorted(agents)

    def forced_fields(self, world: "World") -> dict:
        """More of the scene when it is forced (an EVENT's event, for one)."""
        return {}

    def settle(self, world: "World", agents: dict[str, "Agent"], spec: "SceneSpec") -> "SceneSpec":
        """The scene as it opens, chosen or forced: what follows from who is in it (a
        GATHERING's list of who came and who did not)."""
        return spec
