"""`chipcost site DIR`: the price explorer, a static page of every current offer."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from chipcost.cli.options import CurrencyOption, DbOption, ListPricesOption, out
from chipcost.reports.period import MAX_WEEKS


def site(
    directory: Annotated[
        str, typer.Argument(help="Where to write index.html, offers.json, offers.csv.")
    ],
    weeks: Annotated[
        int, typer.Option(min=1, max=MAX_WEEKS, help="Weeks of price history to chart per chip.")
    ] = 12,
    currency: CurrencyOption = None,
    list_prices: ListPricesOption = False,
    db: DbOption = None,
) -> None:
    """Write the price explorer: every current offer, sortable and filterable, no server."""
    from chipcost.cli.render import SAMPLE_BANNER
    from chipcost.core.errors import ChipcostError
    from chipcost.core.settings import load_settings
    from chipcost.reports.site import write_site

    if not directory.strip():  # Path("") is the current directory: never meant
        raise ChipcostError(
            "the directory is empty: give where to write, e.g. chipcost site public/"
        )
    made = write_site(
        load_settings(db=db).warehouse,
        Path(directory),
        weeks=weeks,
        currency=currency,
        list_prices=list_prices,
    )
    out.print(
        f"price explorer: {made.index} ({made.offers} offers of {made.chips} chips)",
        highlight=False,
    )
    out.print(f"open it in a browser: file://{made.index.resolve()}", highlight=False)
    if made.sample:
        out.print(SAMPLE_BANNER)
