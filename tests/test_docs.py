"""The README and the documentation site: the examples run as written and the site builds
without a warning (a broken link or a missing heading anchor fails it), so the docs never go stale."""

from __future__ import annotations

import html
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gamemaster.cli import app
from gamemaster.replies import check_reply, parse_reply
from gamemaster.scenes import SceneSpec, SceneType

REPO = Path(__file__).parent.parent
README = (REPO / "README.md").read_text(encoding="utf-8")
DOCS = REPO / "docs"


def block_of(page: str, name: str) -> str:
    text = (DOCS / page).read_text(encoding="utf-8")
    match = re.search(rf"<!-- tested: {name} -->\n```\w+\n(.*?)```", text, re.S)
    assert match, f"docs/{page} has no tested block {name!r}"
    return match.group(1)


def _run_block(block: str, root: Path | None, home: Path) -> tuple[Path | None, list]:
    """Each line of a tested block as the CLI runs it (``cd`` changes the workspace)."""
    runner = CliRunner()
    results = []
    for line in block.strip().splitlines():
        words = shlex.split(line.split("  #")[0].replace("~", str(home)))
        if words[0] == "cd":
            root = Path(words[1])
            continue
        assert words[0] == "gamemaster", line
        args = words[1:] if words[1] == "init" else ["--root", str(root), *words[1:]]
        result = runner.invoke(app, args)
        assert result.exit_code == 0, f"{line}\n{result.output}"
        results.append(result)
    return root, results


def test_the_readme_is_short_and_its_quick_start_is_what_ci_runs():
    assert len(README.encode("utf-8")) <= 15_000
    ci = (REPO / ".ci/run").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)```", README.split("## Quick start")[1], re.S)
    assert "pip install -e .\ngamemaster day advance" in blocks[0]
    tests = re.findall(r"```bash\n(.*?)```", README.split("## Tests")[1], re.S)
    assert tests[0].strip() == 'pip install -e ".[test]"\npytest' == block_of("how-to/tests.md", "suite").strip()
    assert 'pip install -e ".[test]"' in ci and "\npytest" in ci
    assert "python3 -m venv .venv" in ci and "python3 -m venv .venv" in blocks[0]


def test_the_readmes_look_around_commands_run(workspace):
    block = re.findall(r"```bash\n(.*?)```", README.split("## Quick start")[1], re.S)[1]
    _, results = _run_block(f"cd {workspace.root}\n{block}", None, workspace.root)
    assert "vera-" in results[1].output and results[2].output.strip().endswith("index.html")


def test_the_tutorials_first_week_runs(tmp_path):
    root, walked = _run_block(block_of("tutorial.md", "walkthrough"), None, tmp_path)
    assert "0 error(s)" in walked[-1].output
    assert json.loads((root / "state/world.json").read_text(encoding="utf-8"))["day"] >= 2
    root, week = _run_block(block_of("tutorial.md", "week"), root, tmp_path)
    world = json.loads((root / "state/world.json").read_text(encoding="utf-8"))
    assert world["day"] >= 5
    recall, knows, ask, report, cost = (r.output for r in week[1:])
    assert "vera-" in recall and "Biologie" in knows
    # What the tutorial says the week shows: Emre got the brief, and it travelled from him.
    who = json.loads(CliRunner().invoke(app, ["--root", str(root), "who-knows", "Biologie", "--json"]).stdout)
    knowing = {c["agent"]: c for c in who["characters"] if c["knows"]}
    assert knowing["emre"]["from"] == "self" and any(c["from"] == "emre" for c in knowing.values())
    assert ask.strip() and Path(report.strip().splitlines()[-1]).is_file()
    assert "no API calls recorded (the offline backend costs nothing)" in cost


def test_recall_examples_run_on_a_fresh_workspace(tmp_path):
    from gamemaster.create import init_workspace

    root = init_workspace(tmp_path / "studio").root
    _, results = _run_block(f"cd {root}\n" + block_of("explanation/memory.md", "recall"), None, tmp_path)
    outputs = [r.stdout for r in results]
    recalled = json.loads(outputs[1])
    assert any("knochentürme" in m["matched"] for m in recalled["memories"])
    assert "rests on: vera-" in outputs[2]
    last = json.loads((root / "state/memories/vera.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    assert last["metadata"]["source"] == "interview"


def test_reply_example_is_a_valid_work_reply():
    spec = SceneSpec(type=SceneType.WORK, day=1, scene=2, participants=["vera", "emre"], reason="example")
    reply = parse_reply(block_of("reference/replies.md", "reply"), "vera")
    check_reply(reply, agent="vera", spec=spec, roster=["vera", "emre"], evidence_exists=lambda ids: [])
    assert reply.artifacts[0].kind == "concepts"


def test_every_command_in_the_command_table_exists():
    table = (DOCS / "reference/commands.md").read_text(encoding="utf-8")
    commands = re.findall(r"^\| `gamemaster ([a-z][a-z-]*(?: [a-z][a-z-]*)?)", table, re.M)
    assert len(commands) == 28
    runner = CliRunner()
    for command in commands:
        result = runner.invoke(app, [*command.split(), "--help"])
        assert result.exit_code == 0, command
        for option in re.findall(r"--[a-z]+", table.split(f"`gamemaster {command}")[1].split("\n")[0]):
            assert option in result.output, f"{command} {option}"


def test_the_site_builds_without_a_warning_with_the_reference_written_from_the_code(tmp_path):
    pytest.importorskip("sphinx", reason="the [docs] extra (sphinx, myst-parser, furo) is part of [test]")
    built = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                            str(DOCS), str(tmp_path / "site")], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    def text(page: str) -> str:
        return html.unescape(re.sub(r"<[^>]+>", "", (tmp_path / "site" / page).read_text(encoding="utf-8")))

    cli = text("reference/cli.html")
    for command in ("who-knows", "day advance", "agents sync", "hook pre-tool-use"):
        assert f"gamemaster {command}" in cli, command
    assert "{kinds}" not in cli and "Force the scene type: ARRIVAL, WORK" in cli
    from gamemaster.kinds import all_kinds

    schemas = text("reference/schemas.html")
    assert all(f"gamemaster schema --type {kind}\n" in schemas for kind in all_kinds()) and "takeaways" in schemas
    assert "403,357" in text("changelog.html")


def test_every_page_of_the_site_is_in_its_table_of_contents():
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^([a-z][\w/-]*)$", index, re.M))
    pages = {str(p.relative_to(DOCS).with_suffix("")) for p in DOCS.rglob("*.md") if "_ext" not in p.parts}
    assert pages - {"index"} == listed


def test_every_setting_is_in_the_reference(workspace):
    """`gamemaster config` lists every setting world.json takes; the reference names each one."""
    listed = json.loads(CliRunner().invoke(app, ["--root", str(workspace.root), "config", "--json"]).stdout)

    def keys(prefix: str, value) -> list[str]:
        if isinstance(value, dict) and value:
            return [key for name, inner in value.items() for key in keys(f"{prefix}.{name}", inner)]
        return [prefix]

    reference = (DOCS / "reference/state-files.md").read_text(encoding="utf-8")
    settings = [key for name, value in listed.items() for key in keys(name, value)]
    assert len(settings) >= 30 and "kinds.meeting.rounds" in settings
    assert [key for key in settings if f"`{key}`" not in reference and f"`{key.split('.')[0]}`" not in reference] == []


def test_the_many_characters_how_to_runs(tmp_path):
    root, results = _run_block(block_of("how-to/many-characters.md", "many"), None, tmp_path)
    assert "0 error(s)" in results[-1].output
    for agent, team in (("mira", "welt"), ("olek", "klang")):
        assert json.loads((root / f"state/agents/{agent}.json").read_text(encoding="utf-8"))["team"] == team
        assert (root / f"state/memories/{agent}.jsonl").read_text(encoding="utf-8").count("\n") > 5
        assert (root / ".claude/agents" / f"character-{agent}.md").is_file()
    world = json.loads((root / "state/world.json").read_text(encoding="utf-8"))
    assert world["kinds"]["work"]["group_size"] == 4 and (root / "scenes/day-001/summary.md").is_file()


def test_every_command_block_on_the_site_runs_as_a_test():
    """A ```bash block is what a reader types; each one is named and run: here, in
    test_docs_blocks.py, for `claude` itself in tests/e2e, and the test suite's own block by CI
    (`.ci/run` runs the same two lines, checked above)."""
    untested = [f"{page.relative_to(DOCS)}:{page.read_text(encoding='utf-8')[:m.start()].count(chr(10)) + 1}"
                for page in sorted(DOCS.rglob("*.md"))
                for m in re.finditer(r"(<!-- tested: [\w-]+ -->\n)?```bash\n", page.read_text(encoding="utf-8"))
                if not m.group(1)]
    assert untested == []
    tests = "".join(p.read_text(encoding="utf-8") for p in (REPO / "tests").rglob("test_*.py"))
    names = {name for page in DOCS.rglob("*.md") for name in re.findall(r"<!-- tested: ([\w-]+) -->", page.read_text(encoding="utf-8"))}
    assert sorted(n for n in names if not re.search(rf'block_of\("[^"]+", "{n}"\)', tests)
                  and f"tested: {n} -->" not in tests) == []
