"""``mcp``: the Game Master as MCP tools over stdio."""

from __future__ import annotations

import typer

from ..problems import GamemasterError
from .common import Context, run


def mcp(ctx: typer.Context) -> None:
    """Serve the Game Master as MCP tools over stdio (needs the `mcp` extra)."""

    def action(obj: Context):
        # No `require()` here: outside a workspace the server still starts and each tool says so.
        try:
            from ..mcp_server import build_server
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.split(".")[0] == "mcp":
                raise GamemasterError('the MCP server needs the mcp extra: pip install -e ".[mcp]"') from None
            raise
        build_server(obj.workspace).run("stdio")

    run(ctx, action)
