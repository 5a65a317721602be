"""A character page: who they are, their plans, the accumulator, reflections as trees,
what they read, and the whole memory stream with filters and search (``character.html``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..models import Memory, memory_author
from .charts import accumulator_chart, accumulator_points
from .html import Frame, Link, day_file, gallery_file, labels, script_json
from .studio import Studio
from .templating import render


@dataclass
class Cited:
    """A memory named as evidence: in this stream (``#id``), in a colleague's (their page, with
    their name as ``author``) or one the report has no page for (no link)."""

    ref: Link
    author: str | None = None


@dataclass
class Evidence:
    """One piece of a reflection's evidence; ``memory`` None: not in this stream (``cited``)."""

    id: str
    memory: Memory | None = None
    cited: Cited | None = None  # in a colleague's stream; neither: missing
    tree: Insight | None = None  # a reflection drawn here, with its own evidence
    drawn: bool = False  # a reflection whose tree is drawn above: a link to it


@dataclass
class Insight:
    memory: Memory
    evidence: list[Evidence] = field(default_factory=list)


@dataclass
class Row:
    """A memory of the stream, with where it happened and what it points to."""

    memory: Memory
    day: Link
    evidence: list[Cited]
    artifact: Link | None
    source: str | None  # a library file it was read from


def render_character(studio: Studio, agent_id: str, frame: Frame) -> str:
    words = labels(studio.language)
    stream = studio.memories.get(agent_id, [])
    chart = accumulator_chart(accumulator_points(studio, agent_id), studio.world.reflection_threshold, words["threshold"])
    reflections = [m for m in stream if m.type == "reflection"]
    reads = [(m, m.metadata["source"], ", ".join(str(s) for s in m.metadata.get("sections") or []),
              _day_link(studio, _day_of(m), words)) for m in studio.library_reads(agent_id)]
    return render(
        "character.html", frame, agent=studio.agents[agent_id], plans=_plans(studio, stream, words), chart=chart,
        reflections=len(reflections), trees=_trees(studio, stream, reflections), reads=reads,
        stream=stream, rows=[_row(studio, m, words, {m.id for m in stream}) for m in reversed(stream)],
        filters=_filters(stream, words), data=script_json(_data(stream)),
    )


def _day_of(memory: Memory) -> int:
    return memory.scene_key[0] if memory.scene_key else 0


#: Where a memory came from when it is something the character learned from outside.
LEARNED = ("heard", "meeting", "event", "brief", "artifact", "invitation")


def _learned(memory: Memory) -> bool:
    source = memory.metadata.get("source")
    return memory.type == "conversation" or (memory.type == "observation" and isinstance(source, str)
                                              and (source in LEARNED or source.startswith("library/")))


def _plans(studio: Studio, stream: list[Memory], words: dict[str, str]) -> list[tuple[Link, str, list]]:
    """Per day, newest first, what changed for the character: (the day, the counts, [(group, its memories)])
    of the plan, new reflections and what they learned."""
    by_day: dict[int, dict[str, list[Memory]]] = {}
    for memory in stream:
        group = ("plan" if memory.type == "plan" else "reflections" if memory.type == "reflection"
                 else "learned" if _learned(memory) else None)
        if group:
            by_day.setdefault(_day_of(memory), {}).setdefault(group, []).append(memory)
    rows = []
    for day, groups in sorted(by_day.items(), reverse=True):
        keys = [k for k in ("plan", "reflections", "learned") if groups.get(k)]
        counts = " · ".join(f"{len(groups[k])} {words[k]}" for k in keys)
        rows.append((_day_link(studio, day, words), counts, [(words[k], groups[k]) for k in keys]))
    return rows


def _day_link(studio: Studio, day: int, words: dict[str, str], scene: int | None = None) -> Link:
    label = f'{words["day"]} {day}'
    if day not in studio.records:
        return Link(label)
    fragment = f"#scene-{scene:02d}" if scene is not None and any(r.scene == scene for r in studio.records[day]) else ""
    return Link(label + (f" · {scene:02d}" if scene is not None else ""), f"../{day_file(day)}{fragment}")


def _cited(studio: Studio, evidence_id: str, own: set[str]) -> Cited:
    """Evidence in this stream, in another character's (a link to it on their page, with their name), or unknown."""
    if evidence_id in own:
        return Cited(Link(evidence_id, f"#{evidence_id}"))
    if evidence_id in studio.known_ids:
        author = memory_author(evidence_id) or ""
        return Cited(Link(evidence_id, f"{author}.html#{evidence_id}"), studio.name(author))
    return Cited(Link(evidence_id))


def _trees(studio: Studio, stream: list[Memory], reflections: list[Memory]) -> list[Insight]:
    """The reflections no later one cites, newest first, each down to its evidence; a reflection's
    tree is drawn once, later it is a link to it."""
    by_id = {m.id: m for m in stream}
    cited = {e for m in reflections for e in m.evidence}
    expanded: set[str] = set()

    def tree(memory: Memory, seen: frozenset[str]) -> Insight:
        expanded.add(memory.id)
        insight = Insight(memory)
        for evidence_id in memory.evidence:
            evidence = by_id.get(evidence_id)
            if evidence is None:
                known = evidence_id in studio.known_ids
                insight.evidence.append(Evidence(evidence_id, cited=_cited(studio, evidence_id, set()) if known else None))
            elif evidence.type == "reflection" and evidence.id in expanded:
                insight.evidence.append(Evidence(evidence_id, evidence, drawn=True))
            elif evidence.type == "reflection" and evidence.id not in seen:
                insight.evidence.append(Evidence(evidence_id, evidence, tree=tree(evidence, seen | {evidence.id})))
            else:
                insight.evidence.append(Evidence(evidence_id, evidence))
        return insight

    return [tree(m, frozenset({m.id})) for m in reversed([m for m in reflections if m.id not in cited])]


def _filters(stream: list[Memory], words: dict[str, str]) -> list[tuple[str, str, list]]:
    """The stream's filters: (name, label, the values to choose from)."""
    return [("type", words["filter_type"], sorted({m.type for m in stream})),
            ("tag", words["filter_tag"], sorted({t for m in stream for t in m.tags})),
            ("day", words["filter_day"], sorted({_day_of(m) for m in stream})),
            ("importance", words["filter_importance"], list(range(1, 11)))]


def _data(stream: list[Memory]) -> list[dict]:
    """What the page's script filters and searches."""
    return [{"id": m.id, "type": m.type, "day": _day_of(m), "importance": m.importance, "tags": m.tags,
             "text": " ".join([m.id, m.description, *m.tags])} for m in stream]


def _row(studio: Studio, memory: Memory, words: dict[str, str], own: set[str]) -> Row:
    day, scene = memory.scene_key or (0, 0)
    path = memory.metadata.get("artifact_path")
    artifact = (Link(studio.artifacts[path].title, f"../{gallery_file(path)}")
                if isinstance(path, str) and path in studio.artifacts else None)
    source = memory.metadata.get("source")
    return Row(memory, _day_link(studio, day, words, scene if day else None),
               [_cited(studio, e, own) for e in memory.evidence], artifact,
               source if isinstance(source, str) and source.startswith("library/") else None)
