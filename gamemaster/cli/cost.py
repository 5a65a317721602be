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
        headers = ("calls", "input", "output", "cache write", "cache read", "USD")
        for title, rows in (("day", report["days"]), ("agent", report["agents"])):
            table = Table(title, *headers)
            for key, row in sorted(rows.items()):
                table.add_row(key, str(row["calls"]), *(f"{row[f]:,}" for f in USAGE_FIELDS), f"{row['usd']:.4f}")
            total = report["total"]
            table.add_row("total", str(total["calls"]), *(f"{total[f]:,}" for f in USAGE_FIELDS), f"{total['usd']:.4f}", style="bold")
            console.print(table)
        if not report["total"]["calls"]:
            console.print("no API calls recorded (the offline backend costs nothing)")
        if report["unpriced"]:
            console.print(
                f"[yellow]note:[/] no list price for {', '.join(report['unpriced'])}: priced as "
                f"{FALLBACK_FAMILY}; add the family to gamemaster/pricing.py"
            )

    run(ctx, action)
