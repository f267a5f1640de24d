"""Terminal output of `chipcost throughput list`."""

from __future__ import annotations

import polars as pl
from rich.console import Console
from rich.table import Table

from chipcost.cli.render import shown


def status(row: dict) -> str:
    """chosen, alternative, or set aside with the reason."""
    if row["chosen"]:
        return "[green]chosen[/]"
    if not row["usable"]:
        return f"[yellow]set aside[/]: {row['set_aside_because']}"
    return "alternative"


def print_throughput(console: Console, frame: pl.DataFrame) -> None:
    table = Table(title="throughput figures (tokens/s per chip)", title_justify="left")
    for header in ("id", "chip", "model", "workload", "tok/s/chip", "kind", "batch", "precision"):
        table.add_column(header, justify="right" if header in ("tok/s/chip", "batch") else "left")
    table.add_column("% of peak", justify="right")
    table.add_column("status")
    table.add_column("source (date)")
    for row in frame.iter_rows(named=True):
        mfu = row["implied_mfu"]
        table.add_row(
            row["throughput_id"],
            row["chip"],
            shown(row["model"]),
            row["workload"],
            f"{row['tokens_per_second_per_chip']:,.0f}",
            row["kind"],
            "" if row["batch_size"] is None else str(row["batch_size"]),
            shown(row["precision"]),
            "" if mfu is None else f"{100 * mfu:,.0f}%",
            status(row),
            shown(f"{row['source']} ({row['source_date']})"),
        )
    console.print(table)
    console.print(
        "choice rule per chip, model and workload: measured > independent > vendor-claim > "
        "estimate > derived; a figure above the chip's dense peak is set aside "
        "(docs/cost-per-token.md)"
    )
