"""What a backend is asked, as values: one spoken turn, one scene or turn to play, one question.

The value layer: built by ``requests.py`` and ``interview.py``, read by the prompts and the
backends; imports nothing that decides or reads files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .models import Agent, Brief, Memory
from .scene_spec import SceneSpec


@dataclass(frozen=True)
class Turn:
    """One spoken MEETING turn, as the next speaker sees it."""

    speaker: str
    name: str
    says: str


@dataclass(frozen=True)
class ReplyRequest:
    """Everything a backend may use to play one character in one scene or turn.

    ``prompt`` is the full text a language model gets. The other fields are the
    same facts in structured form, for backends that do not read prose (the
    offline player, test doubles).
    """

    agent: Agent
    spec: SceneSpec
    prompt: str
    language: str
    seed: int
    memories: list[Memory] = field(default_factory=list)
    since: list[Memory] = field(default_factory=list)
    colleagues: dict[str, str] = field(default_factory=dict)
    briefs: list[Brief] = field(default_factory=list)
    transcript: list[Turn] = field(default_factory=list)
    turn: int = 0
    final_turn: bool = True
    replan: bool = False
    previous_error: str | None = None
    #: The start of ``prompt`` that is the same for every character and scene (cacheable).
    shared_prompt: str = ""
    #: What follows it and stays the same for this character from scene to scene (cacheable).
    stable_prompt: str = ""
    #: What follows it and stays the same for this character all day: the memories of
    #: earlier days chosen for the day (cacheable).
    day_prompt: str = ""
    #: What follows it and stays the same for every turn and retry of this scene (cacheable).
    memory_prompt: str = ""
    #: The world's default model (``world.json`` ``model``), used when the agent names none.
    default_model: str | None = None
    #: Excerpts from the reference library shown in ``prompt`` (``library.Excerpt``).
    library: list = field(default_factory=list)
    #: The memory ids ``prompt`` shows: what evidence may cite (``retrieval.render.shown_ids``).
    shown: list[str] = field(default_factory=list)
    #: The lines the character's own recent memories keep, who said them and who heard them
    #: (``news.Exchange``): what it can know about who knows what.
    exchanges: list = field(default_factory=list)
    #: Its own recent observations important enough to tell others (``news.held``).
    news: list[Memory] = field(default_factory=list)
    #: The descriptions of its newest memories (``news.TAIL``), so a note is not written twice.
    remembered: frozenset[str] = frozenset()
    #: Who hears what it says in this scene: its table or room, or the others in a conversation.
    listeners: list[str] = field(default_factory=list)
    #: Whose words the prompt shows the character heard (what was said lately, ``news.heard_from``,
    #: and the lines its memories keep): whom a reply's ``takeaways`` may name besides the others of
    #: a conversation.
    heard_from: list[str] = field(default_factory=list)
    #: Invitations ``prompt`` asks the character to answer (``models.Gathering``).
    invitations: list = field(default_factory=list)
    #: Gatherings still ahead the character hosts or has accepted (``models.Gathering``).
    engagements: list = field(default_factory=list)
    #: Everyone in the studio (id → name), and the scene day's weekday (``mon`` … ``sun``):
    #: what a brief to organise something names (whom, which day).
    roster: dict[str, str] = field(default_factory=dict)
    weekday: str = ""
    #: What everyone knows of each colleague (id → role, team, what they work on:
    #: ``colleagues.profile``), whom the character talked with lately, most often first
    #: (``news.partners``), and what the whole studio was told (``colleagues.common_ground``):
    #: whom a piece of news concerns and who is close.
    profiles: dict[str, str] = field(default_factory=dict)
    partners: list[str] = field(default_factory=list)
    common: tuple[str, ...] = ()
    #: What each prompt section gathered for this turn (``sections/``), by section name: the
    #: facts of a section from elsewhere reach a backend here.
    sections: dict[str, Any] = field(default_factory=dict)
    #: ``lookup(query)``: the character's own memory searched mid-scene (``lookup.py``), for a
    #: backend that offers it a tool; None where the scene is not run by the loop.
    lookup: Any = None


@dataclass(frozen=True)
class InterviewRequest:
    """A question to one character outside any scene (``gamemaster ask``)."""

    agent: Agent
    question: str
    prompt: str
    language: str
    seed: int
    #: What the character recalls for the question, in prompt order.
    memories: list[Memory] = field(default_factory=list)
    #: The ids among ``memories`` that matched the question (not just recent or reflections).
    relevant: list[str] = field(default_factory=list)
    default_model: str | None = None
    #: The lines others said that a memory keeps and the prompt shows under it for the question,
    #: as (the speaker's name, what they said), by memory id.
    heard: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    studio: str = ""
    #: The ids of the colleagues the character talked with lately, most often first.
    partners: list[str] = field(default_factory=list)
    #: How colleagues call everyone the answer may name (partners, those in talk wishes), by id.
    names: dict[str, str] = field(default_factory=dict)
