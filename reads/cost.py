"""What `chipcost cost` does once its options are checked (chipcost.reads.cost_asked): the
ranking of offers by cost per token, with fit, costs against the baseline, verdicts and
break-even; its notes are chipcost.reads.cost_notes'."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import duckdb

from chipcost.core.errors import ChipcostError
from chipcost.core.vocabulary import gpu_alone, gpu_alone_note
from chipcost.reads.cost_asked import Ask
from chipcost.reads.cost_notes import (
    basis_notes,
    check_chips,
    coverage_notes,
    fit_notes,
    interruption_note,
    method_notes,
    nothing_chosen,
    reach,
    speed_advice,
    speed_notes,
    unreached,
)
from chipcost.transform.cost import (
    Baseline,
    CostQuestion,
    Found,
    with_break_even,
    with_costs,
)
from chipcost.transform.cost_fit import (
    ALIKE,
    baseline_costs,
    choose,
    compared_with,
    reordered,
    with_fit,
)
from chipcost.transform.rows import CostRow, FigureRow, cost_rows_of
from chipcost.transform.verdict import Evidence, with_verdicts
from chipcost.warehouse.cost_per_token import (
    Figures,
    chips_with_prices,
    cost_rows,
    derived_points,
    figures,
    model_parameters,
)
from chipcost.warehouse.freshness import Freshness, freshness
from chipcost.warehouse.fx import (
    unrated,
    unrated_offers,
)

if TYPE_CHECKING:  # a frame only for csv, json and the Python API
    import polars as pl


# The rows' changes against the baseline (cost / the baseline's - 1), and their names in the
# ranking's data, in percent.
CHANGES = {
    "cost_change_vs_baseline": "change_vs_baseline_pct",
    "vs_baseline_at_point": "change_vs_baseline_at_point_pct",
    # Not a change but a share (of the figure of the chip that must reach the break-even), in
    # percent too: one convention.
    "break_even_share": "break_even_share_pct",
}


# The ranking's columns that may be empty in every row, by polars type name; any other such
# column is text.
_COLUMN_TYPES = {
    "batch_size": "Int64",
    "throughput_chips": "Int64",
    "implied_mfu": "Float64",
    "chip_memory_gb": "Float64",
    "memory_needed_gb": "Float64",
    "instance_memory_gb": "Float64",
    "fits": "Boolean",
    "instances_needed": "Int64",
    "cost_for_tokens": "Float64",
    "baseline_usd_per_million_tokens": "Float64",
    "baseline_provider": "String",
    "baseline_same_provider": "Boolean",
    "cost_change_vs_baseline": "Float64",
    "vs_baseline_at_point": "Float64",
    "usd_per_million_tokens_at_point": "Float64",
    "baseline_usd_per_million_tokens_at_point": "Float64",
    "vs_baseline": "String",
    "break_even_tokens": "Float64",
    "break_even_days": "Float64",
    "throughput_tokens_per_second_per_user": "Float64",
    "throughput_at_speed": "Boolean",
    "throughput_input_tokens": "Int64",
    "throughput_output_tokens": "Int64",
    "throughput_range_low": "Float64",
    "throughput_range_high": "Float64",
    "break_even_tokens_per_second_per_chip": "Float64",
    "break_even_at_least": "Boolean",
    "sample": "Boolean",
    "break_even_share": "Float64",
    "gpu_alone": "Boolean",
    "lower_bound": "Boolean",
}

# The fields each row says how far its cost can be taken at its word, before `sample`: whether
# its price is the GPU's alone (the host billed beside it, so the cost is understated), why a
# spot price is doubtful, and whether its figure is a lower bound at the asked speed (so its
# cost is at most the one given).
CAVEATS = ("gpu_alone", "spot_doubt", "lower_bound")


def baseline_note(baseline: str, *, table: bool = True) -> str:
    """How each row is set against the baseline, its break-even and share: under the table,
    by the marks and words of its cells ('marked *', 'the cell names it', 'of est.
    elsewhere'); in csv and json, whose rows carry none of them, by the fields that say it
    (baseline_same_provider false, break_even_for, break_even_share_of)."""
    elsewhere, names, share = (
        (
            "marked *",
            "the cell names it",
            "'of est. elsewhere': of its derived estimate at another point, 'elsewhere': of "
            "its own figure at another point",
        )
        if table
        else (
            "baseline_same_provider false",
            "break_even_for names it",
            "break_even_share_of names it, and where it is at another point",
        )
    )
    return (
        f"vs {baseline}: the cost per token against {baseline}'s on the same provider, pricing "
        f"model and term (its cheapest offer there that holds the model); where the row's "
        f"provider does not offer {baseline} on it, against {baseline}'s cheapest elsewhere, "
        f"{elsewhere}; blank where it has none; break-even tok/s: what the row's chip must do "
        f"per chip to cost as little per token, or {baseline} where {names} (the row's chip "
        f"measured where {baseline} is not); share: of that chip's own figure there (its "
        f"derived estimate where it is not measured; {share})"
    )


def _baseline(
    offers: list[CostRow],
    ask: Ask,
    question: CostQuestion,
    figures: Sequence[FigureRow],
    con: duckdb.DuckDBPyConnection | None = None,
    *,
    table: bool = True,
) -> tuple[Baseline, list[str]]:
    """Each row's baseline offer to set it against, and the notes saying how, worded for the
    table or (not `table`) for csv and json; the errors of a baseline with no offer (where its
    prices are, when `con` can tell; what speed to ask where `figures`, the ranking's, reach
    none at the asked one)."""
    options = baseline_costs(offers, ask.baseline)
    if options:

        def find(row: CostRow) -> Found | None:
            found = options.get((row["pricing_model"], row["term"]))
            return compared_with(found, row["provider"]) if found else None

        return find, [baseline_note(ask.baseline, table=table)]
    filtered = any(ask.filters.values()) or ask.max_interruption is not None
    message = (
        f"the baseline {ask.baseline} has no current price with a throughput for {ask.model} "
        f"{ask.workload}{' under these filters' if filtered else ''}"
    )
    pick = ask.voice.option("baseline") if ask.voice.takes("baseline") else ""
    other = f"compare with another chip{f' ({pick})' if pick else ''}"
    widen = f"widen the filters, or {other}" if filtered else other
    if con is not None:
        from chipcost.reads.price_notes import held_elsewhere, unpublished_words
        from chipcost.warehouse.prices import chip_values

        if not chip_values(con, [ask.baseline], "provider", "per_chip_prices"):
            said = unpublished_words([ask.baseline]).strip()
            message = f"the baseline {ask.baseline} has no current price" + (
                f" ({said.rstrip('.')})" if said else ": no source lists it today"
            )
            widen = other
        else:
            message += held_elsewhere(con, [ask.baseline], ask.filters)
    if any(r["chip"] == ask.baseline for r in offers):
        message = (
            f"{ask.voice.said('speed', ask.speed)}: no figure of the baseline {ask.baseline} "
            f"for {ask.model}, "
            f"measured or derived, reaches {reach(ask.speed)}"
        )
        if ask.baseline_given:
            raise ChipcostError(f"{message}: {speed_advice(ask, [ask.baseline], figures)}")
    if ask.baseline_given or question.migration_cost is not None:
        raise ChipcostError(f"{message}: {widen}")
    return {}, [f"{message}: no cost change shown (pick one with {pick or 'another chip'})"]


def _ranked(
    con: duckdb.DuckDBPyConnection,
    ask: Ask,
    question: CostQuestion,
    both: list[str],
    evidence: Evidence,
    table: bool,
) -> tuple[list[CostRow], list[str]]:
    """The ranking's rows with fit, costs, savings and break-even, and the baseline's note
    (worded for the table, or for csv and json: `table`); an empty ranking is an error."""
    # Of the offers alike (ALIKE) only the cheapest are read, after your discounts, the
    # conversion and --max-interruption (which may change which one is cheapest), so the
    # ranking holds rows in the number of chips, providers and terms, not of offers; all are
    # read when every offer is shown (all_offers, unless cheapest_alike).
    shown = ask.all_offers and not ask.cheapest_alike
    found = cost_rows(
        con, ask.model, ask.workload, all_offers=True, currency=ask.mine.converting,
        cheapest_of=() if shown else ALIKE, point=ask.point,
        discount=ask.mine.factor if ask.mine.discounts else None,
        max_interruption=ask.max_interruption, **ask.filters,
    )  # fmt: skip
    offers = with_fit(cost_rows_of(ask.mine.rows(found)), evidence.parameters, ask.workload)
    notes: list[str] = []
    if ask.max_interruption is not None:
        notes = interruption_note(con, ask)
    baseline, baseline_notes = _baseline(offers, ask, question, evidence.rows, con, table=table)
    notes += baseline_notes
    chosen = choose(
        offers,
        chips=ask.chips or None,
        all_offers=ask.all_offers,
        unfit_last=ask.workload != "training",
        max_instances=ask.max_instances,
    )
    if not chosen:
        nothing_chosen(con, ask, bool(offers), both)
    rows = with_verdicts(with_costs(chosen, question, baseline), offers, ask.baseline, evidence)
    rows = with_break_even(rows, question)
    return reordered(rows, unfit_last=ask.workload != "training"), notes


def _header(ask: Ask, question: CostQuestion) -> dict[str, object]:
    scope = "every offer" if ask.all_offers else "cheapest offer per chip, pricing model and term"
    return {
        "model": ask.model, "workload": ask.workload, "scope": scope, "tokens": question.tokens,
        "baseline": ask.baseline, "migration_cost": question.migration_cost,
        "speed": ask.speed if ask.workload == "inference" else None,
        "ttft_ms": ask.ttft if ask.workload == "inference" else None,
        "shape": list(ask.shape) if ask.shape else None, "precision": ask.precision,
        "currency": ask.mine.currency,
    }  # fmt: skip


@dataclass(frozen=True)
class CostRanking:
    """What `chipcost cost` shows, as data: rows cheapest first, and every note about them."""

    header: dict[str, object]
    rows: list[CostRow]
    more: int  # rows beyond the limit, not in `rows`
    set_aside: list[FigureRow]  # reference figures set aside for the shown chips, and why
    notes: list[str]  # worded for the output asked: the table, or csv and json (rank_cost)
    freshness: Freshness  # of the sources of the prices shown
    # What the ranking was made from: every figure at the asked speed, the chips with a
    # current price and those with a figure (what taken_from checks a narrower ask against).
    evidence: Evidence | None = None
    priced: tuple[str, ...] = ()
    covered: tuple[str, ...] = ()

    def frame(self) -> pl.DataFrame:
        """The rows as data (csv, json, the Python API): a rank column, then every field."""
        import polars as pl

        rows = [{"rank": n, **row} for n, row in enumerate(self.rows, start=1)]
        frame = typed_empty(pl.DataFrame(rows, infer_schema_length=None), _COLUMN_TYPES)
        # a spot offer's interruption bucket, read where --max-interruption asks for it: the
        # column is in every ranking, last, so that one asked with it concatenates too
        if "interruption" not in frame.columns:
            frame = frame.with_columns(pl.lit(None, dtype=pl.String).alias("interruption"))
        # whether the price is the bundled sample's, next to last: the columns before it keep
        # their places, the caveats' just before it
        if "sample" not in frame.columns:
            frame = frame.with_columns(pl.lit(None, dtype=pl.Boolean).alias("sample"))
        frame = frame.with_columns(
            pl.lit(None, dtype=getattr(pl, _COLUMN_TYPES.get(name, "String"))).alias(name)
            for name in CAVEATS
            if name not in frame.columns
        )
        last = (*CAVEATS, "sample", "interruption")
        frame = frame.select(pl.exclude(*last), *last)
        # Changes and shares in percent, as every read gives them (the rows keep the fraction).
        return frame.with_columns(
            (pl.col(old) * 100).alias(new) for old, new in CHANGES.items() if old in frame.columns
        ).drop(*(old for old in CHANGES if old in frame.columns))


def typed_empty(frame: pl.DataFrame, types: Mapping[str, str]) -> pl.DataFrame:
    """A column empty in every row has no type of its own (Null): given its type (`types`, by
    polars type name; else text), so that two answers' frames (training and inference, two
    models, two pairs of chips) concatenate."""
    import polars as pl

    return frame.with_columns(
        pl.col(name).cast(getattr(pl, types.get(name, "String")))
        for name, kind in frame.schema.items()
        if kind == pl.Null
    )


def rank_cost(
    con: duckdb.DuckDBPyConnection,
    ask: Ask,
    question: CostQuestion,
    known: Figures | None = None,
    *,
    table: bool = True,
) -> CostRanking:
    """The ranking of `ask`, or a ChipcostError saying why there is none. `known`: the figures
    of the ask's model and workload at its point, when the caller has read them already (one
    read answers many asks of the same model, workload and speed). `table`: its notes worded
    for the table that marks its cells, else for csv and json, whose fields say it."""
    priced = chips_with_prices(con)
    if known is None:
        known = figures(con, ask.model, ask.workload, ask.point)
    covered = known.chips()
    left = unrated(con, chips=ask.chips or None)
    kept = unrated_offers(con, chips=ask.chips or None) if left.count else []
    check_chips(
        priced, covered, ask, left, kept,
        lambda chip: derived_points(con, chip, ask.model, ask.workload),
    )  # fmt: skip
    parameters = model_parameters(con, ask.model)
    both = sorted(set(priced) & set(covered))
    evidence = Evidence(known.rows, parameters, ask.speed)
    rows, baseline_notes = _ranked(con, ask, question, both, evidence, table)
    bounds = {r.throughput_id for r in evidence.readings() if r.lower_bound}
    for row in rows:  # what speed_notes says of each row, as data
        row["gpu_alone"] = gpu_alone(row["price_source"], row["instance_type"])
        at_speed = row.get("throughput_at_speed") is not False
        row["lower_bound"] = at_speed and row["throughput_id"] in bounds
    if all(r.get("throughput_at_speed") is False for r in rows):
        unreached(ask, rows, sorted({str(r["chip"]) for r in rows}), evidence.rows)
    shown = rows[: ask.limit]
    chips = sorted({str(r["chip"]) for r in shown})
    notes = [ask.model_note] if ask.model_note else []
    notes += speed_notes(ask, rows, bounds) + coverage_notes(priced, known, parameters, ask)
    notes += baseline_notes + basis_notes(shown)
    notes += fit_notes(parameters, ask, rows) + ask.mine.notes(rows)
    # a price that leaves the host out understates what the row costs per token
    offered = ((r["price_source"], r["instance_type"]) for r in shown)
    notes += [alone] if (alone := gpu_alone_note(offered)) else []
    sources = sorted({str(r["price_source"]) for r in shown})
    return CostRanking(
        header=_header(ask, question),
        rows=shown,
        more=len(rows) - len(shown),
        set_aside=known.set_aside(chips),
        notes=notes + method_notes(ask, question),
        # the offers left out for want of a rate, each named in its own currency
        freshness=freshness(
            con,
            sources,
            stale_days=ask.stale_days,
            chips=ask.chips or None,
            listed=True,
            providers=ask.filters.get("providers"),
            regions=ask.filters.get("regions"),
            pricing_models=ask.filters.get("pricing_models"),
            instances=ask.filters.get("instances"),
        ),  # fmt: skip
        evidence=evidence,
        priced=tuple(priced),
        covered=tuple(covered),
    )


def taken_from(every: CostRanking, ask: Ask, question: CostQuestion) -> list[CostRow]:
    """The rows rank_cost ranks for `ask` (a few chips, every offer), taken from `every`, the
    ranking of every_offer(ask), with the errors rank_cost raises for it: the same offers in
    the same order, each chip's offers as they are ranked. Their columns against a baseline
    are `every`'s (its baseline's), not `ask`'s."""
    if every.more or not every.header["scope"] == "every offer" or every.evidence is None:
        raise ValueError("taken_from takes the rows of a ranking of every offer (every_offer)")
    fresh = every.freshness
    check_chips(list(every.priced), list(every.covered), ask, fresh.unrated, fresh.unconverted)
    offers = every.rows  # every offer, each chip's in the order choose ranks them
    _baseline(offers, ask, question, every.evidence.rows)  # its errors only
    rows = [r for r in offers if r["chip"] in ask.chips or not ask.chips]
    if ask.max_instances is not None:
        rows = [r for r in rows if (r.get("instances_needed") or 1) <= ask.max_instances]
    if not rows:
        nothing_chosen(None, ask, bool(offers), sorted(set(every.priced) & set(every.covered)))
    if all(r.get("throughput_at_speed") is False for r in rows):
        unreached(ask, rows, sorted({str(r["chip"]) for r in rows}), every.evidence.rows)
    return rows
