"""The stems kept between runs (``gamemaster/stems.py``): merged with what another command wrote
meanwhile, and never taken from another stemmer."""

from __future__ import annotations

import json

import pytest

from gamemaster.problems import StateError
from gamemaster.retrieval.text import Analyzer
from gamemaster.stems import StemStore, stemmer_key


def test_a_save_keeps_what_another_command_wrote_meanwhile(tmp_path):
    path = tmp_path / "state" / ".cache" / "stems.json"
    one, other = StemStore(), StemStore()
    for store, word, stem in ((one, "türme", "turm"), (other, "brücken", "bruck")):
        store.keep_in(tmp_path)
        store.table("de")[word] = stem
        store.added += 1
    assert one.save() and other.save()
    assert not other.save()  # nothing new since
    assert json.loads(path.read_text(encoding="utf-8"))["stems"] == {"de": {"türme": "turm", "brücken": "bruck"}}


def test_stems_found_for_one_workspace_are_not_written_into_the_next_one_a_process_works_in(tmp_path):
    # One process, two commands (the MCP server, the test suite): the second, a read-only one,
    # must not write a cache file for what the first found.
    first, second = tmp_path / "a", tmp_path / "b"
    store = StemStore()
    store.keep_in(first)
    store.table("de")["türme"] = "turm"
    store.added += 1
    store.keep_in(second)
    assert not store.save()
    assert not (second / "state" / ".cache").exists()
    store.table("de")["brücken"] = "bruck"
    store.added += 1
    assert store.save()  # what it adds itself is saved, with what it knows
    assert (second / "state" / ".cache" / "stems.json").exists()


def test_stems_of_another_stemmer_are_not_used(tmp_path, monkeypatch):
    path = tmp_path / "state" / ".cache" / "stems.json"
    path.parent.mkdir(parents=True)
    # What the German stemmer makes of "türme", as if written by another (older) stemmer.
    path.write_text(json.dumps({"stemmer": stemmer_key() + "-older", "stems": {"de": {"türme": "wrong"}}}), encoding="utf-8")
    store = StemStore()
    monkeypatch.setattr("gamemaster.retrieval.text.STEMS", store)
    store.keep_in(tmp_path)
    assert Analyzer("de").terms("Türme") == ["turm"]
    path.write_text(json.dumps({"stemmer": stemmer_key(), "stems": {"de": {"türme": "kept"}}}), encoding="utf-8")
    fresh = StemStore()
    monkeypatch.setattr("gamemaster.retrieval.text.STEMS", fresh)
    fresh.keep_in(tmp_path)
    assert Analyzer("de").terms("Türme") == ["kept"]  # the file's stem is taken as it is: it is only read, never checked


def test_a_stems_file_linked_out_of_the_workspace_is_neither_read_nor_written(tmp_path):
    root = tmp_path / "studio"
    (root / "state" / ".cache").mkdir(parents=True)
    (root / "state" / "world.json").write_text("{}", encoding="utf-8")
    outside = tmp_path / "outside.json"
    planted = json.dumps({"stemmer": stemmer_key(), "stems": {"de": {"türme": "planted"}}})
    outside.write_text(planted, encoding="utf-8")
    (root / "state" / ".cache" / "stems.json").symlink_to(outside)
    store = StemStore()
    store.keep_in(root)
    assert store.table("de") == {}  # not read through the link
    store.table("de")["türme"] = "turm"
    store.added += 1
    with pytest.raises(StateError, match="a symbolic link leads it out of the workspace"):
        store.save()
    assert outside.read_text(encoding="utf-8") == planted


@pytest.mark.parametrize("content", [b"[" * 200_000, b'{"stems": ' + b" " * (9 << 20) + b"}", b"\xff\xfe\x00", b"NaN"])
def test_a_stems_file_nested_too_deep_too_large_or_no_json_is_stemmed_past(tmp_path, monkeypatch, content):
    """A derived file, so whatever it holds costs at most one run's stemming, never the command."""
    path = tmp_path / "state" / ".cache" / "stems.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    store = StemStore()
    monkeypatch.setattr("gamemaster.retrieval.text.STEMS", store)
    store.keep_in(tmp_path)
    assert Analyzer("de").terms("Die Türme wachsen") == ["turm", "wachs"]
    assert store.save()  # replaced by the stems of this run
    assert json.loads(path.read_text(encoding="utf-8"))["stems"]["de"]["türme"] == "turm"


@pytest.mark.parametrize("language", ["german", "english"])
def test_the_compiled_stemmers_of_the_fast_extra_stem_every_word_as_the_pure_python_ones(language):
    """With PyStemmer installed (the `fast` extra) snowballstemmer hands every word to it: an index
    built with it must hold the terms one built without it does."""
    import importlib
    from pathlib import Path

    compiled = pytest.importorskip("Stemmer", reason="the `fast` extra is not installed").Stemmer(language)
    pure = getattr(importlib.import_module(f"snowballstemmer.{language}_stemmer"), f"{language.title()}Stemmer")()
    from gamemaster.retrieval.text import tokens

    root = Path(__file__).resolve().parent.parent
    texts = [p.read_text(encoding="utf-8", errors="replace") for folder in ("gamemaster/bundled", "tests/fixtures", "docs", "library", "prompts")
             for p in sorted((root / folder).rglob("*")) if p.suffix in (".md", ".json", ".jsonl", ".txt")]
    words = sorted({word for text in texts for word in tokens(text)})
    assert len(words) > 8_000
    assert [w for w in words if compiled.stemWord(w) != pure.stemWord(w)] == []
