"""Chip A against chip B, one pricing model and term at a time: both chips' offers grouped by
pricing, each chip's cheapest paired whichever is named first, and judged from both chips'
figures at one operating point (chipcost.transform.verdict); pure.

The offers are cost rows as the ranking ranks them (every offer, cheapest first); the
pipeline reads them (chipcost.reads.compare) and says what cannot be compared.
"""

from __future__ import annotations

from dataclasses import dataclass

from chipcost.transform.cost_fit import held_first
from chipcost.transform.evidence import Reading, Verdict
from chipcost.transform.rows import CostRow
from chipcost.transform.verdict import Evidence, cost_at, figure_kind, judge


@dataclass(frozen=True)
class Comparison:
    """One pricing model and term: A's and B's offer, and A's cost change against B."""

    pricing: str  # 'on_demand', 'reserved 1yr'
    a: CostRow
    b: CostRow
    same_provider: bool
    verdict: Verdict  # the break-even and what the evidence says

    @property
    def change(self) -> float | None:
        """A's cost per token / B's - 1 (negative is cheaper) at the figures a verdict rests
        on; None where none is drawn."""
        return self.verdict.change

    @property
    def best(self) -> float | None:  # the change with A's highest and B's lowest figure
        return self.verdict.best

    @property
    def worst(self) -> float | None:  # ... and with A's lowest and B's highest
        return self.verdict.worst

    def sentence(self, chip_a: str, chip_b: str) -> str:
        """The answer as the evidence allows it to be worded."""
        return self.verdict.sentence(chip_a, chip_b)


def estimate_fields(judged: Verdict) -> dict[str, object]:
    """The unmeasured side's derived estimate at the measured side's point, where one was made."""
    found = judged.estimate
    low, high = found.band if found and found.band else (None, None)
    return {
        "derived_estimate": found.value if found else None,
        "derived_estimate_low": low,
        "derived_estimate_high": high,
        "derived_estimate_error": found.error if found else None,
    }


def pricing_of(row: CostRow) -> str:
    """'on_demand', 'reserved 1yr': an offer's pricing model and term, as a comparison's line
    names them."""
    parts = [row["pricing_model"], row["term"]]
    return " ".join(str(p) for p in parts if p not in (None, "none", "default"))


def pricing_order(item: tuple[str, object]) -> tuple[int, int, str]:
    """On demand first, then as the vocabulary orders pricing models, shorter terms first
    (a capacity block's 1d before its 7d and 14d)."""
    from chipcost.core.vocabulary import PRICING_MODELS, term_hours

    model, _, term = item[0].partition(" ")
    rank = PRICING_MODELS.index(model) if model in PRICING_MODELS else len(PRICING_MODELS)
    return rank, term_hours(term), term


def offers_by_pricing(rows: list[CostRow]) -> dict[str, dict[str, list[CostRow]]]:
    """pricing -> chip -> its offers, each chip's in the order of `rows` (cheapest first)."""
    grouped: dict[str, dict[str, list[CostRow]]] = {}
    for row in rows:
        grouped.setdefault(pricing_of(row), {}).setdefault(str(row["chip"]), []).append(row)
    return grouped


def shared_pricing(
    by_pricing: dict[str, dict[str, list[CostRow]]], chip_a: str, chip_b: str
) -> list[tuple[str, dict[str, list[CostRow]]]]:
    """The pricings both chips have an offer on (of offers_by_pricing), in pricing_order."""
    return [
        (pricing, offers)
        for pricing, offers in sorted(by_pricing.items(), key=pricing_order)
        if chip_a in offers and chip_b in offers
    ]


def paired(offers_a: list[CostRow], offers_b: list[CostRow]) -> tuple[CostRow, CostRow, bool]:
    """Each chip's own cheapest offer that holds the model, chosen the same whichever chip is
    named first, and whether one provider sells both."""
    a_offer, b_offer = held_first(offers_a), held_first(offers_b)
    return a_offer, b_offer, a_offer["provider"] == b_offer["provider"]


def comparison(
    pricing: str, offers_a: list[CostRow], offers_b: list[CostRow], evidence: Evidence
) -> Comparison:
    """One pricing model's answer, from both chips' figures at one point."""
    a, b, same = paired(offers_a, offers_b)
    return Comparison(pricing, a, b, same, judge(a, b, evidence))


def cost_ranges(
    a: CostRow, b: CostRow, at_point: tuple[Reading, Reading] | None = None
) -> dict[str, object]:
    """Each side's figure kind and the cost per million tokens its range allows (its point
    cost at both ends for a published figure): what the report's chart draws. `at_point`:
    the figures a verdict rests on (Verdict.a_figure, b_figure), published ones, where the
    answer's costs are theirs (costs_at_point) rather than each offer's own figure's."""
    found: dict[str, object] = {}
    for n, (side, row) in enumerate((("a", a), ("b", b))):
        if at_point is not None:
            figure = at_point[n]
            found[f"{side}_kind"] = figure_kind({"kind": figure.kind, "scenario": figure.scenario})
            cost = cost_at(row, figure.tokens_per_second_per_chip)
            found[f"{side}_cost_low"] = found[f"{side}_cost_high"] = cost
            continue
        tps = row["tokens_per_second_per_chip"]
        low = row.get("throughput_range_low") or tps
        high = row.get("throughput_range_high") or tps
        found[f"{side}_kind"] = figure_kind(row)
        found[f"{side}_cost_low"] = cost_at(row, high)
        found[f"{side}_cost_high"] = cost_at(row, low)
    return found
