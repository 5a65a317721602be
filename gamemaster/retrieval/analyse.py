"""What the search index needs from raw stream lines, in a form a worker process can return.

Kept apart from the index itself so that a rebuild of a large stream can hand
half of the lines to a second process: parsing JSON and stemming words are
most of a rebuild's time, and both are pure Python.
"""

from __future__ import annotations

import os
import pickle
import sys

from .. import jsontext
from ..ids import SCENE_REF_RE
from ..linesize import MAX_LINE_BYTES
from .heard import heard_lines
from .text import analyzer, tag_key

#: Below this many bytes a second process costs more than it saves.
PARALLEL_FROM = 8 << 20

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


def analyse_all(data: bytes, language: str) -> tuple[list[Row], int]:
    """``analyse`` over the whole of ``data``; a large stream is split across two processes."""
    if len(data) < PARALLEL_FROM or (os.cpu_count() or 1) < 2:
        return analyse(data, language)
    middle = data.find(b"\n", len(data) // 2) + 1
    if middle <= 0:
        return analyse(data, language)
    second = _Worker(data[middle:], language)
    first_rows, first_lines = analyse(data[:middle], language)
    second_rows, second_lines = second.result() or analyse(data[middle:], language)
    shifted = [(line + first_lines, offset + middle, *rest) for line, offset, *rest in second_rows]
    return first_rows + shifted, first_lines + second_lines


class _Worker:
    """``analyse`` in a second Python process, handed its lines and its answer through files.

    A plain subprocess rather than multiprocessing: it runs only this module's
    ``_serve`` and never re-imports the caller's main module. Files, not pipes:
    a pipe would be pumped by a thread that gets the interpreter lock only
    between the main thread's own work, and the worker would wait on it.
    """

    def __init__(self, data: bytes, language: str):
        import subprocess
        import tempfile

        self.proc = None
        self.folder = tempfile.TemporaryDirectory(prefix="gamemaster-index-")
        self.source = os.path.join(self.folder.name, "lines")
        self.target = os.path.join(self.folder.name, "rows")
        try:
            with open(self.source, "wb") as handle:
                handle.write(data)
            self.proc = subprocess.Popen(
                [sys.executable, "-c", "from gamemaster.retrieval.analyse import _serve; _serve()",
                 self.source, self.target, language],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
        except OSError:
            self.folder.cleanup()

    def result(self) -> tuple[list[Row], int] | None:
        """The worker's rows, or None if it failed (the caller then does the work itself)."""
        if self.proc is None:
            return None
        try:
            if self.proc.wait() != 0:
                return None
            with open(self.target, "rb") as handle:
                return pickle.load(handle)
        except Exception:  # noqa: BLE001 - whatever went wrong there, the work is done here instead
            return None
        finally:
            self.folder.cleanup()


def _serve() -> None:
    source, target, language = sys.argv[1:4]
    with open(source, "rb") as handle:
        rows = analyse(handle.read(), language)
    with open(target, "wb") as handle:
        pickle.dump(rows, handle, protocol=pickle.HIGHEST_PROTOCOL)


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
