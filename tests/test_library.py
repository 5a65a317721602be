"""The reference library: WORK prompts show matching sections, and the character remembers reading them."""

from __future__ import annotations

import json
import os

import pytest

from gamemaster.backends.offline import OfflineBackend
from gamemaster.gm import GameMaster
from gamemaster.library import consult, documents, sections, wants_library
from gamemaster.loop import run_scene
from gamemaster.scenes import Force
from gamemaster.create import init_workspace

GUIDE = """# Leitfaden

Vorwort ohne Überschrift.

## Knochentürme

Die Knochentürme wachsen entlang der Nervenbahnen des Titanen. Knochentürme haben keine Fenster.

## Farben

Rot gehört den Menschen, Blaugrün dem Inneren der Türme.
"""


@pytest.fixture
def root(tmp_path):
    (tmp_path / "library").mkdir()
    (tmp_path / "library" / "leitfaden.md").write_text(GUIDE, encoding="utf-8")
    (tmp_path / "library" / "notizen.txt").write_text("kein Markdown", encoding="utf-8")
    return tmp_path


def test_documents_are_split_at_their_second_level_headings(root):
    [path] = documents(root)
    found = sections(root, path)
    assert [(s.title, s.heading) for s in found] == [("Leitfaden", ""), ("Leitfaden", "Knochentürme"), ("Leitfaden", "Farben")]
    assert found[1].path == "library/leitfaden.md" and found[1].text.startswith("Die Knochentürme wachsen")


def test_a_topic_that_shares_enough_words_gets_the_best_section_within_the_budget(root):
    excerpts = consult(root, "Wie wachsen die Knochentürme des Titanen?", "de", 1500, asked=False)
    assert [e.heading for e in excerpts] == ["Knochentürme"]
    assert consult(root, "Farben der Türme", "de", 1500, asked=False) == []  # two shared words are not enough
    assert [e.heading for e in consult(root, "Farben der Türme", "de", 1500, asked=True)][0] == "Farben"
    short = consult(root, "Knochentürme Nervenbahnen Titan Fenster", "de", 220, asked=False)
    assert len(short) == 1 and len(short[0].text) <= 220


def test_the_plan_asks_for_the_library_in_either_language():
    assert wants_library("Heute schlage ich in der Referenzbibliothek nach.")
    assert wants_library("Look up the lore bible in the library first.")
    assert not wants_library("Heute die Türme skizzieren.")


def test_a_document_linked_from_outside_the_workspace_is_not_read(root, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "geheim.md"
    outside.write_text("# Geheim\n\n## Knochentürme\n\nKnochentürme Titan Nervenbahnen Fenster.\n", encoding="utf-8")
    os.symlink(outside, root / "library" / "geheim.md")
    assert [p.name for p in documents(root)] == ["leitfaden.md"]


def _work_with_plan(workspace, plan_text: str, tags: list[str]):
    gm = GameMaster(workspace)
    agent_file = workspace.agent_path("vera")
    vera = json.loads(agent_file.read_text(encoding="utf-8"))
    vera["today_plan"] = {"text": plan_text, "tags": tags}
    agent_file.write_text(json.dumps(vera, ensure_ascii=False), encoding="utf-8")
    return gm


def test_work_shows_what_the_plan_asks_for_and_the_character_remembers_reading_it(tmp_path):
    from typer.testing import CliRunner

    from gamemaster.cli import app

    workspace = init_workspace(tmp_path / "studio")
    runner = CliRunner()
    root = ["--root", str(workspace.root)]
    assert runner.invoke(app, [*root, "scene", "run", "--backend", "offline"]).exit_code == 0
    _work_with_plan(workspace, "Ich schlage in der Bibliothek nach, wie die Knochentürme wachsen.", ["bone-towers"])
    opened = runner.invoke(app, [*root, "next", "--type", "WORK", "--with", "vera"])
    assert opened.exit_code == 0, opened.output
    prompt = (workspace.scenes / "day-001/scene-02/prompts/vera.md").read_text(encoding="utf-8")
    assert "Aus der Referenzbibliothek" in prompt and "`library/lore-bibel.md`" in prompt and "\n## Die Knochentürme" not in prompt
    # The document is whole in the studio bible at the prompt's start; the WORK part points there.
    assert "**Lore-Bibel „Titanenasche“ – Die Knochentürme** (`library/lore-bibel.md`): steht oben in der Studio-Bibel" in prompt
    assert prompt.count("Die Knochentürme sind gewachsen, nicht gebaut.") == 1
    assert runner.invoke(app, [*root, "scene", "run", "--backend", "offline"]).exit_code == 0
    lines = [json.loads(l) for l in (workspace.memories_dir / "vera.jsonl").read_text(encoding="utf-8").splitlines()]
    read = [m for m in lines if m["created"] == "day-001/scene-02" and m["metadata"].get("source", "").startswith("library/")]
    assert read and read[0]["metadata"]["source"] == "library/lore-bibel.md"
    assert "Die Knochentürme" in read[0]["metadata"]["sections"]
    assert read[0]["description"].startswith("In der Bibliothek nachgelesen: Lore-Bibel „Titanenasche“")
    assert runner.invoke(app, [*root, "validate"]).exit_code == 0


def test_a_work_template_without_the_library_placeholder_records_no_reading(tmp_path):
    workspace = init_workspace(tmp_path / "studio")
    (workspace.root / "prompts" / "work.md").write_text("Arbeitsszene.\n", encoding="utf-8")
    gm = GameMaster(workspace)
    run_scene(gm, OfflineBackend())  # the ARRIVAL
    _work_with_plan(workspace, "Ich schlage in der Bibliothek nach, wie die Knochentürme wachsen.", ["bone-towers"])
    pending, _ = gm.open_next(Force(type="WORK", participants=["vera"]))
    request = gm.build_request(pending, 0)
    assert request.library == [] and "Referenzbibliothek" not in request.prompt


def test_the_library_command_lists_documents_and_who_read_what(tmp_path):
    from typer.testing import CliRunner

    from gamemaster.cli import app

    workspace = init_workspace(tmp_path / "studio")
    runner = CliRunner()
    root = ["--root", str(workspace.root)]
    fresh = json.loads(runner.invoke(app, [*root, "library", "--json"]).output)["documents"]
    assert [d["path"] for d in fresh] == ["library/lore-bibel.md", "library/produktionsplan.md", "library/stilhandbuch.md"]
    assert all(d["read_by"] == {} for d in fresh) and "Die Knochentürme" in fresh[0]["sections"]
    assert runner.invoke(app, [*root, "scene", "run", "--backend", "offline"]).exit_code == 0
    _work_with_plan(workspace, "Ich schlage in der Bibliothek nach, wie die Knochentürme wachsen.", ["bone-towers"])
    assert runner.invoke(app, [*root, "scene", "run", "--backend", "offline", "--type", "WORK", "--with", "vera"]).exit_code == 0
    after = json.loads(runner.invoke(app, [*root, "library", "--json"]).output)["documents"]
    assert "Die Knochentürme" in after[0]["read_by"]["vera"]
    text = runner.invoke(app, [*root, "library"]).output
    assert "library/lore-bibel.md: Lore-Bibel „Titanenasche“" in text and "vera read: " in text


def test_reading_the_same_sections_again_is_not_remembered_twice(tmp_path):
    workspace = init_workspace(tmp_path / "studio")
    gm = GameMaster(workspace)
    run_scene(gm, OfflineBackend())  # the ARRIVAL
    for _ in range(3):
        _work_with_plan(workspace, "Ich schlage in der Bibliothek nach, wie die Knochentürme wachsen.", ["bone-towers"])
        run_scene(gm, OfflineBackend(), Force(type="WORK", participants=["vera"]))
    lines = [json.loads(l) for l in (workspace.memories_dir / "vera.jsonl").read_text(encoding="utf-8").splitlines()]
    reads = [m for m in lines if m["metadata"].get("source", "").startswith("library/")]
    # Read three times, remembered once (one memory per document read).
    assert {m["created"] for m in reads} == {"day-001/scene-02"}
    assert len(reads) == len({m["metadata"]["source"] for m in reads})
    assert any("Die Knochentürme" in m["metadata"]["sections"] for m in reads)


def test_the_bible_holds_documents_whole_while_they_fit_and_names_the_sections_of_the_rest(tmp_path):
    from gamemaster.library import bible

    root = tmp_path / "studio"
    (root / "library").mkdir(parents=True)
    (root / "library" / "a-kurz.md").write_text("# Kurz\n\nEinleitung.\n\n## Eins\n\nText eins.\n", encoding="utf-8")
    (root / "library" / "b-lang.md").write_text("# Lang\n\n## Zwei\n\n" + "Wort " * 400 + "\n\n## Drei\n\nEnde.\n",
                                                encoding="utf-8")
    text, whole = bible(root, "de", budget=500)
    assert whole == frozenset({"library/a-kurz.md"})
    assert text == ("### Kurz (`library/a-kurz.md`)\n\nEinleitung.\n\n#### Eins\n\nText eins.\n\n"
                    "### Lang (`library/b-lang.md`)\n\nzu lang für hier; die Abschnitte: Zwei · Drei")
    assert bible(tmp_path / "leer", "de") == ("(keine Dokumente in library/)", frozenset())


def test_a_character_template_from_before_the_bible_shows_excerpts_not_pointers(tmp_path):
    from pathlib import Path

    workspace = init_workspace(tmp_path / "studio")
    old = Path(__file__).resolve().parent / "fixtures" / "character-5f71d5f.md"
    (workspace.root / "prompts" / "character.md").write_bytes(old.read_bytes())  # no $bible in it
    gm = GameMaster(workspace)
    run_scene(gm, OfflineBackend())  # the ARRIVAL
    _work_with_plan(workspace, "Ich schlage in der Bibliothek nach, wie die Knochentürme wachsen.", ["bone-towers"])
    pending, _ = gm.open_next(Force(type="WORK", participants=["vera"]))
    request = gm.build_request(pending, 0)
    assert "Studio-Bibel" not in request.prompt  # neither the bible nor a pointer to it
    assert "Die Knochentürme sind gewachsen, nicht gebaut." in request.prompt  # the excerpt itself
    assert "library/lore-bibel.md" in [e.path for e in request.library]  # read: it was shown


def test_library_budget_zero_shows_no_bible(tmp_path):
    workspace = init_workspace(tmp_path / "studio")
    world = workspace.load_world()
    workspace.save_world(world.model_copy(update={"library_budget": 0}))
    gm = GameMaster(workspace)
    pending, _ = gm.open_next()
    prompt = gm.build_request(pending, 0).prompt
    assert "Die Knochentürme sind gewachsen, nicht gebaut." not in prompt  # no document of the library


def test_a_document_too_long_for_the_bible_is_named_with_its_first_headings_only(tmp_path):
    """A document that does not fit in the bible is named with its sections; with thousands of
    them, the first BIBLE_HEADINGS and an ellipsis (every heading went into every prompt)."""
    from gamemaster.library import BIBLE_HEADINGS, bible

    (tmp_path / "library").mkdir()
    text = "# Handbuch\n\n" + "".join(f"## Teil {n}\n\nText über die Türme, Teil {n}.\n\n" for n in range(5000))
    (tmp_path / "library" / "handbuch.md").write_text(text, encoding="utf-8")
    shown, whole = bible(tmp_path, "de")
    assert not whole
    named = shown.split("die Abschnitte: ", 1)[1]
    assert named.split(" · ")[:BIBLE_HEADINGS] == [f"Teil {n}" for n in range(BIBLE_HEADINGS)]
    assert named.rstrip().endswith("· …") and f"Teil {BIBLE_HEADINGS}" not in named.split(" · ")
