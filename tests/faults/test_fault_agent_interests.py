"""An agent's ``interests`` are typed: a malformed one is named by file and field, never shown mangled."""

from __future__ import annotations

import pytest

import faultkit as fk


def _state(workspace) -> dict:
    return {k: v for k, v in fk.tree_snapshot(workspace.state).items() if ".cache" not in k}


@pytest.mark.parametrize("interests, field", [
    ([{"topic": "Licht und Farbe", "tags": "lighting"}], "interests.0.tags"),
    ([{"tags": ["lighting"]}], "interests.0.topic"),
    ("Licht und Farbe", "interests"),
], ids=["tags-a-string", "no-topic", "not-a-list"])
def test_a_malformed_interest_is_one_error_naming_the_agent_file_and_field(tmp_path, interests, field):
    workspace = fk.studio(tmp_path)
    path = workspace.agent_path("vera")
    fk.write_json(path, {**fk.read_json(path), "interests": interests})
    before = _state(workspace)

    proc = fk.run(workspace.root, "next")

    fk.assert_clean_error(proc, "state/agents/vera.json", field)
    [named] = [line.strip() for line in proc.stderr.splitlines() if "state/agents/vera.json" in line]
    assert named.startswith(f"state/agents/vera.json: {field}: "), fk.show(proc)
    assert not any("l, i, g, h, t" in p.read_text(encoding="utf-8") for p in workspace.scenes.rglob("*.md"))
    assert _state(workspace) == before and not list(workspace.scenes.rglob("*.md"))  # nothing written, nothing lost


def test_interests_reach_the_prompt_as_written(tmp_path):
    workspace = fk.studio(tmp_path)
    path = workspace.agent_path("vera")
    fk.write_json(path, {**fk.read_json(path), "interests": [{"topic": "Licht und Farbe", "tags": ["lighting", "mood"]}]})

    proc = fk.run(workspace.root, "next")
    assert proc.returncode == 0, fk.show(proc)
    prompt = fk.run(workspace.root, "prompt", "vera")

    assert "- Licht und Farbe (lighting, mood)" in prompt.stdout, fk.show(prompt)


def test_interests_written_as_plain_words_are_topics(tmp_path):
    # A hand-made character often lists its interests as words: each is a topic without tags.
    workspace = fk.studio(tmp_path)
    path = workspace.agent_path("vera")
    fk.write_json(path, {**fk.read_json(path), "interests": ["Licht", "Farbe"]})

    proc = fk.run(workspace.root, "next")
    assert proc.returncode == 0, fk.show(proc)
    prompt = fk.run(workspace.root, "prompt", "vera").stdout
    assert "- Licht\n- Farbe" in prompt
