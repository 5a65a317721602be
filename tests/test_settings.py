"""``gamemaster config``: the world's settings shown, read one at a time and set through the World model."""

from __future__ import annotations

import json

import pytest

from gamemaster.settings import RUNNING_STATE, setting_names


def world_json(workspace) -> dict:
    return json.loads(workspace.world_path.read_text(encoding="utf-8"))


def test_lists_the_settings_and_not_the_running_state(cli):
    result = cli("config", "--json")
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    assert list(shown) == setting_names()
    for name in ("scenes_per_day", "kinds", "retrieval_weights", "first_weekday", "model", "focus_limit"):
        assert name in shown
    assert shown["kinds"]["work"] == {"group_size": 3, "rooms": None}
    assert not set(RUNNING_STATE) & set(shown)
    assert shown["retrieval_weights"] == {"relevance": 3.0, "importance": 0.5, "recency": 0.5}


def test_human_listing_shows_nested_settings_as_dotted_keys(cli):
    result = cli("config")
    assert result.exit_code == 0, result.output
    assert "scenes_per_day = 6" in result.stdout
    assert "retrieval_weights.relevance = 3.0" in result.stdout
    names = [line.split(" = ")[0] for line in result.stdout.splitlines()]
    assert "pending" not in names and "day" not in names and "today" not in names


def test_get_one(cli):
    assert cli("config", "scenes_per_day").stdout == "6\n"
    assert cli("config", "studio").stdout == "GenSoftworks\n"
    assert json.loads(cli("config", "retrieval_weights.recency", "--json").stdout) == {"key": "retrieval_weights.recency", "value": 0.5}


def test_set_an_int(cli, workspace):
    result = cli("config", "scenes_per_day", "8", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"key": "scenes_per_day", "value": 8, "previous": 6}
    assert world_json(workspace)["scenes_per_day"] == 8
    assert cli("config", "scenes_per_day").stdout == "8\n"


def test_set_a_nested_weight(cli, workspace):
    result = cli("config", "retrieval_weights.relevance", "2.5")
    assert result.exit_code == 0, result.output
    assert world_json(workspace)["retrieval_weights"] == {"relevance": 2.5, "importance": 0.5, "recency": 0.5}


def test_set_a_string(cli, workspace):
    assert cli("config", "language", "en").exit_code == 0
    assert cli("config", "first_weekday", '"fri"').exit_code == 0  # a JSON string works as well
    # Digits are JSON, but the studio's name is text: taken as the text it also is.
    assert cli("config", "studio", "2077").exit_code == 0
    world = world_json(workspace)
    assert (world["language"], world["first_weekday"], world["studio"]) == ("en", "fri", "2077")


def test_set_null(cli, workspace):
    assert cli("config", "model", "claude-test").exit_code == 0
    assert cli("config", "model", "null").exit_code == 0
    assert world_json(workspace)["model"] is None


def test_the_rest_of_world_json_is_kept(cli, workspace):
    data = world_json(workspace)
    data["note"] = "by hand"
    workspace.world_path.write_text(json.dumps(data), encoding="utf-8")
    assert cli("config", "kinds.meeting.rounds", "3").exit_code == 0
    after = world_json(workspace)
    assert after["note"] == "by hand" and after["kinds"]["meeting"]["rounds"] == 3


def test_a_kind_setting_by_its_old_flat_name_sets_its_namespaced_place(cli, workspace):
    assert cli("config", "meeting_rounds", "3").exit_code == 0
    after = world_json(workspace)
    assert after["kinds"]["meeting"]["rounds"] == 3 and "meeting_rounds" not in after
    assert cli("config", "kinds.meeting").stdout.startswith('{"rounds": 3, "max": 6')


def test_a_kind_without_settings_or_a_setting_it_lacks_is_named(cli):
    result = cli("config", "kinds.arrival.rounds", "3")
    assert "kinds.arrival.rounds: not a kind with settings; kinds with settings are work, meeting, encounter" in result.output
    result = cli("config", "kinds.meeting.size", "3")
    assert "kinds.meeting.size: not a setting of meeting; its settings are rounds, max, notices, notices_per_day" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("scenes_per_day", "1"), "scenes_per_day: Input should be greater than or equal to 2"),
        (("scenes_per_day", "many"), "scenes_per_day: Input should be a valid integer"),
        (("retrieval_weights.relevance", "--", "-1"), "retrieval_weights.relevance: Input should be greater than or equal to 0"),
        (("first_weekday", "someday"), "first_weekday: Input should be 'mon'"),
        (("selection", "psychic"), "selection: unknown strategy 'psychic'; choose one of"),
        (("no_such_thing", "1"), "no_such_thing: not a setting; settings are studio,"),
        (("day", "5"), "day: running state the Game Master keeps, not a setting"),
        (("pending", "null"), "pending: running state"),
        (("retrieval_weights.novelty", "1"), "retrieval_weights.novelty: not a part of retrieval_weights; its parts are relevance"),
        (("scenes_per_day.x", "1"), "scenes_per_day.x: scenes_per_day has no parts"),
    ],
)
def test_bad_key_or_value_is_refused_and_nothing_written(cli, workspace, args, message):
    before = workspace.world_path.read_bytes()
    result = cli("config", *args)
    assert result.exit_code == 1
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert workspace.world_path.read_bytes() == before


def test_getting_an_unknown_key_is_refused(cli):
    result = cli("config", "today")
    assert result.exit_code == 1
    assert "today: running state" in result.stderr
