"""`gamemaster report`: the static site checked as files (links, cards, escaping, rebuilds)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from markupsafe import escape  # the report's own escaping: quotes as &#34; and &#39;

from report_studio import ESCAPED, NETWORK, PAYLOAD, gamemaster, pages, played_studio, scene_records

from gamemaster.create import init_workspace
from gamemaster.reasons import reason
from gamemaster.problems import GamemasterError, StateError
from gamemaster.report import build_report
from gamemaster.workspace import Workspace


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    root = played_studio(tmp_path_factory.mktemp("report") / "studio")
    result = gamemaster(root, "report")
    return root, root / "report", result.output


def test_the_command_prints_the_overview_path_and_writes_into_the_workspace(studio):
    root, out, output = studio
    assert output.strip().splitlines()[-1] == str(out / "index.html")
    assert (out / "index.html").is_file() and (out / "manifest.json").is_file()
    assert {p.name for p in (out / "assets").iterdir()} == {"style.css", "app.js", "search.js"}


def test_every_scene_of_every_day_has_its_card_with_reason_and_people(studio):
    root, out, _ = studio
    records = scene_records(root)
    assert sorted(records) == [1, 2, 3]
    agents = {p.stem: json.loads(p.read_text(encoding="utf-8"))["name"] for p in (root / "state/agents").glob("*.json")}
    for day, day_records in records.items():
        page = pages(out)[f"days/day-{day:03d}.html"]
        text = (out / f"days/day-{day:03d}.html").read_text(encoding="utf-8")
        cards = [element_id for tag, css, element_id in page.classes if css == "card"]
        assert cards == [f"scene-{r['scene']:02d}" for r in day_records]
        for record in day_records:
            card = text.split(f'id="scene-{record["scene"]:02d}"')[1].split('<li class="card"')[0]
            assert record["type"] in card
            assert escape(reason("de", record["reason"], agents)) in card
            for agent in record["participants"]:
                assert escape(agents[agent]) in card, (record["ref"], agent)
            said = [escape(line["says"]) for line in record.get("transcript") or []]
            assert said == [q.split("</q>")[0] for q in card.split("<q>")[1:]][:len(said)]


def test_the_day_page_shows_the_memories_artifacts_and_summary_of_the_day(studio):
    root, out, _ = studio
    text = (out / "days/day-002.html").read_text(encoding="utf-8")
    summary = json.loads((root / "scenes/day-002/summary.json").read_text(encoding="utf-8"))
    for record in scene_records(root)[2]:
        for written in record.get("written") or []:
            assert f'characters/{written["agent"]}.html#{written["id"]}' in text
        for path in record.get("artifacts") or []:
            assert "../gallery/" + "__".join(path.split("/")[1:])[:-3] + ".html" in text
    assert 'id="summary"' in text and f'{summary["memories_written"]} Erinnerungen' in text


def test_every_internal_link_and_fragment_resolves(studio):
    _, out, _ = studio
    parsed = pages(out)
    checked = 0
    for name, page in parsed.items():
        for href in page.links:
            if href.startswith(("http:", "https:", "mailto:")):
                continue
            target, _, fragment = href.partition("#")
            target_name = name if not target else (Path(name).parent / target).as_posix()
            resolved = (out / target_name).resolve()
            assert resolved.is_file() and resolved.is_relative_to(out.resolve()), f"{name}: {href}"
            if fragment:
                key = resolved.relative_to(out.resolve()).as_posix()
                assert fragment in parsed[key].ids, f"{name}: {href} (no element with that id)"
            checked += 1
    assert checked > 500


def test_nothing_is_fetched_from_the_network(studio):
    _, out, _ = studio
    for path in out.rglob("*"):
        if path.suffix in (".html", ".css", ".js"):
            text = path.read_text(encoding="utf-8")
            assert not NETWORK.search(text), f"{path}: {NETWORK.search(text).group(0)}"
    for name, page in pages(out).items():
        assert all(not s.startswith(("http", "//")) for s in page.sources), name
        assert page.sources, name  # at least the style sheet, from beside the page


def test_html_in_a_reply_an_artifact_and_a_memory_is_shown_as_text(studio):
    root, out, _ = studio
    for path in out.rglob("*.html"):
        text = path.read_text(encoding="utf-8")
        assert "<script>window.__pwned" not in text and "<img src=x" not in text, path
    day = (out / "days/day-003.html").read_text(encoding="utf-8")
    brief_scene = [r for r in scene_records(root)[3] if r["brief_ids"]]
    assert len(brief_scene) == 1 and PAYLOAD in brief_scene[0]["topic"]
    card = day.split(f'id="scene-{brief_scene[0]["scene"]:02d}"')[1].split('<li class="card"')[0]
    assert ESCAPED in card.split('class="note brief"')[1].split("</p>")[0]  # the brief's text on its card
    assert day.count(ESCAPED) >= 3  # also in the card's title, its table of contents entry and the reply
    artifact = sorted((root / "gallery").rglob("*.md"))[0].relative_to(root).as_posix()
    gallery = (out / ("gallery/" + "__".join(artifact.split("/")[1:])[:-3] + ".html")).read_text(encoding="utf-8")
    assert gallery.count(ESCAPED) == 2
    character = (out / "characters/vera.html").read_text(encoding="utf-8")
    assert ESCAPED in character
    data = character.split('<script type="application/json" id="memory-data">')[1].split("</script>")[0]
    assert "<" not in data and ">" not in data and "\\u003cscript\\u003ewindow.__pwned=1" in data
    assert PAYLOAD in [m["text"] for m in json.loads(data) if PAYLOAD in m["text"]][0]


def test_pages_are_utf8_with_real_umlauts(studio):
    root, out, _ = studio
    for path in out.rglob("*.html"):
        text = path.read_text(encoding="utf-8")
        assert '<meta charset="utf-8">' in text and '<html lang="de">' in text, path
    assert "Übersicht" in (out / "index.html").read_text(encoding="utf-8")
    persona = json.loads((root / "state/agents/vera.json").read_text(encoding="utf-8"))["persona"]
    page = (out / "characters/vera.html").read_text(encoding="utf-8")
    first = persona.split("\n\n")[0].split("„")[0]
    assert any(ch in first for ch in "äöüß") and first in page


def test_the_accumulator_has_one_point_per_scene_the_character_was_in(studio):
    root, out, _ = studio
    records = [r for day in scene_records(root).values() for r in day]
    for agent in ("vera", "emre", "darius"):
        page = (out / f"characters/{agent}.html").read_text(encoding="utf-8")
        chart = page.split('<section id="accumulator">')[1].split("</section>")[0]
        present = [r for r in records if agent in r["participants"]]
        assert chart.count("<circle") == len(present)
        assert chart.count('class="point trigger"') == sum(r["type"] == "REFLECTION" for r in present) > 0


def test_reflections_link_to_their_evidence(studio):
    root, out, _ = studio
    stream = [json.loads(line) for line in (root / "state/memories/vera.jsonl").read_text(encoding="utf-8").splitlines()]
    page = (out / "characters/vera.html").read_text(encoding="utf-8")
    trees = page.split('<section id="reflections">')[1].split("</section>")[0]
    for memory in stream:
        if memory["type"] == "reflection":
            assert f'href="#{memory["id"]}"' in trees
            for evidence in memory["evidence"]:
                assert f'href="#{evidence}"' in trees


def test_the_library_reads_are_listed(studio):
    root, out, _ = studio
    reads = {}
    for path in (root / "state/memories").glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            memory = json.loads(line)
            if str(memory["metadata"].get("source", "")).startswith("library/"):
                reads.setdefault(path.stem, []).append(memory)
    assert reads
    for agent, memories in reads.items():
        section = (out / f"characters/{agent}.html").read_text(encoding="utf-8").split('<section id="library">')[1].split("</section>")[0]
        assert section.count('class="ref"') == len(memories)


def test_a_rebuild_after_one_more_day_renders_only_what_changed(tmp_path):
    root = played_studio(tmp_path / "studio")
    workspace = Workspace(root)
    first = build_report(workspace)
    assert "days/day-001.html" in first.written and not first.unchanged
    before = {p: (first.out / p).stat().st_mtime_ns for p in ("days/day-001.html", "days/day-002.html", "days/day-003.html")}
    again = build_report(Workspace(root))
    assert again.written == [] and len(again.unchanged) == len(first.written)

    gamemaster(root, "day", "advance")
    after = build_report(Workspace(root))
    assert "days/day-004.html" in after.written and "index.html" in after.written
    assert not [p for p in after.written if p.startswith("days/day-") and p != "days/day-004.html"]
    assert {p: (after.out / p).stat().st_mtime_ns for p in before} == before
    manifest = json.loads((after.out / "manifest.json").read_text(encoding="utf-8"))
    assert "days/day-004.html" in manifest["pages"]

    reply = sorted((root / "scenes/day-002").glob("scene-*/replies/*.json"))[0]
    data = json.loads(reply.read_text(encoding="utf-8"))
    data["action"] = "Nachträglich geändert: Vera zeichnet weiter."
    reply.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    edited = build_report(Workspace(root))
    assert [p for p in edited.written if p.startswith("days/day-")] == ["days/day-002.html"]
    assert "Nachträglich geändert" in (edited.out / "days/day-002.html").read_text(encoding="utf-8")


def test_a_removed_page_is_written_again(tmp_path):
    root = played_studio(tmp_path / "studio")
    out = tmp_path / "site"
    build_report(Workspace(root), out)
    (out / "days/day-002.html").unlink()
    assert build_report(Workspace(root), out).written == ["days/day-002.html"]


def test_out_and_open(tmp_path, monkeypatch):
    root = played_studio(tmp_path / "studio")
    opened = []
    import webbrowser

    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: opened.append(url) or True)
    result = gamemaster(root, "report", "--out", str(tmp_path / "site"), "--open")
    assert result.output.strip().splitlines()[-1] == str(tmp_path / "site" / "index.html")
    assert opened == [(tmp_path / "site" / "index.html").as_uri()]
    assert not (root / "report").exists()
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: False)
    result = gamemaster(root, "report", "--open")
    assert "no web browser could be started here" in result.output
    assert (root / "report" / "index.html").is_file()


def test_a_broken_reply_file_is_named(tmp_path):
    root = played_studio(tmp_path / "studio")
    reply = sorted((root / "scenes/day-001").glob("scene-*/replies/*.json"))[0]
    reply.write_text('{"agent": "vera"', encoding="utf-8")
    with pytest.raises(StateError, match=reply.relative_to(root).as_posix()):
        build_report(Workspace(root))


def test_the_report_refuses_to_write_into_the_state(tmp_path):
    root = played_studio(tmp_path / "studio")
    with pytest.raises(GamemasterError, match="folder of its own"):
        build_report(Workspace(root), root / "state")


def test_other_commands_do_not_import_the_report():
    code = ("import sys, gamemaster.cli; "
            "print(*(m in sys.modules for m in ('gamemaster.report', 'markdown_it', 'jinja2', 'markupsafe')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False", "False", "False"]


def test_the_accumulator_is_over_the_threshold_where_a_reflection_was_triggered(studio):
    from gamemaster.report.charts import accumulator_points
    from gamemaster.report.studio import load_studio

    root, _, _ = studio
    loaded = load_studio(Workspace(root))
    threshold = loaded.world.reflection_threshold
    triggers = [p for agent in loaded.agents for p in accumulator_points(loaded, agent) if p.reflected]
    assert len(triggers) >= 5
    assert all(p.value > threshold for p in triggers), [(p.ref, p.value) for p in triggers]


def test_a_studio_before_its_first_day_has_an_overview_and_no_day_pages(tmp_path):
    root = tmp_path / "studio"
    from gamemaster.create import init_workspace

    init_workspace(root)
    result = build_report(Workspace(root))
    text = result.index.read_text(encoding="utf-8")
    assert "Noch kein Tag gespielt." in text and not list((result.out / "days").glob("day-*.html"))
    assert len(list((result.out / "characters").glob("*.html"))) == 8  # seven characters and the index


def test_paths_in_records_and_memories_never_read_a_file_outside_the_workspace(tmp_path):
    root = tmp_path / "studio"
    init_workspace(root)
    gamemaster(root, "day", "advance")
    secret = tmp_path / "secret.md"
    secret.write_text("GEHEIMNIS außerhalb des Arbeitsbereichs", encoding="utf-8")
    record_path = sorted((root / "scenes/day-001").glob("scene-*/scene.json"))[1]
    record = json.loads(record_path.read_text(encoding="utf-8"))
    label = next(iter(record["replies"]))
    (tmp_path / "reply.json").write_text(json.dumps({"action": "GEHEIMNIS aus einer fremden Datei"}), encoding="utf-8")
    record["replies"][label] = "../reply.json"
    record_path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    stream = root / "state/memories/vera.jsonl"
    first = json.loads(stream.read_text(encoding="utf-8").splitlines()[0])
    forged = {**first, "id": "vera-999", "type": "artifact", "created": "day-001/scene-02",
              "metadata": {"artifact_path": "../secret.md", "title": "Geheim"}}
    with stream.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(forged, ensure_ascii=False) + "\n")
    gamemaster(root, "report")
    site = "".join(p.read_text(encoding="utf-8") for p in (root / "report").rglob("*.html"))
    assert "GEHEIMNIS" not in site
    assert "vera-999" in site  # the memory itself is shown, only the file it names is not read


def test_a_reflection_citing_a_colleagues_memory_links_to_it_on_their_page(tmp_path):
    root = tmp_path / "studio"
    init_workspace(root)
    tobi = [json.loads(line) for line in (root / "state/memories/tobi.jsonl").read_text(encoding="utf-8").splitlines()]
    vera_stream = root / "state/memories/vera.jsonl"
    number = len(vera_stream.read_text(encoding="utf-8").splitlines()) + 1
    reflection = {"id": f"vera-{number:03d}", "created": "day-001/scene-01", "type": "reflection", "depth": 1,
                  "description": "Tobis Shader zeigen, wie die Türme atmen könnten.", "importance": 7,
                  "tags": [], "evidence": [tobi[0]["id"]], "metadata": {}}
    with vera_stream.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(reflection, ensure_ascii=False) + "\n")
    gamemaster(root, "report")
    vera_page = (root / "report/characters/vera.html").read_text(encoding="utf-8")
    assert f'href="tobi.html#{tobi[0]["id"]}"' in vera_page
    assert f'id="{tobi[0]["id"]}"' in (root / "report/characters/tobi.html").read_text(encoding="utf-8")


def test_a_work_scene_in_rooms_shows_who_sat_in_which_room(tmp_path):
    from studios import grow

    root = tmp_path / "studio"
    workspace = init_workspace(root)
    grow(workspace, 25)
    gamemaster(root, "config", "kinds.encounter.per_day", "0")  # no talk in the break before the WORK
    gamemaster(root, "scene", "run")
    gamemaster(root, "scene", "run")
    record = json.loads((root / "scenes/day-001/scene-02/scene.json").read_text(encoding="utf-8"))
    assert record["type"] == "WORK" and len(record["rooms"]) == 3
    gamemaster(root, "report")
    card = (root / "report/days/day-001.html").read_text(encoding="utf-8").split('id="scene-02"')[1].split('<li class="card"')[0]
    for number, room in enumerate(record["rooms"], 1):
        assert f"Raum {number}: " in card
        row = card.split(f"Raum {number}: ")[1].split("<br>")[0]
        assert [f"{agent}.html" in row for agent in room] == [True] * len(room)


def test_a_gathering_is_shown_on_its_day_page_escaped_with_who_came(tmp_path):
    root = tmp_path / "studio"
    init_workspace(root)
    world_path = root / "state/world.json"
    world = json.loads(world_path.read_text(encoding="utf-8"))
    world["gatherings"] = [{"id": "gathering-001", "host": "vera", "what": f"Quittenfest {PAYLOAD}", "day": 1,
                            "slot": "morning", "place": "Innenhof", "invited": ["darius", "nami"],
                            "answers": {"darius": "accepted", "nami": "declined"}, "created": "day-001/scene-01"}]
    world["gatherings_issued"] = 1
    world_path.write_text(json.dumps(world, ensure_ascii=False), encoding="utf-8")
    gamemaster(root, "scene", "run")
    gamemaster(root, "next", "--type", "GATHERING", "--with", "vera,tobi")
    gamemaster(root, "scene", "run")
    gamemaster(root, "report")
    page = (root / "report/days/day-001.html").read_text(encoding="utf-8")
    section = page.split('id="gatherings"')[1].split("</section>")[0]
    assert f"Quittenfest {ESCAPED}" in section and "<script>" not in page
    assert "Innenhof" in section and "day-001.html#scene-02" in section
    came = section.split("Gekommen</dt><dd>")[1].split("</dd>")[0]
    assert "vera.html" in came and "tobi.html" in came
    assert "darius.html" in section.split("Zugesagt, nicht gekommen</dt><dd>")[1].split("</dd>")[0]
    assert "tobi.html" in section.split("Ungeladen gekommen</dt><dd>")[1].split("</dd>")[0]


def test_a_build_reads_each_reply_once(studio, tmp_path, monkeypatch):
    """The day page, the search index and the scene page all show a scene's replies; a full
    build reads (and for an archived day unpacks) each reply once for the three of them."""
    import collections

    import gamemaster.report.studio as report_studio
    from gamemaster.reply_models import Reply

    root, _, _ = studio
    reads = collections.Counter()
    original = report_studio.read_record

    def counted(workspace, path, model):
        if isinstance(model, type) and issubclass(model, Reply):
            reads[path] += 1
        return original(workspace, path, model)

    monkeypatch.setattr(report_studio, "read_record", counted)
    build_report(Workspace(root), out=tmp_path / "fresh")
    assert reads, "the build read the replies"
    assert {str(path): n for path, n in reads.items() if n != 1} == {}
