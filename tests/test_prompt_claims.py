"""Every claim a prompt makes about the scene is true of the state.

A model takes its prompt at its word: told that whoever is not at its table can be asked later, it
believes everyone it sees listed heard it. Each test here reads what a prompt says and holds it
against what the toolkit then writes or accepts: who heard whom, what one said and to whom, which
reply fields a scene takes, which evidence ids it names, whose numbers it shows.
"""

from __future__ import annotations

import json
import re

import pytest

from replies import valid_reply
from gamemaster.backends.scripted import ScriptedBackend
from gamemaster.kinds import ReplyCheck, all_kinds, check_kind
from gamemaster.kinds.heard import tables
from gamemaster.lang import short_name
from gamemaster.loop import run_scene
from gamemaster.replies import parse_reply
from gamemaster.scenes import Force, SceneSpec, SceneType

NAME = re.compile(r"\(([a-z][a-z0-9_]*)\)")


def lines(workspace, agent):
    path = workspace.memories_dir / f"{agent}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def header(prompt: str, label: str) -> str:
    return next(line for line in prompt.splitlines() if line.startswith(f"- {label}: "))


def saying(texts: dict[str, str]):
    def reply(request):
        body = valid_reply(request)
        body["says"] = texts.get(request.agent.id, body["says"])
        return body
    return reply


def test_who_hears_you_at_arrival_is_the_table_the_heard_memories_are_written_for(gm, workspace):
    pending, _ = gm.open_next()
    prompts = {a: gm.build_request(pending, t).prompt for t, a in enumerate(pending.turns)}
    said = {a: f"Satz von {a}: die Türme wachsen heute um {n} Rippen." for n, a in enumerate(pending.turns)}
    gm.apply_pending({a: saying(said)(gm.build_request(pending, t)) for t, a in enumerate(pending.turns)})
    seated = tables(pending.spec, gm.agents(), gm.world())
    assert len(seated) > 1  # seven people, tables of at most six: not everyone hears everyone
    for agent, prompt in prompts.items():
        line = header(prompt, "Wer dich hört")
        hears, _, rest = line.partition("Nicht an deinem Tisch")
        claimed = set(NAME.findall(hears))
        not_hearing = set(NAME.findall(rest))
        table = next(t for t in seated if agent in t)
        assert claimed == set(table) - {agent} and not_hearing == set(pending.spec.participants) - set(table)
        assert "gleichzeitig" in rest  # side by side: nobody answers a question here
        # The claim against what was written: those named heard the agent's line, the others did not.
        for other in pending.spec.participants:
            if other == agent:
                continue
            heard = [h["says"] for m in lines(workspace, other) if m["metadata"].get("source") == "heard"
                     for h in m["metadata"]["heard"] if h["speaker"] == agent]
            assert (said[agent] in heard) == (other in claimed), (agent, other)


def test_what_you_said_and_to_whom_is_shown_back_to_you(gm, workspace):
    said = {a: f"Ich, {a}, verrate euch: die Demo ist am 12. Dezember." for a in ("finn",)}
    outcome = run_scene(gm, ScriptedBackend([saying(said)] * 7))
    table = next(t for t in tables(outcome.spec, gm.agents(), gm.world()) if "finn" in t)
    gm.open_next(Force(type=SceneType.WORK, participants=["finn"]))
    prompt = gm.prompt_text("finn")
    section = prompt.split("**Was zuletzt gesagt wurde**", 1)[1]
    own = next(line for line in section.splitlines() if line.startswith("- Du (") and said["finn"] in line)
    told = own.split(", zu ", 1)[1].split("):", 1)[0]
    assert sorted(told.split(", ")) == sorted(short_name(gm.agents()[a].name) for a in table if a != "finn")


def test_a_speaker_whose_table_said_nothing_still_remembers_whom_it_told(gm, workspace):
    def quiet_but_finn(request):
        body = valid_reply(request)
        body["says"] = "Die Demo ist am 12. Dezember." if request.agent.id == "finn" else ""
        return body

    outcome = run_scene(gm, ScriptedBackend([quiet_but_finn] * 7))
    table = next(t for t in tables(outcome.spec, gm.agents(), gm.world()) if "finn" in t)
    [said] = [m for m in lines(workspace, "finn") if m["created"] == outcome.spec.ref and "said" in m["tags"]]
    assert set(said["metadata"]["with"]) == set(table) - {"finn"}
    assert "Die Demo ist am 12. Dezember." in said["description"]


@pytest.mark.parametrize("kind", sorted(all_kinds()))
@pytest.mark.parametrize("final_turn", [True, False])
def test_the_reply_fields_a_prompt_names_are_the_ones_the_rules_require_allow_and_refuse(kind, final_turn):
    from gamemaster.claims import reply_fields

    kind = all_kinds()[kind]
    text = reply_fields(kind, final_turn, "de")
    parts = dict(re.findall(r"(Pflicht|Erlaubt|Nicht erlaubt): ([^.]*)\.", text))
    named = {label: re.findall(r"`(\w+)`", value) for label, value in parts.items()}
    spec = SceneSpec(type=kind.name, day=1, scene=1, participants=["ana", "bob"], reason="test", topic="Türme")
    full = {
        "agent": "ana", "scene": "day-001/scene-01", "action": "tut etwas", "says": "Hallo.",
        "plan": {"text": "Plan", "tags": [], "importance": 3},
        "artifacts": [{"title": "T", "kind": "lore", "content": "x", "summary": "s", "importance": 3}],
        "insights": [{"description": f"E{n}", "importance": 5, "evidence": ["ana-001"]} for n in range(3)],
        "conversation": {"summary": "s", "importance": 4},
    }
    ctx = ReplyCheck("ana", spec, ["ana", "bob"], lambda ids: [], final_turn, shown={"ana-001"})

    def problems(data: dict) -> list[str]:
        return check_kind(parse_reply(data, "ana", kind.reply_model), ctx)

    required = [f for f in named["Pflicht"] if f in full]
    allowed = {f: full[f] for f in named["Erlaubt"] if f in full}
    base = {k: full[k] for k in ("agent", "scene", "action", *required)}
    assert problems({**base, **allowed}) == []
    for field in required:
        if field not in ("agent", "scene", "action"):
            assert any(p.startswith(f"{field}:") for p in problems({k: v for k, v in base.items() if k != field}))
    for field in named["Nicht erlaubt"]:
        if field == "conversation" and not final_turn and "conversation" in kind.allows:
            continue  # asked for in the last turn; earlier it is not asked for, not refused
        assert any(p.startswith(f"{field}:") for p in problems({**base, field: full[field]})), field


def test_no_evidence_id_the_prompt_does_not_show_and_no_colleagues_numbers(gm, workspace):
    run_scene(gm, ScriptedBackend([valid_reply] * 7))
    leo = lines(workspace, "leo")[1]["id"]
    own = [m["id"] for m in lines(workspace, "vera")]
    with (workspace.memories_dir / "vera.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"id": f"vera-{len(own) + 1:03d}", "created": "day-001/scene-01", "type": "reflection",
                                 "depth": 1, "description": "Leo hört genau hin.", "importance": 6, "tags": [],
                                 "evidence": [leo, own[0]], "metadata": {}}, ensure_ascii=False) + "\n")
    for agent, value in (("vera", 130), ("tobi", 118)):
        path = workspace.agent_path(agent)
        data = json.loads(path.read_text(encoding="utf-8"))
        path.write_text(json.dumps({**data, "importance_accumulator": value}, ensure_ascii=False), encoding="utf-8")
    pending, _ = gm.open_next()
    assert pending.spec.type == "REFLECTION" and "tobi: accumulator 118" in pending.spec.reason
    prompt = gm.build_request(pending, pending.turns.index("vera")).prompt
    shown = set(re.findall(r"^- \[([a-z]+-\d{3,})", prompt, re.M))
    cited = set(re.findall(rf"\b((?:{'|'.join(gm.agents())})-\d{{3,}})\b", prompt))
    assert leo not in shown and cited <= shown, cited - shown
    assert "weitere: 1" in prompt  # the hidden evidence is counted, not named
    reason = header(prompt, "Warum diese Szene")
    assert "Tobi" not in reason and "118" not in reason and "130" in reason
    # Alone in a room of one: nobody to pass anything on to, and nothing answers at the same time.
    assert "gib weiter" not in prompt.lower() and "niemand" in header(prompt, "Wer dich hört")
    assert "Deine Reflexionen" in prompt.split("## Deine Aufgabe")[1]  # which sections evidence may come from


def test_the_library_line_says_how_the_library_is_shown_and_no_prompt_points_to_a_command(gm, workspace):
    pending, _ = gm.open_next()
    prompt = gm.build_request(pending, 0).prompt
    assert "Die Referenzbibliothek steht oben ganz in der Studio-Bibel" in prompt
    assert "konsultieren" not in prompt and "gamemaster schema" not in prompt
    data = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    workspace.world_path.write_text(json.dumps({**data, "library_budget": 0}, ensure_ascii=False), encoding="utf-8")
    prompt = gm.build_request(pending, 0).prompt
    assert "Referenzbibliothek" not in prompt.split("## Deine Aufgabe")[1]


def test_what_someone_said_is_shown_whole_or_marked_as_shortened(gm, workspace):
    long = ("Der Publisher hat angerufen: Die spielbare Demo muss am 12. Dezember stehen, nicht erst im Februar, "
            "und für die Vertical Slice reichen handgebaute Türme – prozedurales Wachstum streichen wir, "
            "bis die drei Kammern stehen und das Lauschen im Playtest verstanden wird.")
    outcome = run_scene(gm, ScriptedBackend([saying({"finn": long})] * 7))
    listener = next(a for a in next(t for t in tables(outcome.spec, gm.agents(), gm.world()) if "finn" in t)
                    if a != "finn")
    gm.open_next(Force(type=SceneType.WORK, participants=[listener]))
    prompt = gm.prompt_text(listener)
    assert long in prompt
    for quote in re.findall(r"„([^„“]*)“", prompt):
        if quote.endswith("…"):
            assert quote[:-1].strip() in prompt.replace(quote, ""), quote


def test_side_by_side_and_in_sequence_scenes_say_when_the_others_hear_you(gm, workspace):
    pending, _ = gm.open_next()
    assert "Alle hier antworten gleichzeitig" in gm.build_request(pending, 0).prompt
    gm.apply_pending({a: valid_reply(gm.build_request(pending, t)) for t, a in enumerate(pending.turns)})
    pending, _ = gm.open_next(Force(type=SceneType.MEETING, participants=["vera", "darius"], topic="Türme"))
    line = header(gm.build_request(pending, 0).prompt, "Wer dich hört")
    assert "nacheinander" in line and "(darius)" in line and "gleichzeitig" not in line
