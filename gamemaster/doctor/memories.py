"""Memory lines as studios write them, repaired into seed 001's node schema.

Ids never change, so evidence and scene records keep pointing at the same memories.
A line that needs no repair is kept byte for byte; a line that cannot be repaired (not
JSON, no id) is kept byte for byte too and reported as an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from .. import jsontext
from ..linesize import LINE_TOO_LONG, MAX_LINE_BYTES
from ..models import MEMORY_ID_RE, MEMORY_TYPES, Memory, memory_author, parse_scene_ref, scene_ref
from ..problems import describe_validation_error
from ..streams import without_bom
from .drift import ERROR, Drift, Finding, canonical_ref, day_number, is_scene_ref, keep_under, type_name

MEMORY_FIELDS = tuple(Memory.model_fields)
#: What studios call a memory's text when they do not call it ``description``.
DESCRIPTION_ALIASES = ("content", "text")


@dataclass
class RepairedStream:
    agent: str
    display: str
    path: Path
    #: The file's lines as they will be written: untouched lines as they were read.
    lines: list[bytes] = field(default_factory=list)
    memories: list[tuple[int, Memory]] = field(default_factory=list)
    drifts: list[Drift] = field(default_factory=list)
    changed: bool = False

    def content(self) -> bytes:
        return b"".join(line + b"\n" for line in self.lines)


def repair_stream(path: Path, agent: str, display: str) -> RepairedStream:
    result = RepairedStream(agent, display, path)
    raw_lines = path.read_bytes().split(b"\n")
    if raw_lines and raw_lines[-1] == b"":
        raw_lines.pop()
    elif raw_lines and raw_lines[-1].strip():
        # An append would have to add the line end first; the rewrite adds it once.
        result.changed = True
        result.drifts.append(Drift(display, len(raw_lines), "the last line has no line end", "one is added"))
    previous_created: str | None = None
    for number, raw in enumerate(raw_lines, start=1):
        line = raw[:-1] if raw.endswith(b"\r") else raw
        if len(line) > MAX_LINE_BYTES:  # not even parsed
            result.drifts.append(Drift(display, number, LINE_TOO_LONG, "left as it is; shorten it by hand", ERROR))
            result.lines.append(raw)
            continue
        if not line.strip():
            result.lines.append(raw)
            continue
        finding = Finding()
        memory = _repair_line(line, agent, previous_created, finding)
        result.drifts += finding.located(display, number)
        if memory is None:
            result.lines.append(raw)
            continue
        result.memories.append((number, memory))
        previous_created = memory.created or previous_created
        repaired = memory.to_line().encode("utf-8") if finding.changes else raw
        if len(repaired) > MAX_LINE_BYTES:  # what the repair keeps beside the values made it too long
            result.drifts.append(Drift(display, number, f"repaired, the line would be {LINE_TOO_LONG}",
                                       "left as it is; shorten it by hand", ERROR))
            repaired = raw
        result.lines.append(repaired)
        result.changed = result.changed or repaired is not raw
    return result


def _repair_line(raw: bytes, agent: str, previous_created: str | None, finding: Finding) -> Memory | None:
    try:
        data = jsontext.loads(without_bom(raw).decode("utf-8"))
    except UnicodeDecodeError as exc:
        finding.error(f"not UTF-8 (byte {exc.start})")
        return None
    except jsontext.JSONDecodeError as exc:
        finding.error(f"not JSON: {exc.msg} (column {exc.colno})")
        return None
    if not isinstance(data, dict):
        finding.error(f"expected a JSON object, found {type_name(data)}")
        return None
    memory_id = data.get("id")
    if not isinstance(memory_id, str) or not MEMORY_ID_RE.match(memory_id):
        finding.error(f"id: {memory_id!r} is not of the form agent-NNN",
                      "left as it is (ids are never changed, evidence may point at them); correct it by hand")
        return None
    if memory_author(memory_id) != agent:
        finding.error(f"id: {memory_id!r} does not belong to this stream",
                      "left as it is (ids are never changed); move the line to its own stream by hand")
        return None
    data = dict(data)
    absent = [name for name in ("created", "depth", "tags", "evidence", "metadata") if name not in data]
    _description(data, finding)
    _created(data, previous_created, finding)
    _extras_into_metadata(data, finding)
    _shapes(data, finding)
    absent = [name for name in absent if not (name == "created" and data.get("created"))]  # reported above
    if finding.changes and absent:
        finding.drift(f"no {', '.join(absent)}", "written out with the line's other repairs (empty, or as derived above)")
    try:
        return Memory.model_validate(data)
    except ValidationError as exc:
        finding.error(describe_validation_error(exc))
        return None


def _description(data: dict, finding: Finding) -> None:
    if isinstance(data.get("description"), str) and data["description"].strip():
        return
    for alias in DESCRIPTION_ALIASES:
        value = data.get(alias)
        if isinstance(value, str) and value.strip():
            if "description" in data:
                keep_under(_metadata(data), "original_description", data.pop("description"))
            data["description"] = data.pop(alias)
            finding.drift(f"`{alias}` instead of `description`", "renamed to description (the same text)")
            return


def _created(data: dict, previous_created: str | None, finding: Finding) -> None:
    created = data.get("created")
    if created is None:
        day = day_number(data.get("day"))
        if day is None:
            return  # optional in seed 001's schema: nothing to derive it from
        if previous_created and parse_scene_ref(previous_created)[0] == day:
            data["created"] = previous_created
            how = "the scene of the line before, on the same day"
        else:
            data["created"] = scene_ref(day, 0)
            how = "scene 00: some time that day"
        finding.drift(f"no created, day {data['day']!r}", f"created {data['created']} from the day ({how}); "
                      "day kept in metadata")
        return
    if is_scene_ref(created):
        return
    metadata = _metadata(data)
    key = keep_under(metadata, "original_created", created)
    canonical = canonical_ref(created)
    if canonical is None:
        del data["created"]
        finding.drift(f"created {created!r} is no scene ref", f"created left unset; the value kept as metadata.{key}")
        return
    data["created"] = canonical
    finding.drift(f"created {created!r} is a sub-scene or not of the form day-XXX/scene-YY",
                  f"created {canonical} (order kept by line order); the original kept as metadata.{key}")


def _extras_into_metadata(data: dict, finding: Finding) -> None:
    extras = [name for name in data if name not in MEMORY_FIELDS]
    if not extras:
        return
    metadata = _metadata(data)
    moved = []
    for name in extras:
        key = keep_under(metadata, name, data.pop(name))
        moved.append(name if key == name else f"{name} (as {key})")
    finding.drift(f"fields the schema has no place for: {', '.join(extras)}", f"moved into metadata: {', '.join(moved)}")


def _metadata(data: dict) -> dict:
    metadata = data.get("metadata")
    if isinstance(metadata, dict):
        return metadata
    data["metadata"] = {} if metadata is None else {"original_metadata": metadata}
    return data["metadata"]


def _shapes(data: dict, finding: Finding) -> None:
    """Values of the right meaning in a near shape: a number as text, a tag as a string."""
    kind = data.get("type")
    if isinstance(kind, str) and kind.strip().lower() in MEMORY_TYPES and kind != kind.strip().lower():
        data["type"] = kind.strip().lower()
        finding.drift(f"type {kind!r}", f"type {data['type']}")
    elif kind not in MEMORY_TYPES:
        key = keep_under(_metadata(data), "original_type", kind)
        data["type"] = "observation"
        finding.drift(f"type {kind!r} is not one of {', '.join(MEMORY_TYPES)}", f"type observation; the original kept as metadata.{key}")
    importance = data.get("importance")
    if (isinstance(importance, str) and importance.strip().isdigit()) or (isinstance(importance, float) and importance.is_integer()):
        data["importance"] = int(importance if isinstance(importance, float) else importance.strip())
        finding.drift(f"importance {importance!r} is not a whole number", f"importance {data['importance']}")
    if isinstance(data.get("importance"), int) and not isinstance(data["importance"], bool) and not 1 <= data["importance"] <= 10:
        key = keep_under(_metadata(data), "original_importance", data["importance"])
        data["importance"] = min(max(data["importance"], 1), 10)
        finding.drift(f"importance {data['metadata'][key]} outside 1–10", f"importance {data['importance']}; the original kept as metadata.{key}")
    for name in ("tags", "evidence"):
        if isinstance(data.get(name), str):
            data[name] = [data[name]]
            finding.drift(f"{name} is one string", f"{name} a list of it")
    depth = data.get("depth")
    if data["type"] == "reflection" and (not isinstance(depth, int) or isinstance(depth, bool) or depth < 1):
        if depth is not None:
            keep_under(_metadata(data), "original_depth", depth)
        data["depth"] = 1
        finding.drift(f"reflection with depth {depth!r}", "depth 1")
    elif data["type"] != "reflection" and depth not in (None, 0):
        keep_under(_metadata(data), "original_depth", depth)
        data["depth"] = 0
        finding.drift(f"depth {depth!r} on a {data['type']}", "depth 0 (only reflections have depth); the original kept in metadata")


def cross_checks(streams: list[RepairedStream], root: Path) -> list[Drift]:
    """Across lines and files: evidence that exists in no stream, artifacts not in the folder.

    Evidence that cites another character's memory is legitimate and left alone."""
    known = {memory.id for stream in streams for _, memory in stream.memories}
    found: list[Drift] = []
    for stream in streams:
        for line, memory in stream.memories:
            missing = [e for e in memory.evidence if e not in known]
            if missing:
                found.append(Drift(stream.display, line, f"evidence {', '.join(missing)} exists in no stream",
                                   "nothing to repair automatically; left as it is", "error"))
            path = memory.metadata.get("artifact_path")
            if isinstance(path, str) and not (root / path).exists():
                found.append(Drift(stream.display, line, f"artifact_path {path} is not in the folder",
                                   "nothing to repair; the memory keeps the path", "warning"))
    return found
