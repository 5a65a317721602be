"""How one memory is shown in a prompt; budgets are counted in these lines."""

from __future__ import annotations

from ..lang import phrase
from ..models import Memory


def memory_line(memory: Memory, language: str) -> str:
    tags = f" #{' #'.join(memory.tags)}" if memory.tags else ""
    evidence = f" ← {', '.join(memory.evidence)}" if memory.evidence else ""
    depth = f" · {phrase(language, 'depth')} {memory.depth}" if memory.depth else ""
    return (
        f"- [{memory.id} · {memory.created or '?'} · {memory.type} · "
        f"{phrase(language, 'importance')} {memory.importance}{depth}] "
        f"{memory.description}{tags}{evidence}"
    )
