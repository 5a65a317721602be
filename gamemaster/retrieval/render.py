"""How one memory is shown in a prompt; budgets are counted in these lines."""

from __future__ import annotations

from ..lang import phrase
from ..models import Memory, memory_author


def memory_line(memory: Memory, language: str) -> str:
    tags = f" #{' #'.join(memory.tags)}" if memory.tags else ""
    evidence = f" ← {', '.join(_evidence(memory, e, language) for e in memory.evidence)}" if memory.evidence else ""
    depth = f" · {phrase(language, 'depth')} {memory.depth}" if memory.depth else ""
    return (
        f"- [{memory.id} · {memory.created or '?'} · {memory.type} · "
        f"{phrase(language, 'importance')} {memory.importance}{depth}] "
        f"{memory.description}{tags}{evidence}"
    )


def memory_text(memory: Memory, language: str, heard: tuple[str, ...] = ()) -> str:
    """A memory's line and under it the heard lines it brings for the scene's query (``heard.py``)."""
    return "\n".join([memory_line(memory, language), *heard])


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
        if memory_line(memory, language) in prompt:
            shown[memory.id] = None
            shown.update(dict.fromkeys(memory.evidence))
    return list(shown)
