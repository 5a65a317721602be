"""End to end, headless: the real Claude Code CLI runs `/scene`, `/day` or a plain request in a
workspace against the loopback fake API (see ``claude_e2e.py``), with the commands or the plugin."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

# Re-exported: the other e2e test modules take the versions, the install and the fixture from here.
from claude_e2e import (  # noqa: F401 (unshare is a fixture)
    LATEST, REPO, VERSIONS, _assert_played, _game_master_calls, _install, _memory_counts, _run_claude, _tail,
    _two_characters, pytestmark, unshare,
)
from gamemaster.create import init_workspace


@pytest.mark.parametrize("version", VERSIONS)
def test_scene_in_an_untrusted_folder(tmp_path, unshare, version):
    """`claude -p /scene` in a folder nobody trusted: the slash command's allowed tools carry it."""
    claude = _install(version)
    workspace = _two_characters(tmp_path)
    before = _memory_counts(workspace)
    result = _run_claude(tmp_path, unshare, claude, workspace)
    _assert_played(workspace, result, before, scenes=1)


def test_seven_characters_at_once(tmp_path, unshare):
    """The bundled studio's ARRIVAL: seven characters answer in parallel, each rejected once."""
    claude = _install(LATEST)
    workspace = init_workspace(tmp_path / "studio")
    before = _memory_counts(workspace)
    result = _run_claude(tmp_path, unshare, claude, workspace)
    _assert_played(workspace, result, before, scenes=1)


@pytest.mark.parametrize("version", VERSIONS)
def test_whole_day_in_an_untrusted_folder(tmp_path, unshare, version):
    """`claude -p /day`: scene after scene until the day is closed and summarised."""
    claude = _install(version)
    workspace = _two_characters(tmp_path)
    before = _memory_counts(workspace)
    result = _run_claude(tmp_path, unshare, claude, workspace, prompt="/day", timeout=300, inside_args=("--peek",))
    scenes = len(list(workspace.scenes.glob("day-001/scene-*/scene.json")))
    assert scenes >= 4, scenes
    _assert_played(workspace, result, before, scenes=scenes)
    assert (workspace.scenes / "day-001" / "summary.md").is_file()
    # In every scene each character first tried to read the other's stream and the world: refused.
    for agent, reads in _character_reads(result).items():
        others = [text for (tool, target), text in reads.items()
                  if tool == "Read" and target.endswith(".jsonl") and not target.endswith(f"/{agent}.jsonl")]
        assert others and all("may read only its own prompt and memories" in t for t in others), (agent, others)


@pytest.mark.parametrize("kind", ["MEETING", "ENCOUNTER"])
def test_talk_in_a_trusted_folder(tmp_path, unshare, kind):
    """A folder the user trusted: a plain request (no slash command) runs on the workspace's
    permissions; a MEETING or an ENCOUNTER goes turn by turn and is written back by its last turn."""
    claude = _install(LATEST)
    workspace = _two_characters(tmp_path)
    gamemaster = [sys.executable, "-m", "gamemaster", "--root", str(workspace.root)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for step in (["scene", "run", "--backend", "offline"], ["next", "--type", kind, "--with", "emre,vera"]):
        done = subprocess.run([*gamemaster, *step], capture_output=True, text=True, env=env)
        assert done.returncode == 0, done.stderr
    before = _memory_counts(workspace)
    result = _run_claude(tmp_path, unshare, claude, workspace, trust=True,
                         prompt="Spiel die nächste Szene, wie es in CLAUDE.md steht.")
    _assert_played(workspace, result, before, scenes=2, played=1)
    scene = json.loads((workspace.scenes / "day-001" / "scene-02" / "scene.json").read_text(encoding="utf-8"))
    assert scene["type"] == kind
    spoken = [c["input"]["subagent_type"] for c in _game_master_calls(result) if c["name"] in ("Agent", "Task")]
    assert spoken == ["character-" + t for t in scene["turns"]], spoken


PLUGIN_SETUPS = {
    # An untrusted folder ignores the workspace's plugin settings: `--plugin-dir` loads it.
    "untrusted, --plugin-dir": dict(plugin=True, trust=False, plugin_dir=True),
    # A trusted folder enables it from .claude/settings.json (the toolkit's folder as a local marketplace).
    "trusted, enabled by the workspace": dict(plugin=True, trust=True, plugin_dir=False),
    # A workspace with its own commands and hook, and the plugin loaded as well: its hook steps
    # aside, or every rejection would count twice and the characters would be let go unheard.
    "commands workspace, --plugin-dir too": dict(plugin=False, trust=False, plugin_dir=True),
}


@pytest.mark.parametrize("setup", PLUGIN_SETUPS)
def test_scene_through_the_plugin(tmp_path, unshare, setup):
    """The plugin loads, its skills are offered to the model, and `/gamemaster:scene` plays."""
    from gamemaster.claude_plugin import SKILLS, plugin_dir

    how = PLUGIN_SETUPS[setup]
    claude = _install(LATEST)
    workspace = _two_characters(tmp_path, plugin=how["plugin"])
    if how["plugin"]:
        # The committed settings enable the plugin by name only; where it lives (a path on this
        # machine) is in settings.local.json, which the workspace's .gitignore keeps out of git.
        claude_dir = workspace.root / ".claude"
        assert not (claude_dir / "commands").exists()
        committed = json.loads((claude_dir / "settings.json").read_text(encoding="utf-8"))
        local = json.loads((claude_dir / "settings.local.json").read_text(encoding="utf-8"))
        # The plugin brings the reply hook and the handoff; the workspace keeps only the fence.
        assert list(committed["hooks"]) == ["PreToolUse"] and "extraKnownMarketplaces" not in committed, committed
        assert [g["matcher"] for g in committed["hooks"]["PreToolUse"]] == ["Read|Grep|Glob|Bash"], committed
        assert committed["enabledPlugins"] == {"gamemaster@gamemaster": True}, committed
        assert str(plugin_dir()) not in json.dumps(committed)
        assert local == {"extraKnownMarketplaces": {"gamemaster": {
            "source": {"source": "directory", "path": str(plugin_dir())}}}}, local
        assert "settings.local.json" in (claude_dir / ".gitignore").read_text(encoding="utf-8").split()
    before = _memory_counts(workspace)
    result = _run_claude(tmp_path, unshare, claude, workspace, prompt="/gamemaster:scene", trust=how["trust"],
                         claude_args=("--plugin-dir", str(plugin_dir())) if how["plugin_dir"] else ())
    offered = json.dumps([r["body"] for r in result["requests"] if r.get("kind") == "game_master"][:1],
                         ensure_ascii=False)
    for skill in SKILLS:
        # `day` and `brief` are the Creative Director's alone (disable-model-invocation): not offered.
        if skill in ("day", "brief"):
            assert f"gamemaster:{skill}" not in offered, f"skill gamemaster:{skill} offered to the model"
        else:
            assert f"gamemaster:{skill}" in offered, f"skill gamemaster:{skill} not offered to the model"
    _assert_played(workspace, result, before, scenes=1)


@pytest.mark.parametrize("trust", [False, True], ids=["untrusted", "trusted"])
@pytest.mark.parametrize("version", VERSIONS)
def test_a_character_reads_only_its_own_mind(tmp_path, unshare, version, trust):
    """Each character first tries to read every memory stream, the world file, and to search the
    whole workspace (``--peek``): another's stream and the world are refused with the fence's
    reason, the searches find no such tool, and none of their text reaches it; its own stream it
    may read. The scene plays all the same."""
    claude = _install(version)
    workspace = _two_characters(tmp_path)
    for agent in ("emre", "vera"):  # a memory each, so a stream that leaked would show it
        done = subprocess.run([sys.executable, "-m", "gamemaster", "--root", str(workspace.root), "brief",
                               f"GEHEIM-{agent}: nur {agent} weiß davon.", "--to", agent],
                              capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
        assert done.returncode == 0, done.stderr
    before = _memory_counts(workspace)
    result = _run_claude(tmp_path, unshare, claude, workspace, trust=trust, inside_args=("--peek",),
                         prompt="/scene" if not trust else "Spiel die nächste Szene, wie es in CLAUDE.md steht.")
    _assert_played(workspace, result, before, scenes=1)
    tried = _character_reads(result)
    for agent, other in (("emre", "vera"), ("vera", "emre")):
        reads = tried[agent]
        own = next(text for (tool, target), text in reads.items() if target.endswith(f"memories/{agent}.jsonl"))
        assert f"GEHEIM-{agent}" in own, f"{agent} could not read its own stream: {own[:300]}"
        for (tool, target), text in reads.items():
            if target.endswith(f"memories/{agent}.jsonl"):
                continue
            assert f"GEHEIM-{other}" not in text and '"studio"' not in text, (agent, tool, target, text[:300])
            if tool in ("Glob", "Grep"):  # not among a character's tools (with Bash Claude Code offers neither)
                assert "memories/" not in text and "No such tool" in text, (agent, tool, target, text[:300])
            else:
                assert "may read only its own prompt and memories" in text, (agent, tool, target, text[:300])
        assert {tool for tool, _ in reads} == {"Read", "Grep", "Glob"}, reads.keys()


@pytest.mark.parametrize("version", VERSIONS)
def test_a_character_looks_up_its_own_memory_and_runs_no_other_command(tmp_path, unshare, version):
    """Each character's first step is ``gamemaster lookup "…"`` and ``cat`` of the other's stream:
    the lookup answers from its own memory with what its prompt did not show (an old secret its
    small memory budget left out), kept with the scene; the ``cat`` is refused with the reason and
    nothing of the other's mind reaches it. The scene plays all the same."""
    claude = _install(version)
    workspace = _two_characters(tmp_path)
    for agent in ("emre", "vera"):  # an old secret, then enough newer notes that the prompt leaves it out
        rows = [{"id": f"{agent}-{n + 1:03d}", "created": "day-000/scene-00", "type": "observation",
                 "description": (f"GEHEIM-{agent}: nur {agent} weiß, was im Keller steht." if n == 0 else
                                 f"Notiz {n} von {agent}: Regal {n} im Lager gezählt."),
                 "importance": 3, "tags": [], "evidence": [], "metadata": {}} for n in range(60)]
        (workspace.memories_dir / f"{agent}.jsonl").write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    world = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    workspace.world_path.write_text(json.dumps({**world, "memory_budget": 1000}, ensure_ascii=False), encoding="utf-8")
    before = _memory_counts(workspace)
    result = _run_claude(tmp_path, unshare, claude, workspace, inside_args=("--look-up",))
    _assert_played(workspace, result, before, scenes=1)
    [scene] = workspace.scenes.glob("day-*/scene-*")
    ran = _character_commands(result)
    for agent, other in (("emre", "vera"), ("vera", "emre")):
        [prompt] = scene.glob(f"prompts/*{agent}.md")
        assert f"GEHEIM-{agent}" not in prompt.read_text(encoding="utf-8")  # the prompt left it out …
        found = ran[agent]['gamemaster lookup "GEHEIM was weiß nur ich"']
        assert f"GEHEIM-{agent}: nur {agent} weiß" in found, found[:300]  # … the lookup found it
        assert f"GEHEIM-{other}" not in found
        [record] = scene.glob(f"lookups/*{agent}.json")
        [entry] = json.loads(record.read_text(encoding="utf-8"))["lookups"]
        assert entry["query"] == "GEHEIM was weiß nur ich" and f"{agent}-001" in entry["memories"]
        refused = ran[agent][f"cat state/memories/{other}.jsonl"]
        assert "may run only `gamemaster lookup" in refused and f"GEHEIM-{other}" not in refused, refused[:300]


def _character_tool_results(result: dict):
    """(character, tool use, what Claude Code handed back as its result) for every tool a character used."""
    for request in (r for r in result["requests"] if r.get("kind") == "character"):
        messages = request["body"]["messages"]
        found = re.search(r'Antworte mit `\\?"agent\\?": \\?"([a-z_]+)', json.dumps(messages, ensure_ascii=False))
        if not found:
            continue
        uses = {b["id"]: b for m in messages if m["role"] == "assistant" and isinstance(m["content"], list)
                for b in m["content"] if b.get("type") == "tool_use"}
        for m in messages:
            for b in m["content"] if m["role"] == "user" and isinstance(m["content"], list) else []:
                if b.get("type") == "tool_result" and b.get("tool_use_id") in uses:
                    yield found.group(1), uses[b["tool_use_id"]], json.dumps(b.get("content"), ensure_ascii=False)


def _character_commands(result: dict) -> dict[str, dict[str, str]]:
    """Per character: each Bash command as it wrote it → what Claude Code handed back."""
    out: dict[str, dict[str, str]] = {}
    for agent, use, text in _character_tool_results(result):
        if use["name"] == "Bash":
            out.setdefault(agent, {})[use["input"]["command"]] = text
    return out


def _character_reads(result: dict) -> dict[str, dict[tuple[str, str], str]]:
    """Per character: (tool, what it named) → what Claude Code handed back, for its Read, Grep, Glob."""
    out: dict[str, dict[tuple[str, str], str]] = {}
    for agent, use, text in _character_tool_results(result):
        if use["name"] != "Bash":
            named = use["input"].get("file_path") or use["input"].get("path") or use["input"].get("pattern")
            out.setdefault(agent, {})[(use["name"], named)] = text
    return out


@pytest.mark.parametrize("version", VERSIONS)
def test_the_plugin_installed_with_claude_codes_own_commands(tmp_path, unshare, version):
    """docs/how-to/claude-code.md's way in for good, as written, with the real CLI and no network:
    the installed toolkit's folder as a local marketplace, the plugin installed for the project."""
    import shlex

    from gamemaster.claude_plugin import plugin_dir

    claude = _install(version)
    workspace = _two_characters(tmp_path, plugin=True)
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    page = (REPO / "docs/how-to/claude-code.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- tested: marketplace -->\n```bash\n(.*?)```", page, re.S).group(1)
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1"}
    for line in block.strip().splitlines():
        words = shlex.split(line.split("  #")[0].replace('"$(gamemaster plugin path)"', shlex.quote(str(plugin_dir()))))
        assert words[0] == "claude", line
        done = subprocess.run([*unshare, str(claude), *words[1:]], cwd=workspace.root, env=env, capture_output=True,
                              text=True, timeout=300, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, f"{line}\n{_tail(done.stdout)}\n{_tail(done.stderr)}"
    installed = json.loads((home / ".claude/plugins/installed_plugins.json").read_text(encoding="utf-8"))
    (entry,) = installed["plugins"]["gamemaster@gamemaster"]
    assert (entry["scope"], entry["projectPath"]) == ("project", str(workspace.root))
    assert (Path(entry["installPath"]) / "skills" / "scene" / "SKILL.md").is_file()
    settings = json.loads((workspace.root / ".claude/settings.json").read_text(encoding="utf-8"))
    assert settings["enabledPlugins"]["gamemaster@gamemaster"] is True
