"""``plugin path``: where the Claude Code plugin that ships with the toolkit is installed."""

from __future__ import annotations

import typer

plugin_app = typer.Typer(help="The Claude Code plugin that ships with the toolkit.", no_args_is_help=True)


@plugin_app.command("path")
def plugin_path() -> None:
    """Print the plugin's folder, for `claude --plugin-dir "$(gamemaster plugin path)"`: its skills
    brought up to date with the scene kinds installed now."""
    import sys

    from ..claude_plugin import brought_up_to_date, plugin_dir
    from ..printable import printable

    problem = brought_up_to_date()
    if problem:
        print("warning: " + printable(problem), file=sys.stderr)
    print(plugin_dir())
