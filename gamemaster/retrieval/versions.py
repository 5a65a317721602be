"""Which of the memories a selection shows hold an older version of a matter a later one replaces.

A rumour heard from five colleagues and the correction heard after it are both memories; a
selection shows what the character remembers, so it shows both, and says which holds: a memory
whose versions of a matter a later memory among them replaces (``updates.py``: the same matter,
changed; stream order is the order they were noted) is marked with the one that replaces it.
``gamemaster recall`` prints it, ``recall --json`` and the MCP tool give it as ``replaced_by``,
``who-knows`` names the version a character holds now. What a prompt shows is left as it is.
"""

from __future__ import annotations

from ..models import Memory
from ..updates import stale
from .base import Selection
from .heard import heard_lines


def texts(memory: Memory) -> list[str]:
    """What a memory says: its description and the lines it keeps that others said."""
    return [memory.description, *(says for _, says in heard_lines(memory.metadata, memory.id))]


def replacements(memories: list[Memory], language: str) -> dict[str, tuple[str, str]]:
    """Of ``memories`` (in stream order), each that holds a replaced version and none that replaces
    another: its id to the id and text of the memory's version that replaces it."""
    said: list[str] = []
    owners: list[Memory] = []
    for memory in memories:
        for text in texts(memory):
            said.append(text)
            owners.append(memory)
    replaced = stale(language, said)
    newer = {owners[new].id for new in replaced.values()}
    found: dict[str, tuple[str, str]] = {}
    for old, new in replaced.items():
        memory = owners[old]
        if memory.id not in newer and memory.id not in found:
            found[memory.id] = (owners[new].id, said[new])
    return found


def replaced_in(selection: Selection) -> dict[str, tuple[str, str]]:
    """``replacements`` among the memories ``selection`` shows."""
    return replacements(selection.memories, selection.language)
