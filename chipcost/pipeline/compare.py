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
from chipcost.pipeline.cost import Ask, CostRanking, fit_notes, rank_cost, speed_notes
from chipcost.transform.cost import CostQuestion
from chipcost.transform.tokens import change_words, cost_change, cost_per_million_tokens
from chipcost.warehouse.cost_per_token import at_speed, figures, model_parameters

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


@dataclass(frozen=True)
class CompareResult:
    chip_a: str
    chip_b: str
    ranking: CostRanking  # both chips' offers, with the notes of the ranking
    lines: list[Comparison]
    figures: dict[str, list[float]]  # each chip's usable published tokens/s at the speed
    notes: list[str]  # the asked speed, figures not at it or far above it, whether it fits


def _published(con: duckdb.DuckDBPyConnection, ask: Ask, chips: tuple[str, str]) -> dict:
    """Each chip's usable published tokens/s for the model and workload at the asked speed
    (all of them when none is at it)."""
    with at_speed(con, ask.speed):
        rows = figures(con, ask.model, ask.workload).rows
    found = {}
    for chip in chips:
        mine = [r for r in rows if r["chip"] == chip and r["usable"] and r["origin"] != "derived"]
        mine = [r for r in mine if r["at_speed"]] or mine
        found[chip] = [float(r["tokens_per_second_per_chip"]) for r in mine]  # type: ignore[arg-type]
    return found


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
    return cost_per_million_tokens(float(row["price_per_chip_hour"]), tps)  # type: ignore[arg-type]


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
    published = _published(con, ask, (chip_a, chip_b))
    by_pricing: dict[str, dict[str, list[Row]]] = {}
    for row in ranking.rows:  # every offer, cheapest first
        by_pricing.setdefault(_pricing(row), {}).setdefault(str(row["chip"]), []).append(row)
    lines = []
    for pricing, offers in sorted(by_pricing.items(), key=_pricing_order):
        if chip_a not in offers or chip_b not in offers:
            continue
        a, b, same = _pair(offers[chip_a], offers[chip_b])
        change = cost_change(
            float(a["cost_per_million_tokens"]), float(b["cost_per_million_tokens"])
        )  # type: ignore[arg-type]
        best = worst = None
        fa, fb = published[chip_a], published[chip_b]
        if fa and fb and len(fa) + len(fb) > 2:
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
    parameters = model_parameters(con, ask.model)
    notes = speed_notes(both, ranking.rows) + fit_notes(parameters, both, ranking.rows)
    return CompareResult(chip_a, chip_b, ranking, lines, published, notes)
