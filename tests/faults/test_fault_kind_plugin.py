"""A scene kind from another package is a complete plug-in: its module and its template, found
through the ``gamemaster.kinds`` entry point, and nothing else edited.

The package is written to a temporary folder with its ``.dist-info`` (which is what installing it
leaves), put on PYTHONPATH, and every command runs in its own process as a user's would. This is
what docs/how-to/scene-kind.md ("Add a scene kind") describes, step for step.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import gamemaster
from faultkit import assert_no_traceback, env, installed_package, run, show

KIND_MODULE = '''
"""LUNCH: two to four characters eat together, one turn each, and keep the talk as a memory."""

from typing import Annotated

from pydantic import Field

from gamemaster.kinds import KindSettings, SceneKind
from gamemaster.kinds.conversation import conversation_problems, remember_conversation
from gamemaster.kinds.settings import settings_of
from gamemaster.models import at_most
from gamemaster.reply_models import Reply


class LunchReply(Reply):
    dish: str = Field("", max_length=80, description="What the character eats.")


class LunchSettings(KindSettings):
    courses: Annotated[int, Field(ge=1, description="courses at one lunch: each speaks once a course"),
                       at_most(5, "each course is one more turn for everyone at the table")] = 1


class Lunch(SceneKind):
    name = "LUNCH"
    acting = True
    in_sequence = True
    min_participants = 2
    max_participants = 4
    allows = frozenset({"conversation"})
    reply_model = LunchReply
    settings = LunchSettings
    colour = "#c05621"
    contract_rules = {"de": {"conversation": "eines LUNCH"}, "en": {"conversation": "of a LUNCH"}}
    contract_lines = {"de": ["- `dish` (nur LUNCH): was du isst"], "en": ["- `dish` (LUNCH only): what you eat"]}
    final_turn = {"de": "Das ist dein letzter Beitrag beim Mittagessen: fasse es im Feld `conversation` zusammen.",
                  "en": "This is your last turn at lunch: summarise it in `conversation`."}

    def rounds(self, world):
        return settings_of(world, self.name).courses

    def turns(self, spec):
        return [agent for _ in range(spec.rounds) for agent in spec.participants]

    def check(self, reply, ctx):
        return conversation_problems(self.name, reply, ctx)

    def write_back(self, scene):
        remember_conversation(scene)


KIND = Lunch()
'''

TEMPLATE = """\
## Deine Aufgabe: Mittagessen ($scene_ref, $weekday, Tag $day)

Du sitzt beim Mittagessen mit: $present.
Thema: $topic

$transcript

$final_turn
"""


@pytest.fixture
def lunch_package(tmp_path, monkeypatch) -> Path:
    """A package ``lunch_kind`` that adds LUNCH through the entry point, as if installed."""
    site = tmp_path / "site"
    installed_package(site, "lunch_kind", {"__init__.py": textwrap.dedent(KIND_MODULE), "lunch.md": TEMPLATE},
                      "[gamemaster.kinds]\nlunch = lunch_kind\n")
    monkeypatch.setenv("PYTHONPATH", str(site))
    monkeypatch.setenv("COLUMNS", "250")  # each --help line whole
    return site


def ok(proc):
    assert proc.returncode == 0, show(proc)
    assert_no_traceback(proc)
    return proc


def test_a_kind_from_another_package_is_everywhere_a_kind_is_named(lunch_package, tmp_path):
    root = tmp_path / "ws"
    ok(run(tmp_path, "init", str(root)))

    # The Game Master's files name it among the kinds that run one turn after another.
    claude = (root / "CLAUDE.md").read_text(encoding="utf-8")
    assert "<!--kinds:in-sequence-->MEETING, ENCOUNTER, GATHERING, LUNCH<!--/kinds-->" in claude
    assert "ENCOUNTER, EVENT, GATHERING, LUNCH<!--/kinds-->" in claude
    command = (root / ".claude/commands/scene.md").read_text(encoding="utf-8")
    assert "<!--kinds:in-sequence-->MEETING, ENCOUNTER, GATHERING, LUNCH<!--/kinds-->" in command
    assert "<!--kinds:side-by-side-->ARRIVAL, WORK, REFLECTION, EVENT<!--/kinds-->" in command
    skill = subprocess.run([sys.executable, "-c", "import sys; from gamemaster.claude_plugin import rendered; "
                            "sys.stdout.buffer.write(rendered()['skills/scene/SKILL.md'])"],
                           capture_output=True, text=True, env=env())
    assert "<!--kinds:in-sequence-->MEETING, ENCOUNTER, GATHERING, LUNCH<!--/kinds-->" in skill.stdout, skill.stderr

    # --help and the schema.
    for args in (("next", "--help"), ("scene", "run", "--help"), ("schema", "--help")):
        assert "EVENT, GATHERING, LUNCH." in ok(run(root, *args)).stdout, args
    schema = json.loads(ok(run(root, "schema", "--type", "lunch")).stdout)
    assert schema["properties"]["dish"]["description"] == "What the character eats."
    assert "dish" not in json.loads(ok(run(root, "schema", "--type", "work")).stdout)["properties"]

    # Its prompts: its template, the contract naming it where it allows a section, its own line.
    ok(run(root, "day", "advance"))
    opened = json.loads(ok(run(root, "next", "--type", "lunch", "--with", "vera,emre", "--json")).stdout)
    assert opened["type"] == "LUNCH" and opened["in_sequence"] is True
    first = ok(run(root, "prompt", "vera")).stdout
    assert "## Deine Aufgabe: Mittagessen" in first
    assert "`conversation` (nur im letzten Beitrag eines MEETING, einer ENCOUNTER oder eines LUNCH)" in first
    assert "- `dish` (nur LUNCH): was du isst" in first
    assert "beim Mittagessen: fasse es im Feld `conversation`" in first  # one turn each: every turn is the last

    # The offline player has no composer for it: it answers with a valid reply, no traceback.
    ok(run(root, "scene", "run"))
    lunches = [json.loads(p.read_text(encoding="utf-8")) for p in root.glob("scenes/day-*/scene-*/scene.json")]
    lunch = next(r for r in lunches if r["type"] == "LUNCH")
    assert lunch["status"] == "applied" and lunch["participants"] == ["vera", "emre"], lunch
    memories = [json.loads(line) for line in (root / "state/memories/vera.jsonl").read_text(encoding="utf-8").splitlines()]
    talk = [m for m in memories if m.get("created") == lunch["ref"] and m["type"] == "conversation"]
    assert [m["description"] for m in talk] == ["Wir waren zusammen bei LUNCH."]
    assert talk[0]["metadata"]["with"] == ["emre"]
    assert ok(run(root, "validate")).stdout

    # The report draws it in its colour.
    ok(run(root, "report"))
    css = (root / "report/assets/style.css").read_text(encoding="utf-8")
    assert "--lunch: #c05621;" in css and ".bar.t-lunch { fill: var(--lunch); }" in css
    day = (root / "report" / "days").glob("*.html")
    assert any("t-lunch" in p.read_text(encoding="utf-8") for p in day)


def test_a_kind_from_another_package_has_settings_of_its_own(lunch_package, tmp_path):
    root = tmp_path / "ws"
    ok(run(tmp_path, "init", str(root)))

    # Documented where the Game Master reads about settings, with default, bounds and meaning.
    claude = (root / "CLAUDE.md").read_text(encoding="utf-8")
    assert ("| `kinds.lunch.courses` | `1` | 1 to 5 (each course is one more turn for everyone at the table) | "
            "courses at one lunch: each speaks once a course |") in claude
    # In the world with its default, and checked like any setting.
    assert ok(run(root, "config", "kinds.lunch")).stdout == '{"courses": 1}\n'
    proc = run(root, "config", "kinds.lunch.courses", "9")
    assert proc.returncode == 1 and proc.stderr.splitlines() == [
        "error: kinds.lunch.courses: at most 5: each course is one more turn for everyone at the table"], show(proc)

    world = json.loads((root / "state/world.json").read_text(encoding="utf-8"))
    world["kinds"]["lunch"] = {"courses": 0}
    (root / "state/world.json").write_text(json.dumps(world), encoding="utf-8")
    proc = run(root, "validate")
    assert proc.returncode == 1, show(proc)
    assert "state/world.json: kinds.lunch.courses: Input should be greater than or equal to 1" in proc.stdout.splitlines()

    # And it is what the kind plays: two courses, each of the two speaks twice.
    world["kinds"]["lunch"]["courses"] = 2
    (root / "state/world.json").write_text(json.dumps(world), encoding="utf-8")
    ok(run(root, "day", "advance"))
    opened = json.loads(ok(run(root, "next", "--type", "lunch", "--with", "vera,emre", "--json")).stdout)
    assert opened["turns"] == ["vera", "emre", "vera", "emre"], opened


def test_a_kind_package_that_does_not_load_is_one_line_naming_it(lunch_package, tmp_path):
    root = tmp_path / "ws"
    ok(run(tmp_path, "init", str(root)))
    (lunch_package / "lunch_kind" / "__init__.py").write_text("import no_such_module\n", encoding="utf-8")
    assert ok(run(root, "status")).stdout  # what needs no kind still works
    # A built-in kind is found without the installed ones (it is never replaced by one).
    assert json.loads(ok(run(root, "schema", "--type", "work")).stdout)["title"] == "Reply"
    for args in (("next",), ("schema", "--type", "lunch"), ("scene", "run")):
        proc = run(root, *args)
        assert_no_traceback(proc)
        assert proc.returncode == 1, show(proc)
        assert proc.stderr.splitlines() == [
            "error: scene kind 'lunch' (entry point lunch_kind) does not load: "
            "ModuleNotFoundError: No module named 'no_such_module'"], show(proc)


def copied_toolkit(site: Path, tmp_path: Path) -> Path:
    """A copy of the toolkit beside the kind's package, which the commands run from ``tmp_path``
    import: the plugin folder they write is the copy's, never the checkout's."""
    shutil.copytree(Path(gamemaster.__file__).parent, site / "gamemaster", ignore=shutil.ignore_patterns("__pycache__"))
    imported = subprocess.run([sys.executable, "-c", "import gamemaster; print(gamemaster.__file__)"], cwd=tmp_path,
                              env=env(), capture_output=True, text=True).stdout.strip()
    assert imported == str(site / "gamemaster" / "__init__.py")
    return site / "gamemaster" / "plugin"


def test_the_plugin_path_brings_the_skills_up_to_date_with_the_installed_kinds(lunch_package, tmp_path):
    plugin = copied_toolkit(lunch_package, tmp_path)
    skill = plugin / "skills" / "scene" / "SKILL.md"
    assert "LUNCH" not in skill.read_text(encoding="utf-8")  # as shipped: the built-in kinds
    shown = ok(run(tmp_path, "plugin", "path", cwd=tmp_path))
    assert shown.stdout.strip() == str(plugin) and shown.stderr == ""
    assert "<!--kinds:in-sequence-->MEETING, ENCOUNTER, GATHERING, LUNCH<!--/kinds-->" in skill.read_text(encoding="utf-8")
    written = skill.stat().st_mtime_ns
    ok(run(tmp_path, "plugin", "path", cwd=tmp_path))
    assert skill.stat().st_mtime_ns == written  # current: nothing written again


def test_a_plugin_folder_that_cannot_be_written_is_one_warning_and_the_path(lunch_package, tmp_path):
    plugin = copied_toolkit(lunch_package, tmp_path)
    skill = plugin / "skills" / "scene" / "SKILL.md"
    skill.unlink()
    skill.mkdir()  # in the way of the file, for any user (a read-only folder is not, for root)
    shown = ok(run(tmp_path, "plugin", "path", cwd=tmp_path))
    assert shown.stdout.strip() == str(plugin)
    assert shown.stderr.splitlines() == [f"warning: {plugin}: its skills list the kinds as shipped, not those "
                                         "installed since (Is a directory)"], show(shown)
