"""What `chipcost compare A B` does: is chip A cheaper per token than chip B, per pricing model.

Both chips' offers come from the cost ranking (chipcost.pipeline.cost: the same prices, fit
rule and throughput choice at the asked speed); the comparison is made on the same provider
where one offers both chips on that pricing model and term, else between each chip's
cheapest offer (said on the line). The range uses every usable figure chipcost holds for
each chip at that speed: the best case pairs A's highest figure with B's lowest, the worst
case the reverse.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import duckdb

from chipcost.core.errors import ChipcostError
from chipcost.pipeline.cost import Ask, CostRanking, rank_cost
from chipcost.transform.cost import CostQuestion
from chipcost.warehouse.cost_per_token import at_speed
from chipcost.warehouse.db import dict_rows
from chipcost.warehouse.literals import literal

Row = dict[str, object]


@dataclass(frozen=True)
class Comparison:
    """One pricing model and term: A's and B's offer, and A's cost change against B."""

    pricing: str  # 'on_demand', 'reserved 1yr'
    a: Row
    b: Row
    same_provider: bool
    change: float  # A's cost per token / B's - 1: negative is cheaper
    best: float | None  # the change with A's highest and B's lowest usable figure
    worst: float | None  # ... and with A's lowest and B's highest

    @property
    def words(self) -> str:
        """'32% cheaper', '15% dearer', 'as cheap'."""
        return change_words(self.change)


def change_words(change: float) -> str:
    percent = round(abs(change) * 100)
    if percent == 0:
        return "as cheap"
    return f"{percent}% {'cheaper' if change < 0 else 'dearer'}"


@dataclass(frozen=True)
class CompareResult:
    chip_a: str
    chip_b: str
    ranking: CostRanking  # both chips' offers, with the notes of the ranking
    lines: list[Comparison]
    figures: dict[str, list[Row]]  # every usable figure per chip at the asked speed


def _figures(con: duckdb.DuckDBPyConnection, ask: Ask, chip: str) -> list[Row]:
    """The chip's usable figures for the model and workload at the asked speed (all of them
    when none is at it), best first."""
    rows = dict_rows(
        con,
        "SELECT throughput_id, kind, tokens_per_second_per_chip, at_speed, chosen "
        f"FROM throughput_ranked WHERE chip = {literal(chip)} AND model = {literal(ask.model)} "
        f"AND workload = {literal(ask.workload)} AND usable AND origin <> 'derived' "
        "ORDER BY tokens_per_second_per_chip DESC",
    )
    at = [r for r in rows if r["at_speed"]]
    return at or rows


def _pricing(row: Row) -> str:
    parts = [row["pricing_model"], row["term"]]
    return " ".join(str(p) for p in parts if p not in (None, "none", "default"))


def _pricing_order(item: tuple[str, object]) -> tuple[int, str]:
    """On-demand first, then as the vocabulary orders pricing models, shorter terms first."""
    from chipcost.core.vocabulary import PRICING_MODELS, TERMS

    model, _, term = item[0].partition(" ")
    rank = PRICING_MODELS.index(model) if model in PRICING_MODELS else len(PRICING_MODELS)
    return rank, f"{TERMS.index(term) if term in TERMS else 99:02d}{term}"


def _cost(row: Row, tps: float) -> float:
    return float(row["price_per_chip_hour"]) / (tps * 3600 / 1e6)  # type: ignore[arg-type]


def _pair(offers_a: list[Row], offers_b: list[Row]) -> tuple[Row, Row, bool]:
    """A's cheapest offer and B's on the same provider if it has one, else B's cheapest."""
    for a_offer in offers_a:  # the cheapest A offer whose provider also offers B
        same = [b for b in offers_b if b["provider"] == a_offer["provider"]]
        if same:
            return a_offer, same[0], True
    return offers_a[0], offers_b[0], False


def compare(con: duckdb.DuckDBPyConnection, ask: Ask, chip_a: str, chip_b: str) -> CompareResult:
    """A against B on every pricing model and term both have an offer on."""
    if chip_a == chip_b:
        raise ChipcostError(f"compare {chip_a} with another chip, not with itself")
    both = replace(ask, chips=[chip_a, chip_b], baseline=chip_b, all_offers=True, limit=10**9)
    question = CostQuestion(tokens=None, overhead=0.0, migration_cost=None, daily_tokens=None)
    ranking = rank_cost(con, both, question)
    with at_speed(con, ask.speed):
        figures = {chip: _figures(con, ask, chip) for chip in (chip_a, chip_b)}
    by_pricing: dict[str, dict[str, list[Row]]] = {}
    for row in ranking.rows:  # every offer, cheapest first
        by_pricing.setdefault(_pricing(row), {}).setdefault(str(row["chip"]), []).append(row)
    lines = []
    for pricing, offers in sorted(by_pricing.items(), key=_pricing_order):
        if chip_a not in offers or chip_b not in offers:
            continue
        a, b, same = _pair(offers[chip_a], offers[chip_b])
        change = float(a["cost_per_million_tokens"]) / float(b["cost_per_million_tokens"]) - 1  # type: ignore[arg-type]
        best = worst = None
        fa = [float(f["tokens_per_second_per_chip"]) for f in figures[chip_a]]  # type: ignore[arg-type]
        fb = [float(f["tokens_per_second_per_chip"]) for f in figures[chip_b]]  # type: ignore[arg-type]
        if len(fa) + len(fb) > 2:
            best = _cost(a, max(fa)) / _cost(b, min(fb)) - 1
            worst = _cost(a, min(fa)) / _cost(b, max(fb)) - 1
        lines.append(Comparison(pricing, a, b, same, change, best, worst))
    if not lines:
        have = {c: sorted(p for p, o in by_pricing.items() if c in o) for c in (chip_a, chip_b)}
        raise ChipcostError(
            f"{chip_a} and {chip_b} share no pricing model under these filters ({chip_a}: "
            f"{', '.join(have[chip_a]) or 'none'}; {chip_b}: {', '.join(have[chip_b]) or 'none'})"
            "; widen --provider/--region/--pricing-model"
        )
    return CompareResult(chip_a, chip_b, ranking, lines, figures)
