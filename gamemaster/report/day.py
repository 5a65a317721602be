"""A day page: the day's scenes as a timeline of cards, then the day summary (``day.html``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..calendar import day_text
from ..lang import join_names, short_name
from ..records import DaySummary, SceneRecord, WrittenMemory
from .gatherings import gatherings_of
from .html import Frame, Link, gallery_file, labels, memory_link, person, scene_file
from .shown import turn_anchor
from .studio import Studio, Turn
from .templating import render


@dataclass
class Line:
    """One entry of a scene's exchange: a turn (what its character did, with the line they said)
    or a line of the transcript no turn accounts for."""

    who: Link
    quote: str | None = None  # what they said; None: no quote is shown
    action: str | None = None  # a turn's action; None: a line of the transcript alone
    shown: Link | None = None  # the way to what the character was shown
    missing: bool = False  # a turn whose reply is not stored


@dataclass
class Written:
    """A memory a scene or a day wrote, with who got it."""

    who: Link
    importance: int
    type: str
    description: str
    ref: Link


@dataclass
class ArtifactLink:
    path: str
    link: Link | None  # None: neither its memory nor its file is left, there is no page to link to
    author: str | None


@dataclass
class WrittenGroup:
    """What the participants remembered, or what others noticed: each one's memories."""

    title: str
    count: int
    by_agent: list[tuple[Link, list[Written]]]


@dataclass
class Card:
    record: SceneRecord
    title: str
    href: str  # the scene's own page
    reason: str
    people: list[Link]
    rooms: list[list[Link]]  # a large studio's WORK: who sat with whom
    briefs: list[tuple[str, str]]  # (id, text)
    event: str | None
    exchange: list[Line]
    artifacts: list[ArtifactLink]
    written: list[WrittenGroup] = field(default_factory=list)


def render_day(studio: Studio, day: int, turns: dict[str, list[Turn]], summary: DaySummary | None, frame: Frame) -> str:
    words = labels(studio.language)
    records = studio.records.get(day, [])
    earlier = [d for d in studio.days if d < day]
    later = [d for d in studio.days if d > day]
    return render(
        "day.html", frame, day=day, date=day_text(studio.language, studio.world, day),
        earlier=earlier[-1] if earlier else None, later=later[0] if later else None,
        toc=[(r, r.topic or scene_people(studio, r)) for r in records],
        cards=[_card(studio, record, turns.get(record.ref, []), words) for record in records],
        gatherings=gatherings_of(studio, day),
        summary=_summary(studio, summary) if summary is not None else None,
    )


def scene_people(studio: Studio, record: SceneRecord) -> str:
    """A scene without a topic is named after who was in it (first names, as the studio speaks)."""
    return join_names(studio.language, [short_name(studio.name(p)) for p in record.participants])


def _written(studio: Studio, written: WrittenMemory) -> Written:
    return Written(person(studio, written.agent), written.importance, written.type, written.description,
                   memory_link(studio, written.agent, written.id))


def _card(studio: Studio, record: SceneRecord, turns: list[Turn], words: dict[str, str]) -> Card:
    written = record.written or []
    groups = []
    for title, group in ((words["wrote"], [w for w in written if w.agent in record.participants]),
                         (words["others_got"], [w for w in written if w.agent not in record.participants])):
        by_agent: dict[str, list[Written]] = {}
        for w in group:
            by_agent.setdefault(w.agent, []).append(_written(studio, w))
        if group:
            groups.append(WrittenGroup(title, len(group), [(person(studio, a), items) for a, items in by_agent.items()]))
    return Card(
        record, record.topic or scene_people(studio, record), f"../{scene_file(record.ref)}", studio.reason(record),
        [person(studio, p) for p in record.participants],
        [[person(studio, p) for p in room] for room in record.rooms or []],
        [(b, studio.brief_texts.get(b, b)) for b in record.brief_ids],
        studio.event_texts.get(record.event_id, record.event_id) if record.event_id else None,
        _exchange(studio, record, turns, words),
        [artifact_link(studio, path) for path in record.artifacts or []], groups,
    )


def _shown_link(studio: Studio, record: SceneRecord, turn: Turn, words: dict[str, str]) -> Link | None:
    """The way from a reply to what its character was shown (the scene page keeps the prompt)."""
    if not (record.prompts or {}).get(turn.label):
        return None
    text = words["shown_link"].format(name=short_name(studio.name(turn.agent)))
    return Link(text, f"../{scene_file(record.ref)}#{turn_anchor(turn.label)}")


def _exchange(studio: Studio, record: SceneRecord, turns: list[Turn], words: dict[str, str]) -> list[Line]:
    """Each turn: who, what they did and, beside it, the line they said (a MEETING's action stays
    with its line); lines of the transcript no turn accounts for are listed where they fell."""
    lines = list(record.transcript or [])
    items = []
    for turn in turns:
        said = ""
        if turn.reply is not None and not record.transcript:
            said = turn.reply.says or ""
        elif turn.reply is not None and turn.reply.says:
            mine = next((n for n, line in enumerate(lines) if line.speaker == turn.agent), None)
            if mine is not None:
                for stray in lines[:mine]:  # lines no reply of this record accounts for, where they fell
                    items.append(Line(person(studio, stray.speaker), stray.says))
                said, lines = lines[mine].says, lines[mine + 1:]
        if turn.reply is None:
            items.append(Line(person(studio, turn.agent), missing=True))
            continue
        items.append(Line(person(studio, turn.agent), said or None, turn.reply.action,
                          _shown_link(studio, record, turn, words)))
    return items + [Line(person(studio, line.speaker), line.says) for line in lines]


def artifact_link(studio: Studio, path: str) -> ArtifactLink:
    artifact = studio.artifacts.get(path)
    if artifact is None:
        return ArtifactLink(path, None, None)
    return ArtifactLink(path, Link(artifact.title, f"../{gallery_file(path)}"),
                        studio.name(artifact.author) if artifact.author else None)


def _summary(studio: Studio, summary: DaySummary) -> dict:
    return {"scenes": len(summary.scenes), "memories": summary.memories_written,
            "highlights": [_written(studio, w) for w in summary.highlights],
            "artifacts": [artifact_link(studio, p) for p in summary.artifacts],
            "reflections": [_written(studio, w) for w in summary.reflections],
            "threads": summary.open_threads}
