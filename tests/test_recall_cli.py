"""`gamemaster recall` and `gamemaster ask` as a user runs them."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from conftest import write_agent
from gamemaster.cli import app
from gamemaster.create import init_workspace


def conversation_workspace(tmp_path, lines: int = 3000):
    """One agent whose stream is a long conversation log: "Speaker: text", no tags, no created."""
    workspace = init_workspace(tmp_path / "talk", empty=True)
    data = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    workspace.world_path.write_text(json.dumps({**data, "language": "en"}), encoding="utf-8")
    write_agent(workspace, "caroline", name="Caroline")
    chatter = ["How was your week?", "Pretty busy, work was hectic.", "Did you go running again?", "Yes, twice.",
               "The weather was awful.", "I watched a movie with my kids."]
    rows = []
    for n in range(1, lines + 1):
        speaker = "Caroline" if n % 2 else "Melanie"
        rows.append({"id": f"caroline-{n:03d}", "type": "conversation", "importance": 3,
                     "description": f"{speaker}: {chatter[n % len(chatter)]} ({n})"})
    at = lines * 2 // 5
    rows[at] = {"id": f"caroline-{at + 1:03d}", "type": "conversation", "importance": 3,
                  "description": "Melanie: What did you name the puppy you adopted?"}
    rows[at + 1] = {"id": f"caroline-{at + 2:03d}", "type": "conversation", "importance": 3,
                  "description": "Caroline: We called her Pepper, after the color of her nose."}
    path = workspace.memories_dir / "caroline.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return workspace


def run(workspace, *args, input=None):
    return CliRunner().invoke(app, ["--root", str(workspace.root), *args], input=input)


def snapshot(workspace):
    return {p.relative_to(workspace.root).as_posix(): p.read_bytes()
            for p in workspace.root.rglob("*") if p.is_file() and ".cache" not in p.parts}


def test_recall_json_on_a_long_conversation_finds_the_question_and_its_answer(tmp_path):
    workspace = conversation_workspace(tmp_path)
    before = snapshot(workspace)
    result = run(workspace, "recall", "caroline", "What is the name of Caroline's new puppy?", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {k: data[k] for k in ("agent", "strategy", "budget")} == {"agent": "caroline", "strategy": "ranked", "budget": 10000}
    picked = {m["id"]: m for m in data["memories"]}
    assert picked["caroline-1201"]["matched"] == ["name", "puppy"]
    assert picked["caroline-1202"]["section"] == "relevant"
    assert picked["caroline-1202"]["neighbour_of"] == "caroline-1201"
    assert data["chars"] <= 10000
    assert set(data["memories"][0]) >= {"id", "type", "created", "description", "importance", "tags", "section", "score", "matched"}
    assert snapshot(workspace) == before  # only the derived index was written


def test_recall_human_output_prints_text_verbatim(tmp_path):
    workspace = conversation_workspace(tmp_path, lines=50)
    path = workspace.memories_dir / "caroline.jsonl"
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"id": "caroline-051", "type": "observation", "importance": 5,
                                 "description": "Markup stays [bold]literal[/] and [/x] too, puppy"}) + "\n")
    result = run(workspace, "recall", "caroline", "puppy", "--budget", "2000")
    assert result.exit_code == 0, result.output
    assert "[bold]literal[/]" in result.output and "[/x]" in result.output
    assert "strategy ranked" in result.output


def test_recall_with_the_seed_strategy_and_a_bad_agent_id(tmp_path):
    workspace = conversation_workspace(tmp_path, lines=100)
    result = run(workspace, "recall", "caroline", "puppy", "--strategy", "seed", "--json")
    assert json.loads(result.stdout)["strategy"] == "seed"
    result = run(workspace, "recall", "../caroline", "puppy")
    assert result.exit_code == 1
    assert "error: no agent '../caroline'; did you mean 'caroline'?" in result.output
    result = run(workspace, "recall", "nobody", "puppy")
    assert result.exit_code == 1 and "error: no agent 'nobody'; the agents are: " in result.output


def test_ask_offline_answers_from_recalled_memories_and_writes_nothing(tmp_path):
    workspace = conversation_workspace(tmp_path)
    before = snapshot(workspace)
    result = run(workspace, "ask", "caroline", "What did you name the puppy?", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert "caroline-1202" in data["memories"] or "caroline-1201" in data["memories"]
    assert "Pepper" in data["answer"]
    assert data["remembered"] is None
    assert snapshot(workspace) == before


def test_ask_remember_keeps_a_conversation_memory(workspace):
    result = run(workspace, "ask", "vera", "Was weißt du über die Knochentürme?", "--remember", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["memories"] and all(i.startswith("vera-") for i in data["memories"])
    last = json.loads(workspace.stream("vera").path.read_text(encoding="utf-8").splitlines()[-1])
    assert last["id"] == data["remembered"]
    assert last["type"] == "conversation" and last["metadata"]["source"] == "interview"
    assert last["metadata"]["rests_on"] == data["memories"]
    assert "Knochentürme" in last["description"]
    assert run(workspace, "validate").exit_code == 0


def test_ask_takes_a_subagents_answer_and_drops_ids_it_was_not_shown(workspace):
    answer = '```json\n{"answer": "Die Türme wachsen.", "memories": ["vera-002", "vera-999"]}\n```'
    result = run(workspace, "ask", "vera", "Knochentürme?", "--answer", "-", "--json", input=answer)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["memories"] == ["vera-002"]
    prompt = run(workspace, "ask", "vera", "Knochentürme?", "--prompt")
    assert "Der Creative Director fragt dich: „Knochentürme?“" in prompt.stdout
    assert "vera-002" in prompt.stdout


def test_recall_gives_a_reason_for_every_line_a_dense_hit_its_similarity(tmp_path):
    """A memory brought in by meaning alone (``hybrid``) shares no word with the query: its
    reason is how close it is; the others say the words, the neighbour or the section."""
    workspace = init_workspace(tmp_path / "studio")
    done = run(workspace, "recall", "vera", "Wie fühlt sich Angst an?", "--strategy", "hybrid", "--json")
    assert done.exit_code == 0, done.output
    picked = json.loads(done.stdout)["memories"]
    assert all(p["reason"] for p in picked)
    dense = [p for p in picked if p["similarity"] is not None]
    assert dense and all(not p["matched"] and p["reason"] == f"close in meaning ({p['similarity']:.2f})" for p in dense)
    assert {p["reason"] for p in picked if p["section"] == "recent"} == {"said or done lately"}
    shown = run(workspace, "recall", "vera", "Wie fühlt sich Angst an?", "--strategy", "hybrid")
    assert "close in meaning" in shown.output
