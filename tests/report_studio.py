"""A studio played for three offline days, with HTML and a script hidden in a brief, a reply
and an artifact, for the report's tests (pure Python and browser)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

from typer.testing import CliRunner

from gamemaster.cli import app
from gamemaster.create import init_workspace

PAYLOAD = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">'
#: How the payload reads once escaped: what a page must show instead of running it.
ESCAPED = "&lt;script&gt;window.__pwned=1&lt;/script&gt;"


def gamemaster(root: Path, *args: str, input: str | None = None):
    result = CliRunner().invoke(app, ["--root", str(root), *args], input=input)
    assert result.exit_code == 0, f"gamemaster {' '.join(args)}\n{result.output}"
    return result


def played_studio(root: Path) -> Path:
    """Three offline days; after the third day's ARRIVAL a brief carrying the payload (a scene
    about it follows), afterwards the payload in a reply's action and at the end of an artifact."""
    init_workspace(root)
    gamemaster(root, "day", "advance", "--days", "2")
    gamemaster(root, "scene", "run")
    gamemaster(root, "brief", f"Bitte prüft die Türme: {PAYLOAD}")
    gamemaster(root, "day", "advance")
    reply_path = sorted((root / "scenes/day-003").glob("scene-*/replies/*.json"))[0]
    reply = json.loads(reply_path.read_text(encoding="utf-8"))
    reply["action"] += f" Er tippt: {PAYLOAD}"
    reply_path.write_text(json.dumps(reply, ensure_ascii=False), encoding="utf-8")
    artifact = sorted((root / "gallery").rglob("*.md"))[0]
    artifact.write_text(artifact.read_text(encoding="utf-8") + f"\nNotiz: {PAYLOAD}\n\n{PAYLOAD}\n", encoding="utf-8")
    return root


def scene_records(root: Path) -> dict[int, list[dict]]:
    """Day → its applied scene records, as written on disk."""
    found: dict[int, list[dict]] = {}
    for path in sorted(root.glob("scenes/day-*/scene-*/scene.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        if record["status"] == "applied":
            found.setdefault(record["day"], []).append(record)
    return found


class Parsed(HTMLParser):
    """The ids, links, element classes and tag sources of one page."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.sources: list[str] = []
        self.classes: list[tuple[str, str, str | None]] = []  # (tag, class, id)
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if attributes.get("id"):
            self.ids.add(attributes["id"])
        if tag == "a" and attributes.get("href") is not None:
            self.links.append(attributes["href"])
        for name in ("src", "href"):
            if tag in ("link", "script", "img", "iframe", "source", "video", "audio") and attributes.get(name):
                self.sources.append(attributes[name])
        for css in (attributes.get("class") or "").split():
            self.classes.append((tag, css, attributes.get("id")))


def pages(out: Path) -> dict[str, Parsed]:
    return {p.relative_to(out).as_posix(): Parsed(p.read_text(encoding="utf-8")) for p in sorted(out.rglob("*.html"))}


NETWORK = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//|url\(\s*["']?(?:https?:)?//|@import""", re.I)
