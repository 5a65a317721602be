"""``plugin path``: where the Claude Code plugin that ships with the toolkit is installed."""

from __future__ import annotations

import typer

plugin_app = typer.Typer(help="The Claude Code plugin that ships with the toolkit.", no_args_is_help=True)


@plugin_app.command("path")
def plugin_path() -> None:
    """Print the plugin's folder, for `claude --plugin-dir "$(gamemaster plugin path)"`."""
    from ..claude_plugin import plugin_dir

    print(plugin_dir())
