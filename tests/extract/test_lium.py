"""lium: parse() on the feed gpuhunt recorded (2026-09-10, four nodes), bad nodes, fetch().

tests/fixtures/lium/ holds GET /api/public/v1/nodes as recorded (ORIGIN.md), nodes the parser
must refuse, and a feed where price_per_gpu_hour was renamed.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from chipcost.archive import read_payloads
from chipcost.core.errors import ParseError
from chipcost.extract.lium import NODES_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payloads_of

FIXTURES = FIXTURES / "lium"
payload = payloads_of("lium", NODES_URL)


def by_offer(records) -> dict[tuple[str, str], object]:
    return {(r.instance_type, r.pricing_model): r for r in records}


def test_the_recorded_feed_gives_one_record_per_gpu_model_and_tier():
    records = by_offer(parse([payload("nodes.json")]).records)
    assert set(records) == {
        ("1x RTX 5090 32GB", "on_demand"), ("1x RTX 5090 32GB", "spot"),
        ("1x H200 140GB", "on_demand"), ("1x A100-SXM4-80GB", "on_demand"),
    }  # fmt: skip
    h200 = records[("1x H200 140GB", "on_demand")]
    assert (h200.chip, h200.chip_count, h200.price_per_hour, h200.region) == (
        "H200", 1.0, 3.99, "global",
    )  # fmt: skip
    assert h200.extra["gpus"] == 8 and h200.extra["available_gpus"] == 5
    assert records[("1x A100-SXM4-80GB", "on_demand")].chip == "A100-80GB"
    assert records[("1x RTX 5090 32GB", "spot")].extra["countries"] == ["US"]


def test_many_nodes_of_one_gpu_give_the_median_and_keep_the_spread():
    body = json.loads((FIXTURES / "nodes.json").read_text())
    h200 = next(n for n in body["nodes"] if n["gpu_model"] == "H200")
    prices = (3.49, 3.99, 4.5, 9.9)
    body["nodes"] = [dict(h200, id=f"n{i}", price_per_gpu_hour=p) for i, p in enumerate(prices)]
    [record] = parse([payload("many.json", data=json.dumps(body).encode())]).records
    assert record.price_per_hour == pytest.approx((3.99 + 4.5) / 2)
    assert (record.extra["min"], record.extra["max"], record.extra["nodes"]) == (3.49, 9.9, 4)
    assert record.extra["cheapest_node"] == "n0"


@pytest.mark.parametrize(
    ("node", "reason", "market"),
    [
        ("n-text-price", "price '$3.99/hr' is not a plain number", ("1x H200 140GB", "on_demand")),
        ("n-null-price", "no price (None)", None),  # no price listed: its market not kept
        ("n-no-model", "no gpu_model", None),
        ("n-zero-gpus", "GPU count 0 is below 1", ("1x RTX 4090 24GB", "on_demand")),
        (
            "n-odd-tier",
            "tier 'community' is neither 'secure' nor 'spot'",
            ("1x RTX 4090 24GB", None),
        ),
    ],
)
def test_bad_nodes_become_rejects_with_reasons(node, reason, market):
    """Each names the market it is a node of, which keeps its earlier median (a tier not read:
    the market of either tier), but where it lists no price or no GPU."""
    result = parse([payload("bad-rows.json")])
    [refused] = [r for r in result.rejects if r.row["id"] == node]
    assert reason in refused.reason and refused.payload_ref.endswith("bad-rows.json")
    offer = refused.offer
    assert ((offer["instance_type"], offer.get("pricing_model")) if offer else None) == market
    [good] = result.records
    assert (good.instance_type, good.price_per_hour) == ("1x RTX 4090 24GB", 0.35)


def test_an_empty_feed_is_refused_not_taken_as_every_offer_withdrawn():
    """On main at 368c4bd an empty feed loaded as "ok, 0 records" and withdrew every offer."""
    body = json.dumps({"generated_at": "2026-11-21T06:00:00Z", "count": 0, "nodes": []})
    with pytest.raises(ParseError, match="lium: the listing at .* gave no offer"):
        parse([payload("empty.json", data=body.encode())])


def test_fetch_archives_the_feed(tmp_path: Path):
    body = (FIXTURES / "nodes.json").read_bytes()
    [fetched] = fetch(context(tmp_path, SOURCE.name, lambda r: httpx.Response(200, content=body)))
    assert fetched.url == NODES_URL
    [archived] = read_payloads(tmp_path / STAMP, "lium")
    assert archived.data == body and len(parse([archived]).records) == 4
