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

from .ids import parse_scene_ref
from .lang import PHRASES, phrase
from .models import Memory
from .retrieval.heard import HEARD_CHARS, marked_cut
from .updates import stale

#: Memories read from the end of the stream: enough for several days of a busy character.
TAIL = 240
#: Days looked back, the scene's own included.
WINDOW_DAYS = 3
#: Own observations at least this important are news worth passing on ("significant" on seed 001's scale).
HELD_IMPORTANCE = 7
#: Sources of observations that are no news of the character's own: notices, briefs everyone got,
#: artifacts seen in the room, lines heard (those count through ``exchanges``) and what the
#: character took from them (``takeaways.py``: its own words about someone else's news).
NOT_NEWS = frozenset({"heard", "meeting", "artifact", "brief", "event", "interview", "takeaway"})
#: Lines and characters of the "heard recently" section of a prompt.
SHOWN_LINES = 5
SHOWN_CHARS = HEARD_CHARS
#: Characters of a line heard side by side since the character's last scene, which it is asked
#: to weigh: whole up to this, within a quarter of ``memory_budget`` for all such lines together
#: (``sections/news.py``), so the memories keep the rest of the budget.
NEW_CHARS = 2_000
#: The character's own lines shown beside them: whom it told what.
OWN_LINES = 2


@dataclass(frozen=True)
class Exchange:
    """One line said where the character was: by whom, in which scene, and who else heard it."""

    scene: str
    speaker: str
    says: str
    present: tuple[str, ...]
    #: Heard side by side (ARRIVAL, WORK, EVENT): the listener was answering at the same time and
    #: could not react to it in that scene.
    side_by_side: bool = False
    #: The sentences of the line that passed on something its speaker held as news (``passing.py``).
    passes: tuple[str, ...] = ()


def newest(stream) -> list[Memory]:
    """The stream's last ``TAIL`` memories (bad lines are reported elsewhere)."""
    found, _ = stream.tail(TAIL)
    return [located.memory for located in found]


def recent_memories(memories: list[Memory], day: int) -> list[Memory]:
    """Those of ``memories`` from the last ``WINDOW_DAYS`` days, and those written into the stream
    after one of them whatever their ``created``: a line planted by hand at the end of a stream is
    as recent as its place says (a stream the toolkit writes is in order, so nothing else moves)."""
    first = day - WINDOW_DAYS + 1
    found: list[Memory] = []
    for memory in memories:
        if found or (memory.scene_key is not None and memory.scene_key[0] >= first):
            found.append(memory)
    return found


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
                    passes = entry.get("passes")
                    found.append(Exchange(memory.created or "", speaker, says.strip(),
                                          tuple(sorted(heard_by - {speaker})), key == "heard",
                                          tuple(p for p in passes if isinstance(p, str)) if isinstance(passes, list) else ()))
    return found


def held(memories: list[Memory]) -> list[Memory]:
    """The character's own observations important enough to tell others about; not the backstory a
    studio starts with, which its people share: the memories before the first one of day 1 or later
    in the stream. A day-0 line written after that (planted by hand) is news like any other."""
    found: list[Memory] = []
    begun = False
    for m in memories:
        begun = begun or (m.scene_key is not None and m.scene_key[0] > 0)
        if begun and m.type == "observation" and m.importance >= HELD_IMPORTANCE \
                and m.metadata.get("source") not in NOT_NEWS:
            found.append(m)
    return found


def partners(memories: list[Memory], agent_id: str) -> list[str]:
    """Whom the character talked with in ``memories`` (its conversations, the backstory's too),
    most often first and, as often, most lately first: how close it is to whom, as far as its own
    mind can tell."""
    counts: dict[str, int] = {}
    last: dict[str, int] = {}
    for position, memory in enumerate(memories):
        people = memory.metadata.get("with") if memory.type == "conversation" else None
        for person in people if isinstance(people, list) else []:
            if isinstance(person, str) and person != agent_id:
                counts[person] = counts.get(person, 0) + 1
                last[person] = position
    return sorted(counts, key=lambda p: (-counts[p], -last[p]))


def recent_lines(lines: list[Exchange], agent_id: str) -> list[Exchange]:
    """The lines a prompt shows as said lately, in the order said: the newest ``SHOWN_LINES`` of
    others and the newest ``OWN_LINES`` of the character's own (so it knows whom it told what)."""
    chosen: list[Exchange] = []
    seen: set[str] = set()
    others = own = 0
    for line in reversed(lines):
        mine = line.speaker == agent_id
        if line.says in seen or (mine and (own == OWN_LINES or not line.present)) or (not mine and others == SHOWN_LINES):
            continue
        seen.add(line.says)
        chosen.insert(0, line)
        own, others = own + mine, others + (not mine)
    return chosen


def with_told_versions(chosen: list[Exchange], lines: list[Exchange], agent_id: str, language: str) -> list[Exchange]:
    """``chosen`` and, where a line of ``chosen`` replaces a version of a matter the character told
    others (``updates.py``), those lines of its own too (``OWN_LINES`` more at most): whom it told
    the old version is what it needs to set it straight."""
    if not chosen:
        return chosen
    told = [line for line in lines if line.speaker == agent_id and line.present and line not in chosen]
    if not told:
        return chosen
    replaced = stale(language, [line.says for line in told + chosen])
    corrected = [told[i] for i, new in replaced.items() if i < len(told) and new >= len(told)][-OWN_LINES:]
    return sorted(chosen + corrected, key=lines.index) if corrected else chosen


def heard_recently(lines: list[Exchange], agent_id: str, name_of: Callable[[str], str], language: str,
                   last_scene: str | None = None, fresh_budget: int = 0, weigh: bool = True) -> tuple[str, bool]:
    """``recent_lines`` one a line with speaker and scene, the character's own with whom it said
    them to; a line heard side by side in or after ``last_scene`` is marked new (and then the flag is
    set: the character has not weighed it yet); "" if none. The new lines share ``fresh_budget``
    characters (each at least ``SHOWN_CHARS``, at most ``NEW_CHARS``). Without ``weigh`` (a later
    turn of the same conversation: the character was asked in its first) none is new. Where one
    line corrects another, the character is told that the newer holds, and is shown its own lines
    that told the older one (``with_told_versions``)."""
    last = parse_scene_ref(last_scene) if last_scene else (0, 0)
    recent = recent_lines(lines, agent_id)
    chosen = with_told_versions(recent, lines, agent_id, language)
    new = [weigh and line.speaker != agent_id and line.side_by_side and _scene_key(line.scene) >= last
           for line in chosen]
    per_line = max(SHOWN_CHARS, min(NEW_CHARS, fresh_budget // max(sum(new), 1)))
    shown = []
    for line, fresh in zip(chosen, new):
        if line.speaker == agent_id:
            # An old version the character told is shown whole, as far as a new line would be.
            says = marked_cut(line.says, SHOWN_CHARS if line in recent else NEW_CHARS, language)
            shown.append("- " + phrase(language, "said_recently_line", scene=line.scene, says=says,
                                       people=", ".join(name_of(p) for p in line.present)))
            continue
        # What the character is asked to weigh is shown whole as far as the budget goes.
        says = marked_cut(line.says, per_line if fresh else SHOWN_CHARS, language)
        shown.append("- " + phrase(language, "heard_recently_new" if fresh else "heard_recently_line",
                                   name=name_of(line.speaker), scene=line.scene, says=says))
    # Two versions of one matter among them (``updates.py``): which holds, and who is to hear it.
    versions = phrase(language, "heard_recently_versions") if stale(language, [line.says for line in chosen]) else ""
    return "\n".join(shown) + versions, any(new)


def heard_from(lines: list[Exchange], agent_id: str) -> list[str]:
    """Whom the shown lines were heard from: whose words a reply's ``takeaways`` may weigh."""
    return sorted({line.speaker for line in recent_lines(lines, agent_id) if line.speaker != agent_id})


def _scene_key(ref: str) -> tuple[int, int]:
    try:
        return parse_scene_ref(ref)
    except ValueError:
        return (0, 0)


def memory_chars(section: str) -> int:
    """The room a paragraph of what was said lately takes from the memories: its length, without the
    note on versions (``heard_recently_versions``), an instruction of a sentence that is there only
    where two versions of a matter are and so would take a memory from exactly those prompts."""
    notes = {table["heard_recently_versions"] for table in PHRASES.values()}
    return len(section) - sum(len(note) for note in notes if note in section)


def recent_section(lines: str, fresh: bool, listened: bool, language: str) -> str:
    """The prompt's paragraph of what was said lately (``heard_recently``'s lines): it asks to pass
    news on only where someone hears the character, and to weigh what is ``fresh`` (``takeaways``)."""
    if not lines:
        return ""
    weigh = phrase(language, "heard_recently_weigh") if fresh else ""
    return phrase(language, "heard_recently" if listened else "heard_recently_alone", lines=lines, weigh=weigh)
