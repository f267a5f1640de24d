"""The e-mail's sections: few columns, no sparklines, since every cell carries inline CSS."""

from __future__ import annotations

from html import escape

import polars as pl
from great_tables import GT

from chipcost.core.vocabulary import BUCKET_LABELS
from chipcost.reports.data import ReportData, alike_moves
from chipcost.reports.glance import moves_table
from chipcost.reports.labels import holds_words, money
from chipcost.reports.sections import Section, no_changes
from chipcost.reports.tables import SMALL, nowrap, styled
from chipcost.transform.cost import cost_text, money_sign
from chipcost.warehouse.snapshot import CANNOT_HOLD

# Pricing buckets the e-mail shows (four columns fit a 390 px phone screen); the attached
# report has them all.
EMAIL_BUCKETS = ("on_demand", "commit_1yr", "spot")


def movers(data: ReportData, limit: int) -> list[Section]:
    """The largest moves of list and commitment prices, then of spot prices apart: spot
    moves daily and would otherwise push the prices people commit to out of the mail."""
    spot = pl.col("pricing_model") == "spot"
    listed, spots = data.moves.filter(~spot), data.moves.filter(spot)
    if data.moves.is_empty():
        explain = "Per chip-hour (instance price ÷ chips)."
        return [Section("changes", "What changed", explain, None, no_changes(data))]
    found = []
    if not listed.is_empty() or spots.is_empty():
        found.append(_moves("changes", "What changed", listed, limit, "list and commitment"))
    if not spots.is_empty():
        found.append(_moves("spot", "Spot moves", spots, max(1, limit // 2), "spot"))
    return found


def _moves(key: str, title: str, moves: pl.DataFrame, limit: int, kind: str) -> Section:
    """One line a move: chip, where, pricing, was → now, %; offers that moved alike share one."""
    rows = alike_moves(moves)
    shown = f"The {limit} largest" if rows.height > limit else "All"
    explain = (
        f"{shown} moves of {kind} prices ({moves.height} offer{'s' * (moves.height != 1)}; "
        "those of one provider that moved alike share a line), per chip-hour; green is "
        "cheaper, red dearer."
    )
    return Section(key, title, explain, moves_table(rows.head(limit)))


def cheapest_per_token(data: ReportData) -> Section | None:
    """The cheapest chip for each model and workload among the offers that hold the model (the
    cheapest of all, saying so, when none does); None when there are no costs."""
    costs = data.cost_per_token
    if costs is None or costs.is_empty():
        return None
    keys = ["model", "workload"]
    best = costs.sort(CANNOT_HOLD, "cost_per_million_tokens").group_by(keys, maintain_order=True)
    place = pl.concat_str([pl.col("where"), pl.col("offer")], separator=" · ")
    frame = (
        best.first()
        .sort(keys)
        .select(
            pl.concat_str([pl.col(k) for k in keys], separator=", ").alias("for"),
            pl.struct(
                "chip",
                "holds",
                "cost_per_million_tokens",
                place.alias("place"),
            ).alias("cheapest"),
        )
    )
    # Two columns, the chip, its cost and where stacked in one: readable on a phone.
    label = f"Cheapest chip, {data.currency}"
    gt = GT(frame).cols_label(**{"for": "Model, workload"}, cheapest=label)
    gt = gt.fmt(lambda cell: _cost_cell(cell, data.currency), columns="cheapest")
    explain = (
        "The cheapest chip for each model and workload at current prices, among the offers "
        "whose instance holds the model." + "".join(f" Your prices: {y}." for y in data.yours)
    )
    return Section("cost", "Cost per token", explain, styled(gt).as_raw_html())


def _cost_cell(cell: dict, currency: str = "USD") -> str:
    cost = cost_text(cell["cost_per_million_tokens"], currency)
    fits = "" if cell["holds"] == "yes" else f"<br>{escape(holds_words(cell['holds']))}"
    return (
        f"<b>{escape(cell['chip'])}</b> <span style='white-space:nowrap'>{escape(cost)}</span> "
        f"per million tokens<br><span style='{SMALL}'>{escape(cell['place'])}{fits}</span>"
    )


def _cell(cell: dict | None, currency: str = "USD") -> str:
    if cell is None:
        return "—"
    price = cell["price"]
    shown = money(price) if currency == "USD" else f"{money_sign(currency)}{price:,.4f}"
    where = escape(cell["where"])
    return f"<b style='white-space:nowrap'>{shown}</b><br><span style='{SMALL}'>{where}</span>"


def cheapest_now(data: ReportData) -> Section | None:
    """On-demand, 1- and 3-year commitment and spot: cheapest per chip, with where."""
    cheapest = data.cheapest.filter(pl.col("bucket").is_in(EMAIL_BUCKETS))
    if cheapest.is_empty():
        return None
    wide = cheapest.select("chip").unique().sort("chip")
    present = [b for b in EMAIL_BUCKETS if b in set(cheapest["bucket"].to_list())]
    for bucket in present:
        cells = cheapest.filter(pl.col("bucket") == bucket).select(
            "chip", pl.struct(price="price_per_chip_hour", where="where").alias(bucket)
        )
        wide = wide.join(cells, on="chip", how="left")
    gt = GT(wide).cols_label(chip="Chip", **{b: BUCKET_LABELS[b] for b in present})
    gt = nowrap(gt.fmt(lambda cell: _cell(cell, data.currency), columns=present), ["chip"])
    explain = (
        f"Cheapest per chip-hour at the end of {data.period.until}; 3-year commitments and "
        "more in the report." + "".join(f" Your prices: {y}." for y in data.yours)
    )
    return Section("cheapest", "Cheapest now", explain, styled(gt).as_raw_html())
