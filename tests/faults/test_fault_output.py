"""Issue 9, items 5 and 13: text from files and models reaches the terminal and the gallery verbatim and safe."""

from __future__ import annotations

import json
import re

import faultkit as fk
from gamemaster.gm import GameMaster

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


# -- item 5: reply text is not rich markup ---------------------------------------------


def test_scene_run_prints_reply_text_with_markup_tags_verbatim(tmp_path, monkeypatch):
    workspace = fk.studio(tmp_path)
    fk.register_backends(monkeypatch)

    result = fk.cli(workspace.root, "scene", "run", "--backend", "MarkupSaysBackend")

    fk.assert_no_exception(result)
    assert result.exit_code == 0, fk.show_result(result)
    assert "[bold]Knochen[/bold] und [red]Turm[/red]" in result.stdout, fk.show_result(result)


def test_scene_run_survives_a_reply_with_a_stray_closing_tag(tmp_path, monkeypatch):
    workspace = fk.studio(tmp_path)
    fk.register_backends(monkeypatch)

    result = fk.cli(workspace.root, "scene", "run", "--backend", "StrayTagSaysBackend")

    fk.assert_no_exception(result)
    assert result.exit_code == 0, fk.show_result(result)
    assert "Mark [/x] innen" in result.stdout, fk.show_result(result)
    assert fk.read_json(workspace.world_path)["scene"] == 1  # the scene was written back


def test_an_invalid_reply_line_shows_the_validation_message_verbatim(tmp_path, monkeypatch):
    workspace = fk.studio(tmp_path)
    assert fk.run(workspace.root, "scene", "run").returncode == 0
    fk.register_backends(monkeypatch)

    result = fk.cli(workspace.root, "scene", "run", "--type", "WORK", "--with", "vera", "--backend", "BadKindBackend")

    fk.assert_no_exception(result)
    printed = [line for line in result.stdout.splitlines() if "invalid reply" in line]
    assert printed, fk.show_result(result)
    assert "[a-z]" in printed[0], f"part of the message disappeared: {printed[0]!r}"


# -- item 13: control characters in titles and names -----------------------------------


def test_control_characters_in_an_artifact_title_reach_neither_the_gallery_nor_the_terminal(tmp_path):
    workspace = fk.studio(tmp_path)
    assert fk.run(workspace.root, "scene", "run").returncode == 0
    assert fk.run(workspace.root, "next", "--type", "WORK", "--with", "vera").returncode == 0
    pending = GameMaster(workspace).pending()
    title = "Turm\x00innen\x1b[31mrot\x07\x1b]0;pwned\x07"
    reply = {
        "agent": "vera",
        "scene": pending.spec.ref,
        "action": "Vera zeichnet.",
        "artifacts": [
            {"title": title, "kind": "concepts", "content": "# Turm\n\nMark.", "summary": "Vera zeigt einen Turm.", "importance": 6}
        ],
    }

    proc = fk.run(workspace.root, "apply", "--replies", "-", input=json.dumps({"vera": reply}))

    assert proc.returncode == 0, fk.show(proc)
    assert not CONTROL.search(proc.stdout + proc.stderr), f"raw control characters printed: {proc.stdout!r}"
    [path] = [p for p in workspace.gallery.rglob("*.md")]
    front = path.read_text(encoding="utf-8").split("\n---", 1)[0]
    assert not CONTROL.search(front), f"raw control characters in {workspace.rel(path)}'s front matter: {front!r}"
    fk.assert_valid(workspace.root)


def test_control_characters_in_an_agent_name_are_not_printed_raw(tmp_path):
    workspace = fk.studio(tmp_path)
    agent = fk.read_json(workspace.agents_dir / "vera.json")
    agent["name"] = "Vera \x1b]0;pwned\x07\x1b[2JKowalski"
    fk.write_json(workspace.agents_dir / "vera.json", agent)

    proc = fk.run(workspace.root, "next")

    fk.assert_no_traceback(proc)
    assert proc.returncode == 0, fk.show(proc)
    assert "Vera" in proc.stdout and "Kowalski" in proc.stdout
    assert not CONTROL.search(proc.stdout + proc.stderr), f"raw control characters printed: {proc.stdout!r}"


def test_a_right_to_left_override_in_a_memory_is_shown_escaped_everywhere(tmp_path):
    """U+202E in a memory (from a reply or a hand edit) reversed the rest of the line in a terminal:
    every command that prints it shows ``\\u202e`` instead (issue 39, item 8)."""
    workspace = fk.studio(tmp_path)
    ids = fk.stream_ids(workspace, "vera")
    number = max(int(i.rsplit("-", 1)[1]) for i in ids) + 1
    line = {"id": f"vera-{number:03d}", "created": "day-000/scene-00", "type": "observation", "depth": 0,
            "description": "Knochentürme \u202egnidliub\u202c und \u2066isoliert\u2069 mit\u200bNull-Breite",
            "importance": 9, "tags": ["bone-towers"], "evidence": [], "metadata": {}}
    with (workspace.memories_dir / "vera.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line, ensure_ascii=False) + "\n")
    for args in (("recall", "vera", "Knochentürme"), ("memories", "vera"), ("who-knows", "Knochentürme"),
                 ("status",), ("day", "advance", "--backend", "offline")):
        proc = fk.run(workspace.root, *args)
        fk.assert_no_traceback(proc)
        assert proc.returncode == 0, fk.show(proc)
        shown = proc.stdout + proc.stderr
        assert not re.search("[\u202a-\u202e\u2066-\u2069\u200b]", shown), (args, fk.show(proc))
    recalled = fk.run(workspace.root, "recall", "vera", "Knochentürme").stdout
    assert "\\u202egnidliub\\u202c" in re.sub(r"[│\s]", "", recalled), recalled  # escaped, in its place
