"""Gatherings and time slots as a user meets them: hand-edited gatherings in world.json, an
event at lunch, and who came to a gathering as `next` and `scene run` print it."""

from __future__ import annotations

import json

import faultkit as fk

GATHERING = {"id": "gathering-001", "host": "vera", "what": "Quittenfest", "day": 1, "slot": "morning",
             "place": "Innenhof", "invited": ["darius", "nami", "leo"],
             "answers": {"darius": "accepted", "nami": "accepted", "leo": "declined"}, "created": "day-001/scene-01"}


def _with_gatherings(workspace, *gatherings) -> None:
    path = workspace.root / "state" / "world.json"
    world = json.loads(path.read_text(encoding="utf-8"))
    world["gatherings"] = list(gatherings)
    world["gatherings_issued"] = len(gatherings)
    path.write_text(json.dumps(world, ensure_ascii=False, indent=2), encoding="utf-8")


def test_a_hand_edited_bad_gathering_is_reported_as_file_field_reason(tmp_path):
    workspace = fk.studio(tmp_path)
    _with_gatherings(workspace, {**GATHERING, "slot": "brunch"})
    proc = fk.validate(workspace.root)
    fk.assert_no_traceback(proc)
    assert proc.returncode == 1, fk.show(proc)
    assert any(line.startswith("state/world.json: gatherings.0.slot: ") and "'morning'" in line
               for line in proc.stdout.splitlines()), fk.show(proc)

    _with_gatherings(workspace, {**GATHERING, "invited": ["darius", "zed"], "answers": {"zed": "accepted"}})
    proc = fk.validate(workspace.root)
    assert proc.returncode == 1, fk.show(proc)
    assert "state/world.json: gatherings.0: gathering-001 names unknown agent(s) zed" in proc.stdout, fk.show(proc)

    _with_gatherings(workspace, {**GATHERING, "answers": {"tobi": "accepted"}})
    proc = fk.validate(workspace.root)
    assert proc.returncode == 1, fk.show(proc)
    assert any(line.startswith("state/world.json: gatherings.0: ") and "tobi not invited" in line
               for line in proc.stdout.splitlines()), fk.show(proc)


def test_who_accepted_and_stayed_away_or_came_uninvited_is_printed_and_recorded(tmp_path):
    workspace = fk.studio(tmp_path)
    _with_gatherings(workspace, GATHERING)
    fk.assert_valid(workspace.root)
    assert fk.run(workspace.root, "scene", "run").returncode == 0  # ARRIVAL
    proc = fk.run(workspace.root, "next", "--type", "GATHERING", "--with", "vera,nami,tobi")
    fk.assert_no_traceback(proc)
    assert proc.returncode == 0, fk.show(proc)
    assert "day-001/scene-02 GATHERING · Quittenfest (Innenhof)" in proc.stdout, fk.show(proc)
    assert "host present, 1 of 3 invited came; 1 declined; 0 did not answer; accepted but absent: darius; " \
           "came uninvited: tobi" in proc.stdout, fk.show(proc)
    proc = fk.run(workspace.root, "scene", "run")
    assert proc.returncode == 0, fk.show(proc)
    assert "accepted but absent: darius; came uninvited: tobi" in proc.stdout, fk.show(proc)
    record = json.loads((workspace.root / "scenes/day-001/scene-02/scene.json").read_text(encoding="utf-8"))
    assert (record["status"], record["attendance"]["absent"], record["attendance"]["uninvited"]) == (
        "applied", ["darius"], ["tobi"])
    world = json.loads((workspace.root / "state/world.json").read_text(encoding="utf-8"))
    assert world["gatherings"][0]["held"] == "day-001/scene-02"
    # Everyone present heard what the others said there.
    heard = [json.loads(line) for line in (workspace.root / "state/memories/tobi.jsonl").read_text(encoding="utf-8").splitlines()]
    heard = [m for m in heard if m.get("created") == "day-001/scene-02" and m["metadata"].get("source") == "heard"]
    # (A heard memory keeps the listener's own line too, so it knows whom it told what.)
    assert [sorted(h["speaker"] for h in m["metadata"]["heard"] if h["speaker"] != "tobi") for m in heard] == [["nami", "vera"]]
    assert [sorted(m["metadata"]["with"]) for m in heard] == [["nami", "vera"]]
    fk.assert_valid(workspace.root)


def test_an_event_at_lunch_comes_before_the_lunch_scene_not_after_the_arrival(tmp_path):
    workspace = fk.studio(tmp_path)
    proc = fk.run(workspace.root, "event", "Mittags Pizza im Innenhof.", "--day", "1", "--at", "mittags")
    assert proc.returncode == 0, fk.show(proc)
    assert "scheduled event-005 on day 001 at lunch for everyone: Mittags Pizza im Innenhof." in proc.stdout, fk.show(proc)
    bad = fk.run(workspace.root, "event", "Kuchen.", "--at", "brunch")
    fk.assert_clean_error(bad, "--at: 'brunch' is not a time of day (choose morning, lunch, afternoon, evening)")
    # Day 1 is played until the event was held (or the day is over: then it never was).
    for _ in range(20):
        proc = fk.run(workspace.root, "scene", "run")
        assert proc.returncode == 0, fk.show(proc)
        world = json.loads((workspace.root / "state/world.json").read_text(encoding="utf-8"))
        today = [(e["type"], e.get("event")) for e in world["today"]]
        if world["day"] != 1 or ("EVENT", "event-005") in today:
            break
    assert world["day"] == 1, "day 1 ended without the lunch event"
    at = today.index(("EVENT", "event-005"))
    counted_before = [t for t, _ in today[:at] if t not in ("EVENT", "REFLECTION", "ENCOUNTER", "GATHERING")]
    assert len(counted_before) == 3, today  # ARRIVAL and two more: the next is the lunch scene
    fk.assert_valid(workspace.root)


def test_a_gathering_id_written_twice_by_hand_stops_every_command_with_one_line(tmp_path):
    workspace = fk.studio(tmp_path)
    world = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    gathering = {"id": "gathering-001", "host": "vera", "what": "Fest", "day": 1, "slot": "lunch", "place": "Hof",
                 "invited": ["emre"], "created": "day-001/scene-01"}
    world["gatherings"] = [gathering, dict(gathering)]
    workspace.world_path.write_text(json.dumps(world, ensure_ascii=False, indent=2), encoding="utf-8")
    for args in (("validate",), ("status",), ("next",)):
        proc = fk.run(workspace.root, *args)
        fk.assert_no_traceback(proc)
        assert proc.returncode == 1, fk.show(proc)
        assert "state/world.json: gatherings: gathering-001 appears more than once" in proc.stdout + proc.stderr, fk.show(proc)


def test_an_event_for_a_day_with_no_scene_left_goes_to_the_next_day_or_is_refused(tmp_path):
    # Before, it was "scheduled" and silently never held: events come before one of the day's
    # counted scenes, and none was left.
    workspace = fk.studio(tmp_path)
    assert fk.run(workspace.root, "day", "advance").returncode == 0  # day 001 played to its end
    proc = fk.run(workspace.root, "event", "Feueralarm-Probe.")
    assert proc.returncode == 0, fk.show(proc)
    assert "on day 002" in proc.stdout, fk.show(proc)
    proc = fk.run(workspace.root, "event", "Pizza.", "--day", "1", "--at", "lunch")
    assert fk.error_lines(proc) == ["error: --day: day 001 is over (the studio is on day 001, and no scene of it is left)"], fk.show(proc)
    assert fk.run(workspace.root, "day", "advance").returncode == 0
    world = json.loads(workspace.world_path.read_text(encoding="utf-8"))
    drill = next(e for e in world["events"] if e["text"] == "Feueralarm-Probe.")
    assert drill["held"] == [2]
    assert "Pizza." not in [e["text"] for e in world["events"]]


def test_status_and_the_report_show_held_and_upcoming_gatherings_with_who_came(tmp_path):
    upcoming = {**GATHERING, "id": "gathering-002", "host": "emre", "what": "<b>Kuchen</b> & [bold]Most[/]", "day": 3,
                "slot": "lunch", "place": "Küche", "invited": ["vera", "finn"], "answers": {"finn": "declined"}}
    workspace = fk.studio(tmp_path)
    _with_gatherings(workspace, GATHERING, upcoming)
    assert fk.run(workspace.root, "scene", "run").returncode == 0  # ARRIVAL
    assert fk.run(workspace.root, "next", "--type", "GATHERING", "--with", "vera,nami,tobi").returncode == 0
    assert fk.run(workspace.root, "scene", "run").returncode == 0

    proc = fk.run(workspace.root, "status")
    fk.assert_no_traceback(proc)
    lines = proc.stdout.splitlines()
    assert "gathering-001 · day 001 morning · Innenhof · host vera: Quittenfest" in lines, fk.show(proc)
    assert ("  invited darius, nami, leo · accepted darius, nami · declined leo · held day-001/scene-02: "
            "came vera, nami, tobi · accepted but absent: darius · came uninvited: tobi") in lines, fk.show(proc)
    # Text from the world file is printed as written, never read as markup.
    assert "gathering-002 · day 003 lunch · Küche · host emre: <b>Kuchen</b> & [bold]Most[/]" in lines, fk.show(proc)
    # Vera and Finn were at day 1's ARRIVAL and answered there.
    world = json.loads((workspace.root / "state/world.json").read_text(encoding="utf-8"))
    answers = world["gatherings"][1]["answers"]
    said = [f"{word} {', '.join(a for a in ('vera', 'finn') if answers.get(a) == answer)}"
            for word, answer in (("accepted", "accepted"), ("declined", "declined"))
            if any(answers.get(a) == answer for a in ('vera', 'finn'))]
    # Vera, going, told those she is close to at the party on day 1 (word of mouth).
    heard = world["gatherings"][1]["heard"]
    assert heard and "vera" not in heard and "finn" not in heard
    told = [f"heard of it {', '.join(heard)}"]
    assert "  " + " · ".join(["invited vera, finn", *told, *said, "upcoming"]) in lines, fk.show(proc)

    data = json.loads(fk.run(workspace.root, "status", "--json").stdout)
    held = data["gatherings"][0]
    assert (held["id"], held["held"], held["came"], held["absent"], held["uninvited"]) == (
        "gathering-001", "day-001/scene-02", ["vera", "nami", "tobi"], ["darius"], ["tobi"])
    assert (data["gatherings"][1]["held"], data["gatherings"][1]["came"], data["gatherings"][1]["invited"]) == (
        None, [], ["vera", "finn"])

    assert fk.run(workspace.root, "report").returncode == 0
    page = (workspace.root / "report/days/day-001.html").read_text(encoding="utf-8")
    section = page.split('id="gatherings"')[1]
    assert "Quittenfest" in section and "Innenhof" in section and "day-001/scene-02" in section
    assert "vera.html" in section and "tobi.html" in section  # host and who came uninvited, linked
    # The upcoming one is shown on the day it was planned for … which has no page yet, so on the
    # latest day's page, escaped.
    assert "&lt;b&gt;Kuchen&lt;/b&gt; &amp; [bold]Most[/]" in section
    assert "<b>Kuchen</b>" not in page

    # Once day 1 is packed (`gamemaster day archive`), the gathering held on it still shows who came.
    played = fk.run(workspace.root, "day", "advance", "--days", "2", "--backend", "offline", timeout=3 * fk.HANG_GUARD)
    assert played.returncode == 0, fk.show(played)
    packed = fk.run(workspace.root, "day", "archive")
    assert packed.stdout.startswith("scenes/day-001/ → scenes/day-001.tar.xz"), fk.show(packed)
    held = json.loads(fk.run(workspace.root, "status", "--json").stdout)["gatherings"][0]
    assert (held["id"], held["held"], held["came"], held["absent"], held["uninvited"]) == (
        "gathering-001", "day-001/scene-02", ["vera", "nami", "tobi"], ["darius"], ["tobi"])


def _many(workspace, count: int) -> None:
    agents = ["darius", "emre", "finn", "leo", "nami", "tobi", "vera"]
    gatherings = []
    for n in range(count):
        host = agents[n % 7]
        invited = [a for a in agents if a != host][:3]
        gatherings.append({"id": f"gathering-{n + 1:05d}", "host": host, "what": f"Treffen {n}", "day": 1,
                           "slot": ("morning", "lunch", "afternoon", "evening")[n % 4], "place": "Hof",
                           "invited": invited, "answers": {invited[0]: "accepted"}, "created": "day-001/scene-01"})
    _with_gatherings(workspace, *gatherings)


def test_a_thousand_open_invitations_list_the_soonest_fifty_and_the_day_goes_on(tmp_path):
    """A reply answers 50 invitations at most: a prompt listed all of them (714 for one character),
    so the offline player's answer was refused and the day stopped (issue 39, item 4)."""
    workspace = fk.studio(tmp_path)
    _many(workspace, 1000)
    opened = fk.run(workspace.root, "next")
    assert opened.returncode == 0, fk.show(opened)
    prompt = fk.run(workspace.root, "prompt", "emre").stdout
    invited = prompt.split("**Einladungen an dich**", 1)[1].split("\n\n", 1)[0]
    listed = [line for line in invited.splitlines() if line.startswith("- gathering-")]
    assert len(listed) == 50, len(listed)  # the soonest: every one of them in the morning
    assert all("Vormittag" in line for line in listed)
    assert "Dazu kommen " in prompt and " weitere Einladungen: sie erscheinen hier" in prompt
    played = fk.run(workspace.root, "day", "advance", "--backend", "offline")
    fk.assert_no_traceback(played)
    assert played.returncode == 0, fk.show(played)


def test_more_gatherings_than_the_studio_keeps_are_one_line_naming_the_limit(tmp_path):
    """10,000 hand-made gatherings passed `validate`, then `status` took 97 s and `day advance` 127 s."""
    workspace = fk.studio(tmp_path)
    _many(workspace, 10_000)
    for args in (("validate",), ("status",), ("day", "advance", "--backend", "offline")):
        proc = fk.run(workspace.root, *args, timeout=120)
        fk.assert_no_traceback(proc)
        assert proc.returncode == 1, fk.show(proc)
        assert "state/world.json: gatherings: 10000 gatherings, more than the 2000 the studio keeps" in \
            proc.stdout + proc.stderr, fk.show(proc)
