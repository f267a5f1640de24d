"""The `chipcost index` table: each chip and pricing model's level and its moves."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chipcost.cli.consoles import print_fitted
from chipcost.cli.fit import Column, fit_table, plain
from chipcost.core.vocabulary import pricing_words
from chipcost.transform.cost import money_sign

if TYPE_CHECKING:
    import polars as pl

    from chipcost.cli.consoles import Screen

# Kept at any width: chip, pricing model, level and the providers behind it; the day and the moves
# (1d first) while they fit.
_COLUMNS = (
    Column("chip", "chip", essential=True),
    Column("pricing_model", "pricing model", essential=True),
    Column("day", "day"),
    Column("level", "level", numeric=True, essential=True),
    Column("1d", "1d", numeric=True),
    Column("7d", "7d", numeric=True),
    Column("30d", "30d", numeric=True),
    Column("providers", "providers", numeric=True, essential=True),
)
_KEEP_ORDER = ("7d", "1d", "30d", "day")


def change(percent: float | None) -> str:
    """'−0.7%' from a change in percent."""
    if percent is None:
        return ""
    percent = round(percent, 1)
    return "0%" if percent == 0 else f"{percent:+.1f}%".replace("-", "\u2212")


def print_index_table(console: Screen, frame: pl.DataFrame, currency: str = "USD") -> None:
    """The index's rows under a title naming the currency; '*' and '!' beside the providers."""
    cells = []
    for row in frame.iter_rows(named=True):
        moved = (" *" if row["constituents_changed"] else "") + (" !" if row["failing"] else "")
        level = row["level"]
        cells.append(
            {
                "chip": plain(row["chip"]),
                "pricing_model": plain(
                    pricing_words(row["pricing_model"], row["term"], None, None)
                ),
                "day": str(row["day"]),
                "level": "left out" if level is None else f"{money_sign(currency)}{level:,.4f}",
                "1d": change(row["change_1d_pct"]),
                "7d": change(row["change_7d_pct"]),
                "30d": change(row["change_30d_pct"]),
                "providers": f"{row['constituents']}{moved}",
            }
        )
    title = (
        f"rental price index: median of each provider's cheapest per-chip-hour price ({currency})"
    )
    columns = list(_COLUMNS)
    days = {c["day"] for c in cells}
    if len(days) == 1:  # one day for every row: said once in the title, not a column
        title += f", {days.pop()}"
        columns = [c for c in columns if c.key != "day"]
    console.say(title)
    fitted = fit_table(console, columns, cells, keep_order=_KEEP_ORDER)
    print_fitted(console, fitted)
