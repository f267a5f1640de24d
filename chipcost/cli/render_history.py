"""Terminal output of `chipcost history`: a wide table (a column per pricing model) and a chart."""

from __future__ import annotations

import polars as pl
from rich.console import Console
from rich.table import Table

from chipcost.transform.cost import money_sign

# Beyond this many days the table keeps the days a price changed (and the first and last).
TABLE_DAYS = 60
CHART_HEIGHT = 20


def wide(frame: pl.DataFrame) -> pl.DataFrame:
    """One row per day, one price column per pricing model (cheapest per chip-hour)."""
    models = list(dict.fromkeys(frame.sort("pricing_model")["pricing_model"].to_list()))
    table = frame.pivot(on="pricing_model", index="day", values="price_per_chip_hour").sort("day")
    return table.select("day", *models)


def changed_days(table: pl.DataFrame) -> pl.DataFrame:
    """Only the days some price changed, plus the first and the last day."""
    prices = table.drop("day")
    moved = pl.any_horizontal([pl.col(c).ne_missing(pl.col(c).shift(1)) for c in prices.columns])
    last = pl.int_range(pl.len()) == pl.len() - 1
    return table.filter(moved | last)


def print_history(console: Console, chip: str, frame: pl.DataFrame, currency: str = "USD") -> None:
    table = wide(frame)
    note = ""
    if table.height > TABLE_DAYS:
        shown = changed_days(table)
        note = f" ({shown.height} of {table.height} days: those a price changed, and the last)"
        table = shown
    console.print(
        f"[bold]{chip}[/]: cheapest {currency} per chip-hour by day{note}", highlight=False
    )
    models = table.columns[1:]
    # Headers on one line when the screen has room, else a word a line ("capacity" over
    # "block"): the days and prices are never cut.
    one_line = len("│ 2026-11-21 │") + sum(max(len(m), len("1,234.5678")) + 3 for m in models)
    split = "\n" if one_line > console.width else " "
    out = Table()
    out.add_column("day", no_wrap=True)
    for model in models:
        out.add_column(model.replace("_", split), justify="right", no_wrap=True)
    for row in table.iter_rows():
        day, *prices = row
        out.add_row(str(day), *("" if p is None else f"{p:,.4f}" for p in prices))
    console.print(out)
    latest = frame.sort("day").group_by("pricing_model", maintain_order=True).last()
    for row in latest.sort("pricing_model").iter_rows(named=True):
        where = " · ".join(p for p in (row["provider"], row["region"], row["zone"]) if p)
        offers = f"{row['offers']} offer{'s' if row['offers'] != 1 else ''}"
        console.print(
            f"  {row['pricing_model']}: {money_sign(currency)}{row['price_per_chip_hour']:,.4f} "
            f"on {row['day']} at "
            f"{where} · {row['instance_type']} ({offers})",
            highlight=False,
        )


def _steps(days: list[str], prices: list[float]) -> tuple[list[str], list[float]]:
    """Points of a step line: a price holds until the day it changes, no slope between."""
    xs, ys = [], []
    for i, (day, price) in enumerate(zip(days, prices, strict=True)):
        if i and price != ys[-1]:
            xs.append(day)
            ys.append(ys[-1])
        xs.append(day)
        ys.append(price)
    return xs, ys


def chart(chip: str, frame: pl.DataFrame, width: int, colour: bool, currency: str = "USD") -> str:
    """A terminal line chart (plotext) of each pricing model's cheapest price per day."""
    import plotext as plt

    plt.clear_figure()
    plt.date_form("Y-m-d")
    for model in sorted(set(frame["pricing_model"].to_list())):
        rows = frame.filter(pl.col("pricing_model") == model).sort("day")
        days = [d.isoformat() for d in rows["day"].to_list()]
        xs, ys = _steps(days, rows["price_per_chip_hour"].to_list())
        plt.plot(xs, ys, label=model, marker="braille")
    plt.plotsize(width, CHART_HEIGHT)
    plt.title(f"{chip}: cheapest {currency} per chip-hour")
    plt.theme("clear")
    text = plt.build()
    return text if colour else plt.uncolorize(text)
