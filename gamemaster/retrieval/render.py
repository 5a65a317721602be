"""How one memory is shown in a prompt; budgets are counted in these lines."""

from __future__ import annotations

from typing import Collection

from ..lang import phrase
from ..models import Memory, memory_author


def memory_line(memory: Memory, language: str, visible: Collection[str] | None = None) -> str:
    """One memory as a prompt shows it. ``visible``: the ids the prompt shows as memories of their
    own; evidence outside them is counted, not named (an id whose memory the character never sees
    is one it cannot know). None names every cited id (what a budget counts: the longest form)."""
    cited = list(memory.evidence) if visible is None else [e for e in memory.evidence if e in visible]
    named = [_evidence(memory, e, language) for e in cited]
    if len(cited) < len(memory.evidence):
        named.append(phrase(language, "evidence_more", count=len(memory.evidence) - len(cited)))
    evidence = f" ← {', '.join(named)}" if named else ""
    return _head(memory, language) + evidence


def _head(memory: Memory, language: str) -> str:
    tags = f" #{' #'.join(memory.tags)}" if memory.tags else ""
    depth = f" · {phrase(language, 'depth')} {memory.depth}" if memory.depth else ""
    return (
        f"- [{memory.id} · {memory.created or '?'} · {memory.type} · "
        f"{phrase(language, 'importance')} {memory.importance}{depth}] "
        f"{memory.description}{tags}"
    )


def memory_text(memory: Memory, language: str, heard: tuple[str, ...] = (),
                visible: Collection[str] | None = None) -> str:
    """A memory's line and under it the heard lines it brings for the scene's query (``heard.py``)."""
    return "\n".join([memory_line(memory, language, visible), *heard])


def _evidence(memory: Memory, cited: str, language: str) -> str:
    """An id of the memory's own stream as it is; another character's with its author."""
    author = memory_author(cited)
    if author is None or author == memory_author(memory.id):
        return cited
    return f"{cited} ({phrase(language, 'evidence_of', author=author)})"


def shown_ids(memories, prompt: str, language: str) -> list[str]:
    """The memory ids ``prompt`` shows a character: each memory whose line it contains, and the
    evidence that line cites (``← tobi-012 (von tobi)``), which may be a colleague's memory.
    These are the ids a reply may cite; a template that leaves a section out shows none of it."""
    shown: dict[str, None] = {}
    for memory in memories:
        if _head(memory, language) in prompt:
            shown[memory.id] = None
            shown.update(dict.fromkeys(memory.evidence))
    return list(shown)
