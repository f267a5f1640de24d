"""The ECB's euro foreign exchange reference rates: what prices convert to other currencies at.

Not prices of chips: each day's rates go to the warehouse's `fx_rates` (a day, a currency, the
units of it one euro bought), from which `--currency` converts a price at its own day's rate.
The 90-day file is fetched on every run, so a day missed is filled by the next; it is archived
and replayed like any payload. Public, no key: the ECB publishes around 16:00 CET on working
days (https://www.ecb.europa.eu/stats/policy_and_exchange_rates/euro_reference_exchange_rates/).
"""

from __future__ import annotations

from collections.abc import Sequence

from chipcost.core.payload import Payload
from chipcost.core.questions import COMMAND_LINE
from chipcost.core.record import ParseResult
from chipcost.extract import _http
from chipcost.extract._rates import PROVIDER, TABLE, rates
from chipcost.extract.base import Checked, FetchContext, Source, refuse_empty

SOURCE_NAME = "ecb-rates"
RATES_90D_URL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist-90d.xml"
URL_ENV = "CHIPCOST_ECB_RATES_URL"  # another file of the same layout (settings.ecb_rates_url)
# Every day since 1999, in the same layout: CHIPCOST_ECB_RATES_URL points a run at it once,
# after a backfill of older prices (docs/your-prices.md).
RATES_HISTORY_URL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.xml"


def fetch(ctx: FetchContext) -> list[Payload]:
    """The last 90 days of reference rates (or the file CHIPCOST_ECB_RATES_URL names), one file."""
    url = ctx.settings.ecb_rates_url or RATES_90D_URL
    with _http.http_client(PROVIDER, ctx) as client:
        found = _http.get(ctx, client, url, ext="xml")
    ctx.progress("reference rates" if url != RATES_90D_URL else "90 days of reference rates")
    return [found]


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """One fx_rates row per day and currency (the euro itself at 1); pure."""
    result = rates(payloads, SOURCE_NAME)
    if not result.facts[TABLE]:  # a file of no day at all fails the source, as a listing does
        refuse_empty(result, payloads, PROVIDER)
    return result


SOURCE = Source(
    settings={"ecb_rates_url": URL_ENV},
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "ECB euro foreign exchange reference rates (public, no key): the last 90 days, what "
        f"{COMMAND_LINE.name('currency')} converts prices at"
    ),
    fetch=fetch,
    parse=parse,
    reference=True,
    title="the ECB",
    checked=Checked(
        asks="the ECB's 90-day reference rates",
        against="**recorded** daily file (OpenBuildings/monetary)",
        when="2013-08-20",
        rest="the 90-day layout's rates synthetic",
    ),
    layout=(
        "XML: the parser reads each `<Cube time>` day and its rates, and a file with rates but no "
        "day fails naming it"
    ),
)
