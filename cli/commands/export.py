"""`chipcost export --out DIR`: the price history for FinOps tools, under FOCUS's names."""

from __future__ import annotations

from typing import Annotated

from chipcost.cli.options import Db, ListPrices
from chipcost.cli.parser import command
from chipcost.core.questions import Opt


def _export(
    out: Annotated[
        str | None,
        Opt(
            "Directory to write sku_prices.csv and sku_prices.parquet in (FOCUS columns).",
            metavar="PATH",
        ),
    ] = None,
    focus: Annotated[
        str | None, Opt("Old spelling of --out (with --format focus).", hidden=True, same_as="out")
    ] = None,
    format: Annotated[
        str,
        Opt(
            "focus: FOCUS's column names (docs/focus.md), the one export format.",
            metavar="[focus]",  # as click shows a choice; other values refused below
        ),
    ] = "focus",
    since: Annotated[
        str | None, Opt("Only prices still in force on or after this day, YYYY-MM-DD.")
    ] = None,
    chip: Annotated[
        list[str] | None, Opt("Only this chip or family (repeat or comma list).")
    ] = None,
    currency: Annotated[
        str | None,
        Opt(
            "None: the export converts nothing, each price in the currency its provider "
            "states (a price in force for months has no one day's rate)."
        ),
    ] = None,
    list_prices: ListPrices = False,
    db: Db = None,
) -> None:
    """Export the whole price history under FOCUS's column names, as CSV and Parquet."""
    from pathlib import Path

    from chipcost.cli.consoles import out as console
    from chipcost.cli.price_cells import doubt_note
    from chipcost.cli.render_fresh import print_freshness
    from chipcost.core.counting import counted
    from chipcost.core.errors import UsageError
    from chipcost.core.vocabulary import gpu_alone_note
    from chipcost.reads import answers
    from chipcost.reads.export import export_focus
    from chipcost.reads.your_prices import for_read
    from chipcost.reports.period import parse_day
    from chipcost.warehouse.freshness import freshness

    if format.casefold() != "focus":
        raise UsageError(f"--format {format}: the export writes FOCUS's columns; give focus")
    if currency is not None:  # USD too: the euro prices would stay in euros
        raise UsageError(
            f"--currency {currency}: the export converts nothing, each price is in the "
            "currency its provider states, USD or EUR, as PricingCurrency says (a price in "
            "force for months has no one day's rate); `chipcost prices --currency` converts "
            "current prices"
        )
    if out is None or not out.strip():
        raise UsageError("give a directory to write in, e.g. chipcost export --out out/")
    # Opened as every read is (a read limit reached is said naming its variable).
    with answers.reading(db) as (con, settings):
        mine = for_read(con, "USD", list_prices)  # US dollars always: not $CHIPCOST_CURRENCY
        made = export_focus(
            con, Path(out), since=parse_day(since, "--since"), chips=chip, mine=mine
        )
        # the rows in force now are as fresh as their sources' last successful runs: the
        # stale, failed and dated-ahead sources named as every read names them
        fresh = freshness(con, None, stale_days=settings.stale_days)
    console.say(
        f"FOCUS export: {counted(made.rows, 'price')} ({made.current:,} in force now) in "
        + " and ".join(str(f) for f in made.files),
        break_words=False,  # each path whole
    )
    if mine.discounts is not None:
        console.say(
            f"ContractedUnitPrice after your discounts ({mine.discounts.summary()}) on "
            f"{counted(made.discounted, 'row')}; --list-prices for list prices only",
        )
    console.say(
        "columns: docs/focus.md; prices in the currency each provider states (PricingCurrency: "
        "USD, or EUR for those that sell in euros), list, upfront fees spread"
    )
    # what the rows' x_SpotDoubt and x_GpuAlone mark, said as `prices` says it
    for column, note in (
        ("x_SpotDoubt", doubt_note(made.doubted, table=False)),
        ("x_GpuAlone", gpu_alone_note(made.offers)),
    ):
        if note:
            console.say(f"note: {column}: {note}")
    print_freshness(console, fresh)  # with the sample's line where it holds the sample


export = command(_export, "export")
