"""What `chipcost cost` does once its options are checked: query, check coverage, print."""

from __future__ import annotations

from dataclasses import dataclass, field

import duckdb
import polars as pl

from chipcost.core.errors import ChipcostError
from chipcost.transform.cost import CostQuestion, with_costs
from chipcost.transform.tokens import human_count
from chipcost.warehouse.cost_per_token import (
    baseline_costs,
    chips_with_prices,
    chips_with_throughput,
    cost_rows,
    model_parameters,
    set_aside,
)
from chipcost.warehouse.prices import last_run


@dataclass(frozen=True)
class Ask:
    """The ranking asked for: a model and workload, optionally narrowed."""

    model: str
    workload: str
    chips: list[str]
    baseline: str
    baseline_given: bool
    filters: dict[str, list[str] | None] = field(default_factory=dict)
    all_offers: bool = False
    limit: int = 200


def _no_throughput(chip: str, ask: Ask) -> str:
    return (
        f"no throughput for {chip} on {ask.model} {ask.workload}: no reference, no measurement, "
        "and no dense peak (chipcost/data/chips.csv) or parameter count to derive one. Record "
        f"yours with `chipcost throughput add --chip {chip} --model {ask.model} --workload "
        f"{ask.workload} --tokens-per-second N --per chip`"
    )


def _check_chips(priced: list[str], covered: list[str], ask: Ask) -> None:
    for chip in ask.chips:
        if chip not in priced:
            raise ChipcostError(
                f"no current price for {chip}: no source lists it today, so its cost per token "
                f"cannot be computed. Chips with prices: {', '.join(priced) or 'none'}"
            )
        if chip not in covered:
            raise ChipcostError(_no_throughput(chip, ask))


def _coverage_notes(con, priced: list[str], covered: list[str], ask: Ask) -> list[str]:
    """Chips left out of the ranking and why, so that none disappears silently."""
    if ask.chips:
        return []
    notes = []
    unranked = [c for c in priced if c not in covered]
    why = (
        "none derived: no dense peak, or a chip family that cannot run the workload; see "
        "chipcost/data/derivation.csv"
    )
    if model_parameters(con, ask.model) is None:
        why = (
            f"none derived: {ask.model} has no parameter count; give it with `chipcost "
            f"throughput model {ask.model} --parameters N`"
        )
    if unranked:
        notes.append(
            f"not ranked, no throughput for {ask.model} {ask.workload}: {', '.join(unranked)} "
            f"(no reference or measurement, and {why})"
        )
    figures = chips_with_throughput(con, ask.model, ask.workload, derived=False)
    unpriced = [c for c in figures if c not in priced]
    if unpriced:
        notes.append(f"not ranked, a throughput figure but no current price: {', '.join(unpriced)}")
    return notes


def _baseline(con, ask: Ask, question: CostQuestion) -> tuple[dict, list[str]]:
    baseline = baseline_costs(con, ask.model, ask.workload, ask.baseline, **ask.filters)
    if baseline:
        parts = ", ".join(
            f"{pm} {t}".replace(" none", "") + f" ${v:,.4f}/M"
            for (pm, t), v in sorted(baseline.items())
        )
        return baseline, [
            f"vs {ask.baseline}: cost change against {ask.baseline}'s cheapest offer on the same "
            f"pricing model and term ({parts}); blank where it has none"
        ]
    message = (
        f"the baseline {ask.baseline} has no current price with a throughput for {ask.model} "
        f"{ask.workload} under these filters"
    )
    if ask.baseline_given or question.migration_cost is not None:
        raise ChipcostError(message + ": pick another with --baseline")
    return baseline, [message + ": no savings shown (pick one with --baseline)"]


def _method_notes(ask: Ask, question: CostQuestion) -> list[str]:
    notes = ["$/M tokens = $/chip-hr / (tok/s per chip x 3600 / 10^6)"]
    if question.tokens:
        notes.append(
            f"cost of {human_count(question.tokens)} tokens = tokens / (tok/s per chip) / 3600 "
            f"x $/chip-hr x (1 + {question.overhead:.0%} overhead)"
        )
    if question.migration_cost is not None:
        daily = ""
        if question.daily_tokens:
            daily = f"; days at {human_count(question.daily_tokens)} tokens/day"
        notes.append(
            f"break-even = ${question.migration_cost:,.0f} / (baseline $/M - row $/M) x 10^6 "
            f"tokens{daily}"
        )
    notes.append(f'same numbers by SQL: chipcost sql "{equivalent_sql(ask, question)}"')
    return notes


def _quoted(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def equivalent_sql(ask: Ask, question: CostQuestion) -> str:
    """A query on cost_per_token that gives the ranking's numbers, filters included."""
    cost = ""
    if question.tokens:
        factor = question.tokens / 1e6 * (1 + question.overhead)
        cost = f", min(cost_per_million_tokens) * {factor:.12g} as usd_for_tokens"
    where = f"where model = {_quoted(ask.model)} and workload = {_quoted(ask.workload)}"
    columns = {"regions": "region", "pricing_models": "pricing_model", "providers": "provider"}
    for column, values in [("chip", ask.chips)] + [
        (columns[k], v) for k, v in ask.filters.items() if k in columns
    ]:
        if values:
            listed = ", ".join(_quoted(v.lower()) for v in values)
            where += f" and lower({column}) in ({listed})"
    if ask.all_offers:
        row_cost = cost.replace("min(", "(")
        return f"select *{row_cost} from cost_per_token {where} order by cost_per_million_tokens"
    return (
        "select chip, pricing_model, term, min(cost_per_million_tokens) as usd_per_million"
        f"{cost} from cost_per_token {where} group by all order by 4"
    )


def _ranked(con, ask: Ask, question: CostQuestion, baseline: dict, both: list[str]) -> list:
    """The ranking's rows with costs, savings and break-even; an empty ranking is an error."""
    frame = cost_rows(
        con, ask.model, ask.workload, chips=ask.chips or None, all_offers=ask.all_offers,
        **ask.filters,
    )  # fmt: skip
    if frame.is_empty():
        raise ChipcostError(
            f"no current offer matches for {ask.model} {ask.workload}. Chips with a price and "
            f"a throughput: {', '.join(both) or 'none'}; widen --region/--pricing-model/--provider"
        )
    return with_costs(frame.to_dicts(), question, baseline)


def _header(ask: Ask, question: CostQuestion) -> dict[str, object]:
    scope = "every offer" if ask.all_offers else "cheapest offer per chip, pricing model and term"
    return {
        "model": ask.model, "workload": ask.workload, "scope": scope, "tokens": question.tokens,
        "baseline": ask.baseline, "migration_cost": question.migration_cost,
    }  # fmt: skip


@dataclass(frozen=True)
class CostRanking:
    """What `chipcost cost` shows, as data: rows cheapest first, and every note about them."""

    header: dict[str, object]
    rows: list[dict[str, object]]
    more: int  # rows beyond the limit, not in `rows`
    set_aside: pl.DataFrame  # reference figures set aside for the shown chips, and why
    notes: list[str]
    last_run: tuple | None


def rank_cost(con: duckdb.DuckDBPyConnection, ask: Ask, question: CostQuestion) -> CostRanking:
    """The ranking of `ask`, or a ChipcostError saying why there is none."""
    priced = chips_with_prices(con)
    covered = chips_with_throughput(con, ask.model, ask.workload)
    _check_chips(priced, covered, ask)
    baseline, baseline_notes = _baseline(con, ask, question)
    rows = _ranked(con, ask, question, baseline, sorted(set(priced) & set(covered)))
    shown = rows[: ask.limit]
    chips = sorted({str(r["chip"]) for r in shown})
    notes = _coverage_notes(con, priced, covered, ask) + baseline_notes
    return CostRanking(
        header=_header(ask, question),
        rows=shown,
        more=len(rows) - len(shown),
        set_aside=set_aside(con, ask.model, ask.workload, chips),
        notes=notes + _method_notes(ask, question),
        last_run=last_run(con),
    )
