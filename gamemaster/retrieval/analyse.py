"""What the search index needs from raw stream lines: one piece of a stream at a time.

Kept apart from the index itself: the index reads a stream in pieces and
inserts what this returns for each, so a build holds one piece, not the stream.

A cold build runs this for every memory of a stream (a million, at scale), so the
work per line is kept to what cannot be done per piece: a piece is decoded from
UTF-8 at once, a line that is one JSON value is read with one call into the decoder,
what a line is indexed with is put together in one pass, and the words of a few
hundred memories are found at once (``Analyzer.joined_terms_many``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import jsontext
from ..ids import SCENE_REF_RE
from ..linesize import MAX_LINE_BYTES
from .heard import heard_lines
from .schema import tag_token
from .text import analyzer, tag_key


#: SQLite keeps integers of 64 bits; a hand-written importance beyond is no importance (``validate`` names it).
_INT64 = 1 << 63


@dataclass
class Rows:
    """What one piece adds to the index, and where numbering stands after it.

    ``seq``, ``line``, ``day``, ``scene`` and ``dated`` carry on from piece to piece: a
    memory whose ``created`` is missing or malformed is dated with the scene before it."""

    seq: int = 0
    line: int = 0
    day: int = 0
    scene: int = 0
    dated: int = 0
    #: (seq, line, offset, length, id, day, scene, dated, type, importance, depth)
    docs: list[tuple] = field(default_factory=list)
    #: (seq, the memory's tag keys as ``schema.tag_token``s joined by spaces), for memories with tags
    tags: list[tuple[int, str]] = field(default_factory=list)
    #: (seq, the memory's terms joined by spaces)
    texts: list[tuple[int, str]] = field(default_factory=list)

    def start_piece(self) -> None:
        self.docs, self.tags, self.texts = [], [], []


def analyse(data: bytes, base: int, language: str, rows: Rows) -> None:
    """Add every line of ``data`` (stream bytes from byte ``base``) that can be indexed to ``rows``."""
    raws = data.split(b"\n")
    if raws and raws[-1] == b"":
        raws.pop()
    texts = _decoded(data, len(raws))
    loads_line, unread = jsontext.loads_line, jsontext.UNREAD
    keys_of: dict[tuple, str] = {}
    scenes: dict[str, tuple[int, int] | None] = {}  # a scene's memories share their ``created``
    bodies: list[str] = []
    seq, day, scene, dated, line = rows.seq, rows.day, rows.scene, rows.dated, rows.line
    docs, tags, first_seq = rows.docs, rows.tags, rows.seq
    offset = base
    for index, raw in enumerate(raws):
        line += 1
        length = len(raw)
        memory = loads_line(texts[index]) if texts is not None and length <= MAX_LINE_BYTES else unread
        if memory is unread:
            parsed = _parse(raw) if texts is None else _parse_text(raw, texts[index])
        else:
            parsed = _memory(memory)
        if parsed is not None:
            memory, tag_list = parsed
            created = memory.get("created")
            if type(created) is str:
                when = scenes.get(created, unread)
                if when is unread:
                    match = SCENE_REF_RE.match(created)
                    when = scenes[created] = (int(match.group(1)), int(match.group(2))) if match else None
                if when is not None:
                    (day, scene), dated = when, 1
            importance, depth, kind = memory.get("importance"), memory.get("depth", 0), memory.get("type")
            seq += 1
            docs.append((seq, line, offset, length, memory["id"], day, scene, dated,
                         kind if type(kind) is str else "observation",
                         importance if type(importance) is int and -_INT64 <= importance < _INT64 else 1,
                         depth if type(depth) is int and -_INT64 <= depth < _INT64 else 0))
            bodies.append(_body(memory, tag_list))
            if tag_list:
                tag_tuple = tuple(tag_list)
                keys = keys_of.get(tag_tuple)
                if keys is None:
                    keys = keys_of[tag_tuple] = " ".join(tag_token(k) for k in dict.fromkeys(map(tag_key, tag_list)) if k)
                if keys:
                    tags.append((seq, keys))
        offset += length + 1
    # The words of all the piece's memories are found at once; each memory's terms stay its own.
    rows.texts += zip(range(first_seq + 1, seq + 1), analyzer(language).joined_terms_many(bodies))
    rows.seq, rows.line, rows.day, rows.scene, rows.dated = seq, line, day, scene, dated


def _decoded(data: bytes, lines: int) -> list[str] | None:
    """The piece's lines as text, decoded at once; None if a line must be decoded on its own.

    A line is decoded as `jsontext.loads` decodes it: UTF-8, unless its first bytes say
    UTF-16 or UTF-32 (they hold a zero byte), or it holds an encoded surrogate
    ("surrogatepass"); a piece with a zero byte or not strict UTF-8 is left to that."""
    if b"\x00" in data:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    texts = text.split("\n")  # a newline byte is a newline character in UTF-8: the same lines
    del texts[lines:]
    return texts


def _parse_text(raw: bytes, text: str) -> tuple[dict, list[str]] | None:
    """`_parse` of a line already decoded."""
    if len(raw) > MAX_LINE_BYTES:
        return None
    if text.startswith("\ufeff"):
        return _parse(raw)  # a second mark after the first is read as bytes read it (utf-8-sig)
    try:
        data = jsontext.loads(text)
    except ValueError:
        return None
    return _memory(data)


def _parse(raw: bytes) -> tuple[dict, list[str]] | None:
    """Just enough of a line to index it; lines that are not memories are left to `validate`."""
    if len(raw) > MAX_LINE_BYTES:
        return None  # not even parsed: `validate` and the prompts name it
    try:
        data = jsontext.loads(jsontext.without_bom(raw))
    except ValueError:
        return None
    return _memory(data)


def _memory(data) -> tuple[dict, list[str]] | None:
    if type(data) is not dict or type(data.get("id")) is not str or type(data.get("description")) is not str:
        return None
    tags = data.get("tags")
    return data, ([t for t in tags if type(t) is str] if type(tags) is list else [])


def _body(memory: dict, tags: list[str]) -> str:
    """What a memory says: description, an artifact's title and summary, its tags' words, and
    what others said that the character heard (``heard.py``)."""
    metadata = memory.get("metadata")
    if not metadata or type(metadata) is not dict:  # most memories: nothing more to add
        return "\n".join([memory["description"], *tags]) if tags else memory["description"]
    parts = [memory["description"], *tags]
    parts += [metadata[k] for k in ("title", "summary") if type(metadata.get(k)) is str]
    parts += [says for _, says in heard_lines(metadata, memory["id"])]
    return "\n".join(parts)
