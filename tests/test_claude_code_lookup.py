"""A character played by the claude-code backend looks into its own memory mid-scene (issue 38):
through ``recall``, a tool of an MCP server in gamemaster's own process that the real Agent SDK
hands to ``claude`` (here ``fake_claude.py``, which calls it over Claude Code's control channel as
the real CLI does). What it finds is its own, whole and not in its prompt; three lookups a turn
at most; a kept ``claude`` looks up for the turn it is playing."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("claude_agent_sdk", reason="the [claude-code] extra (claude-agent-sdk) is part of [test]")

from test_lookup import QUERY, ROUTINE, with_a_long_past  # noqa: E402

from gamemaster.backends import get_backend  # noqa: E402
from gamemaster.lang import phrase  # noqa: E402
from gamemaster.loop import SceneFailed, run_scene  # noqa: E402
from gamemaster.lookup import MAX_LOOKUPS  # noqa: E402
from gamemaster.problems import GamemasterError  # noqa: E402
from gamemaster.scenes import Force, SceneType  # noqa: E402


def _calls(fake, agent: str) -> list[dict]:
    paths = sorted((fake / "calls").glob(f"{agent}-*.json"), key=lambda p: int(p.stem.rsplit("-", 1)[1]))
    return [json.loads(p.read_text(encoding="utf-8")) for p in paths]


def _option(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def _stream(workspace, agent: str) -> dict[str, str]:
    return {row["id"]: row["description"] for row in map(json.loads, (workspace.memories_dir / f"{agent}.jsonl")
                                                         .read_text(encoding="utf-8").splitlines())}


def _arrived(gm, workspace, fake):
    """Vera with a long past, the day's ARRIVAL played from the prompts (``play``)."""
    with_a_long_past(workspace)
    (fake / "mode").write_text("play", encoding="utf-8")
    run_scene(gm, get_backend("claude-code"))


def _looks_up(fake, agent: str, *queries: str) -> None:
    (fake / "replies" / f"{agent}.json").write_text(json.dumps([{"lookups": list(queries), "reply": None}]),
                                                    encoding="utf-8")


def test_a_character_in_claude_code_looks_up_what_its_prompt_lacks(gm, workspace, fake):
    _arrived(gm, workspace, fake)
    _looks_up(fake, "vera", QUERY)
    outcome = run_scene(gm, get_backend("claude-code"), Force(type=SceneType.WORK, participants=["vera"]))
    call = _calls(fake, "vera")[-1]
    argv = call["argv"]
    # One tool of its own besides the reply's, answered in gamemaster's process; no built-in tools.
    assert _option(argv, "--tools") == "" and _option(argv, "--allowedTools") == "mcp__memory__recall"
    assert json.loads(_option(argv, "--mcp-config")) == {"mcpServers": {"memory": {"type": "sdk", "name": "memory"}}}
    assert _option(argv, "--max-turns") == str(3 + MAX_LOOKUPS)
    [looked] = call["looked_up"]
    assert looked["tools"] == ["mcp__memory__recall"] and not looked["is_error"], looked
    folder = workspace.scene_dir(outcome.spec.ref)
    [label] = [p.stem for p in (folder / "lookups").glob("*.json")]
    shown = set(json.loads((folder / "shown" / f"{label}.json").read_text(encoding="utf-8"))["memories"])
    stream = _stream(workspace, "vera")
    wanted = next(i for i, text in stream.items() if text == ROUTINE.format(n=37))
    assert wanted not in shown  # the prompt did not show it …
    lines = looked["text"].splitlines()
    assert lines[0] == f"- [{wanted} · day-000/scene-00] {ROUTINE.format(n=37)}"  # … the lookup did, first, whole
    found = [line.split(" · ")[0][3:] for line in lines]
    assert all(i in stream and i not in shown for i in found)  # her own mind, nothing she was shown
    [entry] = json.loads((folder / "lookups" / f"{label}.json").read_text(encoding="utf-8"))["lookups"]
    assert entry == {"query": QUERY, "memories": found}
    assert f"E2E-Notiz von vera zu {outcome.spec.ref}" in "\n".join(_stream(workspace, "vera").values())


def test_after_three_lookups_claude_code_is_told_to_reply(gm, workspace, fake):
    _arrived(gm, workspace, fake)
    _looks_up(fake, "vera", QUERY, "Türme", "Skizze", "Nordturm")
    outcome = run_scene(gm, get_backend("claude-code"), Force(type=SceneType.WORK, participants=["vera"]))
    looked = _calls(fake, "vera")[-1]["looked_up"]
    assert [entry["text"] == phrase("de", "lookup_spent") for entry in looked] == [False] * MAX_LOOKUPS + [True]
    [path] = (workspace.scene_dir(outcome.spec.ref) / "lookups").glob("*.json")
    assert [e["query"] for e in json.loads(path.read_text(encoding="utf-8"))["lookups"]] == [QUERY, "Türme", "Skizze"]


def test_a_kept_claude_looks_up_for_the_turn_it_plays(gm, workspace, fake):
    """In a MEETING vera's ``claude`` is kept for her second turn: that turn's lookups are its own,
    recorded under it, and leave out what its own prompt showed."""
    _arrived(gm, workspace, fake)
    # ``replies`` index by call number: the ARRIVAL was vera's call 0.
    (fake / "replies" / "vera.json").write_text(json.dumps([None, {"lookups": [QUERY], "reply": None},
                                                            {"lookups": ["Skizze Nordturm"], "reply": None}]),
                                                encoding="utf-8")
    outcome = run_scene(gm, get_backend("claude-code"),
                        Force(type=SceneType.MEETING, participants=["vera", "leo"]))
    calls = _calls(fake, "vera")[1:]
    assert len({c["pid"] for c in calls}) == 1 and len(calls) >= 2  # one claude for both turns
    folder = workspace.scene_dir(outcome.spec.ref)
    labels = sorted(p.stem for p in (folder / "lookups").glob("*-vera.json"))
    assert len(labels) >= 2
    queries = [json.loads((folder / "lookups" / f"{label}.json").read_text(encoding="utf-8"))["lookups"][0]["query"]
               for label in labels[:2]]
    assert queries == [QUERY, "Skizze Nordturm"]
    second = labels[1]
    shown = set(json.loads((folder / "shown" / f"{second}.json").read_text(encoding="utf-8"))["memories"])
    found = json.loads((folder / "lookups" / f"{second}.json").read_text(encoding="utf-8"))["lookups"][0]["memories"]
    assert found and not set(found) & shown


def test_a_lookup_that_fails_is_one_line_naming_the_character(gm, workspace, fake, monkeypatch):
    _arrived(gm, workspace, fake)
    _looks_up(fake, "vera", QUERY)

    def broken(workspace, agent, shown):
        def lookup(query):
            raise GamemasterError("state/memories/vera.jsonl:63: not a JSON object")
        return lookup

    monkeypatch.setattr("gamemaster.loop.lookup_for", broken)
    with pytest.raises((SceneFailed, GamemasterError)) as failed:
        run_scene(gm, get_backend("claude-code"), Force(type=SceneType.WORK, participants=["vera"]))
    assert "vera" in str(failed.value) and "vera.jsonl:63" in str(failed.value)
    assert not list(workspace.scenes.glob("day-*/scene-02/lookups/*.json"))
