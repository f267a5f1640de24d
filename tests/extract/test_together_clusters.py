"""together-clusters: parse() on the pricing page (reconstructed): per-GPU-hour node prices
recorded per 8-GPU node, bad rows, an empty table refused, and fetch() without a key."""

from __future__ import annotations

import httpx
import pytest

from chipcost.core.errors import ParseError
from chipcost.extract.together_clusters import PAGE_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import context, payloads_of

payload = payloads_of("together-clusters", PAGE_URL)


def test_a_node_type_is_priced_per_8_gpu_node_hour():
    result = parse([payload("pricing.html")])
    nodes = {r.instance_type: r for r in result.records}
    h100 = nodes["8x HGX H100 SXM"]
    assert (h100.provider, h100.chip, h100.chip_count, h100.price_per_hour) == (
        "together", "H100-SXM", 8.0, 23.92,
    )  # fmt: skip
    assert h100.extra["listed"] == "$2.99 per GPU-hour"
    assert nodes["8x HGX H100 SXM - Inference"].chip == "H100-SXM"
    assert {nodes["8x HGX B200"].chip, nodes["8x HGX H200"].chip} == {"B200", "H200"}
    # The model table's per-token prices are not GPU rows; GB200's "Contact us" is a reject.
    assert len(nodes) == 4
    assert [r.reason for r in result.rejects] == [
        "NVIDIA GB200 NVL72: price: no price listed (Contact us)"
    ]


def test_bad_rows_become_rejects_with_reasons():
    result = parse([payload("bad-rows.html")])
    reasons = " | ".join(r.reason for r in result.rejects)
    assert "NVIDIA HGX B300: price: no price listed (Contact sales)" in reasons
    assert "'$3-4' is not one USD amount" in reasons
    assert {r.instance_type for r in result.records} == {"8x HGX H100 SXM", "8x HGX B200"}


def test_a_page_without_gpu_rows_is_refused():
    with pytest.raises(ParseError, match="together: the listing at https://www.together.ai"):
        parse([payload("empty.html")])


def test_fetch_reads_the_page_with_no_key(tmp_path):
    body = (FIXTURES / "together-clusters" / "pricing.html").read_bytes()

    def answer(request: httpx.Request) -> httpx.Response:
        assert "Authorization" not in request.headers and str(request.url) == PAGE_URL
        return httpx.Response(200, content=body, headers={"Content-Type": "text/html"})

    [fetched] = fetch(context(tmp_path, SOURCE.name, answer))
    assert len(parse([fetched]).records) == 4
