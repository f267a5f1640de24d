"""`chipcost site --out DIR`: the price explorer, a static page of every current offer."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from chipcost.cli.options import Currency, Db, ListPrices
from chipcost.cli.parser import command
from chipcost.core.questions import Opt
from chipcost.reports.period import MAX_WEEKS


def _site(
    out: Annotated[
        str | None,
        Opt(
            "Directory to write index.html, offers.js (the page's data), offers.json and "
            "offers.csv in.",
            metavar="PATH",
        ),
    ] = None,
    directory: Annotated[
        str | None,
        Opt("Old spelling of --out.", kind="argument", hidden=True, same_as="out"),
    ] = None,
    weeks: Annotated[
        int, Opt("Weeks of price history to chart per chip.", low=1, high=MAX_WEEKS)
    ] = 12,
    currency: Currency = None,
    list_prices: ListPrices = False,
    db: Db = None,
) -> None:
    """Write the price explorer: every current offer, sortable and filterable, no server."""
    from chipcost.cli.consoles import out as console
    from chipcost.cli.render import SAMPLE_BANNER
    from chipcost.core.errors import UsageError
    from chipcost.core.settings import load_settings
    from chipcost.reads import answers
    from chipcost.reports.site import write_site

    where = out if out is not None else directory
    if where is None:
        raise UsageError("give the directory to write in, e.g. chipcost site --out public/")
    if not where.strip():  # Path("") is the current directory: never meant
        raise UsageError(
            "the directory is empty: give where to write, e.g. chipcost site --out public/"
        )
    answers.prices_held(db)  # none yet: nothing written, exit 1
    made = write_site(
        load_settings(db=db).warehouse,
        Path(where),
        weeks=weeks,
        currency=currency,
        list_prices=list_prices,
    )
    from chipcost.core.counting import counted

    # a path or URL is printed whole, on a line of its own where the screen is narrow
    console.say(
        f"price explorer: {made.index} ({counted(made.offers, 'offer')} of "
        f"{counted(made.chips, 'chip')})",
        break_words=False,
    )
    # as a URL: a "#", "%" or space in the folder quoted, a newline too
    console.say(f"open it in a browser: {made.index.resolve().as_uri()}", break_words=False)
    if made.unconverted:  # not in its table, but not left out unsaid
        from chipcost.core.commands import RATES
        from chipcost.warehouse.fx import MAX_RATE_AGE_DAYS

        many = "s" if made.unconverted != 1 else ""
        console.say(
            f"{made.unconverted} offer{many} more, in their own currency, listed apart under the "
            f"table: no ECB rate within {MAX_RATE_AGE_DAYS} days of their day converts them to "
            f"US dollars; `{RATES}` fetches the rates"
        )
    if made.sample:
        console.say(SAMPLE_BANNER)


site = command(_site, "site")
