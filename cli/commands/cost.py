"""`chipcost cost`: which chip and pricing model is cheapest per token for a model and
workload. Its options are the fields of chipcost.core.asks.COST; the question is
chipcost.reads.cost's (answered through chipcost.reads.answers, as the Python API's); here,
the ranking's table, then where every figure came from, or csv and json.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from chipcost.cli.consoles import Screen, notices, out, print_fitted
from chipcost.cli.fit import Cell, Column, Fitted, Styled, fit_table, plain
from chipcost.cli.formats import OutputFormat, with_currency, write_frame
from chipcost.cli.parser import Command
from chipcost.cli.price_cells import (
    DOUBT_MARK,
    ESTIMATE_MARK,
    SHORT,
    SHORT_NOTE,
    doubt_note,
    estimate_note,
    pricing_cell,
    where_cell,
)
from chipcost.cli.render import print_note, say_more_rows, shown
from chipcost.cli.render_fresh import print_freshness
from chipcost.core.asks import COST, DEFAULT_RANKING_ROWS, MAX_LIMIT
from chipcost.core.counting import counted
from chipcost.core.errors import NoMatch
from chipcost.core.figures import point_label, speed_label, ttft_words
from chipcost.reads.rental_units import unit_of
from chipcost.transform.change_words import at_least_note, leaning_notes
from chipcost.transform.cost import cost_text
from chipcost.transform.derived_source import derived_parts
from chipcost.transform.rows import CostRow, FigureRow
from chipcost.transform.tokens import human_count, money_sign

if TYPE_CHECKING:  # the table reads rows: DuckDB's import is not needed to print them
    from chipcost.reads.cost import CostRanking
    from chipcost.warehouse.freshness import Freshness


def _cost(**given: Any) -> None:
    """`chipcost cost`: the cheapest chip and pricing model per token for a model and workload.
    Its options are the fields of chipcost.core.asks.COST."""
    from chipcost.reads import answers

    asked = COST.given(given)
    format = OutputFormat(asked["format"])
    table = format is OutputFormat.table
    try:
        limit = asked["limit"] or (DEFAULT_RANKING_ROWS if table else MAX_LIMIT)
        ranking = answers.cost(asked, limit=limit, table=table)
    except NoMatch:
        if not table:  # a pipe still parses: [] or no rows
            import polars as pl

            write_frame(format, pl.DataFrame())
        raise
    if table:
        print_ranking(out, ranking, wide=asked["wide"])
        return
    from chipcost.core.frames import money_named  # polars: csv and json only

    money = str(ranking.header["currency"])
    write_frame(format, with_currency(money_named(ranking.frame(), money), money))
    if ranking.more:
        say_more_rows(notices(format), ranking.more)
    # the notes for people on stderr, worded for the rows (the fields that carry what the
    # table marks), without the table's own shortening
    print_footer(notices(format), footer_notes(ranking, table=False), ranking.freshness)


def pricing_label(row: Mapping[str, object], short: bool = False) -> str:
    """'reserved 1yr, standard, all upfront' ('reserved 1yr, std, all upfront' when `short`),
    in the vocabulary's words, as `prices` and the price explorer say it."""
    return pricing_cell(row, short=short)


def shortened(rows: Sequence[Mapping[str, object]]) -> bool:
    """Whether a pricing label of these rows is shortened in the table."""
    return any(row[p] in SHORT for row in rows for p in ("payment", "plan"))


def _money(value: float | None, digits: int = 2, currency: str = "USD") -> str:
    return "" if value is None else f"{money_sign(currency)}{value:,.{digits}f}"


def _change(row: CostRow) -> str:
    """'48% cheaper', '15% dearer' (at the figures the verdict rests on, both at one point),
    or 'cannot say' where the figures do not meet, with which way they lean ('cannot say,
    ~3.6x dearer'; the break-even column says what would decide it); * when against the
    baseline on another provider."""
    words = row.get("vs_baseline")  # the verdict's words (transform.evidence.Verdict.cell_words)
    if not words:
        return ""
    return f"{words}{'' if row.get('baseline_same_provider') else '*'}"


def _needs(row: CostRow) -> str:
    """'2,345 (61%)': the tok/s per chip the row must reach to cost what the baseline does;
    'H100-SXM 4,156 (433%)' where it is the baseline that must reach it at the row's measured
    point (only the row's chip is measured there); '≥829 (78%)' where it is set on a lower
    bound (a curve's point faster than asked)."""
    needed, share = row.get("break_even_tokens_per_second_per_chip"), row.get("break_even_share")
    if needed is None or share is None:
        return ""
    who = row.get("break_even_for")
    # a share of a figure at another point than the one the break-even is set at says so
    from chipcost.transform.verdict import SHARE_ESTIMATE_ELSEWHERE, SHARE_OWN_ELSEWHERE

    marks = {SHARE_ESTIMATE_ELSEWHERE: " of est. elsewhere", SHARE_OWN_ELSEWHERE: " elsewhere"}
    elsewhere = marks.get(row.get("break_even_share_of") or "", "")
    said = f"{'≥' if row.get('break_even_at_least') else ''}{needed:,.0f} ({share:,.0%}{elsewhere})"
    return f"{who} {said}" if who and who != row.get("chip") else said


def _tps(row: CostRow) -> str:
    """'3,819' for a published figure; '950 (600-1,400)' for a derived one and its range."""
    tps = f"{row['tokens_per_second_per_chip']:,.0f}"
    low, high = row.get("throughput_range_low"), row.get("throughput_range_high")
    if low is None or high is None:
        return tps
    return f"{tps} ({low:,.0f}-{high:,.0f})"


def _break_even(row: CostRow, baseline: object) -> str:
    tokens, days = row.get("break_even_tokens"), row.get("break_even_days")
    if row["chip"] == baseline:
        return "baseline"
    if row.get("baseline_usd_per_million_tokens") is None:
        return ""
    if row.get("verdict") == "cannot say":
        return "cannot say"
    if tokens is None:
        return "never (no saving)"
    return human_count(tokens) + (f" / {days:,.0f} d" if days is not None else "")


def _gb(size: float) -> str:
    """'141', '1,536'; under 10 GB one decimal ('0.7'), where a whole number shows 0."""
    return f"{size:,.1f}" if size < 10 else f"{size:,.0f}"


def _fits(row: CostRow, workload: object) -> Cell:
    """'yes 141/640 GB', 'NO 1,130/640 GB' (training: 'NO ... (2 inst.)'); '?' if unknown. A
    TPU slice or UltraServer is named: 'yes 141/256 GB ct6e-standard-8t', '(2 slices)'."""
    fits, needed, has = row.get("fits"), row.get("memory_needed_gb"), row.get("instance_memory_gb")
    if fits is None or needed is None or has is None:
        return "?"
    unit = unit_of(row)
    sizes = f"{_gb(needed)}/{_gb(has)} GB"
    sizes += f" {unit.name}" if unit else ""
    if fits:
        return f"yes {sizes}"
    many = unit.plural if unit else "inst."
    more = f" ({row['instances_needed']:,} {many})" if workload == "training" else ""
    return (Styled("NO", "bold red"), f" {sizes}{more}")


def _throughput(row: CostRow, refs: Mapping[str, int]) -> Cell:
    """'measured [1]', and 'off-speed' in yellow when the figure is not at the asked speed."""
    said = f"{row.get('throughput_figure_kind') or row['throughput_kind']} "
    said += f"[{refs[str(row['throughput_id'])]}]"
    if row.get("throughput_at_speed") is False:
        return (plain(said), Styled(" off-speed", "yellow"))
    return plain(said)


def _columns(ask: Mapping[str, object]) -> list[Column]:
    sign = money_sign(str(ask.get("currency") or "USD")).strip()
    columns = [
        Column("rank", "#", numeric=True, essential=True),
        Column("chip", "chip", essential=True),
        Column("pricing", "pricing model", essential=True),
        Column("where", "where"),
        Column("price", f"{sign}/chip-hr", numeric=True),
        Column("tps", "tok/s/chip", numeric=True),
        Column("throughput", "throughput"),
        # What the ranking is by: on the row's line at any width.
        Column("cpm", f"{sign}/M tokens", numeric=True, essential=True, primary=True),
    ]
    # What the user asked for (--tokens, --migration-cost) is kept, however narrow the screen.
    tokens = ask["tokens"]
    if isinstance(tokens, int | float) and tokens:
        label = f"cost of {human_count(tokens)} tok"
        columns.append(Column("tokens", label, numeric=True, essential=True))
    # The point of the command: how each row compares with the baseline.
    columns.append(Column("vs", f"vs {ask['baseline']}", essential=True))
    columns.append(Column("needs", "break-even tok/s (share)", numeric=True))
    if ask["migration_cost"] is not None:
        columns.append(Column("break_even", "break-even", essential=True))
    columns.append(Column("fits", "fits (needs/has)", essential=True))
    return columns


# Kept last, at any width: rank, chip, pricing, $/M tokens, vs the baseline and fits (and
# what the user asked for). Beside them, the columns kept while they fit: where to buy first
# (a ranking one cannot act on is no answer).
KEEP_ORDER = ("where", "needs", "price", "throughput", "tps")


def ranking_table(
    console: Screen,
    rows: Sequence[CostRow],
    refs: Mapping[str, int],
    ask: Mapping[str, object],
    *,
    wide: bool = False,
) -> Fitted:
    """The ranking, cheapest per million tokens first (those that hold the model first)."""
    cells = []
    currency = str(ask.get("currency") or "USD")
    for n, row in enumerate(rows, start=1):
        cells.append(
            {
                "rank": str(n),
                "chip": str(row["chip"]),
                "pricing": plain(
                    pricing_label(row, short=not wide)
                    + (DOUBT_MARK if row.get("spot_doubt") else "")
                ),
                # a zone's offer by its zone (us-east-1d), whose price is that zone's alone
                "where": plain(where_cell(row)),
                "price": _money(row["price_per_chip_hour"], 4, currency)
                + (ESTIMATE_MARK if row.get("estimate") else ""),
                "tps": _tps(row),
                "throughput": _throughput(row, refs),
                "cpm": cost_text(row["usd_per_million_tokens"], currency),
                "tokens": _money(row.get("cost_for_tokens"), 0, currency),
                "vs": _change(row),
                "needs": _needs(row),
                "break_even": _break_even(row, ask["baseline"]),
                "fits": _fits(row, ask["workload"]),
            }
        )
    return fit_table(console, _columns(ask), cells, keep_order=KEEP_ORDER, wide=wide)


def reference_numbers(rows: Sequence[CostRow]) -> dict[str, int]:
    """Footnote number per throughput figure, in order of first use."""
    numbers: dict[str, int] = {}
    for row in rows:
        numbers.setdefault(str(row["throughput_id"]), len(numbers) + 1)
    return numbers


# What the table's ≥ before a break-even says (LEANING_MARKS), as csv and json carry it.
AT_LEAST_FIELD = at_least_note(mark="break_even_at_least true")


# A time-to-first-token bound holds published points; the roofline models no queue, so a
# derived figure has no first-token time to hold (docs/cost-per-token.md, "Reading a curve").
UNHELD_TTFT = (
    "derived figures are not held to the first-token bound (--ttft): the roofline models no "
    "queue, so a tighter bound can leave a chip's derived figure where its measured one fails"
)


def print_sources(
    console: Screen, rows: Sequence[CostRow], refs: Mapping[str, int], *, wide: bool = False
) -> None:
    """One line per throughput figure used: id, kind, figure, implied MFU, source and date.

    Derived figures share the model's parameter source: it is printed once, after them. Their
    chips' spec sources (quotes of datasheets, often several lines each) only with `wide`.
    """
    seen: set[str] = set()
    shared: dict[str, None] = {}
    cut = False
    for row in rows:
        ident = str(row["throughput_id"])
        if ident in seen:
            continue
        seen.add(ident)
        mfu = row.get("implied_mfu")
        derived = row["throughput_origin"] == "derived"
        implied = f", needs {100 * mfu:.0f}% of peak" if mfu is not None else ""
        source, dated = str(row["throughput_source"]), f" ({row['throughput_source_date']})"
        if derived:
            source, spec, parameters = derived_parts(source)
            source += spec if wide else ""
            cut = cut or bool(spec and not wide)
            shared[parameters] = None
            implied = dated = ""
        # A Text, not markup: the source is what a user typed or a reference file holds.
        line = (
            f"[{refs[ident]}] {ident}: {row['throughput_kind']}, "
            f"{row['tokens_per_second_per_chip']:,.0f} tok/s per chip{figure_point(row)}"
            f"{implied}; "
        )
        console.say(shown(f"{line}{source}{dated}"))
    for parameters in (p for p in shared if p):
        console.say(shown(f"    derived figures' parameter count: {parameters}"))
    if cut:
        console.say(
            "    derived figures' chip specs (peak, memory, bandwidth): --wide quotes each "
            "chip's sources (core/data/chips.csv)"
        )


def figure_point(row: CostRow) -> str:
    """' at max-throughput (Offline)', ' at latency-bound (Server, 6.8 tok/s per user)'."""
    point = row.get("throughput_operating_point")
    if not point or point in ("training", "unstated"):
        return ""
    said = [str(row["throughput_scenario"])] if row.get("throughput_scenario") else []
    speed = row.get("throughput_tokens_per_second_per_user")
    if speed:
        said.append(f"{speed:g} tok/s per user")
    return f" at {point}" + (f" ({', '.join(said)})" if said else "")


def print_set_aside(console: Screen, rows: Sequence[FigureRow]) -> None:
    for row in rows:
        said = (
            f" {row['throughput_id']} ({row['kind']}, "
            f"{row['tokens_per_second_per_chip']:,.0f} tok/s per chip on {row['chip']}): "
            f"{row['set_aside_because']}, so it cannot be right"
        )
        console.say([("set aside", "yellow"), (shown(said), "")])


def print_footer(console: Screen, notes: Sequence[str], fresh: Freshness) -> None:
    for note in notes:
        print_note(console, note)
    print_freshness(console, fresh)


def print_ranking(console: Screen, ranking: CostRanking, *, wide: bool = False) -> None:
    """The ranking, the figures it used, what was set aside or left out, and the method."""
    refs = reference_numbers(ranking.rows)
    header = ranking.header
    at = (
        f", {speed_label(str(header['speed']), str(header['model']))}"
        if header.get("speed")
        else ""
    )
    ttft = header.get("ttft_ms")
    at += f", first token within {ttft_words(float(ttft))}" if ttft else ""
    at += point_label(header.get("shape"), header.get("precision"))
    console.say(
        f"cost per million tokens: {header['model']} {header['workload']}{at} ({header['scope']})",
    )
    fitted = ranking_table(console, ranking.rows, refs, header, wide=wide)
    print_fitted(console, fitted)
    if fitted.dropped:
        console.say(
            f"left out to fit {console.width} columns: {', '.join(fitted.dropped)} "
            "(--wide shows every column; --format csv or json every field)",
        )
    if ranking.more:
        console.say(f"{counted(ranking.more, 'more row')}: narrow with --chip/--region or --limit")
    print_sources(console, ranking.rows, refs, wide=wide)
    print_set_aside(console, ranking.set_aside)
    short = not wide and shortened(ranking.rows)
    print_footer(console, footer_notes(ranking, table=True, short=short), ranking.freshness)


def footer_notes(ranking: CostRanking, *, table: bool, short: bool = False) -> list[str]:
    """The ranking's notes, then what its marks mean (estimated prices, doubtful spot prices,
    leanings), the table's shortened labels where `short`: under the table (`table`), or on
    stderr beside csv and json, worded for their rows' fields (ranking.notes is worded for the
    one asked)."""
    said = [
        estimate_note(ranking.rows, table=table),
        doubt_note(ranking.rows, table=table),
        *([SHORT_NOTE] if short else []),
    ]
    at_least = any(row.get("break_even_at_least") for row in ranking.rows)
    # the leanings' marks in the rows' vs_baseline; a break-even's ≥ is the table's alone
    said += leaning_notes(
        [
            *(str(row.get("vs_baseline") or "") for row in ranking.rows),
            *(["≥"] if at_least and table else []),
        ]
    )
    if at_least and not table:
        said.append(AT_LEAST_FIELD)
    derived = any(r["throughput_origin"] == "derived" for r in ranking.rows)
    if ranking.header.get("ttft_ms") and derived:
        said.append(UNHELD_TTFT)
    return [*ranking.notes, *filter(None, said)]


cost = Command("cost", COST, _cost)
