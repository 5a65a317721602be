"""A prompt section from another package is a complete plug-in: one module and its template
fragment, found through the ``gamemaster.sections`` entry point, and nothing else edited.

MOOD gathers what weighs on a character (its importance accumulator), shows it under a heading
of its own, adds a reply field ``mood`` with its line in the contract and its check, and writes
a mood that was given back as a memory. The package is written to a temporary folder with its
``.dist-info`` (what installing it leaves) and put on PYTHONPATH; every command runs in its own
process as a user's would. This is what docs/how-to/prompt-section.md describes, step for step.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from faultkit import assert_no_traceback, installed_package, run, show

SECTION_MODULE = '''
"""MOOD: how a character feels, asked in every scene and remembered when it says."""

from gamemaster.sections import PromptSection


class Mood(PromptSection):
    name = "mood"
    order = 200
    template = "mood.md"
    reply_fields = {"mood": (str, "")}
    contract_lines = {"de": ["- `mood` (optional): wie du dich gerade fühlst, in einem Wort"],
                      "en": ["- `mood` (optional): how you feel right now, in one word"]}

    def gather(self, turn):
        return turn.agent.importance_accumulator

    def values(self, weight, turn):
        return {"weight": str(weight), "mood_hint": "schwer" if weight > 40 else "leicht"}

    def request(self, weight, turn, prompt):
        return {}

    def offline(self, request):
        return {"mood": "ruhig"}

    def check(self, reply, ctx):
        return ["mood: one word, please"] if len(reply.mood.split()) > 1 else []

    def write_back(self, scene, agent_id, reply):
        if reply.mood:
            scene.remember(agent_id, type="observation", description=f"In {scene.spec.ref} war ich {reply.mood}.",
                           importance=2, tags=["mood"])


SECTION = Mood()
'''

FRAGMENT = """\
## Deine Stimmung, $name

Was dich beschäftigt, wiegt $weight ($mood_hint).
"""


@pytest.fixture
def mood_package(tmp_path, monkeypatch) -> Path:
    """A package ``mood_section`` that adds MOOD through the entry point, as if installed."""
    site = tmp_path / "site"
    installed_package(site, "mood_section", {"__init__.py": textwrap.dedent(SECTION_MODULE), "mood.md": FRAGMENT},
                      "[gamemaster.sections]\nmood = mood_section\n")
    monkeypatch.setenv("PYTHONPATH", str(site))
    return site


def ok(proc):
    assert proc.returncode == 0, show(proc)
    assert_no_traceback(proc)
    return proc


def memories(root: Path, agent: str) -> list[dict]:
    text = (root / f"state/memories/{agent}.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def test_a_section_from_another_package_gathers_shows_asks_checks_and_writes_back(mood_package, tmp_path):
    root = tmp_path / "ws"
    ok(run(tmp_path, "init", str(root)))

    # Its reply field is in every kind's schema.
    for kind in ("work", "meeting", "arrival"):
        schema = json.loads(ok(run(root, "schema", "--type", kind)).stdout)
        assert schema["properties"]["mood"]["type"] == "string", kind

    # Its prompt text: the fragment under its heading, filled from what it gathered (vera's
    # accumulator as state/agents/vera.json holds it) and from the frame ($name); its contract line.
    opened = json.loads(ok(run(root, "next", "--json")).stdout)
    first = opened["turns"][0]
    agent = json.loads((root / f"state/agents/{first}.json").read_text(encoding="utf-8"))
    prompt = ok(run(root, "prompt", first)).stdout
    weight = agent["importance_accumulator"]
    assert (f"## Deine Stimmung, {agent['name']}\n\nWas dich beschäftigt, wiegt {weight} "
            f"({'schwer' if weight > 40 else 'leicht'}).") in prompt
    assert "- `mood` (optional): wie du dich gerade fühlst, in einem Wort" in prompt
    assert prompt.index("## Deine Stimmung") < prompt.index("## Deine Aufgabe")  # in the turn's part, above the task
    assert "`mood`" in prompt.split("## Deine Aufgabe")[1]  # the scene's allowed fields name it

    # Its check: a reply whose mood is not one word is refused, naming the field; nothing is stored.
    reply = {"agent": first, "scene": opened["ref"], "action": "Ich arbeite.", "mood": "sehr müde"}
    proc = run(root, "reply", first, "-", input=json.dumps(reply, ensure_ascii=False))
    assert proc.returncode == 1 and "mood: one word, please" in proc.stderr + proc.stdout, show(proc)
    assert_no_traceback(proc)

    # Its write-back: the offline player says a mood, and each who took part remembers it.
    ok(run(root, "scene", "run"))
    record = json.loads((root / f"scenes/{opened['ref']}/scene.json").read_text(encoding="utf-8"))
    assert record["status"] == "applied"
    for participant in record["participants"]:
        said = [m for m in memories(root, participant) if m["created"] == opened["ref"] and m["tags"] == ["mood"]]
        assert [m["description"] for m in said] == [f"In {opened['ref']} war ich ruhig."], participant
    assert ok(run(root, "validate")).stdout


def test_without_the_package_the_prompt_has_no_trace_of_it(tmp_path):
    root = tmp_path / "ws"
    ok(run(tmp_path, "init", str(root)))
    opened = json.loads(ok(run(root, "next", "--json")).stdout)
    prompt = ok(run(root, "prompt", opened["turns"][0])).stdout
    assert "Stimmung" not in prompt and "`mood`" not in prompt
    assert "mood" not in json.loads(ok(run(root, "schema")).stdout)["properties"]


def test_a_section_package_that_does_not_load_is_one_line_naming_it(mood_package, tmp_path):
    root = tmp_path / "ws"
    ok(run(tmp_path, "init", str(root)))
    (mood_package / "mood_section" / "__init__.py").write_text("import no_such_module\n", encoding="utf-8")
    proc = run(root, "next")
    assert_no_traceback(proc)
    assert proc.returncode == 1, show(proc)
    lines = [line for line in proc.stderr.splitlines() if "mood" in line]
    assert lines == ["error: prompt section 'mood' (entry point mood_section) does not load: "
                     "ModuleNotFoundError: No module named 'no_such_module'"], show(proc)
