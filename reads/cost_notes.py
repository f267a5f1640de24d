"""The notes `chipcost cost` and `compare` give the user about a ranking, and the errors
that say why there is none: chips left out and why, the point the figures are at, whether the
model fits, how the numbers are made and each chip's cheapest by SQL."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

import duckdb

from chipcost.core.catalog import UNKNOWN_CHIP
from chipcost.core.commands import RATES, figure_added, model_size, suggested
from chipcost.core.errors import NoMatch
from chipcost.core.figures import (
    DEFAULT_SPEED,
    DEFAULT_TTFT_NOTE,
    point_label,
    speed_label,
    ttft_words,
)
from chipcost.reads.cost_asked import Ask
from chipcost.reads.price_notes import unconverted_words
from chipcost.transform.cost import (
    CostQuestion,
    fit_rule,
    money_sign,
)
from chipcost.transform.rows import CostRow, FigureRow
from chipcost.transform.tokens import human_count
from chipcost.warehouse.cost_per_token import (
    Figures,
    Point,
    interruption_counts,
)
from chipcost.warehouse.fx import (
    MAX_RATE_AGE_DAYS,
    NONE_UNRATED,
    Unrated,
    unrated_offers,
)
from chipcost.warehouse.where import pricing_sql


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


def _no_throughput(chip: str, ask: Ask, derived: str = "") -> str:
    """Why `chip` has no figure at the point asked; `derived`: where chipcost derives its
    figures (derived_points), said where a shape or precision asked leaves them out."""
    if ask.shape or ask.precision:  # figures there may be at other points
        voice = ask.voice
        asked = " and ".join(
            voice.option(name) for name in ("shape", "precision") if getattr(ask, name)
        )
        own = f" (chipcost's own estimate of it is at {derived} only)" if derived else ""
        return (
            f"no throughput for {chip} on {ask.model} {ask.workload} at"
            f"{point_label(ask.shape, ask.precision).lstrip(',')}{own}: leave out or change "
            f"{asked}; `{suggested('throughput list', chip=chip, model=ask.model)}` shows its "
            "points"
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


def check_chips(
    priced: list[str],
    covered: list[str],
    ask: Ask,
    left: Unrated = NONE_UNRATED,
    kept: Sequence[dict[str, object]] = (),
    derived: Callable[[str], str] = lambda chip: "",
) -> None:
    """Each chip asked has a current price in US dollars and a throughput; `left`: the prices
    left out for want of a rate, said where they are the chip's, and `kept` those prices one
    by one (warehouse.fx.unrated_offers), the chip's named in their own currency; `derived`
    says where a chip's figures are derived (derived_points), for a chip with none at the
    shape or precision asked."""
    for chip in ask.chips:
        if chip not in priced and chip in left.chips:
            its = [row for row in kept if row["chip"] == chip]
            listed = f". In their own currency: {unconverted_words(its, why=False)}" if its else ""
            raise NoMatch(f"no current price for {chip} in US dollars: {left.said()}{listed}")
        if chip not in priced:
            raise NoMatch(
                f"no current price for {chip}: no source lists it today, so its cost per token "
                f"cannot be computed. Chips with prices: "
                f"{', '.join(c for c in priced if c != UNKNOWN_CHIP) or 'none'}"
            )
        if chip not in covered:
            raise NoMatch(_no_throughput(chip, ask, derived(chip)))


def coverage_notes(
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


def reach(speed: str) -> str:
    return "maximum throughput" if speed == "max" else f"{speed} tokens/s per user"


def _at_load(figure: FigureRow) -> bool:
    """Whether a figure answers some speed: usable, and within the bounds (throughput_at's
    within_bounds: not a single stream, its first token within the bound)."""
    return figure.get("usable") is not False and bool(figure["within_bounds"])


def speed_advice(ask: Ask, chips: list[str], figures: Sequence[FigureRow]) -> str:
    """What to ask for `chips`, none of whose `figures` (the ranking's, at the asked point)
    reaches the asked speed: a lower speed where one of a chip's figures states a speed per
    user (a lower one reaches it), maximum throughput where its figures are at maximum
    throughput alone (no speed per user: no lower speed reaches one), and where neither (single
    streams, first tokens after the bound) the bound's option and where its figures are
    listed."""
    voice = ask.voice
    lower, top, neither = [], [], []
    for chip in chips:
        held = [f for f in figures if f.get("chip") == chip and _at_load(f)]
        if any(f.get("tokens_per_second_per_user") for f in held):
            lower.append(chip)
        elif any(f.get("operating_point") == "max-throughput" for f in held):
            top.append(chip)
        else:
            neither.append(chip)
    alone = len(lower + top + neither) == 1
    said = []
    if lower:
        said.append(
            f"ask a lower speed ({voice.option('speed')})"
            + ("" if alone or not (top or neither) else f" for {', '.join(lower)}")
        )
    if top:
        whose = "its" if alone else "their" if len(top) == len(chips) else f"{', '.join(top)}'s"
        said.append(
            f"{whose} figures are at maximum throughput alone, with no speed per user: ask "
            f"maximum throughput ({voice.said('speed', 'max')})"
        )
    for chip in neither:
        whose = "its" if alone else f"{chip}'s"
        said.append(
            f"{whose} figures answer no speed: single streams, or a first token after the "
            f"bound ({voice.option('ttft')}); "
            f"`{suggested('throughput list', chip=chip, model=ask.model)}` shows them"
        )
    return "; ".join(said)


def unreached(
    ask: Ask, rows: list[CostRow], chips: list[str], figures: Sequence[FigureRow]
) -> None:
    """A ChipcostError when none of `chips` has a figure, measured or derived, at the asked
    speed: one line naming the speed and what to ask instead (speed_advice, from `figures`:
    the ranking's), nothing ranked at figures measured elsewhere."""
    off = sorted({str(r["chip"]) for r in rows if r.get("throughput_at_speed") is False})
    missing = [c for c in chips if c in off]
    if missing:
        raise NoMatch(
            f"{ask.voice.said('speed', ask.speed)}: no figure of {', '.join(missing)} for "
            f"{ask.model}, measured "
            f"or derived, reaches {reach(ask.speed)}: {speed_advice(ask, missing, figures)}"
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


def method_notes(ask: Ask, question: CostQuestion) -> list[str]:
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
    # The ranking's own numbers where each chip's cheapest offer holds the model; where it
    # cannot, the table takes a larger instance (transform/cost_fit.py), which SQL leaves out.
    sql = (
        "each chip's cheapest by SQL (where that instance cannot hold the model, the table "
        f'shows one that can): chipcost sql "{equivalent_sql(ask, question)}"'
    )
    if ask.mine.active:
        sql += " (list prices in US dollars: the view holds neither discounts nor currencies)"
    if ask.max_instances is not None:  # how many instances hold the model is the ranking's
        sql += (
            f" (without {ask.voice.said('max_instances', ask.max_instances)}: the view does not "
            "say how many instances hold the model, so its offers needing more are in it)"
        )
    notes.append(sql)
    return notes


def _quoted(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def equivalent_sql(ask: Ask, question: CostQuestion) -> str:
    """A query on cost_per_token that gives the ranking's numbers, filters included (chips,
    regions or zones, providers, instance types, pricing models, and --max-interruption's
    AWS spot buckets); the view where the figures are at the default point, else
    cost_per_token_at with the asked point's arguments (a precision narrows training's
    figures too). --max-instances is not in it: method_notes says so."""
    point = ask.point if ask.workload == "inference" else Point(precision=ask.precision)
    table = point.of("cost_per_token_at") if point != Point() else "cost_per_token"
    cost = ""
    if question.tokens:
        factor = question.tokens / 1e6 * (1 + question.overhead)
        cost = f", min(usd_per_million_tokens) * {factor:.12g} as usd_for_tokens"
    where = f"where model = {_quoted(ask.model)} and workload = {_quoted(ask.workload)}"
    columns = {"regions": "region", "providers": "provider", "instances": "instance_type"}
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
    if ask.max_interruption is not None:  # as cost_rows: AWS's bucket within it (_SPOT)
        where += (
            " and (pricing_model <> 'spot' or provider = 'aws' and (region, instance_type) in "
            "(select region, instance_type from spot_interruptions where os = 'Linux' and "
            f"interruption_max <= {float(ask.max_interruption):g}))"
        )
    if not ask.all_offers:  # as the ranking: a whole chip anyone can rent (cost_rows)
        where += " and chip_count >= 1"
        if not ask.filters.get("regions"):
            where += " and not restricted_region(region)"
    if ask.all_offers:
        row_cost = cost.replace("min(", "(")
        return f"select *{row_cost} from {table} {where} order by usd_per_million_tokens"
    return (
        "select chip, pricing_model, term, min(usd_per_million_tokens) as usd_per_million_tokens"
        f"{cost} from {table} {where} group by all order by 4"
    )


def nothing_chosen(
    con: duckdb.DuckDBPyConnection | None, ask: Ask, offers: bool, both: list[str]
) -> None:
    """The NoMatch for a ranking that chose no offer (of `offers` when true); without `con`
    (a ranking taken from another, reads.cost.taken_from) where else the chips are priced and
    the offers no rate converts go unsaid."""
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

    if con is not None and ask.chips and (where := held_elsewhere(con, ask.chips, ask.filters)):
        raise NoMatch(
            f"no current offer of {', '.join(ask.chips)} matches for {ask.model} "
            f"{ask.workload}{where}; widen "
            + ask.voice.either("region", "pricing_model", "provider")
        )
    f = ask.filters
    kept = unrated_offers(
        con, chips=ask.chips or None, providers=f.get("providers"), regions=f.get("regions"),
        pricing_models=f.get("pricing_models"), instances=f.get("instances"),
    ) if con is not None else []  # fmt: skip
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


def interruption_note(con: duckdb.DuckDBPyConnection, ask: Ask) -> list[str]:
    """How many spot offers --max-interruption left out of the ranking, and why."""
    most = float(ask.max_interruption)  # type: ignore[arg-type]
    above, unknown = interruption_counts(
        con, ask.model, ask.workload, most, point=ask.point, **ask.filters
    )
    return [
        f"max interruption {most:g}%: {above} AWS spot offer(s) left out for a frequency of "
        f"interruption bucket above it (AWS Spot Instance Advisor), {unknown} spot offer(s) "
        "for a risk no one publishes (other providers' spot, AWS types the advisor lacks)"
    ]


def speed_notes(ask: Ask, rows: list[CostRow], bounds: Collection[str] = ()) -> list[str]:
    """Which point the figures are for, the chips whose figure is not at it, and those whose
    figure is a lower bound there (`bounds`: the ids of figures read from a curve's point
    faster than asked)."""
    if ask.workload != "inference":
        return []
    voice = ask.voice
    if ask.encoder:  # the speed rule asks how fast each user's tokens stream: an encoder's don't
        return [
            f"{ask.model} is an encoder: it reads each request in one pass and decodes no token "
            f"after another, so it has no speed per user and {voice.option('speed')} does not "
            "apply: each chip's figure is its throughput at any speed asked"
        ]
    default = f" (the default; {voice.said('speed', 'max')}, interactive or N to change)"
    label = speed_label(ask.speed, ask.model)
    note = f"throughput {label}"
    if ask.speed == DEFAULT_SPEED:  # named the default already where the model's bounds differ
        note += default.replace("the default; ", "") if "the default" in label else default
    ttft = DEFAULT_TTFT_NOTE
    if ask.ttft is not None:
        ttft = f"{ttft_words(ask.ttft)} ({voice.option('ttft')})"
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
    least: dict[str, str] = {}
    for row in rows:
        chip, user = str(row["chip"]), row.get("throughput_tokens_per_second_per_user")
        if row.get("throughput_at_speed") is False:
            below.setdefault(chip, point_text(row))
        elif row.get("throughput_id") in bounds:
            least.setdefault(chip, point_text(row))
        elif (
            ask.speed != "max"
            and row.get("throughput_origin") != "derived"
            and user is not None
            and float(user) > 2 * float(ask.speed)
        ):
            far.setdefault(chip, point_text(row))
    if least:
        listed = "; ".join(f"{chip}: {point}" for chip, point in sorted(least.items()))
        notes.append(
            "a lower bound at the asked speed (a curve's point measured faster than asked: the "
            "chip does at least that much there, so its cost per token is at most the one "
            f"shown, and a break-even set on it at least the one shown): {listed}"
        )
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


def basis_notes(rows: Sequence[CostRow]) -> list[str]:
    """Where a row's vs cell rests on figures other than the offers' own ('48% dearer at $0.1387
    vs $0.0938/M'): which figures, once per pair of chips (vs_baseline_basis)."""
    bases = dict.fromkeys(str(r["vs_baseline_basis"]) for r in rows if r.get("vs_baseline_basis"))
    said = [f"vs ... at $A vs $B/M, likewise: {basis}" for basis in bases]
    if said:
        said[0] = (
            "vs ... at $A vs $B/M: the answer rests on other figures than the offers' own (those "
            "each row is ranked by, its $/M tokens), and $A and $B are the row's and the "
            f"baseline's offers' costs per million tokens at them: {next(iter(bases))}"
        )
    return said


def point_text(row: CostRow) -> str:
    """'latency-bound, 51.0 tok/s per user' for a figure's operating point."""
    point = str(row.get("throughput_operating_point") or "operating point not stated")
    speed = row.get("throughput_tokens_per_second_per_user")
    if speed is not None:
        point += f", {speed:.1f} tok/s per user"
    return point
