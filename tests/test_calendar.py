"""The studio calendar: day 1 has a date, prompts and the report name it, and what a brief or an
event says about days („bis Donnerstag“, „in zwei Wochen“) is shown resolved beside its words."""

from __future__ import annotations

import json

import pytest


def _world_file(workspace) -> dict:
    return json.loads(workspace.world_path.read_text(encoding="utf-8"))


def _write_world(workspace, **changes) -> None:
    data = _world_file(workspace)
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    workspace.world_path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")


def _prompt(cli, agent: str = "vera") -> str:
    assert cli("next").exit_code == 0
    result = cli("prompt", agent)
    assert result.exit_code == 0, result.output
    return result.output


def test_a_fresh_studios_prompt_names_the_date_of_day_1(cli, workspace):
    assert _world_file(workspace)["start_date"] == "2026-11-02"
    prompt = _prompt(cli)
    assert "- Tageszeit: Tag 001 (Montag, 2. November 2026), Vormittag" in prompt
    assert "**Dein Plan für heute (Montag, 2. November 2026):**" in prompt


def test_a_studio_without_start_date_gets_the_default_date_and_keeps_its_weekdays(cli, workspace):
    _write_world(workspace, start_date=None, first_weekday="wed")
    prompt = _prompt(cli)
    # The first Wednesday from 2026-11-02 on: day 1 stays the Wednesday it was.
    assert "Tag 001 (Mittwoch, 4. November 2026)" in prompt
    assert cli("config", "start_date").output.strip() == "2026-11-04"
    assert cli("config", "first_weekday").output.strip() == "wed"
    assert "start_date" not in _world_file(workspace)  # saving the world does not write the default in


def test_a_start_date_on_another_weekday_is_refused_naming_the_field(cli, workspace):
    _write_world(workspace, start_date="2026-11-03")  # a Tuesday; first_weekday is mon
    result = cli("validate")
    assert result.exit_code == 1
    assert "start_date: 2026-11-03 is a Tuesday, but first_weekday is mon" in result.output


def test_config_start_date_sets_the_date_and_moves_first_weekday_along(cli, workspace):
    result = cli("config", "start_date", "2026-11-05")
    assert result.exit_code == 0, result.output
    assert 'start_date = "2026-11-05" (was "2026-11-02")' in result.output
    assert 'first_weekday = "thu" (was "mon": follows start_date)' in result.output
    world = _world_file(workspace)
    assert (world["start_date"], world["first_weekday"]) == ("2026-11-05", "thu")
    assert "Tag 001 (Donnerstag, 5. November 2026)" in _prompt(cli)


def test_config_first_weekday_moves_start_date_to_the_first_such_day_from_it(cli, workspace):
    result = cli("config", "first_weekday", "fri")
    assert result.exit_code == 0, result.output
    assert 'start_date = "2026-11-06" (was "2026-11-02": follows first_weekday)' in result.output
    world = _world_file(workspace)
    assert (world["start_date"], world["first_weekday"]) == ("2026-11-06", "fri")


@pytest.mark.parametrize("value", ["20261105", "2026-02-30", "5.11.2026"])
def test_config_start_date_refuses_what_is_not_a_date(cli, workspace, value):
    before = workspace.world_path.read_bytes()
    result = cli("config", "start_date", value)
    assert result.exit_code == 1
    assert "start_date: " in result.output and "is not a date of the form YYYY-MM-DD" in result.output
    assert workspace.world_path.read_bytes() == before


def test_a_brief_shows_which_day_its_weekday_means_in_the_addressees_prompt(cli, workspace):
    result = cli("brief", "Bitte bis Donnerstag die Skizzen.", "--to", "vera")
    assert 'dates: "bis Donnerstag" = day 004 (Thu 2026-11-05)' in result.output
    assert "dates:" not in cli("brief", "Die Türme brauchen Biologie.", "--to", "vera").output
    prompt = _prompt(cli)
    assert "- brief-001: Bitte bis Donnerstag die Skizzen. (bis Donnerstag = Tag 004, Donnerstag, 5. November 2026)" in prompt
    assert "- brief-002: Die Türme brauchen Biologie.\n" in prompt  # a brief naming no day is shown as given
    memory = json.loads((workspace.memories_dir / "vera.jsonl").read_text(encoding="utf-8").splitlines()[-2])
    assert memory["description"] == ("Der Creative Director gibt vor: „Bitte bis Donnerstag die Skizzen.“ "
                                     "(bis Donnerstag = Tag 004, Donnerstag, 5. November 2026)")


def test_morgen_zusammen_is_a_greeting_not_tomorrow(cli, workspace):
    result = cli("brief", "Morgen zusammen! Die Demo zeigen wir morgen.", "--to", "vera")
    assert result.output.count(" = day ") == 1 and '"morgen" = day 002' in result.output
    prompt = _prompt(cli)
    assert "Die Demo zeigen wir morgen. (morgen = Tag 002, Dienstag, 3. November 2026)" in prompt


def test_an_events_prompt_and_memory_show_what_its_days_resolve_to(cli, workspace):
    result = cli("event", "Playtest heute, Abgabe in zwei Wochen.", "--day", "1")
    assert 'dates: "heute" = day 001 (Mon 2026-11-02); "in zwei Wochen" = day 015 (Mon 2026-11-16)' in result.output
    assert cli("scene", "run", "--backend", "offline").exit_code == 0  # the ARRIVAL
    resolved = ("Playtest heute, Abgabe in zwei Wochen. (heute = Tag 001, Montag, 2. November 2026; "
                "in zwei Wochen = Tag 015, Montag, 16. November 2026)")
    prompt = _prompt(cli)
    assert "## Die Szene: EVENT" in prompt
    assert f"- Thema: {resolved}" in prompt
    assert f"Ein Ereignis verändert den Tag: {resolved}" in prompt
    assert cli("scene", "run", "--backend", "offline").exit_code == 0
    lines = (workspace.memories_dir / "vera.jsonl").read_text(encoding="utf-8").splitlines()
    assert f"Ereignis im Studio: {resolved}" in [json.loads(line)["description"] for line in lines]


def test_the_bundled_publisher_event_reads_its_two_weeks_from_day_2(workspace):
    from gamemaster.calendar import annotate

    world = workspace.load_world()
    event = next(e for e in world.events if e.id == "event-002")
    assert annotate(event.text, world.language, world, event.day) == (
        " (in zwei Wochen = Tag 016, Dienstag, 17. November 2026)")


@pytest.mark.parametrize(
    ("text", "day", "expected"),
    [
        ("am Donnerstag", 4, [("am Donnerstag", 4)]),  # said on a Thursday: that day
        ("nächsten Donnerstag", 4, [("nächsten Donnerstag", 11)]),  # the one after
        ("Heute morgen habe ich Abschnitt 3.4. gelesen", 3, [("Heute", 3)]),  # this morning; a section
        ("nächsten Donnerstag, übermorgen, heute", 1, [("nächsten Donnerstag", 4), ("übermorgen", 3), ("heute", 1)]),
        ("nächste Woche Donnerstag", 1, [("nächste Woche Donnerstag", 11)]),
        ("in 3 Tagen oder in acht Wochen", 2, [("in 3 Tagen", 5), ("in acht Wochen", 58)]),
        ("bis 12. Dezember, also 12.12. oder 12.12.2026", 1, [("12. Dezember", 41), ("12.12.", 41), ("12.12.2026", 41)]),
        ("Guten Morgen! Morgen zusammen, guten morgen", 1, []),
        ("Version 1.2.3 und v1.2.", 1, []),
        ("seit dem 12. Oktober", 1, [("12. Oktober", -20)]),
    ],
)
def test_german_day_words_resolve_against_the_day_they_were_said(workspace, text, day, expected):
    from gamemaster.calendar import resolve

    world = workspace.load_world()
    found = [(r.text, r.day) for r in resolve(text, "de", world, day)]
    assert found == expected


def test_english_day_words_resolve_too(workspace):
    from gamemaster.calendar import resolve

    world = workspace.load_world()
    text = "Due today: on Thursday, next Friday, in two weeks, in 3 days, December 12 and 12 December; see you tomorrow."
    found = [(r.text, r.day) for r in resolve(text, "en", world, 1)]
    assert found == [("today", 1), ("on Thursday", 4), ("next Friday", 5), ("in two weeks", 15), ("in 3 days", 4),
                     ("December 12", 41), ("12 December", 41), ("tomorrow", 2)]
    assert resolve("You may go, march on", "en", world, 1) == []


def test_a_date_before_day_1_is_shown_as_a_date_not_a_day(workspace):
    from gamemaster.calendar import annotate

    world = workspace.load_world()
    assert annotate("Seit dem 12. Oktober", "de", world, 1) == (
        " (12. Oktober = Montag, 12. Oktober 2026, 21 Tage vor Tag 001)")
    assert annotate("since October 31", "en", world, 1) == " (October 31 = Saturday, 31 October 2026, 2 days before day 001)"
    assert annotate("heute", "de", world, 10**9) == ""  # past the last date there is: nothing, no error


def test_the_reports_day_page_shows_the_date_and_follows_a_new_start_date(cli, workspace):
    assert cli("scene", "run", "--backend", "offline").exit_code == 0
    assert cli("report").exit_code == 0
    page = (workspace.root / "report" / "days" / "day-001.html").read_text(encoding="utf-8")
    assert "<small>Montag, 2. November 2026</small>" in page
    # Another Monday: first_weekday stays, the page is rendered again all the same.
    assert cli("config", "start_date", "2026-11-09").exit_code == 0
    assert cli("report").exit_code == 0
    page = (workspace.root / "report" / "days" / "day-001.html").read_text(encoding="utf-8")
    assert "<small>Montag, 9. November 2026</small>" in page
    index = (workspace.root / "report" / "days" / "index.html").read_text(encoding="utf-8")
    assert "Montag, 9. November 2026" in index
