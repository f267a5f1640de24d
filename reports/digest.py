"""The e-mail's sections: few columns, no sparklines, since every cell carries inline CSS."""

from __future__ import annotations

import polars as pl

from chipcost.core.figures import DEFAULT_SPEED
from chipcost.reports.answers import discounts_said, estimated_costs_note
from chipcost.reports.data import ReportData, report_name
from chipcost.reports.glance import moves_table, verdicts
from chipcost.reports.labels import marks_note
from chipcost.reports.moves import alike_moves, shown_moves
from chipcost.reports.sections import Section, no_changes, provisional_note
from chipcost.reports.tables import cheapest_table, cost_table, table_html
from chipcost.warehouse.fx import Provisional

# Pricing buckets the e-mail shows (four columns fit a 390 px phone screen); the attached
# report has them all.
EMAIL_BUCKETS = ("on_demand", "commit_1yr", "spot")


def head_to_head(data: ReportData) -> Section | None:
    """The articles' questions answered, a sentence each (the attached report has both figures,
    the break-even, the caveats and the charts)."""
    answers = data.head_to_head
    if data.ended_before_newest_prices or answers is None or answers.is_empty():
        return None
    explain = (
        f"Per token, for Llama 3 70B on demand at {DEFAULT_SPEED} tokens/s per user, as "
        "`chipcost compare A B` answers: a verdict only where both chips are measured at one "
        "point (request shape, speed, precision, scale); otherwise what the unmeasured chip "
        "must reach there."
    )
    explain += discounts_said(answers.to_dicts()) + estimated_costs_note(answers.to_dicts())
    # A mail client follows no link into an attachment: the report is named instead.
    explain += (
        f" Each answer's chart is in the attached report ({report_name(data)}), under this heading."
    )
    body = verdicts(answers, report=None)
    return Section("versus", "Is chip A cheaper than chip B?", explain, body)


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
        kind, provisional = "list and commitment", data.provisional_changes
        found.append(_moves("changes", "What changed", listed, limit, kind, provisional))
    if not spots.is_empty():
        most, provisional = max(1, limit // 2), data.provisional_spot
        found.append(_moves("spot", "Spot moves", spots, most, "spot", provisional))
    return found


def _moves(
    key: str,
    title: str,
    moves: pl.DataFrame,
    limit: int,
    kind: str,
    provisional: Provisional | None = None,
) -> Section:
    """One line a move: chip, where, pricing, was → now, %; offers that moved alike share one;
    the euro prices of a day at an earlier day's rate said so (`provisional`)."""
    rows = alike_moves(moves)
    shown = f"The {limit} largest" if rows.height > limit else "All"
    explain = (
        f"{shown} moves of {kind} prices ({moves.height} offer{'s' * (moves.height != 1)}; "
        "those of one provider that moved alike share a line), per chip-hour; green is "
        "cheaper, red dearer."
    )
    shown = shown_moves(rows, limit)
    explain += provisional_note(provisional) + marks_note(shown)
    return Section(key, title, explain, moves_table(shown))


def cheapest_per_token(data: ReportData) -> Section | None:
    """The cheapest chip for each model and workload among the offers that hold the model (the
    cheapest of all, saying so, when none does); None when there are no costs. The page's
    table (reports/tables.py), one chip a row, compact."""
    costs = data.cost_per_token
    if costs is None or costs.is_empty():
        return None
    table = cost_table(costs, 1, data.currency, compact=True)
    explain = (
        "The cheapest chip for each model and workload at current prices, among the offers "
        "whose instance holds the model." + "".join(f" Your prices: {y}." for y in data.yours)
    )
    return Section("cost", "Cost per token", explain, table_html(table))


def cheapest_now(data: ReportData) -> Section | None:
    """On demand, 1-year commitment and spot: cheapest per chip, with where. The page's table
    (reports/tables.py), of EMAIL_BUCKETS, compact."""
    if data.cheapest.filter(pl.col("bucket").is_in(EMAIL_BUCKETS)).is_empty():
        return None
    shown = data.cheapest.filter(pl.col("bucket").is_in(EMAIL_BUCKETS))
    table = cheapest_table(data.cheapest, data.currency, EMAIL_BUCKETS, compact=True)
    explain = (
        f"Cheapest per chip-hour {data.at_end}; 3-year commitments and "
        "more in the report." + "".join(f" Your prices: {y}." for y in data.yours)
    )
    explain += provisional_note(data.provisional_now) + marks_note(shown)
    return Section("cheapest", "Cheapest now", explain, table_html(table))
