"""``report``: the studio as a static site to open in a browser."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from .common import Context, run


def report(
    ctx: typer.Context,
    out: Annotated[Optional[Path], typer.Option("--out", help="Folder to write the site to (default: report/ in the workspace).")] = None,
    open_browser: Annotated[bool, typer.Option("--open", help="Open the overview in the web browser.")] = False,
    track: Annotated[Optional[list[str]], typer.Option(
        "--track", help="A piece of news to follow: who knew it on which day and from whom (repeatable; "
                        "kept for later builds; --track '' stops tracking).")] = None,
) -> None:
    """Write the logbook as a static site: overview, days, characters, gallery. Only changed pages are rendered."""

    def action(obj: Context):
        # Imported here: the report's modules cost nothing to the other commands.
        from ..report import build_report

        result = build_report(obj.workspace, out.expanduser() if out else None, track)
        print(f"{len(result.written)} page(s) written, {len(result.unchanged)} unchanged")
        print(result.index)
        if open_browser:
            import webbrowser

            if not webbrowser.open(result.index.as_uri()):
                print("no web browser could be started here: open the path above in one", file=sys.stderr)

    run(ctx, action)
