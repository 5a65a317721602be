"""The gallery: every artifact rendered from its Markdown, with author, day and the memories that
mention it (``artifact.html``), and the index of every artifact by kind (``gallery.html``)."""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from .html import Frame, Link, character_file, day_file, gallery_file, labels, person
from .studio import Artifact, Studio, artifact_body
from .templating import render


def markdown_html(text: str) -> Markup:
    """CommonMark with raw HTML switched off: a ``<script>`` in an artifact is shown as text.

    Markup, so the template writes it as it is: markdown-it escapes every piece of the text
    itself (raw HTML included, as ``html`` is off) and drops links to ``javascript:`` and the like."""
    from markdown_it import MarkdownIt

    return Markup(MarkdownIt("commonmark", {"html": False}).render(text))


def versions(studio: Studio, artifact: Artifact) -> list[Artifact]:
    """Every artifact of the same kind and title, oldest first: the versions of one piece of work."""
    same = [a for a in studio.artifacts.values() if a.kind == artifact.kind and a.title == artifact.title]
    return sorted(same, key=lambda a: (studio.scene_day(a.created) or 0, a.created or "", a.path))


@dataclass
class Diff:
    """The previous version → this one, line by line (difflib): (css class, line) after the file names."""

    before: Link
    after: str
    lines: list[tuple[str, str]]
    added: int
    removed: int


def _diff(studio: Studio, before: Artifact, after: Artifact) -> Diff | None:
    """None when the text did not change."""
    import difflib

    old = (artifact_body(studio.workspace, before) or "").splitlines()
    new = (artifact_body(studio.workspace, after) or "").splitlines()
    lines = list(difflib.unified_diff(old, new, before.path, after.path, lineterm="", n=2))
    if not lines:
        return None
    css = {"+": "add", "-": "del", "@": "hunk"}
    return Diff(Link(before.path.rsplit("/", 1)[-1], "../" + gallery_file(before.path)), after.path.rsplit("/", 1)[-1],
                [(css.get(line[:1], "same"), line) for line in lines[2:]],
                sum(1 for line in lines[2:] if line.startswith("+")), sum(1 for line in lines[2:] if line.startswith("-")))


def _day(studio: Studio, day: int | None, words: dict[str, str]) -> Link | None:
    if day is None:
        return None
    label = f'{words["day"]} {day}'
    return Link(label, f"../{day_file(day)}") if day in studio.records else Link(label)


def render_artifact(studio: Studio, artifact: Artifact, frame: Frame) -> str:
    words = labels(studio.language)
    body = artifact_body(studio.workspace, artifact)
    series = versions(studio, artifact)
    place = series.index(artifact)
    mentions = [(m, Link(studio.name(agent), f"../{character_file(agent)}#{m.id}")) for agent, m in studio.mentions(artifact)]
    return render(
        "artifact.html", frame, artifact=artifact, content=markdown_html(body) if body is not None else None,
        author=person(studio, artifact.author) if artifact.author else None,
        day=_day(studio, studio.scene_day(artifact.created), words), mentions=mentions,
        versions=[(a is artifact, Link(str(n), "../" + gallery_file(a.path)), studio.scene_day(a.created) or "?")
                  for n, a in enumerate(series, 1)] if len(series) > 1 else [],
        diff=_diff(studio, series[place - 1], artifact) if len(series) > 1 and place else None,
        first=place == 0,
    )


def render_gallery_index(studio: Studio, frame: Frame) -> str:
    """The artifacts by kind: each a link to its page, with its author and day."""
    by_kind: dict[str, list[Artifact]] = {}
    for artifact in studio.artifacts.values():
        by_kind.setdefault(artifact.kind, []).append(artifact)
    kinds = [(kind, [(Link(a.title, "../" + gallery_file(a.path)), studio.name(a.author) if a.author else "",
                      studio.scene_day(a.created)) for a in items])
             for kind, items in sorted(by_kind.items())]
    return render("gallery.html", frame, kinds=kinds, count=len(studio.artifacts))
