"""Issue 19, item 9: a reflection's evidence must be among the memories the character's prompt showed.

The REFLECTION prompt says „nur IDs aus der Liste oben“. A reply citing ``emre-001`` (a memory
in emre's stream that vera's prompt never contained) was stored by every way a reply comes in.
A colleague's memory the prompt did show (as the evidence of one of vera's own reflections,
``← tobi-001 (von tobi)``) stays citable.
"""

from __future__ import annotations

import json
import re

import faultkit as fk

FOREIGN = "emre-001"
SHOWN_LINE = re.compile(r"^- \[([a-z][a-z0-9_]*-\d{3,}) · ", re.M)


def reflection_scene(tmp_path, vera_extra: list[dict] = ()):
    """A studio after its ARRIVAL with a REFLECTION for vera pending; her prompt and its listed ids."""
    workspace = fk.studio(tmp_path)
    assert fk.run(workspace.root, "scene", "run").returncode == 0  # ARRIVAL, offline
    for memory in vera_extra:  # appended by hand, numbered after the stream's last line
        memory = {"id": f"vera-{len(fk.stream_ids(workspace, 'vera')) + 1:03d}", **memory}
        with (workspace.memories_dir / "vera.jsonl").open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(memory, ensure_ascii=False) + "\n")
    proc = fk.run(workspace.root, "next", "--type", "REFLECTION", "--with", "vera")
    assert proc.returncode == 0, fk.show(proc)
    prompt = fk.run(workspace.root, "prompt", "vera").stdout
    listed = SHOWN_LINE.findall(prompt)
    assert len(listed) >= 3 and FOREIGN not in prompt, prompt
    assert FOREIGN in fk.stream_ids(workspace, "emre")  # it exists: only the prompt never showed it
    return workspace, prompt, listed


def reflection_reply(workspace, listed: list[str], extra: list[str]) -> dict:
    ref = fk.read_json(workspace.world_path)["pending"]
    return {
        "agent": "vera",
        "scene": ref,
        "action": "Vera sortiert ihre Skizzen.",
        "insights": [
            {"description": "Gewachsene Formen tragen die Türme.", "importance": 7, "tags": ["insight"],
             "evidence": [listed[0], *extra]},
            {"description": "Licht erzählt mehr als Linien.", "importance": 6, "tags": ["insight"], "evidence": [listed[1]]},
            {"description": "Skizzen schnell zeigen.", "importance": 6, "tags": ["insight"], "evidence": [listed[2]]},
        ],
    }


def assert_nothing_stored(workspace, before_vera: list[str], proc) -> None:
    assert fk.stream_ids(workspace, "vera") == before_vera, fk.show(proc)
    replies = fk.pending_record_path(workspace).parent / "replies"
    assert not replies.exists() or not any(replies.iterdir()), fk.show(proc)
    assert fk.read_json(workspace.world_path)["pending"], "the scene is still pending"


REJECTION = f"vera: insights.0.evidence: {FOREIGN} was not in your prompt"


def test_reply_refuses_evidence_the_prompt_never_showed(tmp_path):
    workspace, _, listed = reflection_scene(tmp_path)
    before = fk.stream_ids(workspace, "vera")
    reply = tmp_path / "vera.json"
    fk.write_json(reply, reflection_reply(workspace, listed, [FOREIGN]))

    proc = fk.run(workspace.root, "reply", "vera", str(reply))

    fk.assert_clean_error(proc, REJECTION)
    assert fk.error_lines(proc) == [f"error: {REJECTION}"], fk.show(proc)
    assert_nothing_stored(workspace, before, proc)


def test_apply_from_a_folder_refuses_evidence_the_prompt_never_showed(tmp_path):
    workspace, _, listed = reflection_scene(tmp_path)
    before = fk.stream_ids(workspace, "vera")
    folder = tmp_path / "replies"
    folder.mkdir()
    fk.write_json(folder / "vera.json", reflection_reply(workspace, listed, [FOREIGN]))

    proc = fk.run(workspace.root, "apply", "--replies", str(folder))

    fk.assert_clean_error(proc, REJECTION)
    assert [line for line in proc.stderr.splitlines() if FOREIGN in line] == [REJECTION], fk.show(proc)
    assert_nothing_stored(workspace, before, proc)


def test_apply_from_stdin_refuses_evidence_the_prompt_never_showed(tmp_path):
    workspace, _, listed = reflection_scene(tmp_path)
    before = fk.stream_ids(workspace, "vera")

    proc = fk.run(workspace.root, "apply", "--replies", "-",
                  input=json.dumps({"vera": reflection_reply(workspace, listed, [FOREIGN])}))

    fk.assert_clean_error(proc, REJECTION)
    assert [line for line in proc.stderr.splitlines() if FOREIGN in line] == [REJECTION], fk.show(proc)
    assert_nothing_stored(workspace, before, proc)


def test_a_stored_reply_edited_by_hand_to_cite_unshown_evidence_is_refused_at_apply(tmp_path):
    workspace, _, listed = reflection_scene(tmp_path)
    reply = tmp_path / "vera.json"
    fk.write_json(reply, reflection_reply(workspace, listed, []))
    assert fk.run(workspace.root, "reply", "vera", str(reply)).returncode == 0
    [stored] = (fk.pending_record_path(workspace).parent / "replies").iterdir()
    data = fk.read_json(stored)
    data["insights"][0]["evidence"].append(FOREIGN)
    fk.write_json(stored, data)
    before = fk.stream_ids(workspace, "vera")

    proc = fk.run(workspace.root, "apply")

    fk.assert_clean_error(proc, f"{workspace.rel(stored)}: {REJECTION}")
    assert fk.stream_ids(workspace, "vera") == before


def test_a_colleagues_memory_the_prompt_showed_may_be_cited_and_validate_stays_clean(tmp_path):
    # A hand-edited stream: vera's own reflection cites tobi's first memory. Her prompt no longer
    # names an id whose memory it does not show ("← weitere: 1"), but a reply citing the evidence
    # of a reflection it showed, as one written against a prompt that named it would, is taken.
    hand = {"created": "day-001/scene-01", "type": "reflection", "depth": 1,
            "description": "Tobis Shader-Idee passt zu meinen Türmen.", "importance": 7, "tags": ["shader"],
            "evidence": ["tobi-001"], "metadata": {}}
    workspace, prompt, listed = reflection_scene(tmp_path, [hand])
    assert "Tobis Shader-Idee passt zu meinen Türmen. #shader ← weitere: 1" in prompt and "tobi-001" not in prompt
    fk.assert_valid(workspace.root)
    ref = fk.read_json(workspace.world_path)["pending"]

    proc = fk.run(workspace.root, "apply", "--replies", "-",
                  input=json.dumps({"vera": reflection_reply(workspace, listed, ["tobi-001"])}))

    assert proc.returncode == 0, fk.show(proc)
    lines = [json.loads(l) for l in (workspace.memories_dir / "vera.jsonl").read_text(encoding="utf-8").splitlines()]
    written = [m for m in lines if m["type"] == "reflection" and m["created"] == ref]
    assert written[0]["evidence"] == [listed[0], "tobi-001"]
    fk.assert_valid(workspace.root)


def test_what_the_prompt_showed_is_kept_with_the_scene_before_the_prompt_is_handed_out(tmp_path):
    workspace, prompt, listed = reflection_scene(tmp_path)
    shown = fk.read_json(fk.pending_record_path(workspace).parent / "shown" / "01-vera.json")["memories"]
    assert set(listed) <= set(shown) and FOREIGN not in shown
    assert all(i in prompt for i in shown)  # nothing that the prompt does not show


def test_a_scene_opened_before_shown_ids_were_kept_checks_evidence_against_the_streams_only(tmp_path):
    workspace, _, listed = reflection_scene(tmp_path)
    folder = fk.pending_record_path(workspace).parent / "shown"
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()

    proc = fk.run(workspace.root, "apply", "--replies", "-",
                  input=json.dumps({"vera": reflection_reply(workspace, listed, [FOREIGN])}))

    assert proc.returncode == 0, fk.show(proc)  # an upgrade does not strand a pending scene


def test_a_damaged_record_of_what_the_prompt_showed_is_named_and_nothing_is_stored(tmp_path):
    workspace, _, listed = reflection_scene(tmp_path)
    record = fk.pending_record_path(workspace).parent / "shown" / "01-vera.json"
    record.write_text('{"memories": "vera-001"}\n', encoding="utf-8")
    before = fk.stream_ids(workspace, "vera")

    proc = fk.run(workspace.root, "apply", "--replies", "-",
                  input=json.dumps({"vera": reflection_reply(workspace, listed, [])}))

    fk.assert_clean_error(proc, f"{workspace.rel(record)}: memories: expected a list of memory ids")
    assert_nothing_stored(workspace, before, proc)
