"""What `chipcost compare A B` does: is chip A cheaper per token than chip B, per pricing model.

Both chips' offers come from the cost ranking (chipcost.reads.cost: the same prices, fit
rule and throughput choice at the asked speed); under each pricing model and term the
comparison is between each chip's cheapest offer, wherever each is sold (`cost`'s `vs`
column sets a row against the baseline on the row's own provider instead:
docs/cost-per-token.md). The answer rests on both
chips' figures at one operating point (chipcost.transform.comparison): a verdict where both are
measured there, with the range over every figure of each at that point (best case A's
highest against B's lowest); else the break-even at the measured side's point.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import duckdb

from chipcost.core.errors import ChipcostError, UsageError
from chipcost.core.vocabulary import code_words, gpu_alone_note
from chipcost.reads.cost import CostRanking, rank_cost, taken_from, typed_empty
from chipcost.reads.cost_asked import Ask
from chipcost.reads.cost_notes import fit_notes, speed_notes, unreached
from chipcost.transform.comparison import (
    Comparison,
    comparison,
    estimate_fields,
    offers_by_pricing,
    paired,
    pricing_order,
    shared_pricing,
)
from chipcost.transform.cost import CostQuestion, cost_text
from chipcost.transform.rows import CostRow, FigureRow
from chipcost.transform.verdict import (
    Evidence,
    basis_words,
    costs_at_point,
    said_elsewhere,
    share_of,
)
from chipcost.warehouse.cost_per_token import Figures

if TYPE_CHECKING:  # a frame only for csv, json and the Python API
    import polars as pl

# Each offer's fields a comparison's frame carries, prefixed a_ and b_.
OFFER_FIELDS = (
    "provider", "region", "instance_type", "payment", "plan", "price_per_chip_hour",
    "tokens_per_second_per_chip",
    "usd_per_million_tokens", "currency", "discount", "throughput_id", "throughput_kind",
    "throughput_figure_kind", "throughput_operating_point",
    "throughput_tokens_per_second_per_user", "precision", "throughput_range_low",
    "throughput_range_high", "throughput_chips", "estimate", "estimate_basis", "gpu_alone",
    "spot_doubt", "sample",
)  # fmt: skip
# The zone of an offer priced per zone (AWS's spot), empty for one priced per region: after
# every other column (the command line's currency too), so that those keep their places.
ZONE_FIELDS = ("a_zone", "b_zone")


# The frame's columns that may be empty in every row (a "cannot say" has no change, a USD
# offer no currency), by polars type name; any other such column is text (typed_empty).
_COLUMN_TYPES = {
    **dict.fromkeys(
        ("change_pct", "best_case_change_pct", "worst_case_change_pct", "derived_estimate",
         "derived_estimate_low", "derived_estimate_high", "break_even_tokens_per_second_per_chip",
         "break_even_share_pct"), "Float64",
    ),
    "same_provider": "Boolean",
    "break_even_at_least": "Boolean",
    **{
        f"{side}_{name}": kind
        for side in "ab"
        for names, kind in (
            (("tokens_per_second_per_chip_at_point", "usd_per_million_tokens_at_point",
              "price_per_chip_hour", "tokens_per_second_per_chip", "usd_per_million_tokens",
              "throughput_tokens_per_second_per_user", "throughput_range_low",
              "throughput_range_high"), "Float64"),
            (("lower_bound", "estimate", "gpu_alone", "sample"), "Boolean"),
            (("throughput_chips",), "Int64"),
        )
        for name in names
    },
}  # fmt: skip


@dataclass(frozen=True)
class CompareResult:
    chip_a: str
    chip_b: str
    ranking: CostRanking  # both chips' offers, with the notes of the ranking
    lines: list[Comparison]
    figures: dict[str, list[float]]  # each chip's usable published tokens/s at the speed
    notes: list[str]  # the asked speed, figures not at it or far above it, whether it fits
    # each chip's published figures at other points (a calibrated figure is fitted on them)
    elsewhere: dict[str, list[FigureRow]] = field(default_factory=dict)

    def frame(self) -> pl.DataFrame:
        """One row per pricing model and term (csv, json, chipcost.compare()): both offers, the
        change in percent (negative = cheaper) and its range, the verdict and the break-even."""
        import polars as pl

        rows = []
        for line in self.lines:
            rows.append(
                {
                    "chip": self.chip_a,
                    "compared_with": self.chip_b,
                    "pricing_model": line.a["pricing_model"],
                    "term": line.a["term"],
                    "change_pct": _percent(line.change),
                    "in_words": line.sentence(self.chip_a, self.chip_b),
                    "verdict": line.verdict.word,
                    "verdict_point": line.verdict.point,
                    "break_even_for": line.verdict.needed_by(self.chip_a, self.chip_b),
                    "break_even_tokens_per_second_per_chip": line.verdict.break_even,
                    "break_even_at_least": line.verdict.break_even_least,
                    "break_even_share_pct": _percent(line.verdict.share),
                    "break_even_share_of": share_of(line.verdict),
                    **estimate_fields(line.verdict),
                    "best_case_change_pct": _percent(line.best),
                    "worst_case_change_pct": _percent(line.worst),
                    "same_provider": line.same_provider,
                    **_at_point(line),
                    **{
                        f"{k}_{name}": line_row.get(name)
                        for k, line_row in (("a", line.a), ("b", line.b))
                        for name in OFFER_FIELDS
                    },
                    "a_zone": line.a.get("zone"),
                    "b_zone": line.b.get("zone"),
                }
            )
        return typed_empty(pl.DataFrame(rows, infer_schema_length=None), _COLUMN_TYPES)


def _at_point(line: Comparison) -> dict[str, object]:
    """Each side's figure at the point both are measured at and its cost per million tokens
    there; the offer's own figure and cost are a_/b_ as cost gives them."""
    judged = line.verdict
    costs = costs_at_point(judged, line.a, line.b) or (None, None)
    found: dict[str, object] = {}
    for side, figure, cost in (("a", judged.a_figure, costs[0]), ("b", judged.b_figure, costs[1])):
        found[f"{side}_throughput_id_at_point"] = figure.throughput_id if figure else None
        found[f"{side}_tokens_per_second_per_chip_at_point"] = (
            figure.tokens_per_second_per_chip if figure else None
        )
        found[f"{side}_usd_per_million_tokens_at_point"] = cost
        found[f"{side}_lower_bound"] = figure.lower_bound if figure else None
    return found


def _percent(change: float | None) -> float | None:
    """A change (A's cost / B's - 1) or a share in percent, as every read gives them: -47.0."""
    return None if change is None else 100 * change


# compare asks no cost of a number of tokens and no break-even on a migration cost.
_QUESTION = CostQuestion(tokens=None, overhead=0.0, migration_cost=None, daily_tokens=None)


def _both(ask: Ask, chip_a: str, chip_b: str) -> Ask:
    """The ranking a comparison reads: both chips' every offer, B the baseline."""
    if chip_a == chip_b:
        raise UsageError(f"compare {chip_a} with another chip, not with itself")
    return replace(ask, chips=[chip_a, chip_b], baseline=chip_b, all_offers=True, limit=10**9)


def compare(
    con: duckdb.DuckDBPyConnection,
    ask: Ask,
    chip_a: str,
    chip_b: str,
    known: Figures | None = None,
) -> CompareResult:
    """A against B on every pricing model and term both have an offer on; `known` as
    rank_cost takes it."""
    both = _both(ask, chip_a, chip_b)
    ranking = rank_cost(con, both, _QUESTION, known)

    def held(chips: list[str]) -> str:
        from chipcost.reads.price_notes import held_elsewhere

        return held_elsewhere(con, chips, both.filters)

    return _compared(ranking, ranking.rows, both, chip_a, chip_b, held)


def compare_in(every: CostRanking, ask: Ask, chip_a: str, chip_b: str) -> CompareResult:
    """A against B as compare answers it, both chips' offers taken from `every`, the ranking of
    every chip's every offer (chipcost.reads.cost.every_offer(ask)): many pairs of one model
    and workload are answered from one ranking. The result's ranking is `every`."""
    both = _both(ask, chip_a, chip_b)
    return _compared(every, taken_from(every, both, _QUESTION), both, chip_a, chip_b)


def _compared(
    ranking: CostRanking,
    rows: list[CostRow],
    both: Ask,
    chip_a: str,
    chip_b: str,
    held: Callable[[list[str]], str] = lambda chips: "",
) -> CompareResult:
    """A against B from `rows`, both chips' every offer as `ranking` ranks them; `held`
    says where the prices of chips with no offer under the filters are (held_elsewhere)."""
    evidence = ranking.evidence
    assert evidence is not None  # rank_cost gives it
    unreached(both, rows, [chip_a, chip_b], evidence.rows)
    parameters = evidence.parameters
    published = {
        c: [r.tokens_per_second_per_chip for r in evidence.published(c)] for c in (chip_a, chip_b)
    }
    elsewhere = {
        c: [
            r for r in evidence.rows
            if r["chip"] == c and r["usable"] and r["origin"] != "derived" and not r["at_speed"]
        ]
        for c in (chip_a, chip_b)
    }  # fmt: skip
    by_pricing = offers_by_pricing(rows)  # every offer, cheapest first
    shared = shared_pricing(by_pricing, chip_a, chip_b)
    free = _free_baselines(shared, chip_a, chip_b)
    lines = [
        comparison(pricing, offers[chip_a], offers[chip_b], evidence)
        for pricing, offers in shared
        if pricing not in free
    ]
    if shared and not lines:
        raise ChipcostError(next(iter(free.values())))
    if not lines:
        have = {
            c: [code_words(p) for p, o in sorted(by_pricing.items(), key=pricing_order) if c in o]
            for c in (chip_a, chip_b)
        }
        where = held([c for c in (chip_a, chip_b) if not have[c]])
        raise ChipcostError(
            f"{chip_a} and {chip_b} share no pricing model under these filters ({chip_a}: "
            f"{', '.join(have[chip_a]) or 'none'}; {chip_b}: {', '.join(have[chip_b]) or 'none'})"
            f"{where}; widen {both.voice.either('provider', 'region', 'pricing_model')}"
        )
    notes = [*([both.model_note] if both.model_note else []), *free.values()]
    notes += basis_notes(lines, evidence)
    notes += speed_notes(both, rows)
    notes += fit_notes(parameters, both, rows)
    offers = [row for line in lines for row in (line.a, line.b)]
    notes += both.mine.notes(offers)
    # a price that leaves the host out understates what the offer costs per token
    offered = ((r["price_source"], r["instance_type"]) for r in offers)
    notes += [alone] if (alone := gpu_alone_note(offered)) else []
    return CompareResult(chip_a, chip_b, ranking, lines, published, notes, elsewhere)


# How the note on a table's leaning at other costs than its columns' begins ('cannot say, ~19%
# dearer at $0.1608 vs $0.1357/M'): a table's, not a sentence's (the report words the answer).
LEANING_AT = "verdict at $A vs $B/M"


def basis_notes(lines: list[Comparison], evidence: Evidence) -> list[str]:
    """Where an answer rests on other figures than the offers' own at the asked speed (those
    `cost` prices them at): which, once, and each offer's own cost on every such line."""
    elsewhere = [line for line in lines if said_elsewhere(line.verdict, line.a, line.b)]
    if not elsewhere:
        return []
    bases: dict[str, list[str]] = {}
    for line in elsewhere:
        found = basis_words(line.verdict, line.a, line.b, evidence)
        bases.setdefault(found, []).append(code_words(line.pricing))
    # the figures are each chip's, the same on every line but where an offer's own differs
    basis = (
        next(iter(bases))
        if len(bases) == 1
        else " | ".join(f"{', '.join(pricings)}: {found}" for found, pricings in bases.items())
    )
    if costs_at_point(elsewhere[0].verdict, elsewhere[0].a, elsewhere[0].b) is None:
        # the cells give both costs
        return [f"{LEANING_AT}: both offers' costs at the figures it rests on: {basis}"]
    own = "; ".join(f"{code_words(line.pricing)}: {_own_costs(line)}" for line in elsewhere)
    return [
        f"$/M: at the figures the verdict rests on, not each offer's own at the asked speed, "
        f"as the cost command prices it ({own}): {basis}"
    ]


def _own_costs(line: Comparison) -> str:
    """'GB200 $0.5644, H100-SXM $0.6300': both offers' own costs per million tokens."""
    currency = str(line.a.get("currency") or "USD")
    return ", ".join(
        f"{row['chip']} {cost_text(row['usd_per_million_tokens'], currency)}"
        for row in (line.a, line.b)
    )


def _free_baselines(
    shared: list[tuple[str, dict[str, list[CostRow]]]], chip_a: str, chip_b: str
) -> dict[str, str]:
    """The pricing models whose baseline offer costs nothing (a 100% discount in
    CHIPCOST_DISCOUNTS): no change can be stated against a cost of zero, so each is said in
    one line instead of answered."""
    free = {}
    for pricing, offers in shared:
        b = paired(offers[chip_a], offers[chip_b])[1]
        if b["usd_per_million_tokens"] <= 0:
            free[pricing] = (
                f"{pricing}: {chip_b}'s offer ({b['provider']} {b['instance_type']}) costs "
                f"nothing after your discounts, so {chip_a} cannot be compared with it; lower "
                "that rule's percent below 100 in CHIPCOST_DISCOUNTS, or compare the other way"
            )
    return free
