"""The read commands' work, `cost` and `compare`, as plain functions of the
options their questions declare (chipcost.core.asks): each answered by chipcost.reads.
answers, as the Python API's, and rendered here.

chipcost.cli.parser makes their click options of the same declarations and calls them with
every option by name.
"""

from __future__ import annotations

from typing import Any

from chipcost.cli.formats import OutputFormat
from chipcost.cli.options import widened
from chipcost.core.asks import (
    COMPARE,
    COST,
    DEFAULT_RANKING_ROWS,
    MAX_LIMIT,
)
from chipcost.core.errors import NoMatch


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
