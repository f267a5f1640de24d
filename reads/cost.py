"""What `chipcost cost` does once its options are checked: query, check coverage, print."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import duckdb

from chipcost.core.asks import COST
from chipcost.core.catalog import UNKNOWN_CHIP
from chipcost.core.commands import RATES, figure_added, model_size, suggested
from chipcost.core.errors import ChipcostError, NoMatch, UsageError
from chipcost.core.figures import DEFAULT_SPEED, DEFAULT_TTFT_NOTE, point_label, speed_label
from chipcost.core.questions import Voice
from chipcost.core.settings import DEFAULT_STALE_DAYS
from chipcost.reads.price_notes import unconverted_words
from chipcost.reads.your_prices import YourPrices
from chipcost.transform.cost import (
    Baseline,
    CostQuestion,
    Found,
    fit_rule,
    money_sign,
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
from chipcost.transform.tokens import human_count
from chipcost.transform.verdict import Evidence, with_verdicts
from chipcost.warehouse.cost_per_token import (
    Figures,
    Point,
    chips_with_prices,
    cost_rows,
    figures,
    model_parameters,
)
from chipcost.warehouse.freshness import Freshness, freshness
from chipcost.warehouse.fx import (
    MAX_RATE_AGE_DAYS,
    NONE_UNRATED,
    Unrated,
    unrated,
    unrated_offers,
)
from chipcost.warehouse.prices import spot_buckets
from chipcost.warehouse.where import pricing_sql

if TYPE_CHECKING:  # a frame only for csv, json and the Python API
    import polars as pl

# `chipcost cost`'s voice: the asker a ranking has unless another is given (the API's).
COST_COMMAND = Voice(COST)


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
    stale_days: int = DEFAULT_STALE_DAYS
    speed: str = DEFAULT_SPEED  # 'max' or tokens/s per user (core.figures.speed_value)
    ttft: float | None = None  # the TTFT bound in ms; None: the default per request shape
    shape: tuple[int, int] | None = None  # (input, output tokens) asked; None: any
    precision: str | None = None  # the precision class asked ('FP8'); None: any
    max_instances: int | None = None  # drop offers needing more instances to hold the model
    mine: YourPrices = field(default_factory=YourPrices)  # your discounts and currency
    # Spot offers only where AWS's interruption bucket tops out at this percent or less.
    max_interruption: float | None = None
    voice: Voice = COST_COMMAND  # names the fields in messages as the asker did
    model_note: str | None = None  # the model asked stands for `model` (model_equivalents.csv)
    # Of every offer (all_offers), only the cheapest of those alike (ALIKE) are ranked: the
    # reader takes each chip's cheapest per pricing model and term (the articles' answers).
    cheapest_alike: bool = False

    @property
    def point(self) -> Point:
        """The point each chip's figure is chosen at."""
        return Point(self.speed, self.ttft, self.shape, self.precision)


# The rows' changes against the baseline (cost / the baseline's - 1), and their names in the
# ranking's data, in percent.
CHANGES = {
    "cost_change_vs_baseline": "change_vs_baseline_pct",
    "vs_baseline_at_point": "change_vs_baseline_at_point_pct",
    # Not a change but a share (of the baseline's figure), in percent too: one convention.
    "break_even_share": "break_even_share_pct",
}
# The ranking's columns that may be empty in every row, by polars type name; any other such
# column is text.
_COLUMN_TYPES = {
    "batch_size": "Int64",
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
    "break_even_share": "Float64",
}


def _why_underived(chip: str, workload: str) -> str:
    """Why no figure is derived for a chip: its family cannot run the workload, or the chips
    table lacks its peak (or the model its size)."""
    from chipcost.core.catalog import chip_rows
    from chipcost.transform.references import derivation_assumptions

    row = next((r for r in chip_rows() if r["chip"] == chip), {})
    rule = next((r for r in derivation_assumptions() if r.workload == workload), None)
    if rule is not None and row.get("family") in rule.not_on:
        return (
            f"none is derived, since {row['family']} chips are not built for {workload} "
            "(core/data/derivation.csv)"
        )
    return "and no dense peak (core/data/chips.csv) or parameter count to derive one"


def _no_throughput(chip: str, ask: Ask) -> str:
    if ask.shape or ask.precision:  # figures there may be at other points
        voice = ask.voice
        asked = " and ".join(
            voice.option(name) for name in ("shape", "precision") if getattr(ask, name)
        )
        return (
            f"no throughput for {chip} on {ask.model} {ask.workload} at"
            f"{point_label(ask.shape, ask.precision).lstrip(',')} (chipcost's own estimate is "
            f"at 1,000 in / 1,000 out tokens, FP8 or BF16, only): leave out or change {asked}; "
            f"`{suggested('throughput list', chip=chip, model=ask.model)}` shows its points"
        )
    return (
        f"no throughput for {chip} on {ask.model} {ask.workload}: no reference, no measurement, "
        f"{_why_underived(chip, ask.workload)}. Record yours with `"
        + figure_added(
            chip=chip,
            model=ask.model,
            workload=ask.workload,
            tokens_per_second="N",
            figure_per="chip",
        )
        + "`"
    )


def _check_chips(
    priced: list[str],
    covered: list[str],
    ask: Ask,
    left: Unrated = NONE_UNRATED,
    kept: Sequence[dict[str, object]] = (),
) -> None:
    """Each chip asked has a current price in US dollars and a throughput; `left`: the prices
    left out for want of a rate, said where they are the chip's, and `kept` those prices one
    by one (warehouse.fx.unrated_offers), the chip's named in their own currency."""
    for chip in ask.chips:
        if chip not in priced and chip in left.chips:
            its = [row for row in kept if row["chip"] == chip]
            listed = f". In their own currency: {unconverted_words(its, why=False)}" if its else ""
            raise NoMatch(f"no current price for {chip} in US dollars: {left.said()}{listed}")
        if chip not in priced:
            raise NoMatch(
                f"no current price for {chip}: no source lists it today, so its cost per token "
                f"cannot be computed. Chips with prices: {', '.join(priced) or 'none'}"
            )
        if chip not in covered:
            raise NoMatch(_no_throughput(chip, ask))


def _coverage_notes(
    priced: list[str], known: Figures, parameters: float | None, ask: Ask
) -> list[str]:
    """Chips left out of the ranking and why, so that none disappears silently."""
    if ask.chips:
        return []
    notes = []
    covered = known.chips()
    unranked = [c for c in priced if c not in covered and c != UNKNOWN_CHIP]
    why = (
        "none derived: no dense peak, or a chip family that cannot run the workload; see "
        "core/data/derivation.csv"
    )
    if parameters is None:
        why = (
            f"none derived: {ask.model} has no parameter count; give it with "
            f"`{model_size(ask.model)}`"
        )
    if unranked:
        notes.append(
            f"not ranked, no throughput for {ask.model} {ask.workload}: {', '.join(unranked)} "
            f"(no reference or measurement, and {why})"
        )
    unpriced = [c for c in known.chips(derived=False) if c not in priced]
    if unpriced:
        notes.append(f"not ranked, a throughput figure but no current price: {', '.join(unpriced)}")
    if UNKNOWN_CHIP in priced:  # no chip to rank: the collect's notes name their GPU names
        notes.append(
            "not ranked, offers whose GPU names no chip chipcost knows (chip 'unknown'; "
            '`chipcost sql "SELECT DISTINCT source, instance_type FROM current_prices WHERE '
            "chip = 'unknown'\"` lists them)"
        )
    return notes


def _baseline(
    offers: list[CostRow],
    ask: Ask,
    question: CostQuestion,
    con: duckdb.DuckDBPyConnection | None = None,
) -> tuple[Baseline, list[str]]:
    """Each row's baseline offer to set it against, and the notes saying how; the errors of
    a baseline with no offer (where its prices are, when `con` can tell)."""
    options = baseline_costs(offers, ask.baseline)
    if options:

        def find(row: CostRow) -> Found | None:
            found = options.get((row["pricing_model"], row["term"]))
            return compared_with(found, row["provider"]) if found else None

        return find, [
            f"vs {ask.baseline}: the cost per token against {ask.baseline}'s on the same "
            f"provider, pricing model and term (its cheapest offer there that holds the model); "
            f"where the row's provider does not offer {ask.baseline} on it, against "
            f"{ask.baseline}'s cheapest elsewhere, marked *; blank where it has none; "
            f"break-even tok/s: what the row's chip must do per chip to cost as little per token "
            f"(share: of {ask.baseline}'s figure)"
        ]
    message = (
        f"the baseline {ask.baseline} has no current price with a throughput for {ask.model} "
        f"{ask.workload} under these filters"
    )
    if con is not None:
        from chipcost.reads.price_notes import held_elsewhere

        message += held_elsewhere(con, [ask.baseline], ask.filters)
    if any(r["chip"] == ask.baseline for r in offers):
        message = (
            f"{ask.voice.said('speed', ask.speed)}: no figure of the baseline {ask.baseline} "
            f"for {ask.model}, "
            f"measured or derived, reaches {_reach(ask.speed)}"
        )
        if ask.baseline_given:
            raise ChipcostError(f"{message}: ask a lower speed ({ask.voice.option('speed')})")
    if ask.baseline_given or question.migration_cost is not None:
        raise ChipcostError(message + ": widen the filters, or compare with another chip")
    pick = ask.voice.option("baseline") if ask.voice.takes("baseline") else "another chip"
    return {}, [f"{message}: no cost change shown (pick one with {pick})"]


def _reach(speed: str) -> str:
    return "maximum throughput" if speed == "max" else f"{speed} tokens/s per user"


def unreached(ask: Ask, rows: list[CostRow], chips: list[str]) -> None:
    """A ChipcostError when none of `chips` has a figure, measured or derived, at the asked
    speed: one line naming the speed, nothing ranked at figures measured elsewhere."""
    off = sorted({str(r["chip"]) for r in rows if r.get("throughput_at_speed") is False})
    missing = [c for c in chips if c in off]
    if missing:
        raise NoMatch(
            f"{ask.voice.said('speed', ask.speed)}: no figure of {', '.join(missing)} for "
            f"{ask.model}, measured "
            f"or derived, reaches {_reach(ask.speed)}: ask a lower speed "
            f"({ask.voice.option('speed')})"
        )


def fit_notes(parameters: float | None, ask: Ask, rows: list[CostRow]) -> list[str]:
    if parameters is None:
        return [f"fits: unknown, {ask.model} has no parameter count (chipcost throughput model)"]
    # chips none of whose offers holds the model (a chip with one offer that does is not
    # named: the rows say which of its offers fit)
    chips = {str(r["chip"]) for r in rows}
    cannot = sorted(c for c in chips if all(r["fits"] is False for r in rows if r["chip"] == c))
    needed = sorted({n for n in (r["memory_needed_gb"] for r in rows) if n})
    sizes = " or ".join(f"{n:,.0f} GB" for n in needed)
    note = (
        f"fits: whether one instance of the row's chips holds {ask.model} "
        f"({parameters / 1e9:,.1f}B parameters, {sizes}): {fit_rule(ask.workload)}"
    )
    if cannot and ask.workload == "training":
        drops = ""
        if ask.voice.takes("max_instances"):
            drops = f"; {ask.voice.said('max_instances', 'N')} drops what needs more than N"
        note += (
            f"; training spreads over instances, so rows are ranked by cost per token alone, "
            f"the instances needed shown ({', '.join(cannot)} need more than one{drops})"
        )
    elif cannot:
        note += f"; ranked after those that do: {', '.join(cannot)} (need a larger instance)"
    if ask.max_instances is not None:
        note += f"; offers needing more than {ask.max_instances} instance(s) left out"
    return [note]


def _method_notes(ask: Ask, question: CostQuestion) -> list[str]:
    notes = ["$/M tokens = $/chip-hr / (tok/s per chip x 3600 / 10^6)"]
    if question.tokens:
        notes.append(
            f"cost of {human_count(question.tokens)} tokens = tokens / (tok/s per chip) / 3600 "
            f"x $/chip-hr x (1 + {question.overhead:.0%} overhead)"
        )
    if question.migration_cost is not None:
        sign = money_sign(question.currency)  # '$', '€', 'CHF '
        daily = ""
        if question.daily_tokens:
            daily = f"; days at {human_count(question.daily_tokens)} tokens/day"
        notes.append(
            f"break-even = {sign}{question.migration_cost:,.0f} / (baseline {sign.strip()}/M - "
            f"row {sign.strip()}/M) x 10^6 "
            f"tokens{daily}, at the figures the verdict rests on; none where it cannot say"
        )
    sql = f'same numbers by SQL: chipcost sql "{equivalent_sql(ask, question)}"'
    if ask.mine.active:
        sql += " (list prices in US dollars: the view holds neither discounts nor currencies)"
    notes.append(sql)
    return notes


def _quoted(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def equivalent_sql(ask: Ask, question: CostQuestion) -> str:
    """A query on cost_per_token that gives the ranking's numbers, filters included: the view
    where the figures are at the default point, else cost_per_token_at with the asked point's
    arguments (training's figures are at their one point whatever the speed)."""
    point = ask.point if ask.workload == "inference" else Point()
    table = point.of("cost_per_token_at") if point != Point() else "cost_per_token"
    cost = ""
    if question.tokens:
        factor = question.tokens / 1e6 * (1 + question.overhead)
        cost = f", min(usd_per_million_tokens) * {factor:.12g} as usd_for_tokens"
    where = f"where model = {_quoted(ask.model)} and workload = {_quoted(ask.workload)}"
    columns = {"regions": "region", "providers": "provider"}
    for column, values in [("chip", ask.chips)] + [
        (columns[k], v) for k, v in ask.filters.items() if k in columns
    ]:
        if values:
            listed = ", ".join(_quoted(v.lower()) for v in values)
            held = f"lower({column}) in ({listed})"
            if column == "region":  # or a zone, as a row prints it (Where.places)
                held = f"({held} or lower(zone) in ({listed}))"
            where += f" and {held}"
    if paid := pricing_sql(ask.filters.get("pricing_models"), _quoted):
        where += f" and {paid}"
    if ask.all_offers:
        row_cost = cost.replace("min(", "(")
        return f"select *{row_cost} from {table} {where} order by usd_per_million_tokens"
    return (
        "select chip, pricing_model, term, min(usd_per_million_tokens) as usd_per_million_tokens"
        f"{cost} from {table} {where} group by all order by 4"
    )


def _ranked(
    con: duckdb.DuckDBPyConnection,
    ask: Ask,
    question: CostQuestion,
    both: list[str],
    evidence: Evidence,
) -> tuple[list[CostRow], list[str]]:
    """The ranking's rows with fit, costs, savings and break-even, and the baseline's note;
    an empty ranking is an error."""
    # Of the offers alike (ALIKE) only the cheapest are read, so the ranking holds rows in the
    # number of chips, providers and terms, not of offers; all are read when every offer is
    # shown (all_offers, unless cheapest_alike), or where discounts, each price's day's rate or
    # interruption rates may change which one is cheapest.
    shown = ask.all_offers and not ask.cheapest_alike
    cut = not (shown or ask.mine.active or ask.max_interruption is not None)
    found = cost_rows(
        con, ask.model, ask.workload, all_offers=True, currency=ask.mine.converting,
        cheapest_of=ALIKE if cut else (), point=ask.point, **ask.filters,
    )  # fmt: skip
    # before the ranking: a discount may change which offer is cheaper
    offers = with_fit(cost_rows_of(ask.mine.rows(found)), evidence.parameters, ask.workload)
    notes: list[str] = []
    if ask.max_interruption is not None:
        offers, notes = _within_interruption(con, offers, ask.max_interruption)
    baseline, baseline_notes = _baseline(offers, ask, question, con)
    notes += baseline_notes
    chosen = choose(
        offers,
        chips=ask.chips or None,
        all_offers=ask.all_offers,
        unfit_last=ask.workload != "training",
        max_instances=ask.max_instances,
    )
    if not chosen:
        _nothing_chosen(con, ask, bool(offers), both)
    rows = with_verdicts(with_costs(chosen, question, baseline), offers, ask.baseline, evidence)
    rows = with_break_even(rows, question)
    return reordered(rows, unfit_last=ask.workload != "training"), notes


def _nothing_chosen(
    con: duckdb.DuckDBPyConnection, ask: Ask, offers: bool, both: list[str]
) -> None:
    """The NoMatch for a ranking that chose no offer (of `offers` when true)."""
    if ask.max_instances is not None and offers:
        raise NoMatch(
            f"no offer holds {ask.model} for {ask.workload} in {ask.max_instances} instance(s) "
            "or fewer: allow more instances, or pick a smaller model"
        )
    if not both and (ask.shape or ask.precision):
        asked = " and ".join(
            ask.voice.option(name) for name in ("shape", "precision") if getattr(ask, name)
        )
        raise NoMatch(
            f"no priced chip has a figure for {ask.model} {ask.workload} at"
            f"{point_label(ask.shape, ask.precision).lstrip(',')}: leave out or change {asked}; "
            f"`{suggested('throughput list', model=ask.model)}` shows the points held"
        )
    if not both and not any(ask.filters.values()):
        raise NoMatch(
            f"no current offer to rank for {ask.model} {ask.workload}: the warehouse has "
            "no priced chip with a throughput yet; run `chipcost collect`"
        )
    from chipcost.reads.price_notes import held_elsewhere

    if ask.chips and (where := held_elsewhere(con, ask.chips, ask.filters)):
        raise NoMatch(
            f"no current offer of {', '.join(ask.chips)} matches for {ask.model} "
            f"{ask.workload}{where}; widen "
            + ask.voice.either("region", "pricing_model", "provider")
        )
    f = ask.filters
    kept = unrated_offers(
        con, chips=ask.chips or None, providers=f.get("providers"), regions=f.get("regions"),
        pricing_models=f.get("pricing_models"), instances=f.get("instances"),
    )  # fmt: skip
    left = (  # the offers these filters match are in a currency no rate converts
        f" ({len(kept)} in their own currency, no ECB rate within {MAX_RATE_AGE_DAYS} days of "
        f"their day converting them to US dollars; `{RATES}` fetches the rates: "
        f"{unconverted_words(kept, why=False)})"
        if kept
        else ""
    )
    raise NoMatch(
        f"no current offer matches for {ask.model} {ask.workload}{left}. Chips with a price "
        f"and a throughput: {', '.join(both) or 'none'}; widen "
        + ask.voice.either("region", "pricing_model", "provider")
    )


def _within_interruption(
    con: duckdb.DuckDBPyConnection, offers: list[CostRow], most: float
) -> tuple[list[CostRow], list[str]]:
    """The offers without the spot ones whose interruption bucket (AWS's Spot Instance
    Advisor) may go above `most` percent, or whose risk no one publishes."""
    buckets = spot_buckets(con)
    kept: list[CostRow] = []
    above = unknown = 0
    for row in offers:
        if row["pricing_model"] != "spot":
            kept.append(row)
            continue
        found = buckets.get((row["region"], row["instance_type"]))
        if row["provider"] == "aws" and found is not None:
            row["interruption"] = found[0]
            if found[1] <= most:
                kept.append(row)
                continue
            above += 1
        else:
            unknown += 1
    return kept, [
        f"max interruption {most:g}%: {above} AWS spot offer(s) left out for a frequency of "
        f"interruption bucket above it (AWS Spot Instance Advisor), {unknown} spot offer(s) "
        "for a risk no one publishes (other providers' spot, AWS types the advisor lacks)"
    ]


def interruption_percent(
    value: object, option: str = COST.field("max_interruption").option
) -> float | None:
    """'10%', '10' or 10 -> 10.0: a frequency of interruption, in percent (0 to 100); a bucket
    as tables print it is its top: '5-10%' 10, '<5%' 5, '>20%' 100 (any)."""
    if value is None:
        return None
    text = str(value).strip().removesuffix("%").replace(" ", "")
    bucket = re.fullmatch(r"(<|>|\d+(?:\.\d+)?-)(\d+(?:\.\d+)?)", text)
    if bucket:
        text = "100" if bucket[1] == ">" else bucket[2]
    try:
        number = float(text) if not isinstance(value, bool) else -1
    except ValueError:
        number = -1
    if not 0 <= number <= 100:
        raise UsageError(
            f"{option} {value!r}: give a percent from 0 to 100, e.g. 10%, or one of AWS's "
            "buckets, which is its top (<5%, 5-10%, 10-15%, 15-20%, >20%)"
        )
    return number


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
    notes: list[str]
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
        frame = pl.DataFrame(rows, infer_schema_length=None)
        # A column empty in every row has no type of its own (Null): give it its type, so
        # that rankings (training and inference, two models) concatenate.
        frame = frame.with_columns(
            pl.col(name).cast(getattr(pl, _COLUMN_TYPES.get(name, "String")))
            for name, kind in frame.schema.items()
            if kind == pl.Null
        )
        # Changes and shares in percent, as every read gives them (the rows keep the fraction).
        return frame.with_columns(
            (pl.col(old) * 100).alias(new) for old, new in CHANGES.items() if old in frame.columns
        ).drop(*(old for old in CHANGES if old in frame.columns))


def rank_cost(con: duckdb.DuckDBPyConnection, ask: Ask, question: CostQuestion) -> CostRanking:
    """The ranking of `ask`, or a ChipcostError saying why there is none."""
    return _rank_cost(con, ask, question)


def speed_notes(ask: Ask, rows: list[CostRow]) -> list[str]:
    """Which point the figures are for, and the chips whose figure is not at it."""
    if ask.workload != "inference":
        return []
    voice = ask.voice
    default = f" (the default; {voice.said('speed', 'max')}, interactive or N to change)"
    label = speed_label(ask.speed, ask.model)
    note = f"throughput {label}"
    if ask.speed == DEFAULT_SPEED:  # named the default already where the model's bounds differ
        note += default.replace("the default; ", "") if "the default" in label else default
    ttft = DEFAULT_TTFT_NOTE
    if ask.ttft is not None:
        ttft = f"{ask.ttft:g} ms ({voice.option('ttft')})"
    note += (
        f", first token within {ttft}: each chip's figure is the best point of its curves that "
        "meets both, interpolated between two measured points of one curve, never a single "
        "stream (the sources say where measured)"
    )
    if ask.shape:
        note += (
            f"; only figures at {ask.shape[0]:,} in / {ask.shape[1]:,} out tokens (each length "
            f"within 10%, {voice.option('shape')})"
        )
    if ask.precision:
        note += f"; only figures served at {ask.precision} ({voice.option('precision')})"
    notes = [note]
    below: dict[str, str] = {}
    far: dict[str, str] = {}
    for row in rows:
        chip, user = str(row["chip"]), row.get("throughput_tokens_per_second_per_user")
        if row.get("throughput_at_speed") is False:
            below.setdefault(chip, point_text(row))
        elif (
            ask.speed != "max"
            and row.get("throughput_origin") != "derived"
            and user is not None
            and float(user) > 2 * float(ask.speed)
        ):
            far.setdefault(chip, point_text(row))
    if far:
        listed = "; ".join(f"{chip}: {point}" for chip, point in sorted(far.items()))
        notes.append(
            "measured at more than twice the asked speed (its best point that meets the speed "
            "and the first-token bound), so it may understate what the chip does at that speed: "
            f"{listed}"
        )
    if below:
        listed = "; ".join(f"{chip}: {point}" for chip, point in sorted(below.items()))
        notes.append(
            f"no figure at that speed, ranked after those with one (their best figure is "
            f"used and may overstate or understate): {listed}. Record one at your speed with "
            f"`{figure_added('...', per_user='N')}`"
        )
    return notes


def point_text(row: CostRow) -> str:
    """'latency-bound, 51.0 tok/s per user' for a figure's operating point."""
    point = str(row.get("throughput_operating_point") or "operating point not stated")
    speed = row.get("throughput_tokens_per_second_per_user")
    if speed is not None:
        point += f", {speed:.1f} tok/s per user"
    return point


def _rank_cost(con: duckdb.DuckDBPyConnection, ask: Ask, question: CostQuestion) -> CostRanking:
    priced = chips_with_prices(con)
    known = figures(con, ask.model, ask.workload, ask.point)
    covered = known.chips()
    left = unrated(con, chips=ask.chips or None)
    kept = unrated_offers(con, chips=ask.chips or None) if left.count else []
    _check_chips(priced, covered, ask, left, kept)
    parameters = model_parameters(con, ask.model)
    both = sorted(set(priced) & set(covered))
    evidence = Evidence(known.rows, parameters, ask.speed)
    rows, baseline_notes = _ranked(con, ask, question, both, evidence)
    if all(r.get("throughput_at_speed") is False for r in rows):
        unreached(ask, rows, sorted({str(r["chip"]) for r in rows}))
    shown = rows[: ask.limit]
    chips = sorted({str(r["chip"]) for r in shown})
    notes = [ask.model_note] if ask.model_note else []
    notes += speed_notes(ask, rows) + _coverage_notes(priced, known, parameters, ask)
    notes += baseline_notes + fit_notes(parameters, ask, rows) + ask.mine.notes(rows)
    sources = sorted({str(r["price_source"]) for r in shown})
    return CostRanking(
        header=_header(ask, question),
        rows=shown,
        more=len(rows) - len(shown),
        set_aside=known.set_aside(chips),
        notes=notes + _method_notes(ask, question),
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


def every_offer(ask: Ask) -> Ask:
    """The ranking of every chip's every offer under `ask`'s model, workload, speed, filters
    and prices, without a limit: the one ranking narrower asks are taken from (taken_from)."""
    return replace(
        ask, chips=[], baseline_given=False, all_offers=True, limit=10**9, max_instances=None
    )


def taken_from(every: CostRanking, ask: Ask, question: CostQuestion) -> list[CostRow]:
    """The rows rank_cost ranks for `ask` (a few chips, every offer), taken from `every`, the
    ranking of every_offer(ask), with the errors rank_cost raises for it: the same offers in
    the same order, each chip's offers as they are ranked. Their columns against a baseline
    are `every`'s (its baseline's), not `ask`'s."""
    if every.more or not every.header["scope"] == "every offer" or every.evidence is None:
        raise ValueError("taken_from takes the rows of a ranking of every offer (every_offer)")
    fresh = every.freshness
    _check_chips(list(every.priced), list(every.covered), ask, fresh.unrated, fresh.unconverted)
    offers = every.rows  # every offer, each chip's in the order choose ranks them
    _baseline(offers, ask, question)  # its errors only
    rows = [r for r in offers if r["chip"] in ask.chips or not ask.chips]
    if ask.max_instances is not None:
        rows = [r for r in rows if (r.get("instances_needed") or 1) <= ask.max_instances]
    if not rows:
        _nothing_chosen(ask, bool(offers), sorted(set(every.priced) & set(every.covered)))
    if all(r.get("throughput_at_speed") is False for r in rows):
        unreached(ask, rows, sorted({str(r["chip"]) for r in rows}))
    return rows


def workload_name(value: object, option: str = "workload") -> str:
    """'Inference ' -> 'inference'; anything but training or inference is refused."""
    from chipcost.core.figures import WORKLOADS

    name = value.strip().lower() if isinstance(value, str) else value
    if name not in WORKLOADS:
        raise UsageError(f"{option} {value!r}: use training or inference")
    return str(name)


def baseline_chip(name: object, option: str = "baseline") -> str:
    """The one chip savings are shown against: a chip or its spelling, never a family."""
    from chipcost.core.names import resolve_chip_name

    if not isinstance(name, str):
        raise UsageError(f"{option} {name!r}: give one chip, e.g. H100-SXM")
    if not name.strip():
        raise UsageError(f"the {option} is empty: give one chip, e.g. H100-SXM")
    chips = resolve_chip_name(name)
    if len(chips) > 1:
        raise UsageError(
            f"{option} {name!r} is a family ({', '.join(chips)}): pick one chip, e.g. {chips[0]}"
        )
    return chips[0]


def resolve_chips(
    con: duckdb.DuckDBPyConnection, names: list[str] | str | None, model: str, workload: str
) -> list[str]:
    """Chips for typed names: a chip stays (rank_cost says if it has no price or figure); a
    family (H100, Trainium) becomes its members with a price and a throughput figure."""
    from chipcost.core.names import resolve_chip_name, split_values

    both: set[str] | None = None  # read only for a family: two queries rank_cost runs again
    chips: list[str] = []
    for name in split_values(names, "chip name") or []:
        members = resolve_chip_name(name)
        if len(members) > 1:
            if both is None:
                priced = chips_with_prices(con)
                both = set(priced) & set(figures(con, model, workload).chips())
            members = [c for c in members if c in both]
            if not members:
                raise ChipcostError(
                    f"no {name} chip ({', '.join(resolve_chip_name(name))}) has a current price "
                    f"and a throughput for {model} {workload}"
                )
        chips += [c for c in members if c not in chips]
    return chips


def resolve_model(con: duckdb.DuckDBPyConnection, name: str) -> tuple[str, str | None]:
    """(the model as stored, a note when the name asked stands for it: llama-3.3-70b is
    answered with llama-3-70b's figures), or a message saying how to give chipcost what it
    lacks."""
    from chipcost.transform.throughput_figures import no_model, normalise_model
    from chipcost.warehouse.cost_per_token import known_models

    model = normalise_model(name)
    known = known_models(con)
    if model in known:
        return model, None
    from chipcost.core.names import cut, did_you_mean, shown

    if not model:
        raise UsageError(
            f"{no_model(name)}; give one such as llama-3-70b. Known models: "
            f"{', '.join(known) or 'none'}"
        )
    from chipcost.transform.references import EQUIVALENTS_FILE, model_standing, repo_cut
    from chipcost.transform.tokens import parameters_in_name

    # A Hugging Face id (meta-llama/Llama-3.3-70B-Instruct) holds a model (llama-3.3-70b),
    # which may stand for another (llama-3-70b): chipcost's or one you recorded figures of.
    plain, release = repo_cut(name) if "/" in name else (None, None)
    standing, why = model_standing(plain or name)
    if standing != model and standing in known:
        # why a model stands for another is one lookup away, with its sources: the note is short
        rule = f"the figures of {standing}, the model it stands for ({EQUIVALENTS_FILE} says why)"
        if plain is None:
            return standing, f"{model} is answered with {rule}"
        said = f"{name.strip()} is a Hugging Face id of {plain}"
        if release:  # new weights of the same layers
            said += f" (release {release}: new weights of its layers, read with its figures)"
        return standing, said + (f", answered with {rule}" if why else "")
    # An id of a model chipcost holds nothing of: named as a figure would record it.
    repo = f" (the Hugging Face id {shown(name.strip())})" if plain else ""
    model = plain or model
    # The example fits the model named: its own size where its name states one, else none.
    size = parameters_in_name(model) or "N"
    raise UsageError(
        f"no throughput for model {shown(model)}{repo}{did_you_mean(model, known)}: it has no "
        "reference figure, no measurement and no parameter count to derive one from. Record a "
        f"measurement with `{figure_added(model=cut(model))} ...`, or its size with "
        f"`{model_size(cut(model), size)}`"
        f"{'' if size != 'N' else ' (N: its parameter count)'}. "
        f"Known models: {', '.join(known) or 'none'}"
    )


def _unsigned(money: object, currency: str, voice: Voice) -> object:
    """'$36,000', '€36,000' or 'EUR 36,000', as outputs print money, without its sign
    (parse_quantity reads the commas): the ranking's currency's sign or code, never
    another's."""
    from chipcost.transform.cost import SYMBOLS

    if not isinstance(money, str):
        return money
    text = money.strip()
    if text.upper().startswith(currency) or text.upper().endswith(currency):  # 'CHF 36,000'
        return text.upper().removeprefix(currency).removesuffix(currency).strip()
    for code, sign in SYMBOLS.items():
        for mark in (sign, code):
            if text.upper().startswith(mark):
                text = text[len(mark) :].strip()
            elif text.upper().endswith(mark):
                text = text[: -len(mark)].strip()
            else:
                continue
            if code != currency:
                raise UsageError(
                    f"{voice.said('migration_cost', repr(money))} is in {code}, the ranking in "
                    f"{currency}: give it in {currency}, or ask for the ranking in {code} "
                    f"({voice.said('currency', code)})"
                )
            return text
    return text


def cost_question(
    workload: str,
    tokens: object = None,
    overhead: object = None,
    migration_cost: object = None,
    daily_tokens: object = None,
    *,
    currency: str | None = None,
    voice: Voice = COST_COMMAND,
) -> CostQuestion:
    """What was asked beyond the ranking, checked; messages name the fields as the asker did
    (`voice`: --daily-tokens on the command line, daily_tokens= from Python)."""
    from chipcost.transform.cost import DEFAULT_OVERHEAD
    from chipcost.transform.tokens import parse_quantity

    def quantity(value: object, field: str, *examples: str) -> float | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            value = str(value)  # refused as text (the Python API's tokens=[3e11])
        number = parse_quantity(value, voice.name(field), *examples)
        if number > _MOST[field]:  # 1e308 tokens filled the table with 300-digit dollars
            raise UsageError(
                f"{voice.said(field, str(value))}: {_MOST_SAID[field]}; give at most "
                f"{_MOST[field]:.0e}".replace("e+", "e")
            )
        return number

    if daily_tokens is not None and migration_cost is None:
        raise UsageError(
            f"{voice.option('daily_tokens')} is for the break-even: give "
            f"{voice.option('migration_cost')} too"
        )
    fraction = DEFAULT_OVERHEAD[workload]
    if isinstance(overhead, int | float) and not isinstance(overhead, bool) and 0 <= overhead <= 10:
        fraction = float(overhead)
    elif overhead is not None:
        number = isinstance(overhead, int | float) and not isinstance(overhead, bool)
        given = f"{overhead:g}" if number else repr(overhead)
        raise UsageError(f"{voice.said('overhead', given)}: give a fraction, e.g. 0.15 for 15%")
    code = (currency or "USD").strip().upper()
    money = f"250000, '250K' or 2.5e5 ({code})" if voice.api else f"250000, 250K or 2.5e5 ({code})"
    return CostQuestion(
        tokens=quantity(tokens, "tokens"),
        overhead=fraction,
        migration_cost=quantity(_unsigned(migration_cost, code, voice), "migration_cost", money),
        daily_tokens=quantity(daily_tokens, "daily_tokens"),
        currency=code,
    )


# The largest quantities a cost question takes: a quintillion tokens is some 60,000 times the
# 15 trillion Llama 3 was trained on; a quadrillion dollars is more than the world makes in a
# decade.
_MOST = {"tokens": 1e18, "daily_tokens": 1e18, "migration_cost": 1e15}
_TOKENS_SAID = "more tokens than any workload (Llama 3 was trained on 15 trillion)"
_MOST_SAID = {
    "tokens": _TOKENS_SAID,
    "daily_tokens": _TOKENS_SAID,
    "migration_cost": "more than any move costs (a quadrillion is more than the world makes "
    "in a decade)",
}


def ask_of(
    con: duckdb.DuckDBPyConnection,
    model: str,
    workload: str,
    *,
    chip: list[str] | str | None,
    baseline: str,
    baseline_given: bool,
    region: list[str] | str | None,
    pricing_model: list[str] | str | None,
    provider: list[str] | str | None,
    all_offers: bool,
    instance: list[str] | str | None = None,
    limit: int,
    stale_days: int,
    speed: str = DEFAULT_SPEED,
    ttft: float | None = None,
    shape: tuple[int, int] | None = None,
    precision: str | None = None,
    max_instances: int | None = None,
    mine: YourPrices | None = None,
    max_interruption: float | None = None,
    voice: Voice = COST_COMMAND,
) -> Ask:
    """The ranking asked for, its names resolved against the warehouse (the command and the
    Python API ask alike)."""
    from chipcost.reads.price_ask import checked_filters

    name, model_note = resolve_model(con, model)
    return Ask(
        model=name,
        model_note=model_note,
        workload=workload,
        chips=resolve_chips(con, chip, name, workload),
        baseline=baseline,
        baseline_given=baseline_given,
        filters=checked_filters(con, region, pricing_model, provider, instance, voice),
        all_offers=all_offers,
        limit=limit,
        stale_days=stale_days,
        speed=speed,
        ttft=ttft,
        shape=shape,
        precision=precision,
        max_instances=_max_instances(max_instances),
        mine=mine or YourPrices(),
        max_interruption=max_interruption,
        voice=voice,
    )


def _max_instances(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise UsageError(f"max instances {value!r}: give a whole number of instances, 1 or more")
    return value
