"""The reference library: the studio bible whole in every prompt (the same for everyone, so an
API caches it), and excerpts where a kind ``consults_library`` and the plan asks for them.

Where the studio's model would not cache it (its shortest cacheable prefix is longer than the
start a character's prompts share), the bible names each document by its sections instead
(``settle``): every call would otherwise pay it in full."""

from __future__ import annotations

from dataclasses import dataclass

from .base import PromptSection, TurnFacts


@dataclass
class Shelf:
    excerpts: list
    #: The bible as the prompt shows it, and the documents it holds whole.
    bible: str
    whole: frozenset[str]
    readings: str
    note: str


class Library(PromptSection):
    name = "library"
    order = 50

    def gather(self, turn: TurnFacts) -> Shelf:
        from ..library import BIBLE_BUDGET

        return self._shelf(turn, BIBLE_BUDGET)

    def settle(self, shelf: Shelf, turn: TurnFacts, prompt: str, segments: list[str]) -> Shelf | None:
        """No bible where the prompt has no place for it (a workspace's own templates from before
        the bible): its excerpts are then shown as they are, not as pointers into it. The bible
        named by its sections only where the model would not cache it: the longest start a
        character's prompts share (up to the day's memories) is below the shortest prefix the
        model caches, so every call would pay the whole bible at the full price."""
        from ..library import BIBLE_BUDGET
        from ..pricing import CHARS_PER_TOKEN, minimum_cacheable

        if shelf.whole and shelf.bible not in prompt:
            return self._shelf(turn, BIBLE_BUDGET, shown=False, excerpts=shelf.excerpts)
        minimum = minimum_cacheable(turn.model)
        if not shelf.whole or minimum is None or len("".join(segments[:3])) // CHARS_PER_TOKEN >= minimum:
            return None
        return self._shelf(turn, 0, "bible_named", excerpts=shelf.excerpts)

    def _shelf(self, turn: TurnFacts, budget: int, named: str = "bible_sections", shown: bool = True,
               excerpts: list | None = None) -> Shelf:
        """The library for this turn with ``budget`` characters of the bible whole; a document
        beyond them is named by its sections in the words of phrase ``named``; ``shown``: the
        prompt shows the bible (else no document counts as held whole); ``excerpts``: those already
        consulted for this turn."""
        from .. import claims
        from ..kinds import all_kinds
        from ..library import bible, consult, documents, render, wants_library

        world, spec, root = turn.world, turn.spec, turn.root
        if excerpts is None and spec.kind.consults_library and world.library_budget:
            plan = turn.agent.today_plan
            query = spec.topic or " ".join([plan.text, *plan.tags] if plan else [])
            excerpts = consult(root, query, world.language, world.library_budget,
                               asked=wants_library(plan.text if plan else None), warn=turn.warn)
        excerpts = excerpts or []
        # library_budget 0 is "no library": no bible either.
        text, whole = bible(root, world.language, turn.warn, budget, named) if world.library_budget else ("", frozenset())
        if not shown:
            whole = frozenset()
        shown = len(documents(root)) if world.library_budget else 0
        note = claims.library_note(world.language, shown, len(whole), any(k.consults_library for k in all_kinds().values()))
        return Shelf(excerpts, text, whole, render(excerpts, world.language, whole), note)

    def values(self, shelf: Shelf, turn: TurnFacts) -> dict[str, str]:
        from ..lang import phrase
        from ..prompts import EMPTY

        return {"library": phrase(turn.language, "library", excerpts=shelf.readings) if shelf.readings else "",
                "bible": shelf.bible or EMPTY, "library_note": shelf.note}

    def request(self, shelf: Shelf, turn: TurnFacts, prompt: str) -> dict:
        # An excerpt of a document the bible holds whole counts as read where the prompt points to it.
        return {"library": [e for e in shelf.excerpts
                            if (shelf.readings in prompt if e.path in shelf.whole else e.text in prompt)]}


SECTION = Library()
