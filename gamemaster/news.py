"""What a character heard lately and what it holds that may be news to others: the
material for passing news on, read from the character's own stream only.

A character knows who was told what by what its own memories keep: a conversation
memory's transcript (every turn, its own too, with ``metadata.with``), a heard memory's
lines (its table-mates', its own, with ``metadata.with``) and the takeaways it noted
(``metadata.takeaways``). Those lines, newest last, are its ``exchanges``. What it
*holds* is its own important observations of the last days: something it saw or was
told first-hand, not a notice, a plan or an artifact.

Prompts show the newest lines others said (``heard_recently``, bounded); the offline
player decides from both what to pass on and to whom (``backends/offline/news.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .lang import phrase
from .models import Memory
from .retrieval.heard import cut

#: Memories read from the end of the stream: enough for several days of a busy character.
TAIL = 240
#: Days looked back, the scene's own included.
WINDOW_DAYS = 3
#: Own observations at least this important are news worth passing on ("significant" on seed 001's scale).
HELD_IMPORTANCE = 7
#: Sources of observations that are no news of the character's own: notices, briefs everyone got,
#: artifacts seen in the room, lines heard (those count through ``exchanges``).
NOT_NEWS = frozenset({"heard", "meeting", "artifact", "brief", "event", "interview"})
#: Lines and characters of the "heard recently" section of a prompt.
SHOWN_LINES = 5
SHOWN_CHARS = 220


@dataclass(frozen=True)
class Exchange:
    """One line said where the character was: by whom, in which scene, and who else heard it."""

    scene: str
    speaker: str
    says: str
    present: tuple[str, ...]


def newest(stream) -> list[Memory]:
    """The stream's last ``TAIL`` memories (bad lines are reported elsewhere)."""
    found, _ = stream.tail(TAIL)
    return [located.memory for located in found]


def recent_memories(memories: list[Memory], day: int) -> list[Memory]:
    """Those of ``memories`` from the last ``WINDOW_DAYS`` days."""
    first = day - WINDOW_DAYS + 1
    return [m for m in memories if m.scene_key is not None and m.scene_key[0] >= first]


def exchanges(memories: list[Memory], agent_id: str) -> list[Exchange]:
    """Every line the memories keep, in stream order, with who heard it besides the speaker."""
    found: list[Exchange] = []
    for memory in memories:
        meta = memory.metadata
        others = meta.get("with")
        people = {p for p in others if isinstance(p, str)} if isinstance(others, list) else set()
        people.add(agent_id)
        for key in ("transcript", "heard", "takeaways"):
            entries = meta.get(key)
            if not isinstance(entries, list):
                continue
            for entry in entries:
                if not isinstance(entry, dict):
                    continue
                speaker, says = entry.get("speaker"), entry.get("says")
                if isinstance(speaker, str) and isinstance(says, str) and says.strip():
                    heard_by = people | ({speaker} if key == "heard" else set())
                    found.append(Exchange(memory.created or "", speaker, says.strip(),
                                          tuple(sorted(heard_by - {speaker}))))
    return found


def held(memories: list[Memory]) -> list[Memory]:
    """The character's own observations important enough to tell others about; not those of day 0,
    the backstory a studio starts with, which its people share."""
    return [
        m for m in memories
        if m.type == "observation" and m.importance >= HELD_IMPORTANCE and m.metadata.get("source") not in NOT_NEWS
        and m.scene_key is not None and m.scene_key[0] > 0
    ]


def heard_recently(lines: list[Exchange], agent_id: str, name_of: Callable[[str], str], language: str) -> str:
    """The newest lines others said to the character, one a line with speaker and scene; "" if none."""
    shown: list[str] = []
    seen: set[str] = set()
    for line in reversed(lines):
        if line.speaker == agent_id or line.says in seen:
            continue
        seen.add(line.says)
        shown.insert(0, "- " + phrase(language, "heard_recently_line", name=name_of(line.speaker),
                                      scene=line.scene, says=cut(line.says, SHOWN_CHARS)))
        if len(shown) == SHOWN_LINES:
            break
    return "\n".join(shown)
