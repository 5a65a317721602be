"""What was said lately, and who hears the character here: news on its way through the studio.

The paragraph of lines the character's newest memories keep (``news.heard_recently``) takes its
room from the memories' budget; the facts behind it (who said what to whom, what it holds as
news, whom it talks with) go to the backends typed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..models import Memory
from .base import PromptSection, TurnFacts


@dataclass
class Heard:
    newest: list[Memory] = field(default_factory=list)
    recent: list[Memory] = field(default_factory=list)
    exchanges: list = field(default_factory=list)
    listeners: list[str] = field(default_factory=list)
    #: The rendered paragraph, and the room it takes from the memories.
    text: str = ""
    chars: int = 0


class SaidLately(PromptSection):
    name = "news"
    order = 20

    def gather(self, turn: TurnFacts) -> Heard:
        from .. import news
        from ..kinds.heard import listeners

        agent, world = turn.agent, turn.world
        newest = news.newest(turn.stream)
        recent = news.recent_memories(newest, turn.spec.day)
        exchanges = news.exchanges(recent, agent.id)
        hears_me = listeners(turn.spec, turn.agents, world, agent.id)
        name_of = turn.name_of

        def said(first_turn: bool) -> str:
            # Weighed in the character's first turn of a scene only.
            lines, fresh = news.heard_recently(exchanges, agent.id, name_of, world.language, agent.last_scene,
                                               fresh_budget=world.memory_budget // 4, weigh=first_turn)
            return news.recent_section(lines, fresh, bool(hears_me), world.language)

        # The room it takes is the first turn's, so every turn of a scene shows the same memories
        # (its memory segment stays cached, and a claude kept for the next turn keeps serving it).
        text = said(turn.first_turn)
        chars = news.memory_chars(text if turn.first_turn else said(True))
        return Heard(newest, recent, exchanges, hears_me, text, chars)

    def values(self, heard: Heard, turn: TurnFacts) -> dict[str, str]:
        from .. import claims
        from ..prompts import EMPTY

        return {"heard_recently": heard.text,
                "hearing": claims.hearing(turn.spec, turn.agent.id, heard.listeners, turn.names, turn.language)
                or EMPTY}

    def request(self, heard: Heard, turn: TurnFacts, prompt: str) -> dict:
        from .. import colleagues, news

        return {"exchanges": heard.exchanges, "news": news.held(heard.recent),
                "remembered": frozenset(m.description for m in heard.newest), "listeners": heard.listeners,
                "partners": news.partners(heard.newest, turn.agent.id),
                "common": colleagues.common_ground(heard.newest)}


SECTION = SaidLately()
