"""Write-back: ids, created, artifacts, observations, meetings, reflections, accumulators."""

from __future__ import annotations

import json

import pytest

from replies import valid_reply
from gamemaster.backends.scripted import ScriptedBackend
from gamemaster.loop import SceneFailed, run_scene
from gamemaster.problems import GamemasterError
from gamemaster.scenes import Force, SceneType


def lines(workspace, agent):
    path = workspace.memories_dir / f"{agent}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def accumulators(gm):
    return {a.id: a.importance_accumulator for a in gm.agents().values()}


def play_arrival(gm):
    return run_scene(gm, ScriptedBackend([valid_reply] * 7))


def test_arrival_writes_plans_with_ids_created_and_accumulators(gm, workspace):
    before = accumulators(gm)
    counts = {a: len(lines(workspace, a)) for a in before}
    outcome = play_arrival(gm)
    assert outcome.spec.type == SceneType.ARRIVAL
    for agent_id in before:
        new = lines(workspace, agent_id)[counts[agent_id]:]
        assert [m["id"] for m in new] == [f"{agent_id}-{counts[agent_id] + n:03d}" for n in (1, 2, 3)]
        assert {m["created"] for m in new} == {"day-001/scene-01"}
        # own note, own plan, and what the others at their table said (heard, importance 3)
        assert [m["type"] for m in new] == ["observation", "plan", "observation"]
        assert new[2]["metadata"]["source"] == "heard"
        assert accumulators(gm)[agent_id] == before[agent_id] + 5 + 4 + 3
        agent = gm.agents()[agent_id]
        assert agent.today_plan.text == "Heute arbeite ich an den Knochentürmen."
        assert agent.last_scene == "day-001/scene-01"
    world = gm.world()
    assert (world.day, world.scene, world.pending) == (1, 1, None)
    record = json.loads((workspace.scenes / "day-001/scene-01/scene.json").read_text(encoding="utf-8"))
    assert record["status"] == "applied" and record["reason"].startswith("the studio opens")
    assert len(record["written"]) == 21 and set(record["prompts"]) == {f"{i:02d}-{a}" for i, a in enumerate(sorted(before), 1)}


def test_work_artifact_lands_in_gallery_and_others_observe_it(gm, workspace):
    play_arrival(gm)
    before = accumulators(gm)
    outcome = run_scene(gm, ScriptedBackend([valid_reply] * 3), Force(type=SceneType.WORK, participants=["vera", "emre"]))
    assert outcome.result.artifacts == ["gallery/concepts/day-001_entwurf-von-vera_v1.md", "gallery/lore/day-001_entwurf-von-emre_v1.md"]
    text = (workspace.root / "gallery/concepts/day-001_entwurf-von-vera_v1.md").read_text(encoding="utf-8")
    assert text.startswith("---\ntitle: Entwurf von Vera\nkind: concepts\nagent: vera\nday: 1\n")
    assert "# Entwurf\n\nDie Türme wachsen." in text
    vera = lines(workspace, "vera")
    artifact = next(m for m in vera if m["type"] == "artifact")
    assert artifact["metadata"]["artifact_path"] == "gallery/concepts/day-001_entwurf-von-vera_v1.md"
    assert f"memory: {artifact['id']}" in text
    observed = [m for m in lines(workspace, "emre") if m["metadata"].get("source") == "artifact"]
    assert len(observed) == 1
    assert observed[0]["tags"][0] == "vera" and observed[0]["importance"] == 5
    assert observed[0]["description"] == "Vera hat einen Entwurf fertiggestellt."
    # emre: own note 5 + own artifact 7 + vera's artifact observed 5 + what vera said, heard 3
    assert accumulators(gm)["emre"] == before["emre"] + 20
    assert accumulators(gm)["darius"] == before["darius"]  # not in the room


def test_a_gallery_file_has_its_date_draft_flag_and_title_once_as_hugo_and_obsidian_read_them(gm, workspace):
    import yaml

    play_arrival(gm)

    def titled(request):
        reply = valid_reply(request)
        reply["artifacts"][0]["content"] = f"# {reply['artifacts'][0]['title']}\n\nDie Türme wachsen."
        return reply

    outcome = run_scene(gm, ScriptedBackend([titled]), Force(type=SceneType.WORK, participants=["vera"]))
    text = (workspace.root / outcome.result.artifacts[0]).read_text(encoding="utf-8")
    header, body = text.split("\n---\n\n", 1)
    fields = yaml.safe_load(header.removeprefix("---\n"))
    assert fields["date"] == gm.world().date(1) and "date: 2026-11-02\n" in header  # a YAML date, unquoted
    assert fields["draft"] is True and "status" not in fields
    assert text.count("Entwurf von Vera") == 1 and body == "Die Türme wachsen.\n"  # the title once


def test_second_version_of_the_same_artifact_gets_v2(gm, workspace):
    play_arrival(gm)
    for _ in range(2):
        run_scene(gm, ScriptedBackend([valid_reply]), Force(type=SceneType.WORK, participants=["vera"]))
    assert sorted(p.name for p in (workspace.gallery / "concepts").iterdir()) == [
        "day-001_entwurf-von-vera_v1.md", "day-001_entwurf-von-vera_v2.md"]


def meeting_turn(says):
    def reply(request):
        data = valid_reply(request)
        data["says"] = says(request)
        return data
    return reply


def test_meeting_is_a_sequential_exchange_and_leaves_conversation_memories(gm, workspace):
    play_arrival(gm)
    heard = []

    def says(request):
        heard.append([t.says for t in request.transcript])
        return f"{request.agent.id} antwortet auf {len(request.transcript)} Beiträge"

    backend = ScriptedBackend([meeting_turn(says)] * 4)
    outcome = run_scene(gm, backend, Force(type=SceneType.MEETING, participants=["vera", "darius"], topic="Knochentürme"))
    assert [r.agent.id for r in backend.requests] == ["vera", "darius", "vera", "darius"]
    assert heard == [[], ["vera antwortet auf 0 Beiträge"], ["vera antwortet auf 0 Beiträge", "darius antwortet auf 1 Beiträge"],
                     ["vera antwortet auf 0 Beiträge", "darius antwortet auf 1 Beiträge", "vera antwortet auf 2 Beiträge"]]
    assert "darius antwortet auf 1 Beiträge" in backend.prompts_for("vera")[1]  # the transcript is in the prompt
    assert [r.final_turn for r in backend.requests] == [False, False, True, True]
    conversation = [m for m in lines(workspace, "vera") if m["type"] == "conversation" and m["created"] == outcome.spec.ref]
    assert len(conversation) == 1
    assert conversation[0]["metadata"]["with"] == ["darius"]
    assert [t["speaker"] for t in conversation[0]["metadata"]["transcript"]] == ["vera", "darius", "vera", "darius"]
    notice = [m for m in lines(workspace, "emre") if m["created"] == outcome.spec.ref]
    # That it happened and on what (the topic, as anyone could see it); never what was said.
    assert [m["description"] for m in notice] == ["Vera und Darius hatten eine Besprechung zum Thema Knochentürme."]
    assert "antwortet" not in json.dumps(notice, ensure_ascii=False)


def test_reflection_cites_evidence_sets_depth_and_resets_the_accumulator(gm, workspace):
    play_arrival(gm)
    existing = lines(workspace, "vera")
    reflection_id = next(m["id"] for m in existing if m["type"] == "reflection")
    observation_id = existing[0]["id"]

    def reflect(request):
        data = valid_reply(request)
        data["insights"] = [
            {"description": "Auf der Reflexion aufbauen", "importance": 8, "tags": ["a"], "evidence": [reflection_id, observation_id]},
            {"description": "Nur Beobachtungen", "importance": 7, "tags": ["b"], "evidence": [observation_id]},
            {"description": "Noch eine", "importance": 6, "tags": ["c"], "evidence": [existing[1]["id"]]},
        ]
        return data

    outcome = run_scene(gm, ScriptedBackend([reflect]), Force(type=SceneType.REFLECTION, participants=["vera"]))
    insights = [m for m in lines(workspace, "vera") if m["created"] == outcome.spec.ref and m["type"] == "reflection"]
    assert [(m["depth"], m["evidence"]) for m in insights] == [
        (2, [reflection_id, observation_id]), (1, [observation_id]), (1, [existing[1]["id"]])]
    assert gm.agents()["vera"].importance_accumulator == 0


INVALID = [
    ("not json", lambda r: "Ich denke nach …", "reply: no JSON object found"),
    ("importance 11", lambda r: {**valid_reply(r), "memories": [{"description": "x", "importance": 11}]}, "memories.0.importance"),
    ("wrong agent", lambda r: {**valid_reply(r), "agent": "emre"}, "agent: expected 'vera', got 'emre'"),
    ("wrong scene", lambda r: {**valid_reply(r), "scene": "day-009/scene-01"}, "scene: expected 'day-001/scene-02'"),
    ("path leaves gallery", lambda r: {**valid_reply(r), "artifacts": [{**valid_reply(r)["artifacts"][0], "kind": "../../state"}]}, "artifacts.0.kind"),
    ("unknown field", lambda r: {**valid_reply(r), "mood": "gut"}, "mood: Extra inputs are not permitted"),
]


@pytest.mark.parametrize("label,bad,field", INVALID, ids=[i[0] for i in INVALID])
def test_an_invalid_reply_writes_nothing_of_its_scene(gm, workspace, label, bad, field):
    play_arrival(gm)
    snapshot = {p: p.read_bytes() for p in workspace.state.rglob("*") if p.is_file() and ".cache" not in p.parts}
    backend = ScriptedBackend({"vera": [bad, bad], "emre": [valid_reply]}, retries=1)
    with pytest.raises(SceneFailed) as failure:
        run_scene(gm, backend, Force(type=SceneType.WORK, participants=["emre", "vera"]))
    assert "vera" in str(failure.value) and field in str(failure.value)
    after = {p: p.read_bytes() for p in workspace.state.rglob("*") if p.is_file() and ".cache" not in p.parts}
    changed = [str(p.relative_to(workspace.root)) for p in after if after[p] != snapshot.get(p)]
    assert changed == ["state/world.json"]  # only the pending marker; no memory, no agent file
    assert gm.world().pending == "day-001/scene-02"
    assert not list(workspace.gallery.rglob("*.md"))


def test_invalid_reply_is_retried_with_the_error_and_then_applied(gm, workspace):
    play_arrival(gm)
    backend = ScriptedBackend({"vera": [lambda r: {**valid_reply(r), "agent": "emre"}, valid_reply]}, retries=1)
    run_scene(gm, backend, Force(type=SceneType.WORK, participants=["vera"]))
    assert len(backend.requests) == 2
    assert "agent: expected 'vera', got 'emre'" in backend.requests[1].previous_error
    assert "agent: expected 'vera', got 'emre'" in backend.requests[1].prompt


def test_a_failed_scene_resumes_without_asking_again_for_stored_replies(gm, workspace):
    play_arrival(gm)
    failing = ScriptedBackend({"emre": [valid_reply], "vera": ["kaputt"]}, retries=0)
    with pytest.raises(SceneFailed):
        run_scene(gm, failing, Force(type=SceneType.WORK, participants=["emre", "vera"]))
    resumed = ScriptedBackend({"vera": [valid_reply]})
    outcome = run_scene(gm, resumed)
    assert outcome.spec.ref == "day-001/scene-02"
    assert [r.agent.id for r in resumed.requests] == ["vera"]
    # note, artifact, vera's artifact observed, and what vera said (heard)
    assert len([m for m in lines(workspace, "emre") if m["created"] == "day-001/scene-02"]) == 4


def test_reflection_evidence_must_exist_in_the_agents_stream(gm, workspace):
    play_arrival(gm)

    def bad(request):
        data = valid_reply(request)
        data["insights"][0]["evidence"] = ["vera-999"]
        return data

    with pytest.raises(SceneFailed, match="insights.0.evidence: vera-999 not in vera's memory stream"):
        run_scene(gm, ScriptedBackend([bad, bad]), Force(type=SceneType.REFLECTION, participants=["vera"]))


def test_prompt_carries_the_default_selection_and_replans_after_a_colleagues_artifact(gm, workspace):
    play_arrival(gm)
    run_scene(gm, ScriptedBackend([valid_reply] * 2), Force(type=SceneType.WORK, participants=["vera", "emre"]))
    stream_ids = [m["id"] for m in lines(workspace, "emre")]
    backend = ScriptedBackend([valid_reply])
    run_scene(gm, backend, Force(type=SceneType.WORK, participants=["emre"]))
    request = backend.requests[0]
    assert len(stream_ids) < 50 and [m.id for m in request.memories] == stream_ids  # all of a short stream
    assert "emre-009" in request.prompt and stream_ids[-1] in request.prompt
    assert request.replan and "Ändert das deinen Plan" in request.prompt
    assert any(m.metadata.get("source") == "artifact" for m in request.since)


def test_forcing_while_a_scene_is_pending_is_refused(gm):
    gm.open_next()
    with pytest.raises(GamemasterError, match="already pending"):
        gm.open_next(Force(type=SceneType.WORK))
