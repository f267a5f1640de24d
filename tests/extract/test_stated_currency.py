"""A currency a row states in a field new to its format (extract/_formats.py stated_currencies):
a price it says is in another currency than the source reads it in is refused, naming the
field, its value and the currency read, whatever the source's parse; and chipcost's own sample
marks, old and new, are no provider field."""

from __future__ import annotations

import json

import pytest

from chipcost.extract import registry
from chipcost.extract.gcp import SERVICES, SKUS_URL
from chipcost.extract.mithril import AVAILABILITY_URL
from chipcost.extract.scaleway import PER_PAGE, PRODUCTS_URL
from chipcost.extract.shadeform import TYPES_URL
from tests.paths import FIXTURES
from tests.sources import payload

SOURCES = registry()
SCALEWAY_URL = PRODUCTS_URL.format(zone="fr-par-2") + f"?page=1&per_page={PER_PAGE}"


def _edited(source: str, file: str, url: str, edit) -> object:
    body = json.loads((FIXTURES / source / file).read_bytes())
    edit(body)
    return payload(source, file, url, data=json.dumps(body).encode())


def _shadeform(first: str, rest: str) -> object:
    def edit(body):
        for n, row in enumerate(body["instance_types"]):
            row["currency"] = first if n == 0 else rest

    return _edited("shadeform", "instances-types.json", TYPES_URL, edit)


def test_a_new_currency_field_saying_euros_refuses_the_rows_a_usd_source_reads():
    """QA: `currency: "EUR"` on every row of Shadeform's answer was said new and loaded as
    US dollars; its own word "usd" is the currency read, so that row loads."""
    good = SOURCES["shadeform"].parse([_shadeform("usd", "usd")])
    changed = _shadeform("usd", "EUR")
    assert SOURCES["shadeform"].drift([changed]) == [
        "format drift (shadeform, instance types v1, instance_types[]): new currency"
    ]
    result = SOURCES["shadeform"].parse([changed])
    first = json.loads(changed.data)["instance_types"][0]
    name = f"{first['cloud']}/{first['shade_instance_type']}"
    assert result.records and {r.instance_type for r in result.records} == {name}
    assert {r.currency for r in result.records} == {"USD"}
    assert len(result.records) + len(result.rejects) == len(good.records) and not good.rejects
    assert {r.reason for r in result.rejects} == {
        "currency 'EUR', a field new at instance_types[], says another currency than USD, "
        "the one its price is read in: not loaded as USD"
    }
    assert all(r.offer for r in result.rejects)  # its offer is kept open, not withdrawn


@pytest.mark.parametrize(("said", "loads"), [("EUR", True), (" eur ", True), ("USD", False)])
def test_a_euro_source_refuses_a_row_saying_dollars_and_loads_one_saying_euros(said, loads):
    def edit(body):
        for server in body["servers"].values():
            server["Currency_Code"] = said

    result = SOURCES["scaleway"].parse(
        [_edited("scaleway", "products-servers.json", SCALEWAY_URL, edit)]
    )
    assert bool(result.records) is loads
    if not loads:
        assert {r.reason for r in result.rejects} == {
            "Currency_Code 'USD', a field new at servers.*, says another currency than EUR, "
            "the one its price is read in: not loaded as EUR"
        }


def test_a_parse_of_its_own_refuses_the_prices_read_with_a_page_saying_another_currency():
    """Google's parse joins SKUs across pages, not through the kit's rows: a page whose SKUs
    say yen refuses every record in dollars, naming the page."""

    def edit(body):
        for sku in body["skus"]:
            sku["currencyCode"] = "JPY"

    compute = SKUS_URL.format(service=SERVICES[0])
    pages = [
        _edited("gcp", "compute-skus-page-1.json", compute, edit),
        payload("gcp", "compute-skus-page-2.json", compute),
    ]
    assert "new currencyCode" in " ".join(SOURCES["gcp"].drift(pages))
    result = SOURCES["gcp"].parse(pages)
    assert not result.records and result.rejects
    reasons = {r.reason for r in result.rejects if "JPY" in r.reason}
    assert reasons == {
        "currencyCode 'JPY', a field new at skus[], says another currency than USD, the one its "
        f"price is read in: not loaded as USD (in {pages[0].ref}, read with its price)"
    }


@pytest.mark.parametrize("mark", ["chipcostEstimate", "chipcostSample"])
def test_the_samples_own_marks_old_and_new_are_never_said_new(mark):
    """QA: archives of older chipcost versions' samples said `new chipcostSample`."""

    def edit(body):
        for row in body:
            row[mark] = "synthetic sample data"

    marked = _edited("mithril", "spot-availability.json", AVAILABILITY_URL, edit)
    assert SOURCES["mithril"].drift([marked]) == []
