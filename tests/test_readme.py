"""The README's examples run as written, so the docs never go stale."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from typer.testing import CliRunner

from gamemaster.cli import app
from gamemaster.replies import check_reply, parse_reply
from gamemaster.scenes import SceneSpec, SceneType

README = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")


def readme_block(name: str) -> str:
    match = re.search(rf"<!-- tested: {name} -->\n```\w+\n(.*?)```", README, re.S)
    assert match, f"README has no tested block {name!r}"
    return match.group(1)


def test_quick_start_commands_are_what_ci_runs():
    ci = (Path(__file__).parent.parent / ".ci/run").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)```", README.split("## Quick start")[1], re.S)
    assert "pip install -e .\ngamemaster day advance" in blocks[0]
    assert blocks[1].strip() == 'pip install -e ".[test]"\npytest'
    assert 'pip install -e ".[test]"' in ci and "\npytest" in ci
    assert "python3 -m venv .venv" in ci and "python3 -m venv .venv" in blocks[0]


def test_walkthrough_runs(tmp_path):
    runner = CliRunner()
    root = None
    outputs = []
    for line in readme_block("walkthrough").strip().splitlines():
        words = shlex.split(line.replace("~", str(tmp_path)))
        if words[0] == "cd":
            root = Path(words[1])
            continue
        assert words[0] == "gamemaster"
        args = words[1:] if words[1] == "init" else ["--root", str(root), *words[1:]]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, f"{line}\n{result.output}"
        outputs.append(result.output)
    assert "0 error(s)" in outputs[-1]
    world = json.loads((root / "state/world.json").read_text(encoding="utf-8"))
    assert world["day"] >= 2


def test_recall_examples_run_on_a_fresh_workspace(tmp_path):
    from gamemaster.create import init_workspace

    root = init_workspace(tmp_path / "studio").root
    runner = CliRunner()
    outputs = []
    for line in readme_block("recall").strip().splitlines():
        words = shlex.split(line.split("  #")[0])
        assert words[0] == "gamemaster"
        result = runner.invoke(app, ["--root", str(root), *words[1:]])
        assert result.exit_code == 0, f"{line}\n{result.output}"
        outputs.append(result.stdout)
    recalled = json.loads(outputs[1])
    assert any("knochentürme" in m["matched"] for m in recalled["memories"])
    assert "rests on: vera-" in outputs[2]
    last = json.loads((root / "state/memories/vera.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    assert last["metadata"]["source"] == "interview"


def test_reply_example_is_a_valid_work_reply():
    spec = SceneSpec(type=SceneType.WORK, day=1, scene=2, participants=["vera", "emre"], reason="example")
    reply = parse_reply(readme_block("reply"), "vera")
    check_reply(reply, agent="vera", spec=spec, roster=["vera", "emre"], evidence_exists=lambda ids: [])
    assert reply.artifacts[0].kind == "concepts"


def test_every_command_in_the_command_table_exists():
    table = README.split("## Command line")[1].split("## Run it in Claude Code")[0]
    commands = re.findall(r"^\| `gamemaster ([a-z][a-z-]*(?: [a-z][a-z-]*)?)", table, re.M)
    assert len(commands) == 27
    runner = CliRunner()
    for command in commands:
        result = runner.invoke(app, [*command.split(), "--help"])
        assert result.exit_code == 0, command
        for option in re.findall(r"--[a-z]+", table.split(f"`gamemaster {command}")[1].split("\n")[0]):
            assert option in result.output, f"{command} {option}"
