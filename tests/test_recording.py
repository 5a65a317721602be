"""Record and replay: a day recorded on any backend plays again in a fresh studio to the same
files, for nothing; what the recording lacks or what changed since is said, never guessed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gamemaster.backends.base import Capabilities
from gamemaster.backends.offline import OfflineBackend
from gamemaster.backends.replay import ReplayBackend
from gamemaster.backends.scripted import ScriptedBackend
from gamemaster.cli import app
from gamemaster.create import init_workspace
from gamemaster.gm import GameMaster
from gamemaster.loop import run_scene
from gamemaster.recording import Recording, RecordingError, open_recorder
from gamemaster.recording.sections import differences, split
from gamemaster.scenes import Force

runner = CliRunner()


def invoke(root: Path, *args: str):
    return runner.invoke(app, ["--root", str(root), *args])


def studio_files(root: Path) -> dict[str, bytes]:
    """What a day leaves: the state (without the derived cache), the gallery and the scene records."""
    found = {}
    for part in ("state", "gallery", "scenes"):
        for path in sorted((root / part).rglob("*")):
            if path.is_file() and ".cache" not in path.parts:
                found[path.relative_to(root).as_posix()] = path.read_bytes()
    return found


def errors(result) -> list[str]:
    return [line for line in result.output.splitlines() if line.startswith("error:")]


@pytest.fixture
def recorded_day(tmp_path_factory):
    """Day 1 of the bundled studio played offline and recorded, and the studio it left."""
    base = tmp_path_factory.mktemp("recorded")
    studio = init_workspace(base / "studio")
    result = invoke(studio.root, "day", "advance", "--record", str(base / "rec"))
    assert result.exit_code == 0, result.output
    assert f"recorded 40 answer(s) into {base / 'rec'}" in " ".join(result.output.split())
    return studio.root, base / "rec"


def test_a_recorded_day_replayed_in_a_fresh_studio_writes_the_same_streams_byte_for_byte(recorded_day, tmp_path):
    played, recording = recorded_day
    fresh = init_workspace(tmp_path / "fresh")
    result = invoke(fresh.root, "day", "advance", "--backend", "replay", "--from", str(recording))
    assert result.exit_code == 0, result.output
    assert "replayed 40 answer(s)" in result.output and "differs" not in result.output
    assert studio_files(fresh.root) == studio_files(played)
    memories = sorted(p.name for p in (fresh.root / "state" / "memories").glob("*.jsonl"))
    assert memories == ["darius.jsonl", "emre.jsonl", "finn.jsonl", "leo.jsonl", "nami.jsonl", "tobi.jsonl", "vera.jsonl"]


def test_the_recording_holds_each_prompt_and_each_reply_as_it_was_given(recorded_day):
    played, recording = recorded_day
    turn = json.loads((recording / "day-001" / "scene-01" / "07-vera.1.json").read_text(encoding="utf-8"))
    prompt = (played / "scenes" / "day-001" / "scene-01" / "prompts" / "vera.md").read_text(encoding="utf-8")
    reply = json.loads((played / "scenes" / "day-001" / "scene-01" / "replies" / "07-vera.json").read_text(encoding="utf-8"))
    assert turn["prompt"] == prompt and turn["accepted"] and turn["backend"] == "offline"
    assert json.loads(turn["reply"])["says"] == reply["says"]
    assert [s["title"] for s in turn["sections"]][:3] == ["Studio GenSoftworks", "Antwortformat", "Wer wer ist"]
    assert json.loads((recording / "recording.json").read_text(encoding="utf-8"))["studio"] == "GenSoftworks"


@pytest.mark.parametrize("make", ["empty", "foreign", "missing"])
def test_a_folder_without_a_recording_is_one_line_and_plays_nothing(make, tmp_path, workspace):
    folder = tmp_path / "folder"
    if make != "missing":
        folder.mkdir()
    if make == "foreign":
        (folder / "notes.txt").write_text("a shopping list", encoding="utf-8")
    result = invoke(workspace.root, "day", "advance", "--backend", "replay", "--from", str(folder))
    assert result.exit_code == 1
    why = "no such folder" if make == "missing" else "not a gamemaster recording (no recording.json)"
    assert result.output.strip().splitlines() == [f"error: {folder}: {why}"]
    assert GameMaster(workspace).world().day == 0  # nothing was opened


def test_a_turn_the_recording_lacks_names_the_scene_and_the_character_or_is_played_by_the_fallback(recorded_day, tmp_path):
    played, recording = recorded_day
    result = invoke(played, "scene", "run", "--backend", "replay", "--from", str(recording))
    assert result.exit_code == 1
    assert errors(result) == [
        f"error: day-002/scene-01 01-darius: darius's answer is not in the recording in {recording}; "
        "--fallback <backend> plays such turns live"]
    assert not (played / "state" / "memories" / "darius.jsonl").read_text(encoding="utf-8").count("day-002/")

    result = invoke(played, "scene", "run", "--backend", "replay", "--from", str(recording), "--fallback", "offline")
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    assert "day-002/scene-01 07-vera: vera's answer is not in the recording" in flat and "played by offline" in flat
    assert "replay: replayed 0 answer(s)" in flat and "7 played by offline" in flat
    assert "day-002/scene-01" in (played / "state" / "memories" / "vera.jsonl").read_text(encoding="utf-8")


def test_a_changed_prompt_is_said_by_section_and_with_strict_counts_as_not_recorded(recorded_day, tmp_path):
    _, recording = recorded_day
    fresh = init_workspace(tmp_path / "fresh")
    template = fresh.root / "prompts" / "character.md"
    text = template.read_text(encoding="utf-8")
    template.write_text(text.replace("## Deine Aufgabe\n", "## Deine Aufgabe\n\nSei heute knapp.\n", 1), encoding="utf-8")

    strict = invoke(fresh.root, "scene", "run", "--backend", "replay", "--from", str(recording), "--strict")
    assert strict.exit_code == 1
    [line] = errors(strict)
    assert line.startswith(f"error: day-001/scene-01 01-darius: darius's prompt differs from the recording in {recording} "
                           "(„Deine Aufgabe“ changed (")
    assert line.endswith("and --strict is set; --fallback <backend> plays such turns live")

    relaxed = invoke(fresh.root, "scene", "run", "--backend", "replay", "--from", str(recording))
    assert relaxed.exit_code == 0, relaxed.output
    flat = " ".join(relaxed.output.split())
    assert "note: day-001/scene-01 03-finn: the prompt differs from the recording: „Deine Aufgabe“ changed" in flat
    assert "7 to a prompt that differs from the recording" in flat
    assert "day-001/scene-01" in (fresh.root / "state" / "memories" / "finn.jsonl").read_text(encoding="utf-8")


class Flaky:
    """The offline player, except that Vera's first answer is no JSON at all."""

    name = "flaky"
    capabilities = Capabilities(retries=1)

    def __init__(self):
        self.offline, self.failed = OfflineBackend(), False

    def reply(self, request):
        if request.agent.id == "vera" and not self.failed:
            self.failed = True
            return "kein JSON"
        return self.offline.reply(request)


def test_a_refused_reply_and_its_retry_are_both_recorded_and_replayed_in_that_order(workspace, tmp_path):
    gm = GameMaster(workspace)
    gm.recorder = open_recorder(workspace, tmp_path / "rec", "GenSoftworks")
    run_scene(gm, Flaky())
    scene = tmp_path / "rec" / "day-001" / "scene-01"
    first = json.loads((scene / "07-vera.1.json").read_text(encoding="utf-8"))
    second = json.loads((scene / "07-vera.2.json").read_text(encoding="utf-8"))
    assert (first["accepted"], first["reply"], first["backend"]) == (False, "kein JSON", "flaky") and first["error"]
    assert second["accepted"] and first["error"] in second["prompt"]  # the retry was told why
    good = {"agent": "vera", "scene": "day-001/scene-02", "action": "Skizziert den Turm.", "says": "Fertig."}
    run_scene(gm, ScriptedBackend({"vera": [good]}), Force(type="WORK", participants=["vera"]))
    assert json.loads((tmp_path / "rec" / "day-001" / "scene-02" / "scene.json").read_text(encoding="utf-8"))["forced"] == {
        "type": "WORK", "participants": ["vera"]}

    fresh = GameMaster(init_workspace(tmp_path / "fresh"))
    replay = ReplayBackend(source=tmp_path / "rec")
    assert replay.capabilities.retries == 1
    run_scene(fresh, replay)
    outcome = run_scene(fresh, replay)  # the recorded force is followed without being given
    assert (outcome.spec.type, outcome.spec.participants) == ("WORK", ["vera"])
    assert replay.replayed == 9 and not replay.changed
    assert studio_files(fresh.workspace.root) == studio_files(workspace.root)


def test_replay_asks_for_a_scene_the_studio_would_no_longer_choose_and_says_so(recorded_day, tmp_path):
    _, recording = recorded_day
    fresh = GameMaster(init_workspace(tmp_path / "fresh"))
    replay = ReplayBackend(source=recording)
    said = []
    run_scene(fresh, replay, listen=lambda event, data: said.append(data["text"]) if event == "notice" else None)
    # Day 1's second scene was a WORK scene chosen by the Game Master; in a studio where a brief
    # now asks for a meeting first, the recorded scene is still the one played.
    recorded = Recording(recording).scene("day-001/scene-02")
    invoke(fresh.workspace.root, "brief", "Alle: Wir müssen über das Budget reden.")
    run_scene(fresh, replay, listen=lambda event, data: said.append(data["text"]) if event == "notice" else None)
    assert fresh.last_applied().participants == recorded.participants
    assert any(text.startswith("day-001/scene-02: the Game Master now chooses") for text in said)


def test_a_recording_of_another_studio_is_not_mixed_into(recorded_day, tmp_path):
    _, recording = recorded_day
    other = init_workspace(tmp_path / "other")
    gm = GameMaster(other)
    run_scene(gm, OfflineBackend())  # its ARRIVAL, not recorded
    gm.recorder = open_recorder(other, recording, "GenSoftworks")
    with pytest.raises(RecordingError, match=r"scene.json: this recording already has day-001/scene-02 as ENCOUNTER with .*, not WORK with vera"):
        gm.open_next(Force(type="WORK", participants=["vera"]))  # day-001/scene-02, recorded with others
    with pytest.raises(RecordingError, match="not a gamemaster recording"):
        open_recorder(other, other.root.parent, "GenSoftworks")  # a folder of other things
    result = invoke(other.root, "day", "advance", "--record", str(other.root / "state" / "rec"))
    assert result.exit_code == 1 and "--record state/rec: inside the workspace's state/" in result.output


def test_a_damaged_recording_file_is_named_with_its_line(recorded_day, tmp_path):
    _, recording = recorded_day
    path = recording / "day-001" / "scene-01" / "03-finn.1.json"
    path.write_text('{\n  "scene": "day-001/scene-01",\n  oops\n}\n', encoding="utf-8")
    fresh = init_workspace(tmp_path / "fresh")
    result = invoke(fresh.root, "day", "advance", "--backend", "replay", "--from", str(recording))
    assert result.exit_code == 1
    assert errors(result) == [f"error: {path}:3: not valid JSON: Expecting property name enclosed in double quotes"]


def test_options_for_replay_are_refused_elsewhere_and_the_fallbacks_only_with_one(workspace, recorded_day):
    _, recording = recorded_day
    offline = invoke(workspace.root, "day", "advance", "--from", str(recording))
    assert offline.exit_code == 2 and "--from does not apply to backend 'offline'" in " ".join(offline.output.replace("│", " ").split())
    model = invoke(workspace.root, "day", "advance", "--backend", "replay", "--from", str(recording), "--model", "x")
    assert errors(model) == ["error: --model only apply with --fallback (the backend that plays what the recording lacks)"]
    bare = invoke(workspace.root, "day", "advance", "--backend", "replay")
    assert errors(bare) == ["error: --backend replay plays a recording: name its folder with --from DIR"]


def test_the_world_setting_records_replies_handed_in_by_command_or_hook(workspace, cli):
    assert cli("config", "record", "recordings/claude").exit_code == 0
    assert "a folder of its own" in cli("config", "record", "state/x").output
    gm = GameMaster(workspace)
    run_scene(gm, OfflineBackend())  # the ARRIVAL: recorded as well, as played by the offline player
    pending, _ = gm.open_next(Force(type="WORK", participants=["vera", "emre"]))
    assert cli("prompt", "vera").exit_code == 0
    assert cli("reply", "vera", "-", input='{"says": "nur das"}').exit_code == 1
    reply = {"agent": "vera", "scene": pending.spec.ref, "action": "Skizziert.", "says": "Hier."}
    assert cli("reply", "vera", "-", input="Hier ist es:\n" + json.dumps(reply)).exit_code == 0
    from gamemaster.claude_code import handle_subagent_stop

    emre = {**reply, "agent": "emre"}
    handle_subagent_stop(GameMaster(workspace), {"agent_type": "character-emre", "last_assistant_message": json.dumps(emre)})
    assert (workspace.root / "recordings" / "claude" / "day-001" / "scene-01" / "07-vera.1.json").exists()
    folder = workspace.root / "recordings" / "claude" / "day-001" / "scene-02"
    turns = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in folder.glob("*.json") if p.name != "scene.json"}
    assert sorted(turns) == ["01-vera.1.json", "01-vera.2.json", "02-emre.1.json"]
    assert not turns["01-vera.1.json"]["accepted"] and turns["01-vera.2.json"]["reply"].startswith("Hier ist es:\n")
    assert (turns["01-vera.2.json"]["backend"], turns["02-emre.1.json"]["backend"]) == ("reply", "claude-code subagent")
    assert GameMaster(workspace).last_applied().ref == "day-001/scene-02"  # the hook wrote the scene back


def test_sections_split_at_the_two_top_heading_levels_and_say_what_changed():
    before = "# Studio\nText\n## Antwortformat\n```\n# kein Titel\n```\n## Erinnerungen\n- a\n### Tiefer\n- b\n"
    assert [title for title, _ in split(before)] == ["Studio", "Antwortformat", "Erinnerungen"]
    after = before.replace("- b\n", "- b\n- c\n").replace("## Antwortformat", "## Format")
    memories = "## Erinnerungen\n- a\n### Tiefer\n- b\n"
    assert differences(before, after) == [
        "new section „Format“", f"„Erinnerungen“ changed ({len(memories)} characters → {len(memories) + 4} characters)",
        "section „Antwortformat“ is gone"]
    assert differences(before, before) == []
