"""The read commands' work, `prices`, `cost`, `compare` and `sql`, as plain functions of the
options their questions declare (chipcost.core.asks): each answered by chipcost.pipeline.
answers, as the Python API's, and rendered here.

chipcost.cli.parser makes their click options of the same declarations and calls them with
every option by name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chipcost.cli.formats import OutputFormat
from chipcost.cli.options import widened
from chipcost.core.asks import (
    COMPARE,
    COST,
    DEFAULT_RANKING_ROWS,
    DEFAULT_TABLE_ROWS,
    MAX_LIMIT,
    PRICES,
    SQL,
)
from chipcost.core.errors import NoMatch, UsageError
from chipcost.core.questions import Voice

if TYPE_CHECKING:
    from chipcost.warehouse.readonly import QueryResult


def resolve_chip(spelling: str, option: str = "--chip") -> str:
    """A canonical chip name for what the user typed, or a message naming the close ones (and
    the option it was given to)."""
    from chipcost.core.catalog import UNKNOWN_CHIP, canonical_chip, canonical_chips
    from chipcost.core.names import CHIPS_LISTED, shown, suggested

    chip = canonical_chip(spelling)
    if chip != UNKNOWN_CHIP:
        return chip
    names = sorted(canonical_chips() - {UNKNOWN_CHIP})
    raise UsageError(
        f"{option} {shown(spelling)}: unknown chip{suggested(spelling, names)}; {len(names)} "
        f"known: `{CHIPS_LISTED}` lists them"
    )


def prices(**given: Any) -> None:
    """`chipcost prices`: current per-chip hourly prices from the warehouse, without Prefect.
    Its options are the fields of chipcost.core.asks.PRICES."""
    asked = PRICES.given(given)
    focus = asked["format"] == "focus"  # the frame, under FOCUS's column names
    format = OutputFormat.csv if focus else OutputFormat(asked["format"])
    limit = asked["limit"]
    from chipcost.cli.consoles import notices, out
    from chipcost.reads import answers
    from chipcost.reads.price_glance import every_offer, per_hours
    from chipcost.reads.price_notes import unmatched_names

    hours = per_hours(asked["per"], Voice(PRICES).said("per", asked["per"]))
    bounds_said = _bound_notes(asked, hours)
    table = format is OutputFormat.table
    # A table asked nothing but `prices` leads with each chip's cheapest offer (--by chip);
    # any filter, --sort or --limit, `--by offer`, and csv, json and focus (scripts read them)
    # list every offer.
    plain = table and asked["by"] is None and not _narrowed(asked)
    asked["by"] = "chip" if plain else None if every_offer(asked["by"]) else asked["by"]
    if focus and (hours != 1 or asked["by"] is not None):  # FOCUS's columns are its own
        said = "--by" if asked["by"] is not None else "--per"
        raise UsageError(
            f"{said} with --format focus: FOCUS's columns are hourly, one per "
            "offer; give --format csv or json"
        )
    # The table and the glance read rows (no polars to import); csv and json write the frame.
    for said in bounds_said:
        notices(format).say(f"note: {said}")
    answer = answers.prices(asked, rows=table or asked["by"] is not None)
    found, ask, empty = answer.found, answer.ask, answer.empty
    mine = found.mine
    if asked["by"] is not None:
        _hints(notices(format), ask.hints)
        if empty:
            raise NoMatch(empty)
        from chipcost.cli.render_glance import glance_output

        glance_output(asked, format, found, plain=plain)
        return
    if table:
        from chipcost.cli.render_prices import print_prices

        _hints(out, ask.hints)
        if empty:
            raise NoMatch(empty)
        from chipcost.cli.render_glance import per_rows

        per = per_rows(found.rows, hours)
        print_prices(out, found, limit=limit or DEFAULT_TABLE_ROWS, wide=asked["wide"], per=per)
        _no_rows_for(out, unmatched_names(ask["chip"], {str(r["chip"]) for r in found.rows}))
        return
    from chipcost.cli.formats import with_currency, write_frame
    from chipcost.cli.render_fresh import print_freshness

    frame = found.frame if limit is None else found.frame.head(limit)
    if not focus:
        frame = with_currency(frame, mine.currency)
    if hours != 1:
        from chipcost.cli.render_glance import per_frame

        frame = per_frame(frame, hours)
    if focus:
        from chipcost.transform.focus import focus_frame, focus_text_times

        frame = focus_text_times(focus_frame(frame.to_dicts()))
    write_frame(format, frame)  # when empty, [] or the header: a pipe still parses
    _hints(notices(format), ask.hints)
    if empty:
        raise NoMatch(empty)
    _no_rows_for(notices(format), unmatched_names(ask["chip"], set(found.frame["chip"])))
    for line in mine.notes(found.frame.to_dicts()):
        notices(format).say(f"note: {line}")
    if found.frame.height > frame.height and not focus:
        notices(format).say(f"{found.frame.height - frame.height} more rows (--limit)")
    print_freshness(notices(format), found.freshness)


def _narrowed(asked: dict[str, Any]) -> bool:
    """Whether `prices` was asked for any filter of its offers, an order or a count."""
    given = [f.name for f in PRICES.fields if f.query is not None and f.narrows]
    return any(asked[name] not in (None, "", [], ()) for name in (*given, "sort", "limit"))


def _bound_notes(asked: dict[str, Any], hours: int) -> list[str]:
    """What a price bound is read as: per chip-month or -year with --per, as the table's
    cells (chipcost.reads.price_filters reads it per chip-hour); with --currency, in that currency,
    as the cells (the bound is on the prices shown). None for a bound that is no amount
    (chipcost.reads.price_filters says why)."""
    from chipcost.reads.price_filters import amount_as_printed

    said = []
    currency = str(asked.get("currency") or "USD").strip().upper()
    for name in ("min_price", "max_price"):
        value = asked[name]
        number = amount_as_printed(str(value), "$") if isinstance(value, str) else value
        if value is None or not isinstance(number, int | float):
            continue
        option = Voice(PRICES).said(name, value)
        if hours != 1:
            said.append(
                f"{option} is per chip-{str(asked['per']).lower()}, as the table's prices: "
                f"{number / hours:.4f} per chip-hour"
            )
        if currency not in ("USD", "$"):
            said.append(f"{option} is in {currency}, as the table's prices")
    return said


def _hints(console, hints: tuple[str, ...]) -> None:
    """What a name was read as (an instance type given as a chip), before the answer."""
    for hint in hints:
        console.say(f"note: {hint}")


def _no_rows_for(console, names: list[str]) -> None:
    """A note for each chip asked for, of several, that no current price matched."""
    if names:
        console.say(f"note: no current price of {', '.join(names)} matches these filters")


def cost(**given: Any) -> None:
    """`chipcost cost`: the cheapest chip and pricing model per token for a model and workload.
    Its options are the fields of chipcost.core.asks.COST."""
    from chipcost.cli.consoles import notices, out
    from chipcost.cli.formats import with_currency, write_frame
    from chipcost.cli.render_cost import print_ranking
    from chipcost.cli.render_fresh import print_freshness
    from chipcost.reads import answers

    asked = COST.given(given)
    format = OutputFormat(asked["format"])
    table = format is OutputFormat.table
    try:
        limit = asked["limit"] or (DEFAULT_RANKING_ROWS if table else MAX_LIMIT)
        ranking = answers.cost(asked, limit=limit)
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
        notices(format).say(f"{ranking.more} more rows (--limit)")
    print_freshness(notices(format), ranking.freshness)


def sql(**given: Any) -> None:
    """`chipcost sql`: an ad hoc read-only query against the warehouse
    (chipcost.core.asks.SQL)."""
    from chipcost.cli.formats import write_rows
    from chipcost.reads import answers

    asked = SQL.given(given)
    format, limit = OutputFormat(asked["format"]), asked["limit"]
    table = format is OutputFormat.table
    # One open of the file for the query and the freshness notes under it. A table counts
    # the rows it does not show, so it reads them (within the bounds); csv and json stop at
    # --limit.
    result = answers.sql_rows(asked, max_rows=None if table else limit)
    if result.cut:
        _say_cut(result.cut)
    if format is OutputFormat.table:
        from chipcost.cli.consoles import out
        from chipcost.cli.render import print_rows

        print_rows(out, result.columns, result.rows, max_rows=limit or SQL_TABLE_ROWS)
    else:
        rows = result.rows if limit is None else result.rows[:limit]
        write_rows(format, result.columns, rows)
    _sql_freshness(result, format)
    if not result.rows:  # as every read that matches nothing: exit 1, stdout still parses
        raise NoMatch("the query returned no rows")


# Rows `sql` shows in a table when --limit is not given.
SQL_TABLE_ROWS = 100


def _say_cut(bound: str) -> None:
    """One line on stderr, before the rows: the result was cut at a bound, and what to do."""
    from chipcost.cli.consoles import err

    err.line(f"result cut at {bound}: raise it, or ask for fewer rows (--limit, or a LIMIT)")


def _sql_freshness(result: QueryResult, format: OutputFormat) -> None:
    from chipcost.cli.consoles import notices
    from chipcost.cli.render_fresh import print_freshness

    print_freshness(notices(format), result.freshness, what=None)


def compare(**given: Any) -> None:
    """`chipcost compare`: chip A against chip B per pricing model, in one screen
    (chipcost.core.asks.COMPARE)."""
    from chipcost.cli.consoles import notices, out
    from chipcost.cli.formats import with_currency, write_frame
    from chipcost.cli.render_compare import print_comparison
    from chipcost.cli.render_fresh import print_freshness
    from chipcost.reads import answers

    asked = COMPARE.given(given)
    result = answers.compare(asked)
    format = OutputFormat(asked["format"])
    if format is OutputFormat.table:
        if asked["wide"]:
            widened(out)
        print_comparison(out, result, wide=bool(asked["wide"]))
        if asked["chart"]:
            from chipcost.cli.render_compare_chart import print_chart

            print_chart(out, result)
        return
    from chipcost.core.frames import money_named  # polars: csv and json only

    money = str(result.ranking.header["currency"])
    write_frame(format, with_currency(money_named(result.frame(), money), money))
    print_freshness(notices(format), result.ranking.freshness)
