"""The command blocks of the how-to and reference pages, run as a user types them: in the folder
the block's ``cd`` leads to (no ``--root``), with ``&&``, ``echo … |`` and ``$(…)`` as the shell
does them. Lines for another program (``pip``, ``claude``) are named by each test, so a block
never grows a line nobody runs. The Claude backends answer through the real SDK: the Messages
API as an in-process mock, Claude Code as the fake ``claude`` (``fake_claude.py``)."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import httpx2
import pytest
from typer.testing import CliRunner

from gamemaster.cli import app
from e2e.fake_character import reply_for
from test_anthropic_backend import FakeAPI, message_body
from test_anthropic_loop import USAGE
from test_docs import block_of

FIXTURES = Path(__file__).parent / "fixtures"


class Shell:
    """Runs a block line by line; ``outside`` are the first words of lines another program runs."""

    def __init__(self, monkeypatch, cwd: Path, home: Path, outside: tuple[str, ...] = (), env: dict | None = None,
                 placeholders: dict | None = None):
        self.monkeypatch, self.cwd, self.home = monkeypatch, cwd, home
        self.outside, self.env, self.placeholders = outside, env or {}, placeholders or {}
        self.skipped: list[str] = []
        self.results: list = []

    def run(self, block: str) -> list:
        for line in block.strip().splitlines():
            for command in line.split("  #")[0].strip().split(" && "):
                self._one(command.strip())
        return self.results

    def _one(self, command: str) -> None:
        stdin = None
        piped = re.fullmatch(r"echo '(.*)' \| (gamemaster .*)", command)
        if piped:
            stdin, command = piped.group(1), piped.group(2)
            for placeholder, value in self.placeholders.items():
                stdin = stdin.replace(placeholder, value)
        command = re.sub(r"\$\((gamemaster [^)]*)\)", lambda m: shlex.quote(self._gamemaster(m.group(1)).stdout.strip()),
                         command.replace("~", str(self.home)))
        words = shlex.split(command)
        if words[0] == "cd":
            self.cwd = (self.cwd / words[1]).resolve()
        elif words[0] == "export":
            name, _, value = words[1].partition("=")
            self.monkeypatch.setenv(name, self.env.get(name, value))
        elif words[0] == "gamemaster":
            self.results.append(self._gamemaster(command, stdin))
        else:
            assert words[0] in self.outside, f"a line no test runs: {command}"
            self.skipped.append(command)

    def _gamemaster(self, command: str, stdin: str | None = None):
        self.cwd.mkdir(parents=True, exist_ok=True)
        self.monkeypatch.chdir(self.cwd)
        result = CliRunner().invoke(app, shlex.split(command)[1:], input=stdin)
        assert result.exit_code == 0, f"{command}\n{result.output}"
        return result


def _fresh(tmp_path: Path) -> Path:
    CliRunner().invoke(app, ["init", str(tmp_path / "studio")])
    return tmp_path / "studio"


def _character(request, call, number) -> httpx2.Response:
    """A Messages API whose characters answer every scene validly from the prompt text alone."""
    system = "\n".join(block["text"] for block in call.body.get("system") or [])
    asked = "\n".join(m["content"] if isinstance(m["content"], str) else
                      "\n".join(b.get("text", "") for b in m["content"]) for m in call.body["messages"])
    reply = reply_for(system + "\n" + asked)
    assert reply is not None, asked[:300]
    return httpx2.Response(200, json=message_body(json.dumps(reply, ensure_ascii=False), call.body["model"], USAGE))


def _through_mock(monkeypatch) -> FakeAPI:
    """``anthropic.Anthropic`` as the backend builds it, talking to an in-process Messages API."""
    import anthropic

    api = FakeAPI(_character)
    real = anthropic.Anthropic
    monkeypatch.setattr(anthropic, "Anthropic",
                        lambda **kwargs: real(**kwargs, http_client=httpx2.Client(transport=httpx2.MockTransport(api))))
    return api


def _play(fake: Path) -> None:
    """The fake ``claude`` answers every scene as a character would, from its prompt."""
    (fake / "mode").write_text("play", encoding="utf-8")


def _stream(root: Path, agent: str) -> list[dict]:
    return [json.loads(line) for line in (root / f"state/memories/{agent}.jsonl").read_text(encoding="utf-8").splitlines()]


def test_who_knows_names_who_heard_it_from_whom(tmp_path, monkeypatch):
    root = _fresh(tmp_path)
    shell = Shell(monkeypatch, root, tmp_path)
    said = "Der Verlag hat den Quittenbaum im Innenhof verkauft, morgen wird er gefällt."
    shell.run("gamemaster scene run")  # the day's ARRIVAL
    opened = shell.run("gamemaster next --type ENCOUNTER --with vera,darius --topic Innenhof --json")[-1]
    reply = {"agent": "vera", "scene": json.loads(opened.stdout)["ref"], "action": "Vera lehnt am Fenster.",
             "says": said,
             "conversation": {"summary": "Ich habe Darius erzählt, dass der Quittenbaum im Innenhof gefällt wird.",
                              "importance": 5, "tags": ["innenhof"]}}
    shell._gamemaster("gamemaster reply vera -", json.dumps(reply, ensure_ascii=False))
    shell.run("gamemaster scene run")
    table, listed = (r.stdout for r in shell.run(block_of("explanation/memory.md", "who-knows"))[-2:])
    knowing = {c["agent"]: c for c in json.loads(listed)["characters"] if c["knows"]}
    assert set(knowing) == {"vera", "darius"}
    assert knowing["darius"]["from"] == "vera" and knowing["vera"]["from"] == "self"
    assert "2 of 7 characters know it" in table


def test_a_day_on_the_api_and_its_cost(tmp_path, monkeypatch):
    root = _fresh(tmp_path)
    api = _through_mock(monkeypatch)
    shell = Shell(monkeypatch, root, tmp_path, env={"ANTHROPIC_API_KEY": "sk-test"})
    advanced, cost = shell.run(block_of("how-to/backends.md", "anthropic"))
    assert "offline backend" not in advanced.output and len(api.calls) >= 7
    assert f"API cost so far: $0.22 over {len(api.calls)} calls" in advanced.output  # the day summary
    assert re.search(rf"│ total +│ {len(api.calls)} +│ [\d,]+ +│ [\d,]+ +│ 0 +│ 0 +│ 0\.2232 │", cost.output)
    assert "E2E-Notiz von vera zu day-001/scene-01: die Knochentürme wachsen nur nachts." in \
        {m["description"] for m in _stream(root, "vera")}  # what the API answered


def test_a_day_on_a_claude_subscription(tmp_path, monkeypatch, fake):
    root = _fresh(tmp_path)
    _play(fake)
    shell = Shell(monkeypatch, root, tmp_path, outside=("pip", "claude"))
    advanced, cost = shell.run(block_of("how-to/backends.md", "claude-code"))
    assert shell.skipped == ['pip install -e ".[claude-code]"', "claude"]
    assert "characters are played by Claude Code" in " ".join(advanced.output.split())
    assert "E2E-Notiz von vera zu day-001/scene-01: die Knochentürme wachsen nur nachts." in \
        {m["description"] for m in _stream(root, "vera")}  # what Claude Code answered
    calls = len(list((fake / "calls").glob("*.json")))  # each answer, as Claude Code reported it
    assert re.search(rf"│ total +│ {calls} +│ [\d,]+ +│ [\d,]+ +│ 0 +│ {300 * calls:,} +│", cost.output), cost.output


def _studio_files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for folder in ("state/memories", "state/agents", "gallery")
            for p in sorted((root / folder).rglob("*")) if p.is_file()}


def test_a_recorded_day_is_replayed_in_a_fresh_studio(tmp_path, monkeypatch, fake):
    root = _fresh(tmp_path)
    api = _through_mock(monkeypatch)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    _play(fake)
    shell = Shell(monkeypatch, root, tmp_path)
    shell.run(block_of("how-to/record-and-replay.md", "record"))
    tuesday = root / "recordings/tuesday"
    day_one = sorted(p.relative_to(tuesday).parts[1] for p in tuesday.glob("day-001/scene-*"))
    assert len(day_one) >= 8 and list(tuesday.glob("day-002/scene-01/*-*.1.json"))  # the API's day, Claude Code's scene
    asked = len(api.calls)

    monkeypatch.delenv("ANTHROPIC_API_KEY")  # from here on offline: no key
    shell.run(block_of("how-to/record-and-replay.md", "record-claude"))
    shell.run("gamemaster scene run")  # recorded by the world setting
    assert list((root / "recordings/claude").glob("day-002/scene-02/*-*.1.json"))

    shell.cwd = tmp_path  # beside the studio, as the block's ../studio says
    shell.run(block_of("how-to/record-and-replay.md", "replay"))
    fresh = tmp_path / "fresh"
    assert len(api.calls) == asked  # nothing was sent anywhere
    for name, content in _studio_files(fresh).items():
        if name.startswith("state/memories/"):
            lines = content.decode("utf-8").splitlines()
            assert (root / name).read_text(encoding="utf-8").splitlines()[:len(lines)] == lines, name
    assert len(list((fresh / "scenes/day-001").glob("scene-*"))) == len(day_one)


def test_an_own_studio_is_imported_and_played_on(tmp_path, monkeypatch):
    (tmp_path / "studios").mkdir()
    shutil.copytree(FIXTURES / "drifted_studio", tmp_path / "studios" / "moorlicht")
    shell = Shell(monkeypatch, tmp_path, tmp_path)
    imported, validated, advanced = shell.run(block_of("how-to/own-studio.md", "import"))
    root = tmp_path / "moorlicht-workspace"
    assert "0 error(s)" in validated.output
    agents = sorted(p.stem for p in (root / "state/agents").glob("*.json"))
    assert agents == sorted(p.stem for p in (tmp_path / "studios/moorlicht/state/agents").glob("*.json"))
    played = {m.get("created", "")[:7] for agent in agents for m in _stream(root, agent)}
    world = json.loads((root / "state/world.json").read_text(encoding="utf-8"))
    assert f"day-{world['day']:03d}" in played and (root / ".claude/agents" / f"character-{agents[0]}.md").is_file()


def test_a_meetings_turns_by_hand(tmp_path, monkeypatch):
    root = _fresh(tmp_path)
    shell = Shell(monkeypatch, root, tmp_path)
    shell.run("gamemaster scene run")  # the day's ARRIVAL
    ref = json.loads(shell.run("gamemaster next --type MEETING --with vera,emre --topic Knochentürme --json")[-1].stdout)["ref"]
    turn = {"agent": "vera", "scene": ref, "action": "Vera legt die Skizzen hin.",
            "says": "Die Türme sollen nachts wachsen, nicht am Tag."}
    shell.placeholders = {"{...}": json.dumps(turn, ensure_ascii=False)[1:-1].join("{}")}
    vera, stored, emre = shell.run(block_of("reference/replies.md", "turns"))[-3:]
    assert "Antworte mit `\"agent\": \"vera\"`" in vera.stdout
    assert "Die Türme sollen nachts wachsen, nicht am Tag." in emre.stdout  # turn 2 sees what Vera said
    stream = _stream(root, "vera")
    again = CliRunner().invoke(app, ["apply", "--replies", "-"], input=json.dumps({"vera": turn}))
    assert again.exit_code == 0, again.output  # a command repeated after an interruption is no error
    assert "next: gamemaster prompt emre" in again.output and _stream(root, "vera") == stream
    changed = CliRunner().invoke(app, ["apply", "--replies", "-"], input=json.dumps({"vera": {**turn, "says": "Anders."}}))
    assert changed.exit_code == 1 and "vera: 1 reply(s) more than the scene can take now" in changed.output
    waiting = json.loads(CliRunner().invoke(app, ["status", "--json"]).stdout)["pending"]
    assert waiting["replied"] == ["01-vera"] and waiting["waiting"][0] == "02-emre"
    # Round 2: a turn repeated from there on is taken as stored as well; a list that repeats the
    # first turn and then differs from the stored second is two answers for one turn.
    emre_turn = {"agent": "emre", "scene": ref, "action": "Emre nickt.", "says": "Nachts, ja. Dann hören wir sie knacken."}
    vera_again = {**turn, "says": "Und tagsüber ruhen sie.",
                  "conversation": {"summary": "Emre und ich sind uns einig: Die Türme wachsen nachts.", "importance": 5,
                                   "tags": ["bone-towers"]}}
    for given in ({"emre": emre_turn}, {"vera": vera_again}, {"vera": vera_again}):
        done = CliRunner().invoke(app, ["apply", "--replies", "-"], input=json.dumps(given))
        assert done.exit_code == 0, done.output
    twice = CliRunner().invoke(app, ["apply", "--replies", "-"], input=json.dumps({"vera": [turn, {**turn, "says": "Anders."}]}))
    assert twice.exit_code == 1 and "vera: the reply given for its stored turn 2 differs from the one stored" in twice.output
    waiting = json.loads(CliRunner().invoke(app, ["status", "--json"]).stdout)["pending"]
    assert waiting["replied"] == ["01-vera", "02-emre", "03-vera"] and waiting["waiting"] == ["04-emre"]


def test_the_report_opens_in_the_browser(tmp_path, monkeypatch):
    import webbrowser

    root = _fresh(tmp_path)
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url: opened.append(url) or True)
    Shell(monkeypatch, root, tmp_path).run("gamemaster scene run")
    (reported,) = Shell(monkeypatch, root, tmp_path).run(block_of("how-to/report.md", "open"))
    index = root / "report" / "index.html"
    assert reported.stdout.strip().splitlines()[-1] == str(index) and opened == [index.as_uri()]
    assert "Vera" in index.read_text(encoding="utf-8")


def test_a_plugin_workspace_and_the_plugin_folder(tmp_path, monkeypatch):
    shell = Shell(monkeypatch, tmp_path, tmp_path, outside=("claude",))
    shell.run(block_of("how-to/claude-code.md", "plugin-dir"))
    (line,) = shell.skipped  # the session itself: tests/e2e/test_claude_code_e2e.py runs it with the real claude
    plugin = Path(shlex.split(line)[2])
    assert (plugin / ".claude-plugin" / "plugin.json").is_file() and shell.cwd == tmp_path / "my-studio"
    settings = json.loads((shell.cwd / ".claude/settings.json").read_text(encoding="utf-8"))
    assert settings["enabledPlugins"] == {"gamemaster@gamemaster": True}
    assert not (shell.cwd / ".mcp.json").exists() and not (shell.cwd / ".claude/commands").exists()


def test_the_tutorials_first_day_in_the_checkout_and_back(tmp_path, monkeypatch):
    """The tutorial's first day is played in a clone of the project; its restore line brings the
    studio back to its start."""
    import subprocess

    repo = Path(__file__).parent.parent
    clone = tmp_path / "gamemaster"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    before = {p: p.read_bytes() for p in sorted(clone.glob("state/*/*")) if p.is_file()}
    shell = Shell(monkeypatch, clone, tmp_path, outside=("python3", ".", "pip"))
    shell.run(block_of("tutorial.md", "install"))
    assert shell.skipped == ["python3 -m venv .venv", ". .venv/bin/activate", "pip install -e ."]
    (played,) = shell.run(block_of("tutorial.md", "first-day"))
    assert "why:" in played.output and (clone / "scenes/day-001/summary.md").is_file()
    assert {p: p.read_bytes() for p in before} != before
    restore = re.search(r"`(git checkout -- state && git clean -fd state gallery scenes)`",
                        (Path(__file__).parent.parent / "docs/tutorial.md").read_text(encoding="utf-8")).group(1)
    readme = re.search(r"`(git checkout -- state[^`]*)`", (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8"))
    assert " ".join(readme.group(1).split()) == restore
    subprocess.run(restore, shell=True, cwd=clone, check=True, capture_output=True)
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=clone,
                            capture_output=True, text=True, check=True).stdout
    assert status == "" and not (clone / "scenes/day-001").exists()  # the derived index in state/.cache is ignored
