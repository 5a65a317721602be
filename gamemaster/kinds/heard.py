"""What is said with others present at ARRIVAL, in a WORK room and at an EVENT reaches them:
one heard memory per listener per scene, holding every line the others at their table said.

A MEETING or ENCOUNTER needs none: each participant's conversation memory keeps the
whole transcript already. Who hears whom is the people one sits with, never a whole
large studio: a WORK scene's rooms; in a scene of many (ARRIVAL, EVENT) the people of
one ``team`` (no team: one group), seated at tables of at most ``kinds.meeting.max``, and
the tables change from day to day. The lines are kept verbatim in ``metadata.heard``
and are found and shown by the rule in ``retrieval/heard.py``.
"""

from __future__ import annotations

import random
import re
from math import ceil

from ..lang import phrase, short_name
from ..linesize import MAX_LINE_BYTES
from ..retrieval.heard import cut
from ..retrieval.text import fold, phrase_tags, tag_key
from .base import SceneWrite
from .settings import settings_of

#: A heard line is what someone else said in passing, not the listener's own experience:
#: "minor" on seed 001's scale. One per listener and scene, so it adds about as much to the
#: reflection accumulator as a routine note would.
HEARD_IMPORTANCE = 3
#: One's own words to a table that said nothing back: routine on seed 001's scale; the
#: description holds their start, ``metadata.heard`` the line.
SAID_IMPORTANCE = 2
SAID_CHARS = 300
#: The description names at most this many speakers, each with the start of their line;
#: the lines themselves stay whole in ``metadata.heard``.
DESCRIBED_SPEAKERS = 3
DESCRIBED_CHARS = 90
#: Topic tags a heard memory carries at most besides ``heard`` and its speakers.
TOPIC_TAGS = 4


def tables(spec, agents, world) -> list[list[str]]:
    """Who hears whom in a scene: groups of participants that sit together."""
    if spec.rooms:
        return [list(room) for room in spec.rooms]
    size = settings_of(world, "meeting").max
    if len(spec.participants) <= size:
        return [list(spec.participants)]
    teams: dict[str, list[str]] = {}
    for agent_id in spec.participants:
        agent = agents.get(agent_id)
        teams.setdefault((agent.team if agent else None) or "", []).append(agent_id)
    seated: list[list[str]] = []
    for team, people in sorted(teams.items()):
        people = sorted(people)
        # Seeded by day and team: the same state gives the same tables, and they change daily.
        random.Random(f"{spec.day}/{team}").shuffle(people)
        count = ceil(len(people) / size)
        even, extra = divmod(len(people), count)
        start = 0
        for number in range(count):
            end = start + even + (number < extra)
            seated.append(people[start:end])
            start = end
    return seated


def listeners(spec, agents, world, agent_id: str) -> list[str]:
    """Who hears what ``agent_id`` says in this scene: the others of a conversation, else its table."""
    if spec.kind.in_sequence:
        return [p for p in spec.participants if p != agent_id]
    table = next((t for t in tables(spec, agents, world) if agent_id in t), [])
    return [p for p in table if p != agent_id]


def remember_heard(scene: SceneWrite) -> None:
    """A heard memory for each participant whose table-mates said something."""

    spec, agents = scene.spec, scene.agents
    said: dict[str, str] = {}
    for agent_id, reply in scene.turns:
        if reply.says.strip():
            said[agent_id] = reply.says.strip()
    if not said:
        return
    passed = {a: scene.passes(a, says) for a, says in said.items()}
    named = _named_topics(said, agents)
    for table in tables(spec, agents, scene.world):
        for listener in table:
            speakers = [a for a in table if a != listener and a in said]
            if not speakers:
                if listener in said and len(table) > 1:
                    _remember_said(scene, listener, table, said[listener], passed[listener])
                continue
            # The listener's own line is kept too (never indexed as heard, ``retrieval/heard.py``):
            # so its stream knows what it told whom (``news.py``).
            own = [listener] if listener in said else []
            described = [
                phrase(scene.language, "heard_said", name=short_name(agents[a].name) if a in agents else a,
                       says=cut(said[a], DESCRIBED_CHARS))
                for a in speakers[:DESCRIBED_SPEAKERS]
            ]
            if len(speakers) > DESCRIBED_SPEAKERS:
                described.append(f"+{len(speakers) - DESCRIBED_SPEAKERS}")
            scene.remember(
                listener,
                type="observation",
                description=phrase(scene.language, "heard", lines=" · ".join(described)),
                importance=HEARD_IMPORTANCE,
                tags=["heard", *speakers, *_topics(named, speakers)],
                metadata={"source": "heard", "heard": [_entry(a, _kept(said[a], len(speakers) + len(own)), passed[a])
                                                       for a in speakers + own],
                          "with": [a for a in table if a != listener], "scene": spec.ref},
            )


def _remember_said(scene: SceneWrite, speaker: str, table: list[str], says: str, passes: list[str]) -> None:
    """What the speaker said to a table where nobody else spoke: so its stream knows whom it told
    what (``news.py``), as a heard memory keeps the listener's own line beside the others'."""
    others = [a for a in table if a != speaker]
    names = ", ".join(short_name(scene.agents[a].name) if a in scene.agents else a for a in others)
    scene.remember(
        speaker,
        type="observation",
        description=phrase(scene.language, "said", people=names, says=cut(says, SAID_CHARS)),
        importance=SAID_IMPORTANCE,
        tags=["said", *others],
        metadata={"source": "heard", "heard": [_entry(speaker, _kept(says, 1), passes)], "with": others,
                  "scene": scene.spec.ref},
    )


def _entry(speaker: str, says: str, passes: list[str]) -> dict:
    """A line as a memory keeps it: who said it, the words, and the sentences that passed news on."""
    return {"speaker": speaker, "says": says, **({"passes": passes} if passes else {})}


def _studio_tags(agents) -> list[str]:
    """The tags of every character's interests: the studio's topics, as its memories are tagged."""
    found: list[str] = []
    for agent_id in sorted(agents):
        for interest in agents[agent_id].interests:
            found += [t for t in interest.tags if t.strip()]
    return list(dict.fromkeys(found))


def _named_topics(said: dict[str, str], agents) -> dict[str, list[str]]:
    """Speaker → the studio's topic tags their line names, as words (``Vertical Slice`` names
    ``vertical-slice``). A query naming a topic finds the memories tagged with it before those
    that merely share words (``strategies/ranked.py``); a heard memory tagged with the topics its
    lines name stays findable among a listener's many notes on the same topic, where its words decide."""
    keys = {tag_key(t): t for t in _studio_tags(agents)}
    named = {}
    for speaker, says in said.items():
        spoken = set(phrase_tags(says)) | set(re.findall(r"\w+", fold(says)))
        named[speaker] = [tag for key, tag in keys.items() if key in spoken]
    return named


def _topics(named: dict[str, list[str]], speakers: list[str]) -> list[str]:
    return list(dict.fromkeys(t for s in speakers for t in named.get(s, [])))[:TOPIC_TAGS]


def _kept(says: str, lines: int) -> str:
    """A line as one heard memory keeps it: all of a table's lines together stay within half a
    memory line (``linesize``), counting each character at its widest in JSON (6 bytes), so a
    large table of long replies can never make the memory too long to write."""

    limit = max(200, MAX_LINE_BYTES // 2 // 6 // max(lines, 1))
    return says if len(says) <= limit else cut(says, limit)
