"""Stems kept from one run to the next: ``state/.cache/stems.json``.

Every command is a new process, and building a scene's prompts stems the words of the library,
of the memories shown and of the queries: some 600 words for a WORK scene of the bundled studio,
a fifth of what `next` does, and importing the Snowball stemmers (the package loads all 36 of its
languages) adds a quarter to that. A word's stem depends on the word, the language and the stemmer alone, so the stems a
command computed are written back to the workspace's cache and the next command looks them up;
a command that meets only words seen before never imports the stemmers. The file is derived
like the search indexes beside it: deleting it costs one slower run. It is read only once a
word is stemmed, and written only when a run added stems; as every file of a workspace, never
read or written through a symbolic link out of it (``ids.py``).
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

from . import jsontext
from .derived import make_way
from .ids import confined, reads_inside

#: Words per language the file keeps: enough for a studio's vocabulary, small enough that
#: reading it stays a fraction of what it saves.
MOST = 20_000


class StemStore:
    """language → word → stem, from the bound file and from this run."""

    def __init__(self):
        self.root: Path | None = None
        self.path: Path | None = None
        self._read: Path | None = None
        self.by_language: dict[str, dict[str, str]] = {}
        self.added = 0

    def keep_in(self, root: Path | None) -> None:
        """The workspace this run's stems come from and go to (nothing is read yet). Stems added
        while bound elsewhere are not a reason to write here: a read-only command (``doctor``
        without ``--fix``) run in the same process after another must not write a cache file."""
        if root != self.root:
            self.added = 0
        self.root = root
        self.path = None if root is None else root / "state" / ".cache" / "stems.json"

    def table(self, language: str) -> dict[str, str]:
        """The stems known for ``language``: the same dict for the whole run, filled from the file
        the first time a stem is asked for."""
        if self.path is not None and self._read != self.path:
            self._read = self.path
            for name, stems in self._stored().items():
                self.by_language.setdefault(name, {}).update(stems)
        return self.by_language.setdefault(language, {})

    def _stored(self) -> dict[str, dict[str, str]]:
        # A link out of the workspace is not followed (saving says so).
        return read(self.path) if reads_inside(self.root, self.path) else {}

    def save(self) -> bool:
        """Writes the stems added in this run, merged with what the file holds now (another
        command may have added some meanwhile); False when there was nothing to write. A
        ``StateError`` when a symbolic link would take the write out of the workspace."""
        if self.path is None or not self.added:
            return False
        confined(self.path)
        merged = self._stored()
        for name, stems in self.by_language.items():
            kept = merged.setdefault(name, {})
            for word, stem in stems.items():
                if len(kept) >= MOST:
                    break
                kept.setdefault(word, stem)
        make_way(self.path).parent.mkdir(parents=True, exist_ok=True)
        temp = self.path.with_name(f".{self.path.name}.{os.getpid()}-{os.urandom(4).hex()}.tmp")
        try:
            temp.write_text(json.dumps({"stemmer": stemmer_key(), "stems": merged}, ensure_ascii=False), encoding="utf-8")
            os.replace(temp, self.path)
        finally:
            temp.unlink(missing_ok=True)
        self.added = 0
        return True


def stemmer_key() -> str:
    """Which stemmer the stems come from, told without importing it: the installed package's
    files (an upgrade rewrites them) and whether its compiled variant is there (it uses that)."""
    spec = importlib.util.find_spec("snowballstemmer")
    if spec is None or spec.origin is None:
        return ""
    stat = os.stat(spec.origin)
    compiled = importlib.util.find_spec("Stemmer") is not None
    return f"{spec.origin}:{stat.st_size}:{stat.st_mtime_ns}:{int(compiled)}"


#: A file larger than this is not what ``save`` writes (``MOST`` words a language): not read.
MOST_BYTES = 8 << 20


def read(path: Path) -> dict[str, dict[str, str]]:
    """The stems in ``path``; none when it is missing, unreadable, too large, not strict JSON
    (nested past ``jsontext``'s limit, say), not what this module writes or from another
    stemmer: the stems are then computed again, as on the first run."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MOST_BYTES + 1)
        if len(raw) > MOST_BYTES:
            return {}
        data = jsontext.loads(raw)
    except (OSError, ValueError):  # a JSONDecodeError and a UnicodeDecodeError are ValueErrors
        return {}
    if not isinstance(data, dict) or data.get("stemmer") != stemmer_key() or not isinstance(data.get("stems"), dict):
        return {}
    return {name: stems for name, stems in data["stems"].items()
            if isinstance(stems, dict) and all(isinstance(s, str) for s in stems.values())}


#: The process's store: ``keep_in`` binds it to a workspace's file (the command line does).
STORE = StemStore()
