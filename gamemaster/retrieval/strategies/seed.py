"""Seed 001's rule, kept for fidelity and comparison.

The last ``memory_window`` memories plus every older reflection, and for a
scene with a topic the memories whose tags or description contain a topic term
(substring match, most recent first, at most ``focus_limit``). Under a budget
the topic matches go first, then the newest memories, then the newest
reflections; what does not fit is left out.
"""

from __future__ import annotations

from ...scenes import topic_terms
from ...streams import Located, MemoryStream
from ..base import Budget, Picked, Query, Selection, Settings
from ..heard import shown_lines
from ..text import analyzer


class SeedStrategy:
    name = "seed"

    def select(self, stream: MemoryStream, query: Query, settings: Settings) -> Selection:
        selection = Selection(self.name, settings.budget, settings.language)
        recent, problems = stream.tail(settings.memory_window)
        cutoff = recent[0].offset if recent else None
        reflections, reflection_problems = stream.reflections(before_offset=cutoff)
        selection.problems = problems + reflection_problems
        focused: list[Located] = []
        terms = topic_terms(query.text, query.tags)
        if terms and settings.focus_limit > 0:
            shown = {item.memory.id for item in recent + reflections}
            focused = stream.grep(terms, limit=settings.focus_limit, exclude=shown)
        budget = Budget(settings.budget, settings.language)
        words = analyzer(settings.language)
        wanted = set(words.terms(" ".join(terms)))
        for section, items in (("relevant", focused), ("recent", recent), ("reflections", reflections)):
            for item in reversed(items):  # newest first, so a tight budget keeps the latest
                if item.memory.id in settings.excluded:
                    continue
                heard = shown_lines(item.memory.metadata, item.memory.id, wanted, words.terms, settings.speaker,
                                    settings.language, item.memory.description)
                if budget.take(item.memory, heard):
                    matched = tuple(t for t in terms if _mentions(item, t)) if section == "relevant" else ()
                    selection.picked.append(Picked(item.memory, section, item.offset, item.line, matched=matched,
                                                   heard=heard))
        return selection


def _mentions(item: Located, term: str) -> bool:
    return term in " ".join([item.memory.description, *item.memory.tags]).lower()


STRATEGY = SeedStrategy()
