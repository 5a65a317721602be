"""Evidence may cite another character's memory: ideas spread by observation, and seed 001 only
asks for "IDs of source memories". The id says whose stream to look in (``tobi-012``)."""

from __future__ import annotations

import json

import pytest

from replies import valid_reply
from gamemaster.backends.scripted import ScriptedBackend
from gamemaster.loop import SceneFailed, run_scene
from gamemaster.scenes import Force, SceneType
from gamemaster.validate import validate_workspace


def lines(workspace, agent):
    path = workspace.memories_dir / f"{agent}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def append(workspace, agent, memory):
    with (workspace.memories_dir / f"{agent}.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(memory, ensure_ascii=False) + "\n")


def reflection(id_, evidence, depth=1):
    return {"id": id_, "created": "day-001/scene-01", "type": "reflection", "depth": depth,
            "description": "Tobis Shader-Idee passt zu meinen Türmen.", "importance": 7, "tags": [],
            "evidence": evidence, "metadata": {}}


def test_validate_accepts_evidence_from_another_stream_that_exists_there(workspace):
    tobi_first = lines(workspace, "tobi")[0]["id"]
    number = len(lines(workspace, "vera")) + 1
    append(workspace, "vera", reflection(f"vera-{number:03d}", [tobi_first]))
    assert [p for p in validate_workspace(workspace) if not p.warning] == []


def test_validate_names_the_line_and_the_stream_where_cited_evidence_is_missing(workspace):
    number = len(lines(workspace, "vera")) + 1
    append(workspace, "vera", reflection(f"vera-{number:03d}", ["tobi-999", "vera-001"]))
    append(workspace, "vera", reflection(f"vera-{number + 1:03d}", ["vera-998"]))
    errors = [str(p) for p in validate_workspace(workspace) if not p.warning]
    assert sorted(errors) == sorted([
        f"state/memories/vera.jsonl:{number}: evidence: tobi-999 not in state/memories/tobi.jsonl",
        f"state/memories/vera.jsonl:{number + 1}: evidence: vera-998 not in this stream",
    ])


def test_a_reflection_may_cite_a_colleagues_memory_and_its_depth_counts_across_streams(gm, workspace):
    run_scene(gm, ScriptedBackend([valid_reply] * 7))  # ARRIVAL
    tobi_reflection = next(m for m in lines(workspace, "tobi") if m["type"] == "reflection")
    vera_observation = lines(workspace, "vera")[0]["id"]
    # Evidence must have been in the prompt: vera's own earlier reflection (added by hand) cites
    # tobi's, so her prompt shows "← tobi-… (von tobi)".
    number = len(lines(workspace, "vera")) + 1
    append(workspace, "vera", reflection(f"vera-{number:03d}", [tobi_reflection["id"]], tobi_reflection["depth"] + 1))

    def reflect(request):
        data = valid_reply(request)
        data["insights"][0]["evidence"] = [tobi_reflection["id"], vera_observation]
        return data

    outcome = run_scene(gm, ScriptedBackend([reflect]), Force(type=SceneType.REFLECTION, participants=["vera"]))
    written = [m for m in lines(workspace, "vera") if m["created"] == outcome.spec.ref and m["type"] == "reflection"]
    assert written[0]["evidence"] == [tobi_reflection["id"], vera_observation]
    assert written[0]["depth"] == tobi_reflection["depth"] + 1
    assert [p for p in validate_workspace(workspace) if not p.warning] == []

    # The next prompt names the evidence it shows as memories (with whose they are) and only
    # counts the rest: an id whose memory the character never sees is one it cannot know.
    gm.open_next(Force(type=SceneType.WORK, participants=["vera"]))
    prompt = gm.prompt_text("vera")
    assert tobi_reflection["id"] not in prompt
    assert f"← {vera_observation}, weitere: 1" in prompt or f"← weitere: 2" in prompt


def test_evidence_that_exists_in_no_stream_is_refused_naming_the_stream(gm, workspace):
    run_scene(gm, ScriptedBackend([valid_reply] * 7))

    def bad(request):
        data = valid_reply(request)
        data["insights"][0]["evidence"] = ["tobi-999", "nobody-001"]
        return data

    with pytest.raises(SceneFailed, match=r"insights.0.evidence: tobi-999 not in tobi's memory stream.*"
                                          r"insights.0.evidence: nobody-001 not in nobody's memory stream"):
        run_scene(gm, ScriptedBackend([bad, bad]), Force(type=SceneType.REFLECTION, participants=["vera"]))
