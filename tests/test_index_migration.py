"""A search index of an earlier schema is brought up to this one in place, not rebuilt from the stream.

``tests/fixtures/index_v5`` holds a stream of two offline days and the index schema 5 made of it
(see its README): what the migration makes of it must be what a build of the stream makes now.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from gamemaster.retrieval import index as index_module
from gamemaster.retrieval import schema
from gamemaster.retrieval.index import SearchIndex

from test_index_build import _contents

FIXTURE = Path(__file__).parent / "fixtures" / "index_v5"


def _copied(tmp_path):
    for name in ("vera.jsonl", "vera.search.sqlite"):
        shutil.copyfile(FIXTURE / name, tmp_path / name)
    return SearchIndex(tmp_path / "vera.jsonl", tmp_path / "vera.search.sqlite", "de")


def _schema(path) -> int:
    db = sqlite3.connect(path)
    try:
        return dict(db.execute("SELECT key, value FROM meta"))["schema"]
    finally:
        db.close()


def test_a_schema_5_index_is_migrated_to_what_a_build_makes_without_reading_the_stream_again(tmp_path, monkeypatch):
    assert _schema(FIXTURE / "vera.search.sqlite") == 5
    old = _copied(tmp_path)

    def no_rebuild(*args, **kwargs):
        raise AssertionError("rebuilt from the stream")

    monkeypatch.setattr(SearchIndex, "_rebuild", no_rebuild)
    monkeypatch.setattr(index_module, "analyse", no_rebuild)  # not one line analysed again
    old.refresh()
    old.close()
    monkeypatch.undo()
    assert _schema(tmp_path / "vera.search.sqlite") == schema.SCHEMA_VERSION

    fresh_folder = tmp_path / "fresh"
    fresh_folder.mkdir()
    shutil.copyfile(FIXTURE / "vera.jsonl", fresh_folder / "vera.jsonl")
    fresh = SearchIndex(fresh_folder / "vera.jsonl", fresh_folder / "vera.search.sqlite", "de")
    fresh.refresh()
    fresh.close()
    migrated, built = _contents(tmp_path / "vera.search.sqlite"), _contents(fresh_folder / "vera.search.sqlite")
    assert migrated == built
    assert len(built["tag"]) > 100 and len(built["doc"]) == 52


def test_a_migrated_index_finds_the_memories_of_a_tag_as_a_built_one_does(tmp_path):
    old = _copied(tmp_path).refresh()
    fresh_folder = tmp_path / "fresh"
    fresh_folder.mkdir()
    shutil.copyfile(FIXTURE / "vera.jsonl", fresh_folder / "vera.jsonl")
    fresh = SearchIndex(fresh_folder / "vera.jsonl", fresh_folder / "vera.search.sqlite", "de").refresh()
    keys = [key for key, _ in _contents(fresh.path)["tag"]]
    common = max(set(keys), key=keys.count)
    assert fresh.tag_freqs([common, "no-such-tag"]) == old.tag_freqs([common, "no-such-tag"]) == {common: keys.count(common)}
    assert old.tagged([common], 5) == fresh.tagged([common], 5) and len(old.tagged([common], 5)) == min(5, keys.count(common))
    assert [d.mem_id for d in old.filtered(tag_key=common)] == [d.mem_id for d in fresh.filtered(tag_key=common)]
    old.close()
    fresh.close()


@pytest.mark.parametrize("change", ["pipeline", "language"])
def test_an_index_of_another_analysis_is_rebuilt_not_migrated(tmp_path, change):
    shutil.copyfile(FIXTURE / "vera.search.sqlite", tmp_path / "vera.search.sqlite")
    shutil.copyfile(FIXTURE / "vera.jsonl", tmp_path / "vera.jsonl")
    db = sqlite3.connect(tmp_path / "vera.search.sqlite")
    db.execute("UPDATE meta SET value = ? WHERE key = ?", (1 if change == "pipeline" else "en", change))
    db.commit()
    db.close()
    index = SearchIndex(tmp_path / "vera.jsonl", tmp_path / "vera.search.sqlite", "de")
    assert index.to_index() == (tmp_path / "vera.jsonl").stat().st_size  # all of it analysed again
    index.refresh().close()
    assert _contents(tmp_path / "vera.search.sqlite")["meta"] == _contents(_fresh(tmp_path))["meta"]


def _fresh(tmp_path):
    folder = tmp_path / "fresh"
    folder.mkdir(exist_ok=True)
    shutil.copyfile(FIXTURE / "vera.jsonl", folder / "vera.jsonl")
    SearchIndex(folder / "vera.jsonl", folder / "vera.search.sqlite", "de").refresh().close()
    return folder / "vera.search.sqlite"


def test_a_copied_schema_5_index_asks_for_no_build(tmp_path):
    # A studio copied with its old index: migrating is no build, and nothing announces one.
    assert _copied(tmp_path).to_index() == 0
