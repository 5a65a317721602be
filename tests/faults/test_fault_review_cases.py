"""Issue 19: cases found by reading the merged change as an attacker would."""

from __future__ import annotations

import json

from gamemaster.gallery import read_front_matter
from gamemaster.kinds.heard import _kept
from gamemaster.linesize import MAX_LINE_BYTES, MAX_TEXT_BYTES
from gamemaster.replies import Reply, TAKEAWAY_CHARS, TAKEAWAYS_MAX

import pytest
from pydantic import ValidationError


def test_front_matter_with_yaml_aliases_is_refused_not_expanded():
    # Nine aliases per level, eight levels deep: gigabytes once the title is used.
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for level in "bcdefgh":
        previous = chr(ord(level) - 1)
        lines.append(f"{level}: &{level} [{', '.join(['*' + previous] * 9)}]")
    lines.append("title: *h")
    parsed = read_front_matter("---\n" + "\n".join(lines) + "\n---\nText\n")
    assert parsed.fields is None
    assert parsed.problem == (2, "front matter uses YAML anchors or aliases; not read")
    assert parsed.body == "Text\n"


def test_a_heard_memory_of_a_large_table_of_long_lines_still_fits_one_line():
    # Eight people each say the most one reply text may hold: the listener's heard memory keeps
    # every line, shortened, and stays writable (before, apply failed and the scene was stuck).
    says = "Wort " * (MAX_TEXT_BYTES // 5 - 10)
    heard = [{"speaker": f"p{i}", "says": _kept(says, 8)} for i in range(8)]
    size = len(json.dumps(heard, ensure_ascii=False).encode("utf-8"))
    assert size < MAX_LINE_BYTES // 2
    assert all(line["says"].startswith("Wort Wort") and line["says"].endswith("…") for line in heard)
    assert _kept("kurz und gut", 8) == "kurz und gut"


def _reply(**fields):
    return Reply.model_validate({"agent": "vera", "scene": "day-001/scene-02", "action": "hört zu", "says": "x", **fields})


def test_takeaways_are_short_notes_and_few():
    _reply(takeaways=[{"from": "emre", "what": "w" * TAKEAWAY_CHARS}] * TAKEAWAYS_MAX)
    with pytest.raises(ValidationError, match="takeaways"):
        _reply(takeaways=[{"from": "emre", "what": "w"}] * (TAKEAWAYS_MAX + 1))
    with pytest.raises(ValidationError, match="takeaways.0.what"):
        _reply(takeaways=[{"from": "emre", "what": "w" * (TAKEAWAY_CHARS + 1)}])


def test_an_event_on_a_day_no_calendar_reaches_is_one_error_line(tmp_path):
    import faultkit as fk

    workspace = fk.studio(tmp_path)
    before = workspace.world_path.read_bytes()
    proc = fk.run(workspace.root, "event", "Feier", "--day", "9" * 20)
    fk.assert_no_traceback(proc)
    assert fk.error_lines(proc) == ["error: event: day: Input should be less than or equal to 1000000"], fk.show(proc)
    assert workspace.world_path.read_bytes() == before
