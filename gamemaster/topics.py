"""Search terms from a topic and its tags: the words that focus a scene's memory selection."""

from __future__ import annotations

import re
from typing import Iterable


def topic_terms(topic: str | None, tags: Iterable[str] = ()) -> list[str]:
    """Search terms for focused memory selection: the tags plus the topic's longer words."""
    terms: list[str] = []
    for tag in tags:
        tag = tag.strip().lower()
        if tag and tag not in terms:
            terms.append(tag)
    for word in re.findall(r"[\w-]+", (topic or "").lower()):
        word = word.strip("-")
        if len(word) >= 4 and word not in STOPWORDS and word not in terms:
            terms.append(word)
    return terms


# Words that would match nearly every memory; kept short on purpose: a topic's other words
# focus the scene. Retrieval leaves these out and the rest of the function words too
# (``retrieval/text.py`` builds its list on this one).
STOPWORDS = frozenset(
    """aber alle auch dass denn dies diese dieser dieses doch eine einem einen einer
    eines für habe haben heute hier immer mehr mich mein meine nach nicht noch oder
    sehr sein seine sich sind über unsere unser viel wenn werden wird wieder will
    with that this from have about what when will their them they then there into
    some more over also just""".split()
)
