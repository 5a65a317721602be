"""The tables of a search index, and how an index of an earlier schema is brought up to this one.

An index is derived data, but a large one takes a while to build (some 20 s of CPU for a million
memories), so a change of the tables alone does not throw it away: each schema version names the
step that turns an index of the version before into one of its own, in SQL over what the index
already holds, in one transaction. Only a change of the analysis itself (``PIPELINE_VERSION``: the
words a memory is indexed under) or of the studio's language rebuilds from the stream.
"""

from __future__ import annotations

import sqlite3
from typing import Callable

from .pieces import run_script

#: 3: what a character heard others say is indexed with the memory that keeps it.
#: 4: tags kept in their own b-tree (no table plus index), reflections in a partial index.
#: 5: tags by number (``tag_key``): a b-tree of two integers is filled faster, and is smaller.
#: 6: tags in a full-text table of their own (``tags``), without positions: a memory's tags go in
#:    as one row instead of a b-tree row each (1.3 instead of 2.7 µs a memory), a quarter smaller.
SCHEMA_VERSION = 6

#: A memory's tag keys, one row of tokens (``tag_token``) each; no positions, no lengths: a tag is
#: only ever asked whether a memory has it.
_TAGS = """
CREATE VIRTUAL TABLE tags USING fts5(tag, content='', detail='none', columnsize=0, tokenize='ascii');
CREATE VIRTUAL TABLE tag_vocab USING fts5vocab(tags, 'row');
"""

SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value);
CREATE TABLE doc(seq INTEGER PRIMARY KEY, line INTEGER, offset INTEGER, length INTEGER, mem_id TEXT,
                 day INTEGER, scene INTEGER, dated INTEGER, type TEXT, importance INTEGER, depth INTEGER);
CREATE VIRTUAL TABLE fts USING fts5(body, content='', tokenize='unicode61 remove_diacritics 0');
CREATE VIRTUAL TABLE vocab USING fts5vocab(fts, 'row');
""" + _TAGS
#: Made once the rows are in: sorting them once is cheaper than keeping a b-tree in order row by row.
INDEXES = """
CREATE INDEX IF NOT EXISTS doc_reflections ON doc(seq) WHERE depth > 0;
"""


def tag_token(key: str) -> str:
    """A tag key (``bone-towers``, ``knochentürme``) as one token of the ``tags`` table: ``t`` and
    the hex of its UTF-8, which no tokenizer splits or folds, so a key matches only itself."""
    return "t" + key.encode("utf-8").hex()


def tags_matching(keys: list[str]) -> str:
    """A MATCH of the ``tags`` table for any of ``keys``."""
    return " OR ".join(tag_token(key) for key in keys)


def tag_of(token: str) -> str:
    return bytes.fromhex(token[1:]).decode("utf-8")


def _tags_into_fts(db: sqlite3.Connection) -> None:
    # SQLite's hex() is the UTF-8 of the key in upper case; the ascii tokenizer folds it as tag_token writes it.
    run_script(db, _TAGS)
    db.execute("INSERT INTO tags(rowid, tag) SELECT seq, group_concat('t' || lower(hex(key)), ' ') "
               "FROM tag JOIN tag_key ON id = tag GROUP BY seq ORDER BY seq")
    run_script(db, "DROP TABLE tag; DROP TABLE tag_key")


#: version → the step that brings an index of the version before up to it.
STEPS: dict[int, Callable[[sqlite3.Connection], None]] = {6: _tags_into_fts}


def can_migrate(version) -> bool:
    """Whether an index of schema ``version`` can be brought up to ``SCHEMA_VERSION`` in place."""
    return isinstance(version, int) and version < SCHEMA_VERSION and all(
        step in STEPS for step in range(version + 1, SCHEMA_VERSION + 1))


def migrate(db: sqlite3.Connection, version: int) -> None:
    """Run the steps from ``version`` up, inside the caller's transaction, and note the new version."""
    for step in range(version + 1, SCHEMA_VERSION + 1):
        STEPS[step](db)
    db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('schema', ?)", (SCHEMA_VERSION,))
