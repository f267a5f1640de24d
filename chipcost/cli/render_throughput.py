"""Terminal output of `chipcost throughput list`."""

from __future__ import annotations

import polars as pl
from rich.console import Console

from chipcost.cli.fit import Cell, Column, Styled, fit_table, plain, print_fitted
from chipcost.cli.render import shown


def status(row: dict) -> Cell:
    """chosen, alternative, or set aside (the reason is said under the table)."""
    if row["chosen"]:
        return Styled("chosen", "green")
    if not row["usable"]:
        return Styled("set aside", "yellow")
    return "alternative"


def _range(row: dict) -> str:
    """A derived figure's range, '396-2,460' (the derivation's error out of sample)."""
    if row.get("range_low") is None:
        return ""
    return f"{row['range_low']:,.0f}-{row['range_high']:,.0f}"


def print_throughput(console: Console, frame: pl.DataFrame, *, wide: bool = False) -> None:
    """The figures as a table that fits the terminal, each source a numbered line under it:
    a derivation's source is a paragraph, which wrapped one word a line in a table cell."""
    columns = [
        Column("id", "id", essential=True),
        Column("chip", "chip", essential=True),
        Column("model", "model"),
        Column("workload", "workload"),
        Column("tps", "tok/s/chip", numeric=True, essential=True),
        Column("range", "range", numeric=True),
        Column("kind", "kind"),
        Column("batch", "batch", numeric=True),
        Column("precision", "precision"),
        Column("peak", "% of peak", numeric=True),
        Column("status", "status", essential=True),
        Column("source", "source", essential=True),
    ]
    sources: dict[str, int] = {}
    cells = []
    for row in frame.iter_rows(named=True):
        mfu = row["implied_mfu"]
        cited = f"{row['source']} ({row['source_date']})"
        number = sources.setdefault(cited, len(sources) + 1)
        cells.append(
            {
                "id": plain(row["throughput_id"]),
                "chip": plain(row["chip"]),
                "model": plain(row["model"]),
                "workload": plain(row["workload"]),
                "tps": f"{row['tokens_per_second_per_chip']:,.0f}",
                "range": _range(row),
                "kind": plain(row.get("figure_kind") or row["kind"]),
                "batch": "" if row["batch_size"] is None else str(row["batch_size"]),
                "precision": plain(row["precision"] or ""),
                "peak": "" if mfu is None else f"{100 * mfu:,.0f}%",
                "status": status(row),
                "source": f"[{number}]",
            }
        )
    # Kept last: id, chip, tok/s/chip, status and the source's number; an id breaks only
    # after a '-' (two lines at 80 columns, not four).
    keep = ("kind", "range", "model", "workload", "precision", "peak", "batch")
    fitted = fit_table(console, columns, cells, keep_order=keep, wide=wide)
    console.print("throughput figures (tokens/s per chip)", highlight=False)
    print_fitted(console, fitted)
    for row in frame.filter(~pl.col("usable")).iter_rows(named=True):
        console.print(
            shown(f"set aside: {row['throughput_id']}: {row['set_aside_because']}"),
            style="yellow",
            highlight=False,
        )
    for cited, number in sources.items():
        console.print(shown(f"[{number}] {cited}"), highlight=False)
    console.print(
        "choice rule per chip, model and workload: a figure above the chip's dense peak is set "
        "aside; at the asked speed first (a derived figure there, calibrated on the chip's "
        "measurements, before a published one elsewhere); published before derived; then "
        "measured > benchmark > independent > vendor-claim > estimate; a derived figure's "
        "range is the derivation's error out of sample (docs/cost-per-token.md)"
    )
