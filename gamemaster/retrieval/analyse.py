"""What the search index needs from raw stream lines: one piece of a stream at a time.

Kept apart from the index itself: the index reads a stream in pieces and
inserts what this returns for each, so a build holds one piece, not the stream.
"""

from __future__ import annotations

from .. import jsontext
from ..ids import SCENE_REF_RE
from ..linesize import MAX_LINE_BYTES
from .heard import heard_lines
from .text import analyzer, tag_key

# One analysed line: (line within the chunk, offset within it, length, id, day, scene
# (-1, -1 when `created` is missing or malformed), type, importance, depth, terms, tag keys).
Row = tuple


def analyse(data: bytes, language: str) -> tuple[list[Row], int]:
    """Every line of ``data`` that can be indexed, and how many lines ``data`` holds."""
    words = analyzer(language)
    terms, scene_ref = words.terms, SCENE_REF_RE.match
    keys_of: dict[tuple, tuple] = {}
    rows: list[Row] = []
    pieces = data.split(b"\n")
    if pieces and pieces[-1] == b"":
        pieces.pop()
    offset = 0
    for line, raw in enumerate(pieces, start=1):
        parsed = _parse(raw)
        if parsed is not None:
            memory, tags = parsed
            created = memory.get("created")
            match = scene_ref(created) if type(created) is str else None
            day, scene = (int(match.group(1)), int(match.group(2))) if match else (-1, -1)
            importance, depth, kind = memory.get("importance"), memory.get("depth", 0), memory.get("type")
            tag_tuple = tuple(tags)
            keys = keys_of.get(tag_tuple)
            if keys is None:
                keys = keys_of[tag_tuple] = tuple(k for k in dict.fromkeys(tag_key(t) for t in tags) if k)
            rows.append((line, offset, len(raw), memory["id"], day, scene,
                         kind if type(kind) is str else "observation",
                         importance if type(importance) is int else 1,
                         depth if type(depth) is int else 0,
                         " ".join(terms(_body(memory, tags))), keys))
        offset += len(raw) + 1
    return rows, len(pieces)


def _parse(raw: bytes) -> tuple[dict, list[str]] | None:
    """Just enough of a line to index it; lines that are not memories are left to `validate`."""
    if len(raw) > MAX_LINE_BYTES:
        return None  # not even parsed: `validate` and the prompts name it
    try:
        data = jsontext.loads(jsontext.without_bom(raw))
    except ValueError:
        return None
    if type(data) is not dict or type(data.get("id")) is not str or type(data.get("description")) is not str:
        return None
    tags = data.get("tags")
    return data, ([t for t in tags if type(t) is str] if type(tags) is list else [])


def _body(memory: dict, tags: list[str]) -> str:
    """What a memory says: description, an artifact's title and summary, its tags' words, and
    what others said that the character heard (``heard.py``)."""
    parts = [memory["description"], *tags]
    metadata = memory.get("metadata")
    if type(metadata) is dict:
        parts += [metadata[k] for k in ("title", "summary") if type(metadata.get(k)) is str]
        parts += [says for _, says in heard_lines(metadata, memory["id"])]
    return "\n".join(parts)
