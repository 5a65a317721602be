"""Claude's own lookups for chat questions the first selection missed
(``tests/fixtures/claude_chat_lookups``): replayed, they still bring back the evidence turn.

The chats come from the chat bench's generator (``bench/recall_conv.py``); each is written as a
workspace, selected for as the bench does (``ranked`` at 10,000 characters), and the queries the
model wrote are looked up in order with what that selection showed left out."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "claude_chat_lookups" / "lookups.jsonl"
RECORDED = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def chats(tmp_path_factory):
    sys.path.insert(0, str(BENCH))
    try:
        from recall_conv import chat
        from recall_data import write_workspace
    finally:
        sys.path.remove(str(BENCH))
    built = {}
    for number in sorted({r["chat"] for r in RECORDED}):
        rows, questions = chat(number, seed=1)
        root = tmp_path_factory.mktemp(f"chat-{number}")
        write_workspace(root, rows, "en")
        built[number] = (root, {q["id"]: q for q in questions})
    return built


@pytest.mark.parametrize("recorded", RECORDED, ids=[r["question"] for r in RECORDED])
def test_the_models_own_queries_find_what_the_selection_missed(chats, recorded):
    from gamemaster.lookup import lookup_for
    from gamemaster.retrieval import recall
    from gamemaster.workspace import Workspace

    root, questions = chats[recorded["chat"]]
    asked = questions[recorded["question"]]
    assert asked["text"] == recorded["text"] and asked["evidence"] == recorded["evidence"]
    workspace = Workspace(root)
    shown = recall(workspace, "ana", asked["text"], budget=10_000).ids
    assert not set(asked["evidence"]) & set(shown)  # the first selection misses it …
    look = lookup_for(workspace, "ana", shown)
    found = [set(look(query).ids) for query in recorded["queries"]]
    assert any(set(asked["evidence"]) & ids for ids in found)  # … one of the model's lookups finds it
    assert not set(shown) & set().union(*found)  # and nothing the prompt already showed
    assert not set(asked["evidence"]) & set(look(asked["text"]).ids) or recorded["question"] in BLIND_FINDS


#: Of the recorded misses, the one whose own question, looked up as it is, already finds the
#: evidence (the bench finds two such among all 74); every other one needed the model's words.
BLIND_FINDS = {"q2-034"}
