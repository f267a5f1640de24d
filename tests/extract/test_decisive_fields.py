"""A field that decides what a price means (a currency, a cloud flag, a unit) is named when a
row lacks it, never assumed (extract/_kit.py missing_fields): the recorded fixtures of the
sources that state a currency, with it removed from one row (or the page that states it once)."""

from __future__ import annotations

import json

from chipcost.extract import daytona, primeintellect, verda
from tests.paths import FIXTURES
from tests.sources import payloads_of

REASON = "lacks currency: it decides what its price means, so it is not read"


def _parse(source, url, file, change, *more):
    body = json.loads((FIXTURES / source.SOURCE.name / file).read_text())
    change(body)
    payload = payloads_of(source.SOURCE.name, url)
    return source.parse([payload(file, data=json.dumps(body).encode()), *more])


def test_daytona_names_the_price_list_s_missing_currency():
    result = _parse(daytona, daytona.PRICING_URL, "gpu-pricing.json", lambda b: b.pop("currency"))
    assert not result.records
    assert {r.reason for r in result.rejects} == {f"the price list {REASON}"}


def test_prime_intellect_names_an_offer_s_missing_currency():
    def drop(body):
        del body["items"][0]["prices"]["currency"]

    result = _parse(primeintellect, primeintellect.AVAILABILITY_URL, "gpus.json", drop)
    [refused] = result.rejects
    assert refused.reason.endswith(f": its prices {REASON}")
    assert result.records  # the other offers load


def test_verda_names_an_instance_type_s_missing_currency():
    def drop(body):
        del body[0]["currency"]

    periods = payloads_of("verda", verda.PERIODS_URL)("long-term-periods.json")
    result = _parse(verda, verda.INSTANCE_TYPES_URL, "instance-types.json", drop, periods)
    refused = [r for r in result.rejects if REASON in r.reason]
    assert len(refused) == 1 and refused[0].reason.endswith(f": {REASON}")
    assert result.records
