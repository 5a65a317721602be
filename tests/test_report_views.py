"""`gamemaster report`'s views that answer "why did she say that?": what each reply was shown,
the search across the studio, who talks with whom, what changed (checked as files)."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
import yaml
from markupsafe import escape  # the report's own escaping: quotes as &#34; and &#39;

from report_studio import gamemaster, pages, played_studio, scene_records
from gamemaster.lang import short_name


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    root = played_studio(tmp_path_factory.mktemp("views") / "studio")
    gamemaster(root, "report")
    return root, root / "report"


def _turn_block(text: str, label: str) -> str:
    return text.split(f'id="turn-{label}"')[1].split('<li class="card turn"')[0]


def test_every_reply_links_to_what_its_prompt_showed_with_each_memory_linked(studio):
    root, out = studio
    parsed = pages(out)
    checked = 0
    for day, records in scene_records(root).items():
        day_links = parsed[f"days/day-{day:03d}.html"].links
        for record in records:
            scene_page = f"scenes/{record['ref'].replace('/', '-')}.html"
            text = (out / scene_page).read_text(encoding="utf-8")
            for label, prompt_path in record["prompts"].items():
                assert f"../{scene_page}#turn-{label}" in day_links, (record["ref"], label)
                block = _turn_block(text, label)
                shown = json.loads((root / record["ref"].join(["scenes/", f"/shown/{label}.json"])).read_text(encoding="utf-8"))
                for memory_id in shown["memories"]:
                    author = memory_id.rsplit("-", 1)[0]
                    assert f'href="../characters/{author}.html#{memory_id}"' in block, (record["ref"], label, memory_id)
                prompt = (root / prompt_path).read_text(encoding="utf-8")
                assert f"<pre>{escape(prompt)}</pre>" in block  # the whole prompt, one click away
                checked += 1
    assert checked > 50


def test_the_shown_memories_stand_under_the_prompt_section_they_were_in(studio):
    root, out = studio
    record = next(r for r in scene_records(root)[2] if r["type"] == "WORK")
    label = sorted(record["prompts"])[0]
    prompt = (root / record["prompts"][label]).read_text(encoding="utf-8")
    block = _turn_block((out / f"scenes/{record['ref'].replace('/', '-')}.html").read_text(encoding="utf-8"), label)
    sections = {unescape(h): body for h, body in re.findall(r"<h4>(.*?)</h4><ul class=\"mems\">(.*?)</ul>", block)}
    topic = prompt.split("Zum Thema dieser Szene:")[1].split("\n\n")[0]
    topic_ids = re.findall(r"^- \[(\S+) ·", topic, re.M)
    assert topic_ids and all(f"#{i}\"" in sections["Zum Thema dieser Szene"] for i in topic_ids)


def test_a_meeting_shows_each_action_with_the_line_it_goes_with(studio):
    root, out = studio
    meeting = next(r for day in scene_records(root).values() for r in day if r["type"] == "MEETING" and r.get("transcript"))
    text = (out / f"days/day-{meeting['day']:03d}.html").read_text(encoding="utf-8")
    card = text.split(f'id="scene-{meeting["scene"]:02d}"')[1].split('<li class="card"')[0]
    for label, reply_path in sorted(meeting["replies"].items()):
        reply = json.loads((root / reply_path).read_text(encoding="utf-8"))
        if reply.get("says"):
            assert f'<q>{escape(reply["says"])}</q><div class="act"><p>{escape(reply["action"])}' in card, label


def _talked(root) -> dict[tuple[str, str], list[str]]:
    """Pairs who both said something in a scene's transcript → those scenes (by the records on disk)."""
    found: dict[tuple[str, str], list[str]] = {}
    for records in scene_records(root).values():
        for record in records:
            speakers = sorted({line["speaker"] for line in record.get("transcript") or [] if line["says"].strip()})
            for n, a in enumerate(speakers):
                for b in speakers[n + 1:]:
                    found.setdefault((a, b), []).append(record["ref"])
    return found


def test_who_talks_with_whom_counts_conversations_and_links_each_to_its_scenes(studio):
    root, out = studio
    talked = _talked(root)
    text = (out / "talks.html").read_text(encoding="utf-8")
    overall = text.split('id="overall"')[1].split("</section>")[0]
    cells = re.findall(r'<a class="cell heat-\d" title="[^"]*" href="#pair-([^"]+)">(\d+)</a>', overall)
    assert cells and len(cells) == 2 * len(talked)  # both halves of the matrix
    for pair, count in cells:
        a, b = next((a, b) for a, b in talked if f"{a}-{b}" == pair)
        assert int(count) == len(talked[(a, b)])
        listed = text.split(f'id="pair-{pair}"')[1].split("</ul>")[0]
        for ref in talked[(a, b)]:
            day, scene = ref.split("/")
            assert f'href="days/{day}.html#{scene}"' in listed
    # a notice of a meeting is no talk: its readers are not in any pair of that scene
    records = [r for day in scene_records(root).values() for r in day]
    noticed = {(w["agent"], r["ref"]) for r in records for w in r.get("written") or [] if w["agent"] not in r["participants"]}
    assert noticed and all(r not in talked.get(tuple(sorted((a, b))), []) for a, r in noticed for b in
                           {p for pair in talked for p in pair})


ENGLISH = ("waited longest", "wants to talk", "accumulator", "cross paths", "studio opens", "is over after",
           "from the Creative Director", "calls a meeting", "side by side", "forced by", "deferred")


def test_the_game_masters_reasons_read_in_the_studios_language_in_prompts_and_pages(studio):
    root, out = studio
    names = {p.stem: json.loads(p.read_text(encoding="utf-8"))["name"] for p in (root / "state" / "agents").glob("*.json")}
    reasons = 0
    for day, records in scene_records(root).items():
        page = (out / f"days/day-{day:03d}.html").read_text(encoding="utf-8")
        for record in records:
            card = page.split(f'id="scene-{record["scene"]:02d}"')[1].split("</dl>")[0]
            why = unescape(card.split("<dd>")[1].split("</dd>")[0])
            assert not any(word in why for word in ENGLISH), (record["ref"], why)
            for label, prompt_path in record["prompts"].items():
                line = next(l for l in (root / prompt_path).read_text(encoding="utf-8").splitlines() if "Warum diese Szene:" in l)
                # A prompt shows the part of the reason about its character (no colleague's accumulator).
                name = short_name(names[label.split("-", 1)[1]])
                own = "; ".join(p for p in why.split("; ") if not re.match(r"^\w+: Wichtigkeits-Akkumulator", p)
                                or p.startswith(f"{name}:"))
                assert line == f"- Warum diese Szene: {own}" and not any(word in line for word in ENGLISH), line
                reasons += 1
    assert reasons > 50


@pytest.mark.parametrize("english, german", [
    ("brief brief-002 from the Creative Director awaits vera, tobi (announced to 3 more)",
     "Vorgabe brief-002 des Creative Director wartet auf Vera, Tobi (weiteren 3 angekündigt)"),
    ("forced by the Creative Director: MEETING with vera, tobi", "vom Creative Director angesetzt: MEETING mit Vera, Tobi"),
    ("tobi, vera: waited longest to act (2 scene(s) today); work side by side in 2 rooms",
     "Tobi, Vera: am längsten nicht dran (2 Szene(n) heute); arbeiten nebeneinander in 2 Räumen"),
    ("event event-004 (every tuesday, afternoon): Jour fixe", "Ereignis event-004 (jeden Dienstag, Nachmittag): Jour fixe"),
    ("gathering-001: tobi invited for day 004 at evening: Quiz; host present, 3 of 4 invited came; 1 declined; "
     "0 did not answer; came uninvited: vera",
     "gathering-001: Tobi hat für Tag 004, Abend, eingeladen: Quiz; Gastgeber:in da, 3 von 4 Eingeladenen gekommen; "
     "1 abgesagt; 0 ohne Antwort; ungeladen gekommen: Vera"),
    ("a reason no template knows", "a reason no template knows"),
])
def test_each_kind_of_reason_has_its_german_form(english, german):
    from gamemaster.reasons import reason

    names = {"vera": "Vera Kowalski", "tobi": "Tobias „Tobi“ Richter"}
    assert reason("de", english, names) == german
    assert reason("en", english, names) == english


def test_a_reflection_cited_by_two_later_ones_is_drawn_once_and_linked_from_the_other(tmp_path):
    from gamemaster.create import init_workspace

    root = tmp_path / "studio"
    init_workspace(root)
    stream = root / "state/memories/vera.jsonl"
    lines = stream.read_text(encoding="utf-8").splitlines()
    first = json.loads(next(l for l in lines if json.loads(l)["type"] == "reflection"))
    number = len(lines)

    def reflection(n: int, depth: int, evidence: list[str]) -> dict:
        return {"id": f"vera-{n:03d}", "created": "day-001/scene-01", "type": "reflection", "depth": depth,
                "description": f"Einsicht {n}", "importance": 7, "tags": [], "evidence": evidence, "metadata": {}}

    later = [reflection(number + 1, 2, [first["id"]]), reflection(number + 2, 2, [first["id"], first["evidence"][0]])]
    with stream.open("a", encoding="utf-8") as handle:
        handle.writelines(json.dumps(m, ensure_ascii=False) + "\n" for m in later)
    gamemaster(root, "report")
    section = (root / "report/characters/vera.html").read_text(encoding="utf-8").split('id="reflections"')[1].split("</section>")[0]
    assert section.count(f'id="tree-{first["id"]}"') == 1  # its subtree once …
    assert section.count(f'<a class="subtree" href="#tree-{first["id"]}">') == 1  # … and a link to it from the other
    # its own evidence is listed once, under the one drawing of it
    assert section.count(f'href="#{first["evidence"][1]}"') == 1


def _body(path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return (text.split("\n---\n", 1)[1] if text.startswith("---\n") else text).strip().splitlines()


def _front(path) -> dict:
    text = path.read_text(encoding="utf-8")
    return yaml.safe_load(text.split("\n---\n", 1)[0].removeprefix("---\n"))


def test_a_later_version_of_an_artifact_shows_what_changed_since_the_one_before(studio):
    root, out = studio
    # the versions of one piece of work: same kind (folder) and title, e.g. three cards
    # titled „Zeitplan – Risiken und Umfang“; take the first series whose two latest differ
    series: dict[tuple[str, str], list] = {}
    for path in sorted((root / "gallery").glob("*/*.md")):
        series.setdefault((path.parent.name, _front(path)["title"]), []).append(path)
    pairs = [
        (kind, paths[-2], paths[-1])
        for (kind, _), paths in sorted(series.items())
        if len(paths) >= 2 and _body(paths[-2]) != _body(paths[-1])
    ]
    assert pairs, "the played studio has no artifact in two differing versions"
    kind, first, second = pairs[0]
    page = (out / f"gallery/{kind}__{second.stem}.html").read_text(encoding="utf-8")
    diff = page.split('<pre class="diff">')[1].split("</pre>")[0]
    before, after = _body(first), _body(second)
    added = [l for l in after if l not in before]
    removed = [l for l in before if l not in after]
    assert added or removed
    for line in added:
        assert f'<span class="add">+{escape(line)}</span>' in diff
    for line in removed:
        assert f'<span class="del">-{escape(line)}</span>' in diff
    versions = page.split('id="versions"')[1].split("</p>")[0]
    assert f'href="../gallery/{kind}__{first.stem}.html"' in versions
    oldest = series[(kind, _front(second)["title"])][0]
    assert '<pre class="diff">' not in (out / f"gallery/{kind}__{oldest.stem}.html").read_text(encoding="utf-8")


def test_the_character_page_shows_per_day_the_plan_new_reflections_and_what_was_learned(studio):
    root, out = studio
    stream = [json.loads(l) for l in (root / "state/memories/vera.jsonl").read_text(encoding="utf-8").splitlines()]
    section = (out / "characters/vera.html").read_text(encoding="utf-8").split('id="plans"')[1].split("</section>")[0]
    days = section.split("<details")[1:]
    assert len(days) == 4 and " open" in days[0].split(">")[0]  # day 3, 2, 1 and the kickoff (0); the latest open
    for day_text, day in zip(days, (3, 2, 1)):
        of_day = [m for m in stream if m["created"].startswith(f"day-{day:03d}")]
        for kind, heading in (("plan", "Plan"), ("reflection", "Reflexionen")):
            wanted = [m for m in of_day if m["type"] == kind]
            assert (f"<h4>{heading} ({len(wanted)})</h4>" in day_text) == bool(wanted)
            assert all(f'href="#{m["id"]}"' in day_text for m in wanted)
        heard = [m for m in of_day if m["metadata"].get("source") == "heard" or m["type"] == "conversation"]
        assert heard and all(f'href="#{m["id"]}"' in day_text.split("<h4>Gelernt")[1] for m in heard)


def test_the_run_timeline_marks_every_scene_and_pages_step_day_by_day_and_scene_by_scene(studio):
    root, out = studio
    records = scene_records(root)
    timeline = pages(out)["days/index.html"].links
    for day, day_records in records.items():
        for record in day_records:
            assert f"day-{day:03d}.html#scene-{record['scene']:02d}" in timeline
    middle = pages(out)["days/day-002.html"].links
    assert "day-001.html" in middle and "day-003.html" in middle
    ordered = [r["ref"] for day in sorted(records) for r in records[day]]
    for n, ref in enumerate(ordered):
        links = pages(out)[f"scenes/{ref.replace('/', '-')}.html"].links
        day_part, scene_part = ref.split("/")
        assert f"../days/{day_part}.html#{scene_part}" in links
        if n:
            assert f"{ordered[n - 1].replace('/', '-')}.html" in links
        if n + 1 < len(ordered):
            assert f"{ordered[n + 1].replace('/', '-')}.html" in links
    day_page = (out / "days/day-001.html").read_text(encoding="utf-8")
    # long parts are folded: no memory list and no exchange of more than four turns is open
    assert "<details open" not in day_page
    long_exchange = next(r for r in records[1] if len(r["replies"]) > 4)
    card = day_page.split(f'id="scene-{long_exchange["scene"]:02d}"')[1].split('<li class="card"')[0]
    assert '<details class="exchange"><summary>' in card


def test_a_tracked_query_shows_who_knew_it_since_when_and_from_whom_as_a_chain(tmp_path):
    from gamemaster.who_knows import who_knows
    from gamemaster.workspace import Workspace

    root = played_studio(tmp_path / "studio")
    gamemaster(root, "report", "--track", "Ilka Lauschende")
    answer = who_knows(Workspace(root), "Ilka Lauschende")
    text = (root / "report/knows.html").read_text(encoding="utf-8")
    chain = text.split('<ul class="chain">')[1].split("<h3>")[0]
    origin = next(r for r in answer.knowing if r.source == "self")
    told = [r for r in answer.knowing if r.source == origin.agent]
    assert told  # the news travelled
    # the first-hand knower is a root; everyone they told hangs beneath them
    beneath = chain.partition(f'href="characters/{origin.agent}.html"')[2]
    for row in told:
        assert f'href="characters/{row.agent}.html"' in beneath
        day, scene = row.since.split("/")
        assert f'href="days/{day}.html#{scene}"' in chain
    days = text.split('class="grid knows"')[1]
    for row in answer.rows:
        cells = days.split(f'href="characters/{row.agent}.html"')[1].split("</tr>")[0]
        assert ("●" in cells) == row.knows
    # the query is kept: a plain rebuild after one more day still draws it; --track '' stops it
    gamemaster(root, "day", "advance")
    gamemaster(root, "report")
    assert "Ilka Lauschende" in (root / "report/knows.html").read_text(encoding="utf-8")
    assert "Tag 4" in (root / "report/knows.html").read_text(encoding="utf-8")
    gamemaster(root, "report", "--track", "")
    assert 'href="knows.html"' not in (root / "report/talks.html").read_text(encoding="utf-8")
    assert not (root / "report/knows.html").exists()


def test_every_word_the_studio_wrote_finds_the_documents_it_is_in_whatever_their_language():
    """The search page looks a query's words up in the vocabulary instead of stemming them: each
    word must lead to the term its document was indexed under — an English line in a German
    studio is stemmed as English („bone towers“), a German one as German."""
    from gamemaster.report.search import Index
    from gamemaster.retrieval.text import words as folded_words

    index = Index("de")
    lines = ["We discussed the bone towers and how they were growing", "Die Knochentürme wachsen über Nacht"]
    for number, line in enumerate(lines):
        index.add("memory", f"m{number}", f"#m{number}", line)
    data = json.loads(index.script().split(" = ", 1)[1].rstrip(";\n"))
    for number, line in enumerate(lines):
        for word in folded_words(line):
            terms = data["vocabulary"][word]
            terms = terms if isinstance(terms, list) else [terms]
            assert any(number in [p[0] for p in data["postings"].get(t, [])] for t in terms), (word, terms)


def test_a_kind_s_reason_is_translated_by_its_own_table(monkeypatch):
    """A kind's reason is translated through the kind's own ``reasons`` table: a change of its wording
    is still shown in German, and so is a reason the kind writes that no other table knows."""
    from gamemaster.kinds import get_kind
    from gamemaster.reasons import reason

    work = get_kind("WORK")
    monkeypatch.setattr(type(work), "reasons", {
        "work": {"en": "{who} sit down together ({count} scene(s) so far)",
                 "de": "{who} setzen sich zusammen ({count} Szene(n) bisher)"}})
    written = work.reason("work", who="vera, tobi", count=2)

    assert written == "vera, tobi sit down together (2 scene(s) so far)"
    assert reason("de", written, {"vera": "Vera Kowalski", "tobi": "Tobias „Tobi“ Richter"}) == \
        "Vera, Tobi setzen sich zusammen (2 Szene(n) bisher)"


def test_the_stylesheet_defines_every_colour_it_uses_without_the_kinds():
    """The charts are drawn in colours of their own: a studio without a kind named REFLECTION or
    EVENT (whose ``--reflection``/``--event`` the kinds' CSS adds) still draws its accumulator chart."""
    import re
    from pathlib import Path

    import gamemaster.report

    css = (Path(gamemaster.report.__file__).parent / "assets" / "style.css").read_text(encoding="utf-8")
    defined = set(re.findall(r"(--[\w-]+)\s*:", css))
    used = set(re.findall(r"var\((--[\w-]+)\)", css))
    assert sorted(used - defined) == []
