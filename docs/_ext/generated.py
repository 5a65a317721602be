"""Sphinx extension: the pages written from the code, not by hand.

``reference/cli.md`` is what typer's own documentation writer makes of the command line (every
command, argument and option with its help), ``reference/schemas.md`` the JSON Schema of a reply
to each scene kind (what ``gamemaster schema --type KIND`` prints), and ``changelog.md`` the
repository's ``CHANGELOG.md``. A page holds a marker comment; the extension puts the text in its
place as the page is read, so the published reference is always the code's.
"""

from __future__ import annotations

import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def cli_reference() -> str:
    import click
    import typer
    from typer.cli import get_docs_for_click

    from gamemaster.cli import app

    command = typer.main.get_command(app)
    text = get_docs_for_click(obj=command, ctx=click.Context(command, info_name="gamemaster"), name="gamemaster")
    from gamemaster.kinds import kind_names

    # Help that names the scene kinds is filled in when shown (``KindsCommand``): here too.
    text = text.replace("{kinds}", ", ".join(kind_names()))
    # The page has its own title: the generated one goes, and its sections stay below it.
    return text.split("\n", 1)[1] if text.startswith("# ") else text


def reply_schemas() -> str:
    from gamemaster.kinds import all_kinds
    from gamemaster.replies import reply_schema

    parts = []
    for name, kind in all_kinds().items():
        schema = json.dumps(reply_schema(kind.reply_model), ensure_ascii=False, indent=2)
        parts.append(f"## {name}\n\n`gamemaster schema --type {name}`\n\n```json\n{schema}\n```\n")
    return "\n".join(parts)


def changelog() -> str:
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    # Its links are written for the repository; in the site the pages are beside it.
    text = text.replace("](docs/", "](")
    return text.split("\n", 1)[1] if text.startswith("# ") else text


MARKERS = {
    "<!-- generated: cli -->": cli_reference,
    "<!-- generated: reply-schemas -->": reply_schemas,
    "<!-- generated: changelog -->": changelog,
}


def fill(app, docname: str, source: list[str]) -> None:  # noqa: ARG001 - Sphinx's event signature
    for marker, write in MARKERS.items():
        if marker in source[0]:
            source[0] = source[0].replace(marker, write())


def setup(app):
    app.connect("source-read", fill)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
