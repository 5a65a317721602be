"""Long derived work says how far it has come, on stderr (issue 39, item 9): a rich progress bar
on a terminal, a line at the start, at each tenth and at the end anywhere else."""

from __future__ import annotations

import sys

from gamemaster.progress import progress


def test_off_a_terminal_the_work_says_a_line_a_tenth(capsys):
    update = progress("packing 20 days", "packing", "packed 20 days", 20, key="off-terminal")
    for done in range(1, 21):
        update(done)
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == ["gamemaster: packing 20 days …",
                                *[f"gamemaster: packing: {2 * n} of 20 ({10 * n} %)" for n in range(1, 10)],
                                "gamemaster: packed 20 days"]


def test_on_a_terminal_the_work_is_a_bar_that_goes_when_it_is_done(capsys, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.delenv("NO_COLOR", raising=False)
    update = progress("embedding 300 memories of vera", "embedding vera", "embedded 300 memories of vera", 300,
                      key="on-terminal")
    for done in range(0, 301, 30):
        update(done)
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("gamemaster: embedding 300 memories of vera …\n")
    assert "embedding vera" in err and "150/300" in err and "300/300" in err  # the bar, as it was drawn
    assert "(50 %)" not in err  # no tenth lines beside the bar
    assert err.rstrip().endswith("gamemaster: embedded 300 memories of vera")
