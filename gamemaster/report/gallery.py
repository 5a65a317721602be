"""The gallery: every artifact rendered from its Markdown, with author, day and the memories that mention it."""

from __future__ import annotations

from .html import badge, character_file, day_file, esc, gallery_file, labels, link
from .studio import Artifact, Studio, artifact_body


def markdown_html(text: str) -> str:
    """CommonMark with raw HTML switched off: a ``<script>`` in an artifact is shown as text."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).render(text)


def versions(studio: Studio, artifact: Artifact) -> list[Artifact]:
    """Every artifact of the same kind and title, oldest first: the versions of one piece of work."""
    same = [a for a in studio.artifacts.values() if a.kind == artifact.kind and a.title == artifact.title]
    return sorted(same, key=lambda a: (studio.scene_day(a.created) or 0, a.created or "", a.path))


def _diff(studio: Studio, before: Artifact, after: Artifact, words: dict[str, str]) -> str:
    """The previous version → this one, line by line (difflib), every line escaped."""
    import difflib

    old = (artifact_body(studio.workspace, before) or "").splitlines()
    new = (artifact_body(studio.workspace, after) or "").splitlines()
    lines = list(difflib.unified_diff(old, new, before.path, after.path, lineterm="", n=2))
    if not lines:
        return f'<p class="muted">{esc(words["no_change"])}</p>'
    css = {"+": "add", "-": "del", "@": "hunk"}
    body = "".join(f'<span class="{css.get(line[:1], "same")}">{esc(line)}</span>' for line in lines[2:])
    added = sum(1 for line in lines[2:] if line.startswith("+"))
    removed = sum(1 for line in lines[2:] if line.startswith("-"))
    return (f'<details class="changes" open><summary>{esc(words["diff"])}: {link("../" + gallery_file(before.path), before.path.rsplit("/", 1)[-1])} '
            f'→ {esc(after.path.rsplit("/", 1)[-1])} <span class="muted">+{added} −{removed}</span></summary><pre class="diff">{body}</pre></details>')


def render_artifact(studio: Studio, artifact: Artifact) -> str:
    words = labels(studio.language)
    body = artifact_body(studio.workspace, artifact)
    content = markdown_html(body) if body is not None else f'<p class="muted">{esc(words["file_missing"])}: {esc(artifact.path)}</p>'
    day = studio.scene_day(artifact.created)
    facts = [f'{badge(artifact.kind, "kind")}']
    if artifact.author:
        author = link(f"../{character_file(artifact.author)}", studio.name(artifact.author)) if artifact.author in studio.agents else esc(artifact.author)
        facts.append(f'{esc(words["author"])} {author}')
    if day is not None:
        facts.append(link(f"../{day_file(day)}", f'{words["day"]} {day}') if day in studio.records else esc(f'{words["day"]} {day}'))
    facts.append(f"<code>{esc(artifact.path)}</code>")
    mentions = studio.mentions(artifact)
    listed = "".join(
        f'<li>{badge(m.importance, "imp")} {link(f"../{character_file(agent)}#{m.id}", studio.name(agent))}: {esc(m.description)}</li>'
        for agent, m in mentions
    )
    mentioned = (f'<section><h2>{esc(words["mentioned_by"])} ({len(mentions)})</h2><ul class="mems">{listed}</ul></section>'
                 if mentions else "")
    series = versions(studio, artifact)
    changes = ""
    if len(series) > 1:
        place = series.index(artifact)
        items = " · ".join(
            (f"<strong>{n}</strong>" if a is artifact else link("../" + gallery_file(a.path), str(n)))
            + f' <span class="muted">({esc(words["day"])} {studio.scene_day(a.created) or "?"})</span>' for n, a in enumerate(series, 1))
        changes = f'<section id="versions"><h2>{esc(words["versions"])}</h2><p>{items}</p>'
        changes += (_diff(studio, series[place - 1], artifact, words) if place else "") + "</section>"
    return (f'<p class="crumbs">{link("index.html", words["gallery"])}</p><h1>{esc(artifact.title)}</h1>'
            f'<p class="facts-line">{" · ".join(facts)}</p>{changes}<article class="markdown">{content}</article>{mentioned}')


def render_gallery_index(studio: Studio) -> str:
    words = labels(studio.language)
    if not studio.artifacts:
        return f'<h1>{esc(words["gallery"])}</h1><p class="muted">{esc(words["no_artifacts"])}</p>'
    by_kind: dict[str, list[Artifact]] = {}
    for artifact in studio.artifacts.values():
        by_kind.setdefault(artifact.kind, []).append(artifact)
    sections = []
    for kind, items in sorted(by_kind.items()):
        cards = "".join(
            f'<li>{link("../" + gallery_file(a.path), a.title)}'
            f'<span class="muted">{esc(studio.name(a.author)) if a.author else ""}'
            f'{" · " + esc(words["day"]) + " " + str(studio.scene_day(a.created)) if studio.scene_day(a.created) is not None else ""}</span></li>'
            for a in items
        )
        sections.append(f'<section><h2>{badge(kind, "kind")} <span class="count">{len(items)}</span></h2><ul class="cards">{cards}</ul></section>')
    return f'<h1>{esc(words["gallery"])} <small>{len(studio.artifacts)}</small></h1>' + "".join(sections)
