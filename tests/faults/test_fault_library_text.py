"""Issue 19, item 6b: what a library document holds reaches no terminal raw.

A heading with an escape sequence (one that retitles the terminal) is shown as escapes in
the prompt, in what the character remembers and in every listing; markup in it stays text.
A document that is not text (binary, not UTF-8) is skipped with a warning naming it.
"""

from __future__ import annotations

import json
import re

import faultkit as fk

RAW_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
HEADING = "\x1b]0;pwned\x07 Knochentürme [/x] <script>alert(1)</script>"
SHOWN = "\\x1b]0;pwned\\x07 Knochentürme [/x] <script>alert(1)</script>"
GUIDE = (
    "# Leitfaden\n\n"
    f"## {HEADING}\n\n"
    "Die Knochentürme wachsen \x1b[2J entlang der Nervenbahnen des Titanen. Knochentürme haben keine Fenster.\n"
)
PLAN = "Ich schlage in der Bibliothek nach, wie die Knochentürme wachsen."


def _studio_with_guide(tmp_path):
    workspace = fk.studio(tmp_path)
    library = workspace.root / "library"
    for old in library.glob("*.md"):
        old.unlink()
    (library / "leitfaden.md").write_text(GUIDE, encoding="utf-8")
    return workspace


def _work_scene_for_vera(workspace):
    assert fk.run(workspace.root, "scene", "run", "--backend", "offline").returncode == 0
    vera = fk.read_json(workspace.agent_path("vera"))
    vera["today_plan"] = {"text": PLAN, "tags": ["bone-towers"]}
    fk.write_json(workspace.agent_path("vera"), vera)
    opened = fk.run(workspace.root, "next", "--type", "WORK", "--with", "vera")
    assert opened.returncode == 0, fk.show(opened)
    return opened


def test_a_heading_with_an_escape_sequence_is_shown_as_escapes_in_the_prompt(tmp_path):
    workspace = _studio_with_guide(tmp_path)
    _work_scene_for_vera(workspace)

    proc = fk.run(workspace.root, "prompt", "vera")

    fk.assert_no_traceback(proc)
    assert proc.returncode == 0, fk.show(proc)
    assert not RAW_CONTROL.search(proc.stdout), f"raw control characters printed: {RAW_CONTROL.findall(proc.stdout)}"
    assert SHOWN in proc.stdout and "wachsen \\x1b[2J entlang" in proc.stdout, proc.stdout
    stored = next((workspace.scenes / "day-001/scene-02/prompts").glob("*vera.md")).read_text(encoding="utf-8")
    assert not RAW_CONTROL.search(stored) and SHOWN in stored


def test_what_the_character_read_is_remembered_and_listed_with_escapes_and_literal_markup(tmp_path):
    workspace = _studio_with_guide(tmp_path)
    _work_scene_for_vera(workspace)
    assert fk.run(workspace.root, "scene", "run", "--backend", "offline").returncode == 0

    stream = (workspace.memories_dir / "vera.jsonl").read_text(encoding="utf-8")
    read = [json.loads(line) for line in stream.splitlines() if '"library"' in line]
    assert read and read[-1]["metadata"]["sections"] == [SHOWN], read
    assert not RAW_CONTROL.search(stream)
    listing = fk.run(workspace.root, "library")
    assert not RAW_CONTROL.search(listing.stdout) and f"vera read: {SHOWN}" in listing.stdout, fk.show(listing)
    report = fk.run(workspace.root, "report")
    assert report.returncode == 0, fk.show(report)
    page = (workspace.root / "report/characters/vera.html").read_text(encoding="utf-8")
    assert not RAW_CONTROL.search(page)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert(1)" not in page


def test_a_document_that_is_not_text_is_skipped_with_a_warning_naming_it(tmp_path):
    workspace = _studio_with_guide(tmp_path)
    library = workspace.root / "library"
    (library / "bild.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR## Knochent\xfcrme\x1b]0;pwned\x07\n")
    (library / "alt.md").write_bytes("# Alt\n\n## Knochentürme\n\nKnochentürme wachsen.\n".encode("latin-1"))
    (library / "nul.md").write_bytes(b"# Nul\n\n## Knochent\xc3\xbcrme\n\nKnochen\x00t\xc3\xbcrme wachsen.\n")

    listing = fk.run(workspace.root, "library", "--json")
    _work_scene_for_vera(workspace)
    opened = fk.run(workspace.root, "next", "--json")
    prompt = fk.run(workspace.root, "prompt", "vera")

    fk.assert_no_traceback(listing)
    assert [d["path"] for d in json.loads(listing.stdout)["documents"]] == ["library/leitfaden.md"], fk.show(listing)
    for name in ("library/bild.md", "library/alt.md", "library/nul.md"):
        warned = [line for line in listing.stderr.splitlines() if line.startswith("warning:") and name in line]
        assert len(warned) == 1 and "not text" in warned[0], f"{name}\n{fk.show(listing)}"
    assert not RAW_CONTROL.search(listing.stderr)
    assert "`library/leitfaden.md`" in prompt.stdout and "bild.md" not in prompt.stdout and "nul.md" not in prompt.stdout
    assert not RAW_CONTROL.search(prompt.stdout), fk.show(prompt)
    assert opened.returncode == 0, fk.show(opened)


def test_a_document_whose_name_is_not_utf8_is_skipped_with_a_warning_not_a_crash(tmp_path):
    """``lore-\\xff.md`` (a Latin-1 name from a zip or a Windows share) killed ``next`` and
    ``prompt`` with UnicodeEncodeError; now it is named, escaped, and skipped as the README says."""
    import os

    workspace = _studio_with_guide(tmp_path)
    odd = os.fsencode(workspace.root / "library") + b"/lore-\xff.md"
    with open(odd, "wb") as handle:
        handle.write(b"# Lore\n\nDie Knochent\xc3\xbcrme wachsen nachts.\n")
    run = fk.run(workspace.root, "scene", "run", "--backend", "offline")
    fk.assert_no_traceback(run)
    assert run.returncode == 0, fk.show(run)
    assert "library/lore-\\xff.md: skipped: its name is not UTF-8" in run.stderr, fk.show(run)
    listed = fk.run(workspace.root, "library")
    assert listed.returncode == 0 and "library/lore-\\xff.md: skipped" in listed.stdout + listed.stderr, fk.show(listed)
    assert "library/leitfaden.md" in listed.stdout
    assert os.path.exists(odd)  # skipped, not removed


def test_a_document_too_big_for_every_prompt_is_skipped_with_a_warning(tmp_path):
    """Every prompt reads the library: a 50 MB document of 200,000 sections took seconds per
    prompt, and its 200,000 headings went into the studio bible. Above 4 MB a document is
    skipped, named with its size (issue 39, item 4)."""
    workspace = _studio_with_guide(tmp_path)
    section = "## Abschnitt {n}\n\nDie Knochentürme wachsen nachts, sagt man im Studio.\n\n"
    with (workspace.root / "library" / "riesig.md").open("w", encoding="utf-8") as handle:
        handle.write("# Riesig\n\n")
        n = 0
        while handle.tell() < 5_000_000:
            handle.write(section.format(n=n))
            n += 1
    run = fk.run(workspace.root, "scene", "run", "--backend", "offline")
    fk.assert_no_traceback(run)
    assert run.returncode == 0, fk.show(run)
    said = [line for line in run.stderr.splitlines() if "library/riesig.md: skipped: 5.0 MB" in line]
    assert said and "more than the 4 MB a document may be" in said[0], fk.show(run)
    prompt = next((workspace.root / "scenes" / "day-001" / "scene-01" / "prompts").glob("*.md")).read_text(encoding="utf-8")
    assert "Abschnitt 1" not in prompt and "library/leitfaden.md" in prompt
