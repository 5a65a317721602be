"""The bundled studio agrees with its own library: what its people remember and what the offline
player writes for them uses the names the style guide sets and keeps to the production plan.

Characters read ``library/``; a memory that contradicts it (a boss fight the plan rules out, a
„Sekte“ the style guide calls „die Lauschenden“) makes a real model choose between its mind and
its studio's documents, and it says so in its replies.
"""

from __future__ import annotations

import json
import re

import pytest
import snowballstemmer

from gamemaster.backends.offline import OfflineBackend
from gamemaster.backends.offline.phrase_banks import phrase_bank
from gamemaster.gm import GameMaster
from gamemaster.loop import advance_days

STEM = snowballstemmer.stemmer("german")
WORD = re.compile(r"[A-Za-zÄÖÜäöüß]+")


def forbidden_names(style_guide: str) -> dict[str, str]:
    """The style guide's „Benennungen“: each name it rules out („Titan (nicht: Gott, Riese)“),
    by its stem, with the name to use instead."""
    section = style_guide.split("## Benennungen", 1)[1].split("\n## ", 1)[0]
    found = {}
    for name, others in re.findall(r"([\wÄÖÜäöüß-]+(?: [\wÄÖÜäöüß-]+)?) \(nicht: ([^)]*)\)", " ".join(section.split())):
        for other in others.split(","):
            found[STEM.stemWord(other.strip().lower())] = name
    return found


def strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def violations(texts: list[str], rules: dict[str, str]) -> list[str]:
    return [f"{word!r} (the style guide says {rules[STEM.stemWord(word.lower())]}): {text[:120]}"
            for text in texts for word in WORD.findall(text) if STEM.stemWord(word.lower()) in rules]


def fights(text: str) -> list[str]:
    """The fights a text speaks of, other than to rule them out („keine Kämpfe“)."""
    # The word before may be none: a fight word that starts the text counts too.
    return [m.group(0) for m in re.finditer(r"(?:(\w*)\s+)?(\w*k[aä]mpf\w*)", text.lower())
            if m.group(1) not in ("kein", "keine", "keinen")]


def studio_texts(workspace) -> list[str]:
    texts = []
    for path in sorted(workspace.memories_dir.glob("*.jsonl")):
        texts += [json.loads(line)["description"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for path in sorted((workspace.root / "state" / "agents").glob("*.json")):
        texts += strings(json.loads(path.read_text(encoding="utf-8")))
    texts += [p.read_text(encoding="utf-8") for p in sorted((workspace.root / "gallery").rglob("*.md"))]
    return texts


@pytest.fixture(scope="module")
def rules(tmp_path_factory):
    from gamemaster.create import init_workspace

    workspace = init_workspace(tmp_path_factory.mktemp("library") / "studio")
    found = forbidden_names((workspace.root / "library" / "stilhandbuch.md").read_text(encoding="utf-8"))
    assert {STEM.stemWord(w) for w in ("gott", "kult", "mönche", "nadel")} <= set(found), found  # the rule was read
    return found


def test_the_rules_are_read_by_stem_so_plurals_count_and_longer_words_do_not(rules):
    assert violations(["Die Mönche der Aschen-Einöden"], rules) and violations(["Ein toter Gott"], rules)
    assert violations(["Kultur und Spannungsspitzen"], rules) == []


def test_the_bundled_studio_uses_the_names_its_style_guide_sets(workspace, rules):
    assert violations(studio_texts(workspace), rules) == []


def test_the_offline_players_german_uses_the_names_the_style_guide_sets(rules):
    assert violations(strings(phrase_bank("de")), rules) == []


def test_nobody_remembers_a_fight_the_production_plan_rules_out(workspace):
    plan = (workspace.root / "library" / "produktionsplan.md").read_text(encoding="utf-8")
    assert "Keine Kämpfe in der Vertical Slice" in plan
    assert [t for t in studio_texts(workspace) if fights(t)] == []
    # The agreement Finn and Darius remember is the plan's: one tower, three chambers, no fights.
    assert all("drei Kammern" in t for t in studio_texts(workspace) if "Später-Liste" in t and "Turm" in t)


def test_two_offline_days_write_nothing_the_library_rules_out(workspace, rules):
    before = {p.name: p.read_text(encoding="utf-8").count("\n") for p in workspace.memories_dir.glob("*.jsonl")}
    advance_days(GameMaster(workspace), OfflineBackend(), 2)
    written = []
    for path in sorted(workspace.memories_dir.glob("*.jsonl")):
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        written += [json.loads(line)["description"] for line in lines[before.get(path.name, 0):]]
    written += [p.read_text(encoding="utf-8") for p in sorted((workspace.root / "gallery").rglob("*.md"))]
    assert len(written) > 100  # two days of seven characters
    assert violations(written, rules) == []
    assert [t for t in written if fights(t)] == []


def test_nobody_remembers_testing_a_greybox_the_plan_builds_after_the_concept(workspace):
    plan = (workspace.root / "library" / "produktionsplan.md").read_text(encoding="utf-8")
    assert "Lore vor Konzept, Konzept vor Greybox" in plan and "1. Konzept der Türme" in plan
    tested = [t for t in studio_texts(workspace) if re.search(r"gr[ae]ybox-test", t.lower())]
    assert tested == []
