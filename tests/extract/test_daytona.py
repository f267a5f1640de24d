"""daytona: parse() on the rate card gpuhunt keeps (probably a capture), bad rows, fetch().

tests/fixtures/daytona/ holds GET /gpu-pricing in its real shape (ORIGIN.md), rows the parser
must refuse; what every source must do is the contract test's (tests/extract/test_contract.py).
"""

from __future__ import annotations

import json

import httpx
import pytest

from chipcost.archive import read_payloads
from chipcost.core.errors import ParseError
from chipcost.extract.daytona import PRICING_URL, SOURCE, fetch, parse
from chipcost.transform.validate import validate_records
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payloads_of

FIXTURES = FIXTURES / "daytona"
payload = payloads_of("daytona", PRICING_URL)


def prices(records) -> dict[tuple[str, str], float]:
    return {(r.instance_type, r.pricing_model): r.price_per_hour for r in records}


def test_per_gpu_on_demand_and_spot_prices():
    records = parse([payload("gpu-pricing.json")]).records
    found = prices(records)
    assert found[("1x H100", "on_demand")] == 3.95 and found[("1x H100", "spot")] == 2.27
    assert found[("1x B300", "on_demand")] == 7.1 and len(found) == 16
    h100 = next(r for r in records if r.instance_type == "1x H100")
    assert (h100.chip, h100.chip_count, h100.region, h100.currency) == (
        "H100-SXM", 1.0, "global", "USD",
    )  # fmt: skip
    assert h100.extra["resource_rates"]["vcpuPerHour"] == 0.0504
    assert "billed separately" in h100.extra["price_basis"]
    spot = next(r for r in records if r.instance_type == "1x H100" and r.pricing_model == "spot")
    assert spot.extra["resource_rates"]["vcpuPerHour"] == 0.03  # the spot resource rates


def test_the_known_gpus_map_to_their_chips():
    records = parse([payload("gpu-pricing.json")]).records
    assert {"B300", "B200", "H200", "H100-SXM", "RTX-PRO-6000"} <= {r.chip for r in records}


def test_bad_rows_become_rejects_and_a_null_spot_price_means_not_sold_on_spot():
    result = parse([payload("bad-rows.json")])
    reasons = sorted(r.reason for r in result.rejects)
    assert any("'$3.95/hr' is not a plain number" in r for r in reasons)
    assert any("B200 onDemandPricePerHour: price 0" in r for r in reasons)
    assert any("has no type" in r for r in reasons) and len(reasons) == 3
    assert set(prices(result.records)) == {
        ("1x H100", "spot"), ("1x H200", "on_demand"), ("1x B200", "spot"),
        ("1x MI400X", "on_demand"),
    }  # fmt: skip
    assert any("MI400X" in note for note in result.notes)  # unknown chip: loaded, and named


def test_a_rate_card_in_a_currency_not_stored_is_refused_by_validation():
    # USD and EUR are stored (EUR converted at read time); any other is refused, not mixed in
    body = json.loads((FIXTURES / "gpu-pricing.json").read_text()) | {"currency": "GBP"}
    records = parse([payload("gbp.json", data=json.dumps(body).encode())]).records
    validated = validate_records(records, {"daytona": "daytona"})
    assert not validated.records and validated.rejects
    assert all(
        "currency GBP is not one prices are stored in" in r.reason for r in validated.rejects
    )


def test_an_error_page_fails_the_source():
    with pytest.raises(ParseError, match="not JSON"):
        parse([payload("error.html", data=b"<html>502 Bad Gateway</html>")])


def test_fetch_archives_the_rate_card_without_credentials(tmp_path):
    body = (FIXTURES / "gpu-pricing.json").read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        assert "Authorization" not in request.headers
        return httpx.Response(200, content=body, headers={"Content-Type": "application/json"})

    [fetched] = fetch(context(tmp_path, SOURCE.name, handler))
    assert fetched.url == PRICING_URL
    [archived] = read_payloads(tmp_path / STAMP, "daytona")
    assert archived.data == body and parse([archived]).records
