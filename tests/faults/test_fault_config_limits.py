"""Issue 19, item 5: every setting has a sane upper bound, kept in the World model, so ``config``
refuses a value past it with the reason, ``validate`` names it in a hand-edited world.json, and
world.json stays strict JSON (no NaN or Infinity) whatever ``config`` is given."""

from __future__ import annotations

import json

import pytest

import faultkit as fk


def _strict(text: str):
    """What ``jq`` or node accept: NaN and Infinity are not JSON."""
    def refuse(name):
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


# key, a value past its bound, what the error must say besides the key
TOO_LARGE = [
    ("scenes_per_day", "1000000000", "at most 100"),
    ("memory_window", str(10**12), "at most 1,000"),
    ("reflection_threshold", str(10**30), "at most 10,000"),
    ("focus_limit", "5000000", "at most 1,000"),
    ("memory_budget", str(10**12), "at most 1,000,000"),
    ("transcript_budget", str(10**9), "at most 1,000,000"),
    ("library_budget", str(10**9), "at most 1,000,000"),
    ("kinds.meeting.rounds", "1000", "at most 50"),
    ("kinds.meeting.max", "100000", "at most 50"),
    ("kinds.meeting.notices_per_day", "100000", "at most 100"),
    ("kinds.encounter.per_day", "100000", "at most 100"),
    ("kinds.work.group_size", "100000", "at most 100"),
    ("kinds.work.rooms", "100000", "at most 100"),
    ("recency_half_life", "1e300", "at most 10,000"),
    ("retrieval_weights.relevance", "1e300", "at most 100"),
    ("seed", str(2**60), "at most 9,007,199,254,740,991"),
    ("studio", "S" * 5000, "at most 200 characters"),
    ("model", "m" * 5000, "at most 200 characters"),
]


@pytest.mark.parametrize("key,value,reason", TOO_LARGE, ids=[k for k, _, _ in TOO_LARGE])
def test_config_refuses_a_value_past_the_bound_and_says_why(tmp_path, key, value, reason):
    workspace = fk.studio(tmp_path)
    before = workspace.world_path.read_bytes()

    proc = fk.run(workspace.root, "config", key, value)

    text = fk.assert_clean_error(proc, f"{key}: ", reason)
    assert len(text.splitlines()) == 1, fk.show(proc)  # one line, the reason in it
    assert reason + ": " in text, f"the bound is given without a reason\n{fk.show(proc)}"
    assert workspace.world_path.read_bytes() == before


@pytest.mark.parametrize("value", ["Infinity", "-Infinity", "NaN", "1e999", "inf", "nan"])
@pytest.mark.parametrize("key", ["retrieval_weights.relevance", "recency_half_life"])
def test_config_never_writes_nan_or_infinity(tmp_path, key, value):
    workspace = fk.studio(tmp_path)
    before = workspace.world_path.read_bytes()

    proc = fk.run(workspace.root, "config", key, "--", value)

    fk.assert_clean_error(proc, f"{key}: ")
    assert workspace.world_path.read_bytes() == before
    _strict(workspace.world_path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("key,value", [
    ("retrieval_weights.relevance", "2.5"),
    ("retrieval_weights.recency", "0"),
    ("recency_half_life", "0.25"),
    ("scenes_per_day", "100"),
    ("seed", str(2**53 - 1)),
    ("memory_budget", "1000000"),
])
def test_world_json_stays_strict_json_after_config_sets_a_value_at_or_under_the_bound(tmp_path, key, value):
    workspace = fk.studio(tmp_path)

    proc = fk.run(workspace.root, "config", key, value)

    fk.assert_no_traceback(proc)
    assert proc.returncode == 0, fk.show(proc)
    data = _strict(workspace.world_path.read_text(encoding="utf-8"))
    target = data
    for part in key.split(".")[:-1]:
        target = target[part]
    assert target[key.split(".")[-1]] == json.loads(value)
    fk.assert_valid(workspace.root)


@pytest.mark.parametrize("key,value,reason", [
    ("scenes_per_day", 1_000_000_000, "at most 100"),
    ("memory_window", 10**12, "at most 1,000"),
    ("reflection_threshold", 10**30, "at most 10,000"),
])
@pytest.mark.parametrize("command", [("validate",), ("status",), ("config",)])
def test_a_hand_edited_world_past_a_bound_is_named_by_field(tmp_path, key, value, reason, command):
    workspace = fk.studio(tmp_path)
    world = fk.read_json(workspace.world_path)
    world[key] = value
    fk.write_json(workspace.world_path, world)

    proc = fk.run(workspace.root, *command)

    fk.assert_no_traceback(proc)
    assert proc.returncode == 1, fk.show(proc)
    assert any(f"state/world.json: {key}: {reason}: " in line for line in (proc.stdout + proc.stderr).splitlines()), fk.show(proc)


@pytest.mark.parametrize("budget,reason", [("-1", "greater than or equal to 500"), (str(10**12), "at most 1,000,000")])
def test_recall_budget_is_held_to_the_memory_budget_bound(tmp_path, budget, reason):
    workspace = fk.studio(tmp_path)

    proc = fk.run(workspace.root, "recall", "vera", "Knochentürme", "--budget", budget)

    fk.assert_clean_error(proc, "--budget: ", reason)
