"""Terminal output of `chipcost throughput list`."""

from __future__ import annotations

import polars as pl

from chipcost.cli.consoles import Screen, print_fitted
from chipcost.cli.fit import Cell, Column, Styled, fit_table, plain
from chipcost.cli.render import shown


def counted(shown: int, total: int | None) -> str:
    """'200 of 2,787 (--limit N shows more)', or '74' when every figure is shown."""
    if total is None or total <= shown:
        return f"{shown:,}"
    return f"{shown:,} of {total:,} (--limit N shows more)"


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


def _shape(row: dict) -> str:
    """'5000/500', or the point's name where the document states no lengths ('Offline')."""
    if row.get("input_tokens") and row.get("output_tokens"):
        return f"{row['input_tokens']}/{row['output_tokens']}"
    if row.get("workload") == "training":
        return ""
    return "dataset" if row.get("scenario") and row.get("origin") != "derived" else ""


def _speed(row: dict) -> str:
    if row.get("operating_point") == "max-throughput":
        return "max"
    user = row.get("tokens_per_second_per_user")
    return "" if user is None else f"{user:,.1f}"


def _point(row: dict) -> str:
    """'5000/500 @25.8/u x2', 'dataset @max x16': the request shape (a benchmark's own
    dataset where it states none), the per-user speed or max, and the chips measured on."""
    speed = _speed(row)
    said = [
        _shape(row),
        f"@{speed}/u" if speed not in ("", "max") else f"@{speed}" if speed else "",
    ]
    said.append("" if row.get("chips") is None else f"x{row['chips']}")
    return " ".join(p for p in said if p)


def print_throughput(
    console: Screen, frame: pl.DataFrame, *, total: int | None = None, wide: bool = False
) -> None:
    """The figures as a table that fits the terminal, each source a numbered line under it:
    a derivation's source is a paragraph, which wrapped one word a line in a table cell.
    `total`: how many figures matched, said first with how many are shown (default: all)."""
    columns = [
        Column("id", "id", essential=True),
        Column("chip", "chip", essential=True),
        Column("model", "model"),
        Column("workload", "workload"),
        Column("tps", "tok/s/chip", numeric=True, essential=True),
        Column("range", "range", numeric=True),
        Column("kind", "kind"),
        Column("batch", "batch", numeric=True),
        Column("point", "point"),
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
                "point": _point(row),
                "precision": plain(row["precision"] or "n/p"),
                "peak": "" if mfu is None else f"{100 * mfu:,.0f}%",
                "status": status(row),
                "source": f"[{number}]",
            }
        )
    # Kept last: id, chip, tok/s/chip, status and the source's number; the id whole, the
    # rest folded under it where the line is too narrow.
    keep = ("kind", "range", "model", "workload", "precision", "point", "peak", "batch")
    fitted = fit_table(console, columns, cells, keep_order=keep, wide=wide)
    console.say(f"throughput figures (tokens/s per chip): {counted(frame.height, total)}")
    print_fitted(console, fitted)
    for row in frame.filter(~pl.col("usable")).iter_rows(named=True):
        said = shown(f"set aside: {row['throughput_id']}: {row['set_aside_because']}")
        console.say([(said, "yellow")])
    for cited, number in sources.items():
        console.say(shown(f"[{number}] {cited}"))
    console.say(
        "choice rule per chip, model and workload: a figure above the chip's dense peak is set "
        "aside; at the asked speed first (a derived figure there, calibrated on the chip's "
        "measurements, before a published one elsewhere); published before derived; then "
        "measured > benchmark > independent > vendor-claim > estimate; a derived figure's "
        "range is the derivation's error out of sample (docs/cost-per-token.md)"
    )
