"""``cost``: what the API calls of this workspace cost, per day and per agent."""

from __future__ import annotations

import typer

from .common import Context, JsonOption, print_json, rich_console, run


def cost(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Tokens and dollars per day and per agent, at the list prices in gamemaster/pricing.py."""
    from ..costs import cost_report
    from ..pricing import FALLBACK_FAMILY, USAGE_FIELDS

    def action(obj: Context):
        obj.workspace.require()
        report = cost_report(obj.workspace)
        if as_json:
            return print_json(report)
        from rich.table import Table

        console = rich_console()
        # Lookups (a character looking into its own memory) are calls inside an answer's: a column
        # only where there were any.
        looked = bool(report["total"]["lookups"])
        headers = ("calls", *(("lookups",) if looked else ()), "input", "output", "cache write", "cache read", "USD")

        def cells(row: dict) -> list[str]:
            return [str(row["calls"]), *([str(row["lookups"])] if looked else []),
                    *(f"{row[f]:,}" for f in USAGE_FIELDS), f"{row['usd']:.4f}"]

        for title, rows in (("day", report["days"]), ("agent", report["agents"])):
            table = Table(title, *headers)
            for key, row in sorted(rows.items()):
                table.add_row(key, *cells(row))
            table.add_row("total", *cells(report["total"]), style="bold")
            console.print(table)
        if not report["total"]["calls"]:
            console.print("no API calls recorded (the offline backend costs nothing)")
        if report["unpriced"]:
            console.print(
                f"[yellow]note:[/] no list price for {', '.join(report['unpriced'])}: priced as "
                f"{FALLBACK_FAMILY}; add the family to gamemaster/pricing.py"
            )

    run(ctx, action)
