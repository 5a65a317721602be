"""Issue 19, item 7: a gallery file's front matter is YAML that reads back as written, and its
file name is a transliterated slug that ends at a word boundary.

Titles and tags come from the model, so anything a YAML reader (Obsidian, Hugo, Jekyll,
python-frontmatter; all of them PyYAML or alike) treats as syntax turns up in real runs.
"""

from __future__ import annotations

import json
import re

import yaml

import faultkit as fk
from gamemaster.gm import GameMaster
from gamemaster.printable import without_controls
from gamemaster.scenes import Force, SceneType

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")

UMLAUTS = "Knochentürme über Öd-Land – „Skizze“"
EMOJI = "Drache 🐉 im Turm"
#: What YAML would misread or reject if written as it is, and what must merely survive.
HOSTILE = [
    "[Entwurf] Turm", "- Liste", "@home", "* Stern", "x]y", ": x", "#tag", "'quoted'", '"dq"',
    "yes", "no", "null", "~", "1e3", "0x10", "2024-01-01", "a,b",
    "Zeile eins\nZeile zwei", UMLAUTS, "Turm\x00innen\x1b[31mrot\x07\x1b]0;x\x07", EMOJI, "a\n---\nb",
]
LONG = "Knochen " * 1250  # 10,000 characters


def front_matter(text: str) -> dict:
    """What a YAML front-matter reader makes of a file: the block between the two ``---`` lines."""
    assert text.startswith("---\n"), text[:200]
    header, found, _ = text[4:].partition("\n---\n")
    assert found, f"no closing --- line: {text[:400]!r}"
    return yaml.safe_load(header)


def work_reply(ref: str, artifacts: list[dict]) -> dict:
    return {"agent": "vera", "scene": ref, "action": "Vera zeichnet.", "artifacts": artifacts}


def artifact(title: str, tags: list[str]) -> dict:
    return {"title": title, "kind": "concepts", "content": "# Turm\n\nMark.", "summary": "Vera zeigt einen Turm.",
            "importance": 6, "tags": tags}


def opened_studio(tmp_path):
    """A studio after its day-001 ARRIVAL (played offline), where WORK scenes can be opened."""
    workspace = fk.studio(tmp_path)
    assert fk.run(workspace.root, "scene", "run").returncode == 0
    return workspace


def gallery_files(workspace) -> dict[str, str]:
    return {workspace.rel(p): p.read_text(encoding="utf-8") for p in sorted(workspace.gallery.rglob("*.md"))}


def test_the_issues_repro_title_and_tags_read_back_as_written(tmp_path):
    workspace = opened_studio(tmp_path)
    assert fk.run(workspace.root, "next", "--type", "WORK", "--with", "vera").returncode == 0
    ref = GameMaster(workspace).pending().spec.ref
    reply = work_reply(ref, [artifact("[Entwurf] Turm", ["no", "a,b", "2024-01-01", "x]y"])])

    proc = fk.run(workspace.root, "apply", "--replies", "-", input=json.dumps({"vera": reply}))

    assert proc.returncode == 0, fk.show(proc)
    [(path, text)] = gallery_files(workspace).items()
    fields = front_matter(text)
    assert fields["title"] == "[Entwurf] Turm", path
    assert fields["tags"] == ["no", "a,b", "2024-01-01", "x]y"], path
    assert fields["agent"] == "vera" and fields["scene"] == ref and fields["draft"] is True
    assert fields["date"] == GameMaster(workspace).world().date(1)  # a YAML date: Hugo's and Obsidian's
    assert text.endswith("---\n\n# Turm\n\nMark.\n")


def test_hostile_titles_and_tags_round_trip_through_the_front_matter(tmp_path):
    workspace = opened_studio(tmp_path)
    gm = GameMaster(workspace)
    pending, _ = gm.open_next(Force(type=SceneType.WORK, participants=["vera"]))
    tags = [*HOSTILE, LONG]
    reply = work_reply(pending.spec.ref, [artifact(title, tags) for title in HOSTILE])

    outcome = gm.apply_pending({"vera": reply})

    assert len(outcome.result.artifacts) == len(HOSTILE)
    files = gallery_files(workspace)
    for title, path in zip(HOSTILE, outcome.result.artifacts):
        text = files[path]
        fields = front_matter(text)
        assert fields["title"] == without_controls(title), path
        assert fields["tags"] == [without_controls(t) for t in tags], path
        assert fields["kind"] == "concepts" and fields["day"] == pending.spec.day and fields["agent"] == "vera"
        header = text[: text.index("\n---\n")]
        assert not CONTROL.search(header), f"control characters in {path}'s front matter: {header[:300]!r}"
    # Readable in the file, not \u-escaped.
    assert "title: Knochentürme über Öd-Land – „Skizze“\n" in files[outcome.result.artifacts[HOSTILE.index(UMLAUTS)]]
    assert "title: Drache 🐉 im Turm\n" in files[outcome.result.artifacts[HOSTILE.index(EMOJI)]]


def test_every_hostile_value_reads_back_from_the_front_matter_the_writer_makes():
    """Also what no reply can carry as a title (the schema stops at 120 characters)."""
    from gamemaster.gallery import front_matter as write, read_front_matter

    for value in [*HOSTILE, LONG]:
        text = write({"title": value, "task": value, "day": 3, "tags": [value, "no"]}) + "\n\n# Turm\n"
        parsed = read_front_matter(text)
        assert parsed.problem is None, repr(value)
        assert parsed.fields == {"title": without_controls(value), "task": without_controls(value), "day": 3,
                                 "tags": [without_controls(value), "no"]}, repr(value)
        assert front_matter(text) == parsed.fields  # a reader that knows nothing of this toolkit agrees
        assert parsed.body == "\n# Turm\n"


def test_a_title_in_cyrillic_greek_or_cjk_gets_a_transliterated_file_name(tmp_path):
    workspace = opened_studio(tmp_path)
    gm = GameMaster(workspace)
    pending, _ = gm.open_next(Force(type=SceneType.WORK, participants=["vera"]))
    titles = ["Башня из костей", "Οστέινοι πύργοι", "骨の塔"]

    outcome = gm.apply_pending({"vera": work_reply(pending.spec.ref, [artifact(t, []) for t in titles])})

    names = [path.rsplit("/", 1)[1] for path in outcome.result.artifacts]
    assert names == ["day-001_bashnia-iz-kostei_v1.md", "day-001_osteinoi-purgoi_v1.md", "day-001_gu-nota_v1.md"]


def test_a_long_title_is_cut_at_a_word_boundary_and_umlauts_stay_spelt_out(tmp_path):
    workspace = opened_studio(tmp_path)
    gm = GameMaster(workspace)
    pending, _ = gm.open_next(Force(type=SceneType.WORK, participants=["vera"]))
    titles = ["Konzept-Briefing – Organische Architektur der Knochentürme", "Fährhaus über der Straße", "!!!"]

    outcome = gm.apply_pending({"vera": work_reply(pending.spec.ref, [artifact(t, []) for t in titles])})

    assert outcome.result.artifacts == [
        "gallery/concepts/day-001_konzept-briefing-organische-architektur-der_v1.md",  # was …-der-knoc
        "gallery/concepts/day-001_faehrhaus-ueber-der-strasse_v1.md",
        "gallery/concepts/day-001_artifact_v1.md",
    ]


def test_the_report_shows_a_hand_written_files_front_matter_title_and_not_its_header(tmp_path):
    workspace = fk.studio(tmp_path)
    folder = workspace.gallery / "konzepte"
    folder.mkdir(parents=True)
    (folder / "moorhexe.md").write_text(
        '---\ntitle: "Die Moorhexe: erste Skizze"\nauthor: lea\n---\nEine alte Frau aus Schilf und Nebel.\n', encoding="utf-8")

    proc = fk.run(workspace.root, "report", "--out", str(tmp_path / "site"))

    assert proc.returncode == 0, fk.show(proc)
    index = (tmp_path / "site/gallery/index.html").read_text(encoding="utf-8")
    page = (tmp_path / "site/gallery/konzepte__moorhexe.html").read_text(encoding="utf-8")
    assert "Die Moorhexe: erste Skizze" in index
    assert "<h1>Die Moorhexe: erste Skizze</h1>" in page
    assert "Eine alte Frau aus Schilf und Nebel." in page and "author: lea" not in page


def test_front_matter_that_is_not_yaml_is_named_with_its_line_and_the_page_still_shows_the_text(tmp_path):
    workspace = fk.studio(tmp_path)
    folder = workspace.gallery / "concepts"
    folder.mkdir(parents=True)
    # What the toolkit wrote before its front matter was YAML: a title that opens a YAML list.
    (folder / "day-001_entwurf-turm_v1.md").write_text(
        "---\nkind: concepts\ntitle: [Entwurf] Turm\ntags: [no, a]\n---\n\n# Turm\n\nMark.\n", encoding="utf-8")

    proc = fk.run(workspace.root, "report", "--out", str(tmp_path / "site"))

    fk.assert_no_traceback(proc)
    assert proc.returncode == 0, fk.show(proc)
    [warning] = [line for line in proc.stderr.splitlines() if "day-001_entwurf-turm_v1.md" in line]
    # The parser's own words follow (libyaml's or PyYAML's, whichever is installed).
    assert warning.startswith("warning: gallery/concepts/day-001_entwurf-turm_v1.md:3: front matter is not YAML: "), warning
    page = (tmp_path / "site/gallery/concepts__day-001_entwurf-turm_v1.html").read_text(encoding="utf-8")
    assert "Mark." in page and "tags: [no, a]" not in page
