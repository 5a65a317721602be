"""A cold index build reads a piece of a stream at once (decoded in one go, analysed in one pass);
what it indexes must be exactly what reading each line on its own gives: the same rows, tags and
terms at the same positions, for well-formed lines and for every kind of line that is not one."""

from __future__ import annotations

import json
import sqlite3

import pytest

from gamemaster import jsontext
from gamemaster.retrieval import analyse as analyse_module
from gamemaster.retrieval import schema
from gamemaster.retrieval.index import SearchIndex
from gamemaster.retrieval.text import Analyzer, analyzer

BASE = {"id": "vera-001", "created": "day-001/scene-01", "type": "observation", "depth": 0,
        "description": "Der Turm ist alt.", "importance": 3, "tags": ["lore"], "evidence": [], "metadata": {}}


def _line(number: int, **fields) -> bytes:
    return json.dumps({**BASE, "id": f"vera-{number:03d}", **fields}, ensure_ascii=False).encode()


def _odd_lines() -> list[bytes]:
    """Lines that decode as UTF-8 as a whole piece, each testing one rule of reading a line."""
    heard = {"title": "Titel", "summary": "Zusammenfassung",
             "heard": [{"speaker": "finn", "says": "Ich sage etwas über Türme"}, {"speaker": "vera", "says": "own"},
                       "x", {"speaker": 1, "says": "y"}],
             "transcript": [{"speaker": "leo", "says": "  "}, {"speaker": "leo", "says": "the dungeon is dark"}],
             "takeaways": {"a": 1}}
    return [
        _line(1, description="The tower is old and we are tired of it"),
        _line(2, description="Straße, STRASSE und ﬁnale Türme — tuerme", tags=["Bone Towers", "bone_towers", " x ", 7]),
        _line(3, description="\u0301am Anfang ein Akzent, e\u0301 und café", tags="keine Liste"),
        _line(4, description="snake_case_wort, 42 Zahlen ², ½, Ⅻ, ǅ ΣΑΣ σας İstanbul ﬀ"),
        _line(5, description="ein Nullzeichen \u0000 und eine Marke \ufeff mitten im Text"),
        _line(6, created="kaputt", importance="hoch", depth="x", type=5),
        _line(7, created=None, metadata=heard),
        _line(8, created="day-002/scene-03"),
        b"\xef\xbb\xbf" + _line(9),
        b"\xef\xbb\xbf\xef\xbb\xbf" + _line(10),
        b'{"id": "vera-nan", "description": "x", "importance": NaN}',
        b'{"id": "vera-inf", "description": "x", "importance": 1e999}',
        # beyond SQLite's integers (and beyond orjson's: read as floats there): no importance, no depth
        b'{"id": "vera-big", "description": "x", "importance": 123456789012345678901234567890, "depth": -99999999999999999999}',
        b'{"id": "vera-64", "description": "x", "importance": 9223372036854775807, "depth": -9223372036854775808}',
        b'{"id": "vera-deep", "description": "tief", "x": ' + b"[" * 150 + b"]" * 150 + b"}",
        b'{"id": "vera-dup", "description": "erste", "description": "zweite"}',
        b"[1, 2, 3]", b"", b"   ", b'{"id": 5, "description": "x"}', b'{"id": "vera-ohne"}',
        b'{"id": "vera-esc", "description": "\\ud800 einsam, \\u00e4"}',
        b'{"id": "vera-lang", "description": "' + b"wort " * 220_000 + b'"}',
        b'{"id": "vera-rest", "description": "x"} und mehr',
        _line(11, description="Windows-Zeile") + b"\r",
        _line(12, description="µ-Meter, ¼ Stunde, ein \x01 Steuerzeichen und 𝔉𝔯𝔞𝔨𝔱𝔲𝔯"),
        b'{"id": "vera-leer", "description": "vorn Leerraum"}',
        b'  {"id": "vera-vorn", "description": "vorn Leerraum"}',
        b'{"id": "vera-zwei", "description": "zwei Zeilen", "x": [1,',
        b'2]}',
        _line(13, description="the last one, with no newline after it"),
    ]


def _bad_bytes() -> list[bytes]:
    """Lines a piece cannot be decoded with at once: each is read on its own, as before."""
    return [_line(20), b'{"id": "vera-021", "description": "kaputt \xff"}', _line(22),
            b'{"id": "vera-023", "description": "cesu \xed\xa0\x80 x"}',
            json.dumps({"id": "vera-024", "description": "utf16"}).encode("utf-16-le"), _line(25) + b"\x00", _line(26)]


def _contents(path) -> dict[str, list]:
    db = sqlite3.connect(path)
    db.execute("CREATE VIRTUAL TABLE temp.positions USING fts5vocab(main, fts, 'instance')")
    found = {name: db.execute(query).fetchall() for name, query in [
        ("doc", "SELECT * FROM doc ORDER BY seq"),
        ("terms", "SELECT doc, offset, term FROM temp.positions ORDER BY doc, offset"),
        ("meta", "SELECT key, value FROM meta WHERE key != 'mtime_ns' ORDER BY key"),
    ]}
    found["tag"] = _tags(db)
    db.close()
    return found


def _tags(db) -> list[tuple[str, int]]:
    """(tag key, seq) of every memory's tags, in stream order."""
    tokens = [term for (term,) in db.execute("SELECT term FROM tag_vocab")]
    return sorted(((schema.tag_of(token), seq) for token in tokens
                   for (seq,) in db.execute("SELECT rowid FROM tags WHERE tags MATCH ?", (token,))),
                  key=lambda pair: (pair[1], pair[0]))


def _build(tmp_path, name: str, stream: bytes, language: str) -> dict[str, list]:
    path = tmp_path / f"{name}.jsonl"
    path.write_bytes(stream)
    index = SearchIndex(path, tmp_path / f"{name}.search.sqlite", language)
    index.refresh()
    index.close()
    return _contents(tmp_path / f"{name}.search.sqlite")


@pytest.mark.parametrize("parser", ["compiled", "python"])
@pytest.mark.parametrize("language", ["de", "en"])
@pytest.mark.parametrize("lines", [_odd_lines(), _bad_bytes()], ids=["odd lines", "undecodable bytes"])
def test_a_piece_read_at_once_indexes_what_each_line_read_alone_does(tmp_path, monkeypatch, language, lines, parser):
    if parser == "python":
        monkeypatch.setattr(jsontext, "_compiled", None)
    else:
        pytest.importorskip("orjson", reason="the `fast` extra is not installed")
    stream = b"\n".join(lines)
    at_once = _build(tmp_path, "at-once", stream, language)
    # every line decoded and parsed on its own, every memory's text split into words on its own
    monkeypatch.setattr(analyse_module, "_decoded", lambda data, count: None)
    monkeypatch.setattr(jsontext, "loads_line", lambda text: jsontext.UNREAD)
    monkeypatch.setattr(Analyzer, "joined_terms_many", lambda self, texts: [self.joined_terms(t) for t in texts])
    alone = _build(tmp_path, "alone", stream, language)
    assert at_once == alone
    assert at_once["doc"], "the stream's good lines are indexed"


def test_what_a_memory_is_indexed_with_is_what_recall_analyses(tmp_path):
    """The terms stored for a memory are the query pipeline's terms of its description,
    tags, title, summary and the lines it heard others say (its own left out)."""
    found = _build(tmp_path, "stream", b"\n".join(_odd_lines()) + b"\n", "de")
    words = analyzer("de")
    by_doc: dict[int, list[str]] = {}
    for doc, _, term in found["terms"]:
        by_doc.setdefault(doc, []).append(term)
    ids = {row[4]: row[0] for row in found["doc"]}
    assert by_doc[ids["vera-002"]] == words.terms("Straße, STRASSE und ﬁnale Türme — tuerme\nBone Towers\nbone_towers\n x ")
    assert by_doc[ids["vera-007"]] == words.terms("Der Turm ist alt.\nlore\nTitel\nZusammenfassung\n"
                                                  "Ich sage etwas über Türme\nthe dungeon is dark")
    assert ids["vera-009"] and ids["vera-010"], "a line after one or two byte-order marks is read"
    assert "vera-nan" not in ids and "vera-deep" not in ids and "vera-inf" not in ids
    assert [row[5:8] for row in found["doc"] if row[4] == "vera-006"] == [(1, 1, 1)], \
        "an undated memory takes the scene of the one before it"


def _stream(root, agent: str, count: int) -> None:
    folder = root / "state" / "memories"
    folder.mkdir(parents=True, exist_ok=True)
    lines = [_line(n, id=f"{agent}-{n:03d}", description=f"{agent} notiert {n}: Türme, Ebene {n % 37}, Playtest {n % 11}.",
                   created=f"day-{1 + n // 50:03d}/scene-{1 + n % 9:02d}", tags=[f"t{n % 13}"]) for n in range(1, count + 1)]
    (folder / f"{agent}.jsonl").write_bytes(b"\n".join(lines) + b"\n")


@pytest.mark.parametrize("child", ["forked", "started"])
def test_large_stale_indexes_are_built_side_by_side_as_one_process_builds_them(tmp_path, monkeypatch, capsys, child):
    import subprocess
    import sys
    import threading
    from pathlib import Path

    from gamemaster import notices
    from gamemaster.retrieval import parallel, pieces
    from gamemaster.retrieval.index import open_index

    monkeypatch.setattr(notices, "_shown", set())  # said afresh, as by a new command
    if child == "started":  # a new interpreter, as where forking is not safe (another thread running)
        monkeypatch.setattr(parallel.threading, "active_count", lambda: 2)
    elif sys.platform != "linux":
        pytest.skip("children are forked on Linux only")
    elif threading.active_count() > 1:  # threads other tests left: fork where the command would, in a fresh interpreter
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__, "-k",
                              "side_by_side_as_one_process and forked", "--basetemp", str(tmp_path / "fresh")],
                             capture_output=True, text=True, cwd=Path(__file__).parent.parent)
        assert run.returncode == 0 and "1 passed" in run.stdout, run.stdout + run.stderr
        return

    agents = ["vera", "leo", "nami"]
    for root in (tmp_path / "side-by-side", tmp_path / "one-by-one"):
        for number, agent in enumerate(agents):
            _stream(root, agent, 3000 + 500 * number)
    for agent in agents:
        open_index(tmp_path / "one-by-one", agent, "de").refresh().close()
    built_here, started = [], []
    monkeypatch.setattr(parallel, "PARALLEL_BYTES", 1)  # these small streams count as large
    monkeypatch.setattr(parallel, "_cores", lambda: 2)
    monkeypatch.setattr(parallel, "_build", lambda root, language, names: [
        built_here.extend(names), open_index(root, names[0], language).refresh().close()])
    start, kinds = parallel._start, set()

    def recorded(*args):
        started.extend(args[2])
        process = start(*args)
        kinds.add(type(process).__name__)
        return process

    monkeypatch.setattr(parallel, "_start", recorded)

    capsys.readouterr()
    monkeypatch.setattr(pieces, "NOTICE_BYTES", 1)  # and as worth a notice
    parallel.build_side_by_side(tmp_path / "side-by-side", [*agents, "vera", "gone"], "de")
    out, err = capsys.readouterr()
    size = sum((tmp_path / "side-by-side" / "state" / "memories" / f"{agent}.jsonl").stat().st_size for agent in agents)
    assert out == "" and err.splitlines() == [  # once for the three, not again by the build of this process
        f"gamemaster: building the search indexes of nami, leo, vera ({size / 1e6:.0f} MB of memories) in 3 processes …"]

    # three streams on two cores: three processes, the largest stream built here
    assert built_here == ["nami"] and sorted(started) == ["leo", "vera"]
    assert kinds == ({"_Forked"} if child == "forked" else {"Popen"})
    for agent in agents:
        assert open_index(tmp_path / "side-by-side", agent, "de").to_index() == 0
        assert (_contents(tmp_path / "side-by-side" / "state" / ".cache" / f"{agent}.search.sqlite")
                == _contents(tmp_path / "one-by-one" / "state" / ".cache" / f"{agent}.search.sqlite"))
    assert sorted(p.name for p in (tmp_path / "side-by-side" / "state" / ".cache").iterdir()) == [
        "leo.search.sqlite", "nami.search.sqlite", "vera.search.sqlite"]

    parallel.build_side_by_side(tmp_path / "side-by-side", agents, "de")  # all current: nothing started
    assert built_here == ["nami"] and sorted(started) == ["leo", "vera"]


def test_words_split_by_the_latin1_table_are_the_words_of_the_regular_expression():
    import random
    import re

    from gamemaster.retrieval.text import _WIDE_PUNCTUATION, fold, tokens

    word = re.compile(r"[^\W_]+")
    alphabet = [chr(i) for i in range(0x300)] + list(_WIDE_PUNCTUATION) + ["\u2028", "ǅ", "Ⅻ", "\u0301", "ﬁ", "😀", "\u3000"]
    texts = ["".join(alphabet[i : i + 40]) for i in range(0, len(alphabet), 20)]
    rng = random.Random(24)
    texts += ["".join(rng.choice(alphabet) for _ in range(30)) for _ in range(5000)]
    texts += ["Größere Änderungen – „jetzt“ zu früh… snake_case ½ ² µ ª º × ÷ ¿ ¡ ß"]
    for text in texts:
        assert tokens(text) == word.findall(fold(text)), repr(text)


def test_texts_split_into_words_at_once_are_split_as_each_alone():
    """``tokens_many`` folds and splits many texts in one go; each text's words are its own."""
    import random

    from gamemaster.retrieval.text import _WIDE_PUNCTUATION, tokens, tokens_many

    latin1 = [chr(i) for i in range(256)]
    for first in latin1:  # every pair of Latin-1 characters, the separator among them
        texts = [first + second for second in latin1]
        assert tokens_many(texts) == [tokens(text) for text in texts], repr(first)
    wide = list(_WIDE_PUNCTUATION) + ["\u0301", "\u0308", "ﬁ", "ẞ", "İ", "Σ", "ς", "ᄀ", "ᅡ", "가", "😀", "\u3000", "\u2044"]
    rng = random.Random(24)
    for alphabet in (latin1 + wide, latin1[2:] + list(_WIDE_PUNCTUATION), latin1[2:]):
        for _ in range(3000):
            texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(rng.randint(0, 6))]
            assert tokens_many(texts) == [tokens(text) for text in texts], texts
    many = ["Größere Änderungen – „jetzt“ zu früh…"] * 300 + ["the tower is old, ½ µs"]
    assert tokens_many(many) == [tokens(text) for text in many]


@pytest.mark.parametrize("parser", ["compiled", "python"])
def test_a_line_read_with_one_call_is_what_loads_reads(monkeypatch, parser):
    if parser == "python":
        monkeypatch.setattr(jsontext, "_compiled", None)
    else:
        pytest.importorskip("orjson", reason="the `fast` extra is not installed")
    lines = ['{"a": [1, {"b": "ü"}], "a": 2.5}', '{"x": "\\ud800"}', '[1, 2]', '"text"', "1e5",
             '{"a": 1} ', ' {"a": 1}', '{"a": 1} x', '{"a": NaN}', '{"a": 1e999}', '\ufeff{"a": 1}', "",
             '{"a": ' + "[" * 101 + "]" * 101 + "}", '{"a": ' + "[" * 99 + "]" * 99 + "}", '{"a": "' + "[" * 200 + '"}',
             '{"n": ' + "9" * 5000 + "}", '{"a": 1', "{\"a\": \"\u0001\"}"]
    for line in lines:
        fast = jsontext.loads_line(line)
        try:
            slow = jsontext.loads(line)
        except ValueError:
            assert fast is jsontext.UNREAD, line  # refused by loads, so left to it
            continue
        assert fast is jsontext.UNREAD or (fast == slow and type(fast) is type(slow)), line
    read = [line for line in lines if jsontext.loads_line(line) is not jsontext.UNREAD]
    # The common lines take one call; orjson also reads a line with spaces around its value, and
    # leaves a lone surrogate (\ud800) to ``loads``.
    assert len(read) == (7 if parser == "compiled" else 6) and '{"a": "' + "[" * 200 + '"}' not in read
    # Beyond 64 bits orjson gives a float: the index takes neither for an importance (below).
    big = jsontext.loads_line('{"n": 123456789012345678901234567890}')["n"]
    assert big == 123456789012345678901234567890 if parser == "python" else type(big) is float


def test_words_stemmed_from_several_threads_at_once_get_their_own_stems():
    """A scene asks its characters from threads, and each may analyse words the others do."""
    import sys
    import threading

    from gamemaster.retrieval.text import _stemmer

    stem = _stemmer("de")
    words = [f"häuser{chr(97 + n % 26)}{n}ungen" for n in range(3000)]
    expected = [stem(word) for word in words]
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns inside a word, as they may under load
    stemmed, failed = {}, []

    def run(number):
        try:
            stemmed[number] = [stem(word) for word in words]
        except Exception as exc:  # what a stemmer that another thread disturbed raises
            failed.append(exc)

    try:
        threads = [threading.Thread(target=run, args=(number,)) for number in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(previous)
    assert not failed and all(found == expected for found in stemmed.values())


def test_lines_added_later_are_indexed_as_a_build_from_scratch_indexes_them(tmp_path):
    """An index brought along line by line (the tool's appends, a hand append) holds what a build
    of the whole stream holds: tags it had seen before and tags new to it alike."""
    from gamemaster.retrieval.index import index_appended

    root = tmp_path / "studio"
    _stream(root, "vera", 40)
    stream = root / "state" / "memories" / "vera.jsonl"
    index = SearchIndex(stream, root / "state" / ".cache" / "vera.search.sqlite", "de")
    index.refresh().close()
    by_hand = _line(41, tags=["t3", "neu-hier"]) + b"\n"
    with stream.open("ab") as handle:
        handle.write(by_hand)
    index.refresh().close()  # extended: the old bytes are unchanged
    size = stream.stat().st_size
    appended = [_line(42, tags=["neu-hier", "noch-neuer", "t5"]).decode(), _line(43, tags=[]).decode()]
    with stream.open("a", encoding="utf-8") as handle:
        handle.write("".join(line + "\n" for line in appended))
    index_appended(root, "vera", size, appended, size, stream.stat().st_mtime_ns)
    assert index.to_index() == 0
    grown = _contents(root / "state" / ".cache" / "vera.search.sqlite")
    whole = _build(tmp_path, "whole", stream.read_bytes(), "de")
    assert {k: v for k, v in grown.items() if k != "meta"} == {k: v for k, v in whole.items() if k != "meta"}
    assert ("neu-hier", 41) in grown["tag"] and ("neu-hier", 42) in grown["tag"] and ("t3", 41) in grown["tag"]
    assert index.tag_freqs(["neu-hier", "t3", "noch-neuer"]) == {"neu-hier": 2, "t3": 4, "noch-neuer": 1}
    index.close()


_KILLED_BUILD = """
import os, signal, sys
from pathlib import Path
from gamemaster.retrieval import index, pieces
pieces.PIECE_BYTES, index._BUILD_CACHE_KB = 4096, 1  # a small cache spills
index.CHECKPOINT_BYTES = int(sys.argv[3])
analysed, kill_at = [], int(sys.argv[2])
real, real_run, real_swap = index.analyse, index.run_script, index.swap_in
def analyse(data, base, language, rows):
    analysed.append(base)
    if len(analysed) == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)  # mid-transaction, with pages written past the last checkpoint
    return real(data, base, language, rows)
def run_script(db, script):
    if kill_at == -1 and script is index.INDEXES:
        os.kill(os.getpid(), signal.SIGKILL)  # after the last checkpoint, before the final commit
    return real_run(db, script)
def swap_in(path, building):
    if kill_at == -2:
        os.kill(os.getpid(), signal.SIGKILL)  # complete and committed, not yet renamed into place
    return real_swap(path, building)
index.analyse, index.run_script, index.swap_in = analyse, run_script, swap_in
root = Path(sys.argv[1])
index.open_index(root, "vera", "de").refresh()
"""


def _kill_a_build(root, kill_at: int, checkpoint_bytes: int = 16384) -> None:
    """Build vera's index in a child killed with SIGKILL in piece ``kill_at`` (counted from 1), or
    (-1) before its last commit, or (-2) after it, before the rename."""
    import signal
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", _KILLED_BUILD, str(root), str(kill_at), str(checkpoint_bytes)],
                          capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr


def _analysed_from(monkeypatch) -> list[int]:
    from gamemaster.retrieval import index, pieces

    monkeypatch.setattr(pieces, "PIECE_BYTES", 4096)
    monkeypatch.setattr(index, "CHECKPOINT_BYTES", 16384)
    starts: list[int] = []
    real = index.analyse
    monkeypatch.setattr(index, "analyse", lambda data, base, *rest: starts.append(base) or real(data, base, *rest))
    return starts


def _piece_starts(stream: bytes) -> list[int]:
    import io

    from gamemaster.fsio import line_pieces

    starts, at = [], 0
    for piece in line_pieces(io.BytesIO(stream), 4096):
        starts.append(at)
        at += len(piece)
    return starts


def _last_checkpoint(stream: bytes, before_piece: int) -> int:
    """Where the last commit of a build stands that stopped in piece ``before_piece`` (counted from 0):
    a commit follows the piece that takes the bytes since the one before to 16 KiB."""
    starts = _piece_starts(stream) + [len(stream)]
    committed = 0
    for end in starts[1 : before_piece + 1]:
        if end - committed >= 16384:
            committed = end
    return committed


def test_a_build_killed_midway_goes_on_from_its_last_checkpoint(tmp_path, monkeypatch, capsys):
    """kill -9 in the middle of a cold build: the next build keeps what was committed (every
    four pieces here) and analyses only the rest; the index is the one a whole build makes."""
    root = tmp_path / "studio"
    _stream(root, "vera", 600)
    stream = (root / "state" / "memories" / "vera.jsonl").read_bytes()
    cache = root / "state" / ".cache"
    _kill_a_build(root, kill_at=11)  # killed in piece 11, after two checkpoints
    side = [p.name for p in cache.glob("*.building-*")]
    assert len(side) == 2 and any(name.endswith("-journal") for name in side), side  # a transaction was left open
    starts = _analysed_from(monkeypatch)
    monkeypatch.setattr("gamemaster.retrieval.pieces.NOTICE_BYTES", 50_000)
    SearchIndex(root / "state" / "memories" / "vera.jsonl", cache / "vera.search.sqlite", "de").refresh().close()
    checkpoint = _last_checkpoint(stream, 10)
    out, err = capsys.readouterr()
    assert out == "" and err == (f"gamemaster: building the search index of vera ({len(stream) / 1e6:.0f} MB of memories, "
                                 f"going on from {checkpoint / 1e6:.0f} MB where a build that was cut off stopped) …\n"
                                 "gamemaster: built the search index of vera\n")  # tenths: none of a stream this small
    assert checkpoint > 16384 and starts[0] == checkpoint and starts == sorted(set(starts))  # the rest, once
    assert sorted(p.name for p in cache.iterdir()) == ["vera.search.sqlite"]
    resumed = _contents(cache / "vera.search.sqlite")
    whole = _build(tmp_path, "whole", stream, "de")
    assert {k: v for k, v in resumed.items() if k != "meta"} == {k: v for k, v in whole.items() if k != "meta"}
    assert resumed["meta"] == whole["meta"] and ("partial", 1) not in resumed["meta"]
    assert len(resumed["doc"]) == 600 and ("t7", 7) in resumed["tag"]


def test_a_killed_build_is_not_continued_once_the_lines_it_indexed_changed(tmp_path, monkeypatch, capsys):
    root = tmp_path / "studio"
    _stream(root, "vera", 600)
    path = root / "state" / "memories" / "vera.jsonl"
    _kill_a_build(root, kill_at=11)
    edited = path.read_bytes().replace(b"vera notiert 3:", b"vera notierte 3:", 1)  # a hand edit before the checkpoint
    path.write_bytes(edited)
    starts = _analysed_from(monkeypatch)
    monkeypatch.setattr("gamemaster.retrieval.pieces.NOTICE_BYTES", len(edited) + 1)  # a small stream: no notice
    index = SearchIndex(path, root / "state" / ".cache" / "vera.search.sqlite", "de")
    index.refresh().close()
    assert capsys.readouterr() == ("", "")
    assert starts == _piece_starts(edited)  # built from the start
    assert sorted(p.name for p in path.parent.parent.joinpath(".cache").iterdir()) == ["vera.search.sqlite"]
    rebuilt = _contents(root / "state" / ".cache" / "vera.search.sqlite")
    assert {k: v for k, v in rebuilt.items() if k != "meta"} == {
        k: v for k, v in _build(tmp_path, "whole", edited, "de").items() if k != "meta"}


def test_ctrl_c_keeps_the_checkpoint_and_a_running_build_is_left_alone(tmp_path, monkeypatch):
    import os
    import subprocess

    from gamemaster.retrieval import index as index_module

    root = tmp_path / "studio"
    _stream(root, "vera", 600)
    path, cache = root / "state" / "memories" / "vera.jsonl", root / "state" / ".cache"
    starts = _analysed_from(monkeypatch)
    real = index_module.analyse

    def interrupted(data, base, *rest):
        if len(starts) == 7:
            raise KeyboardInterrupt
        return real(data, base, *rest)

    monkeypatch.setattr(index_module, "analyse", interrupted)
    with pytest.raises(KeyboardInterrupt):
        SearchIndex(path, cache / "vera.search.sqlite", "de").refresh()
    (side,) = cache.glob("*.building-*")  # its checkpoint is kept
    # Under the name of a build that is still running, another build neither takes it over nor removes it.
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        running = side.with_name(f"vera.search.sqlite.building-{sleeper.pid}")
        os.rename(side, running)
        starts.clear()
        monkeypatch.setattr(index_module, "analyse", real)
        _analysed_from(monkeypatch)  # counts again, into a new list
        counted = index_module.analyse
        index = SearchIndex(path, cache / "vera.search.sqlite", "de")
        index.refresh().close()
        assert running.exists() and index.count() == 600
        index.close()
        os.rename(running, side)  # as if its process had been killed
        monkeypatch.setattr(index_module, "analyse", counted)
    finally:
        sleeper.kill()
        sleeper.wait()
    path.write_bytes(path.read_bytes() + _line(601) + b"\n")  # the index in place is stale now
    (cache / "vera.search.sqlite").unlink()
    resumed = _analysed_from(monkeypatch)
    SearchIndex(path, cache / "vera.search.sqlite", "de").refresh().close()
    checkpoint = _last_checkpoint(path.read_bytes(), 7)  # interrupted in piece 7 (counted from 0)
    assert checkpoint > 0 and resumed[0] == checkpoint
    assert sorted(p.name for p in cache.iterdir()) == ["vera.search.sqlite"]


def test_a_side_file_linked_out_of_the_workspace_is_neither_read_nor_followed(tmp_path, monkeypatch):
    """A killed build's side file that is a symbolic link to a file elsewhere: not taken over, not
    read, not written; the link is removed and the index built from the start."""
    import os

    root = tmp_path / "studio"
    _stream(root, "vera", 600)
    (root / "state" / "world.json").write_text("{}", encoding="utf-8")  # marks the workspace for `confined`
    path, cache = root / "state" / "memories" / "vera.jsonl", root / "state" / ".cache"
    _kill_a_build(root, kill_at=11)
    (side,) = [p for p in cache.glob("*.building-*") if not p.name.endswith("-journal")]
    db = sqlite3.connect(side)  # rolls back what the killed build left open: a checkpoint another build would take
    assert dict(db.execute("SELECT key, value FROM meta"))["partial"] == 1
    db.close()
    outside = tmp_path / "elsewhere.sqlite"
    os.replace(side, outside)
    before = outside.read_bytes()
    os.symlink(outside, side)
    starts = _analysed_from(monkeypatch)
    SearchIndex(path, cache / "vera.search.sqlite", "de").refresh().close()
    assert starts[0] == 0
    assert not side.is_symlink() and outside.read_bytes() == before
    assert sorted(p.name for p in cache.iterdir()) == ["vera.search.sqlite"]


def test_a_build_killed_near_a_stream_that_ends_in_half_a_line_goes_on_at_a_line(tmp_path, monkeypatch):
    """The stream's last line has no newline yet; the build is killed after committing everything
    before it. Then the tool appends (a newline first): the build that goes on starts at a line
    boundary, so the line numbers and memories are those of a whole build."""
    root = tmp_path / "studio"
    _stream(root, "vera", 600)
    path, cache = root / "state" / "memories" / "vera.jsonl", root / "state" / ".cache"
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    _kill_a_build(root, kill_at=-1, checkpoint_bytes=1)  # a commit after every piece it may follow
    with path.open("ab") as handle:
        handle.write(b"\n" + _line(601, id="vera-601", description="neu angehängt") + b"\n")
    starts = _analysed_from(monkeypatch)
    SearchIndex(path, cache / "vera.search.sqlite", "de").refresh().close()
    assert 0 < starts[0]  # it went on
    resumed = _contents(cache / "vera.search.sqlite")
    assert {k: v for k, v in resumed.items() if k != "meta"} == {
        k: v for k, v in _build(tmp_path, "whole", path.read_bytes(), "de").items() if k != "meta"}
    assert len(resumed["doc"]) == 601 and resumed["doc"][-1][:2] == (601, 601)


def test_a_build_killed_before_its_rename_is_put_in_place_without_indexing_again(tmp_path, monkeypatch):
    root = tmp_path / "studio"
    _stream(root, "vera", 600)
    path, cache = root / "state" / "memories" / "vera.jsonl", root / "state" / ".cache"
    _kill_a_build(root, kill_at=-2)
    starts = _analysed_from(monkeypatch)
    SearchIndex(path, cache / "vera.search.sqlite", "de").refresh().close()
    assert starts == []
    assert sorted(p.name for p in cache.iterdir()) == ["vera.search.sqlite"]
    whole = _build(tmp_path, "whole", path.read_bytes(), "de")
    assert _contents(cache / "vera.search.sqlite") == whole


def test_a_journal_left_under_this_process_s_side_file_name_is_not_played_into_a_build_it_takes_over(tmp_path, monkeypatch):
    """A killed build whose process id this process now has (ids are reused) left a journal; taking
    over another killed build under that name must not roll the journal into it."""
    import os

    root = tmp_path / "studio"
    _stream(root, "vera", 600)
    path, cache = root / "state" / "memories" / "vera.jsonl", root / "state" / ".cache"
    _kill_a_build(root, kill_at=11)
    (first,) = [p for p in cache.glob("*.building-*") if not p.name.endswith("-journal")]
    os.rename(first, tmp_path / "first")
    os.rename(f"{first}-journal", tmp_path / "first-journal")
    _kill_a_build(root, kill_at=7)  # another checkpoint: its journal holds other pages
    (second,) = [p for p in cache.glob("*.building-*") if not p.name.endswith("-journal")]
    mine = cache / f"vera.search.sqlite.building-{os.getpid()}"
    os.rename(f"{second}-journal", f"{mine}-journal")  # a hot journal, without its database
    second.unlink()
    os.rename(tmp_path / "first", first)
    os.rename(tmp_path / "first-journal", f"{first}-journal")
    starts = _analysed_from(monkeypatch)
    SearchIndex(path, cache / "vera.search.sqlite", "de").refresh().close()
    # went on from the first build's last commit, once (not again from the start after finding it damaged)
    assert starts[0] == _last_checkpoint(path.read_bytes(), 10) and starts == sorted(set(starts))
    whole = _build(tmp_path, "whole", path.read_bytes(), "de")
    assert {k: v for k, v in _contents(cache / "vera.search.sqlite").items() if k != "meta"} == {
        k: v for k, v in whole.items() if k != "meta"}
    assert sorted(p.name for p in cache.iterdir()) == ["vera.search.sqlite"]


def test_a_copied_studio_reuses_its_indexes_without_saying_it_builds_them(tmp_path, monkeypatch, capsys):
    """Copied without its files' times (``cp -r``), every stream looks changed; the index still
    covers it (same bytes) and is reused, so nothing says "building the search indexes" and no
    process is started for it (issue 40)."""
    import os
    import shutil
    import types

    from gamemaster.retrieval import parallel, pieces
    from gamemaster.retrieval.index import open_index

    agents = ["vera", "leo", "nami"]
    for number, agent in enumerate(agents):
        _stream(tmp_path / "studio", agent, 3000 + 500 * number)
        open_index(tmp_path / "studio", agent, "de").refresh().close()
    shutil.copytree(tmp_path / "studio", tmp_path / "copy")  # copytree keeps times: change them as cp -r does
    for agent in agents:
        os.utime(tmp_path / "copy" / "state" / "memories" / f"{agent}.jsonl")
    monkeypatch.setattr(parallel, "PARALLEL_BYTES", 1)
    monkeypatch.setattr(parallel, "_cores", lambda: 2)
    monkeypatch.setattr(pieces, "NOTICE_BYTES", 1)
    started = []
    child = types.SimpleNamespace(wait=lambda *a, **k: 0, poll=lambda: 0, kill=lambda: None, returncode=0)
    monkeypatch.setattr(parallel, "_start", lambda *args: started.append(args) or child)
    capsys.readouterr()
    parallel.build_side_by_side(tmp_path / "copy", agents, "de")
    assert capsys.readouterr().err == "" and started == []
    for agent in agents:
        index = open_index(tmp_path / "copy", agent, "de")
        assert index.to_index() == 0 or index.refresh() and index.to_index() == 0
        index.close()
    assert capsys.readouterr().err == ""  # refreshing it built nothing either
    # A stream that did change is built side by side as before.
    with (tmp_path / "copy" / "state" / "memories" / "vera.jsonl").open("r+b") as handle:
        handle.write(b"[")  # its first line now differs: the index covers nothing of it
    _stream(tmp_path / "copy", "leo", 3600)
    monkeypatch.setattr(parallel, "_build", lambda root, language, names: None)
    parallel.build_side_by_side(tmp_path / "copy", agents, "de")
    assert "building the search indexes of vera, leo" in capsys.readouterr().err and started
