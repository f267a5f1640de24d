"""tensordock: parse() on the SDK's documented host node and gpuhunt's mock specs, the median per
GPU model and country, bad rows, and fetch() without a key."""

from __future__ import annotations

import httpx

from chipcost.archive import read_payloads
from chipcost.extract.tensordock import HOSTNODES_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payloads_of

FIXTURES = FIXTURES / "tensordock"
payload = payloads_of("tensordock", HOSTNODES_URL)


def offers(name: str = "hostnodes.json") -> dict[tuple[str, str], object]:
    return {(r.instance_type, r.region): r for r in parse([payload(name)]).records}


def test_each_gpu_model_and_country_is_the_median_per_gpu_rate_of_its_hosts():
    found = offers()
    l40 = found[("1x l40-pcie-48gb", "united-states")]
    assert (l40.chip, l40.chip_count, l40.price_per_hour) == ("L40", 1.0, 1.1)
    assert (l40.extra["min"], l40.extra["max"], l40.extra["hostnodes"]) == (1.05, 1.15, 2)
    assert l40.extra["gpus_free"] == 12
    assert l40.extra["cheapest_hostnode"] == "7d3a07b6-de25-44a2-a9f4-1cd241fa0d0f"
    rtx = found[("1x geforcertx3080-pcie-10gb", "canada")]  # the SDK's documented node
    assert (rtx.chip, rtx.price_per_hour, rtx.pricing_model) == ("RTX-3080", 0.15, "on_demand")
    assert len(found) == 2


def test_the_resources_billed_beside_the_gpu_are_kept_not_added():
    rtx = offers()[("1x geforcertx3080-pcie-10gb", "canada")]
    assert rtx.extra["resource_rates"] == {"vcpu": 0.003, "ram_gb": 0.002, "storage_gb": 5e-05}
    assert "billed beside it" in rtx.extra["price_basis"]


def test_cards_none_free_and_hosts_without_gpus_are_counted_not_loaded():
    notes = " | ".join(parse([payload("hostnodes.json")]).notes)
    assert "no GPU of this model free on the host node" in notes
    assert "a host node with no GPU listed (2f0b8e32" in notes


def test_bad_rows_become_rejects():
    result = parse([payload("bad-rows.json")])
    reasons = " | ".join(r.reason for r in result.rejects)
    for words in ("'$0.15/hr' is not a plain number", "price: no price (None)",
                  "price 0 is not a positive amount",
                  "a100-pcie-80gb: no country, or the GPU entry is not an object",
                  "geforcertx4090-pcie-24gb: no country"):  # fmt: skip
        assert words in reasons
    assert len(result.rejects) == 5
    assert [(r.instance_type, r.price_per_hour) for r in result.records] == [
        ("1x l40-pcie-48gb", 1.05)
    ]


def test_fetch_needs_no_key_and_archives_the_answer(tmp_path):
    body = (FIXTURES / "hostnodes.json").read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        assert str(request.url) == HOSTNODES_URL
        return httpx.Response(200, content=body, headers={"Content-Type": "application/json"})

    [fetched] = fetch(context(tmp_path, SOURCE.name, handler))
    assert fetched.url == HOSTNODES_URL
    assert len(parse(read_payloads(tmp_path / STAMP, "tensordock")).records) == 2
