"""The report's templates: autoescaping everywhere, a missing value is an error, markup passed
unescaped only where the toolkit made it, and names, titles, file names and tracked queries
with HTML and quotes in them shown as text on every page."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import jinja2
import pytest

from report_studio import PAYLOAD, gamemaster

from gamemaster.create import init_workspace
from gamemaster.report.html import Frame, script_json
from gamemaster.report.templating import environment, render

PACKAGE = Path(__file__).resolve().parent.parent / "gamemaster" / "report"
QUOTES = """"Zitat" & 'Apostroph'"""


def test_every_template_compiles():
    env = environment()
    assert "page.html" in env.list_templates()
    for name in env.list_templates():
        env.get_template(name)


def test_a_value_a_template_does_not_get_is_an_error_and_none_is_nothing():
    env = environment()
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("<p>{{ missing }}</p>").render()
    assert env.from_string("<p>{{ value }}</p>").render(value=None) == "<p></p>"


def test_values_are_escaped_in_text_and_attributes():
    written = environment().from_string('<a title="{{ v }}">{{ v }}</a>').render(v=f"{PAYLOAD} {QUOTES}")
    assert "<script>" not in written and "<img" not in written
    assert written.count("&#34;") == 2 * (PAYLOAD + QUOTES).count('"') and "&#39;Apostroph&#39;" in written


def test_a_line_break_in_template_text_is_dropped_a_written_one_is_kept():
    template = environment().from_string("<ul>\n  <li>{{ a }}</li>\n  <li>x ·\n    {{ b }}</li>\n</ul>")
    assert template.render(a="1", b="2") == "<ul><li>1</li><li>x ·2</li></ul>"
    assert environment().from_string("<pre>\n{{ text }}\n</pre>").render(text="a\n  b") == "<pre>a\n  b</pre>"


def test_the_frame_keeps_its_line_breaks():
    frame = Frame("T <b>", "Studio & Co", "de", "../", "days")
    page = render("characters.html", frame, people=[])
    assert page.startswith('<!DOCTYPE html>\n<html lang="de">\n<head>\n') and page.endswith("</body>\n</html>\n")
    assert "<title>T &lt;b&gt; · Studio &amp; Co</title>" in page
    assert 'href="../days/index.html" aria-current="page">Tage</a>' in page


def test_markup_is_made_only_from_the_toolkits_own_html():
    """No template writes a value unescaped (|safe); Markup is made in two places: the JSON for a
    page's script and an artifact's Markdown rendered with raw HTML off."""
    for path in (PACKAGE / "templates").glob("*.html"):
        assert not re.search(r"\|\s*safe|autoescape\s+false", path.read_text(encoding="utf-8")), path.name
    made = sorted(f"{path.name}:{line.strip()}" for path in PACKAGE.glob("*.py")
                  for line in path.read_text(encoding="utf-8").splitlines() if re.search(r"\bMarkup\(", line))
    assert [m.split(":")[0] for m in made] == ["gallery.py", "html.py"], made
    data = script_json([{"text": PAYLOAD + QUOTES}])
    assert "<" not in data and ">" not in data and "&" not in data and json.loads(data)[0]["text"] == PAYLOAD + QUOTES


class Text(HTMLParser):
    """A page as the browser reads it: its text and its attribute values, references resolved."""

    def __init__(self, page: str):
        super().__init__(convert_charrefs=True)
        self.data: list[str] = []
        self.attributes: list[str] = []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.attributes += [value for _, value in attrs if value]

    def handle_data(self, data):
        self.data.append(data)


def test_html_and_quotes_in_names_titles_file_names_and_queries_are_shown_as_text(tmp_path):
    root = tmp_path / "studio"
    init_workspace(root)
    name = f"Vera {QUOTES} <b>Kowalski</b>"
    agent_path = root / "state/agents/vera.json"
    agent = json.loads(agent_path.read_text(encoding="utf-8"))
    agent["name"] = name
    agent_path.write_text(json.dumps(agent, ensure_ascii=False), encoding="utf-8")
    title = f"Notiz {PAYLOAD} {QUOTES}"
    artifact = root / "gallery/notizen" / "o'neil \"zitat\" & <b>.md"
    artifact.parent.mkdir(parents=True)
    artifact.write_text(f"---\ntitle: {json.dumps(title)}\n---\n\n{PAYLOAD}\n", encoding="utf-8")
    gamemaster(root, "day", "advance")
    query = f"Türme {QUOTES} <i>"
    gamemaster(root, "report", "--track", query)
    out = root / "report"
    site = {p.relative_to(out).as_posix(): p.read_text(encoding="utf-8") for p in out.rglob("*.html")}
    for page_name, page in site.items():
        assert "<script>window.__pwned" not in page and "<img src=x" not in page and "<b>" not in page, page_name
        assert "<i>" not in page, page_name
    vera = Text(site["characters/vera.html"])
    assert name in vera.data  # the heading, read back exactly as written
    assert f"{name} · {json.loads((root / 'state/world.json').read_text(encoding='utf-8'))['studio']}" in vera.data
    artifact_page = "gallery/notizen__o'neil \"zitat\" & <b>.html"
    assert title in Text(site[artifact_page]).data
    gallery = Text(site["gallery/index.html"])
    assert title in gallery.data and "../" + artifact_page in gallery.attributes  # the link leads to the page
    assert f"„{query}“ " in "".join(Text(site["knows.html"]).data)
    day = Text(site["days/day-001.html"])
    assert name in day.data
