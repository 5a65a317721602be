"""The `seed` strategy: seed 001's rule, last N memories in order + all reflections, no duplicates; topic grep."""

from __future__ import annotations

from conftest import memory, section_ids, seed_select, write_agent, write_lines


def build(workspace, count=120, reflections=(10, 40, 115)):
    write_agent(workspace, "ana")
    rows = []
    for n in range(1, count + 1):
        if n in reflections:
            rows.append(memory("ana", n, type="reflection", depth=1, evidence=[f"ana-{n - 1:03d}"], description=f"Reflexion {n}"))
        else:
            tags = ["bone-towers"] if n % 25 == 0 else ["alltag"]
            rows.append(memory("ana", n, tags=tags))
    write_lines(workspace, "ana", rows)
    return workspace.stream("ana")


def test_default_is_last_window_plus_every_older_reflection_once(empty_workspace):
    stream = build(empty_workspace)
    selection = seed_select(stream, window=50)
    assert section_ids(selection, "recent") == [f"ana-{n:03d}" for n in range(71, 121)]
    assert section_ids(selection, "reflections") == ["ana-010", "ana-040"]  # 115 is in the window already
    assert selection.ids == ["ana-010", "ana-040"] + [f"ana-{n:03d}" for n in range(71, 121)]
    assert len(selection.ids) == len(set(selection.ids))


def test_topic_adds_tag_and_description_matches_outside_the_window(empty_workspace):
    stream = build(empty_workspace)
    selection = seed_select(stream, window=50, terms=["bone-towers", "reflexion 40"], focus_limit=20)
    assert section_ids(selection, "relevant") == ["ana-025", "ana-050"]
    selection = seed_select(stream, window=50, terms=["bone-towers"], focus_limit=1)
    assert section_ids(selection, "relevant") == ["ana-050"]  # the most recent matches first


def test_a_term_only_in_the_id_or_metadata_does_not_match(empty_workspace):
    write_agent(empty_workspace, "ana")
    write_lines(empty_workspace, "ana", [memory("ana", 1, metadata={"note": "bone-towers"})] + [memory("ana", n) for n in range(2, 10)])
    selection = seed_select(empty_workspace.stream("ana"), window=3, terms=["bone-towers", "ana-001"])
    assert selection.section("relevant") == []
