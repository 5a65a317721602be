"""Does the report render the same pages at two commits?

    python bench/same_report.py BEFORE [AFTER] [--days 5] [--keep DIR]

BEFORE and AFTER are git revisions of this repository (AFTER defaults to the working tree,
written ``.``), exported as ``bench/same_run.py`` does. One studio is played once with the
BEFORE code (offline, the seed is the world's): ``init``, an EVENT with a meeting on day 2, a
brief to organise a gathering, days played, the last day's ARRIVAL, then a brief carrying HTML, quotes and an
ampersand, an artifact added by hand whose title and file name carry them too, one more day.
Two copies of that workspace get ``gamemaster report --track …`` (tracked queries: the "who
knows what" page), one with each side's code, each run from a folder outside the checkout.

Every file of the two report folders is compared:

- byte-identical;
- the same after character references: both parsed with ``html.parser.HTMLParser``
  (``convert_charrefs=True``) into (event, tag, attributes, data) and the lists compared
  (markupsafe writes ``&#34;``/``&#39;`` where ``html.escape`` wrote ``&quot;``/``&#x27;``);
- the same but for whitespace between tags (counted apart: never inside ``<pre>`` or text);
- different (the first differences are shown).

``manifest.json`` is not counted with them: it is compared by its page list and tracked queries,
as its fingerprints hash the report's own code, which is what changed. Exits 1 when a file differs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path

from same_run import export

PAYLOAD = """<script>window.__pwned=1</script> "Zitat" & 'Apostroph'"""
TRACKED = ("Spieleabend", 'Publisher "Vertical Slice"')
MANIFEST = "manifest.json"
ARTIFACT = ("gallery/notizen/o'neil \"zitat\" & <b>.md",
            f'---\ntitle: "Notiz <b>fett</b> & \\"Zitat\\" \'x\'"\n---\n\n# Überschrift "A" & B\n\n{PAYLOAD}\n')


def gamemaster(code: Path, root: Path, *args: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(code))
    for name in ("ANTHROPIC_API_KEY", "GAMEMASTER_ROOT"):
        env.pop(name, None)
    subprocess.run([sys.executable, "-m", "gamemaster", "--root", str(root), *args], env=env, check=True,
                   capture_output=True, cwd=code.parent)


def play(code: Path, root: Path, days: int) -> None:
    """Every kind of page: days with gatherings, artifacts, briefs, talks and an event."""
    gamemaster(code, root, "init", str(root))
    gamemaster(code, root, "event", "Der Publisher kommt zu Besuch und will den Vertical Slice sehen.", "--day", "2", "--meeting")
    gamemaster(code, root, "brief", "Organisiere am Mittwoch abends einen Spieleabend im Pausenraum und lade alle ein.", "--to", "nami")
    gamemaster(code, root, "day", "advance", "--days", str(days - 1), "--backend", "offline")
    gamemaster(code, root, "scene", "run", "--backend", "offline")  # the last day's ARRIVAL, then the brief
    gamemaster(code, root, "brief", f"Bitte prüft die Türme: {PAYLOAD}")
    path, text = ARTIFACT
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(text, encoding="utf-8")
    gamemaster(code, root, "day", "advance", "--backend", "offline")


def report(code: Path, root: Path, out: Path) -> None:
    gamemaster(code, root, "report", "--out", str(out), *[w for q in TRACKED for w in ("--track", q)])


class Events(HTMLParser):
    """A page as the browser's parser reads it: (event, tag, attributes, data), references resolved."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.events: list[tuple] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.events.append(("start", tag, tuple(attrs), None))

    def handle_startendtag(self, tag, attrs):
        self.events.append(("startend", tag, tuple(attrs), None))

    def handle_endtag(self, tag):
        self.events.append(("end", tag, None, None))

    def handle_data(self, data):
        if self.events and self.events[-1][0] == "data":  # one run of text, however the parser cut it
            self.events[-1] = ("data", None, None, self.events[-1][3] + data)
        else:
            self.events.append(("data", None, None, data))

    def handle_comment(self, data):
        self.events.append(("comment", None, None, data))

    def handle_decl(self, decl):
        self.events.append(("decl", None, None, decl))


def without_blank_runs(events: list[tuple]) -> list[tuple]:
    """The events less the runs of text that are only whitespace, outside ``<pre>``."""
    kept, inside_pre = [], 0
    for event in events:
        if event[0] in ("start", "end") and event[1] == "pre":
            inside_pre += 1 if event[0] == "start" else -1
        if event[0] == "data" and not event[3].strip() and not inside_pre:
            continue
        kept.append(event)
    return kept


def compare(before: Path, after: Path, name: str) -> tuple[str, str]:
    """The file's class (identical, entities, whitespace, different) and, if different, where."""
    a, b = (before / name).read_bytes(), (after / name).read_bytes()
    if a == b:
        return "identical", ""
    if not name.endswith(".html"):
        return "different", first_difference(a.decode("utf-8"), b.decode("utf-8"))
    x, y = Events(a.decode("utf-8")).events, Events(b.decode("utf-8")).events
    if x == y:
        return "entities", ""
    if without_blank_runs(x) == without_blank_runs(y):
        return "whitespace", ""
    n = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
    return "different", f"event {n}: {x[n] if n < len(x) else None!r} vs {y[n] if n < len(y) else None!r}"


def first_difference(a: str, b: str) -> str:
    n = next((i for i, (p, q) in enumerate(zip(a, b)) if p != q), min(len(a), len(b)))
    return f"char {n}: {a[max(n - 60, 0):n + 60]!r} vs {b[max(n - 60, 0):n + 60]!r}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after", nargs="?", default=".")
    parser.add_argument("--days", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="keep the workspaces and both reports under this folder")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="same-report-")) if args.keep is None else args.keep
    code = {side: export(rev, base / side / "code") for side, rev in (("before", args.before), ("after", args.after))}
    studio = base / "studio"
    play(code["before"], studio, args.days)
    outs = {}
    for side in ("before", "after"):
        root = base / side / "ws"
        shutil.copytree(studio, root, symlinks=True)  # the same state for both sides
        outs[side] = base / side / "report"
        report(code[side], root, outs[side])
    names = {p.relative_to(outs[side]).as_posix() for side in outs for p in outs[side].rglob("*") if p.is_file()}
    names.discard(MANIFEST)
    manifests = [json.loads((outs[side] / MANIFEST).read_text(encoding="utf-8")) for side in outs]
    same_manifest = [(sorted(m["pages"]), m["tracked"]) for m in manifests]
    print(f"{MANIFEST}: " + ("the same pages and tracked queries" if same_manifest[0] == same_manifest[1]
                             else "the pages or tracked queries differ") + " (its fingerprints hash the report's code)")
    counts = {"identical": 0, "entities": 0, "whitespace": 0, "different": 0}
    shown = 0
    for name in sorted(names):
        if not all((outs[side] / name).is_file() for side in outs):
            counts["different"] += 1
            print(f"only {'before' if (outs['before'] / name).is_file() else 'after'}: {name}")
            continue
        kind, where = compare(outs["before"], outs["after"], name)
        counts[kind] += 1
        if kind == "different" and shown < 10:
            shown += 1
            print(f"differs: {name}: {where}")
        elif kind == "whitespace":
            print(f"whitespace between tags only: {name}")
    print(f"{args.before} vs {args.after}: {args.days} offline days, tracked {len(TRACKED)} queries")
    print("| files | byte-identical | same after entities | whitespace between tags only | different |")
    print("|---:|---:|---:|---:|---:|")
    print(f"| {len(names)} | {counts['identical']} | {counts['entities']} | {counts['whitespace']} | {counts['different']} |")
    if args.keep is None:
        shutil.rmtree(base)
    return 1 if counts["different"] or same_manifest[0] != same_manifest[1] else 0


if __name__ == "__main__":
    sys.exit(main())
