"""lium: parse() on the feed gpuhunt recorded (2026-09-10, four nodes), bad nodes, fetch().

tests/fixtures/lium/ holds GET /api/public/v1/nodes as recorded (ORIGIN.md), nodes the parser
must refuse, and a feed where price_per_gpu_hour was renamed.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from chipcost.archive import ArchiveWriter, read_payloads
from chipcost.core.errors import ParseError
from chipcost.core.payload import Payload
from chipcost.extract.base import FetchContext
from chipcost.extract.lium import NODES_URL, SOURCE, fetch, parse
from chipcost.transform.validate import validate_records
from tests.paths import FIXTURES

FIXTURES = FIXTURES / "lium"
FETCHED_AT = datetime(2026, 11, 21, 6, 0, 5, tzinfo=UTC)
STAMP = "2026-11-21T060000Z"


def payload(name: str, data: bytes | None = None) -> Payload:
    data = (FIXTURES / name).read_bytes() if data is None else data
    return Payload(data, NODES_URL, FETCHED_AT, name, f"{STAMP}/lium/{name}")


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
    [record] = parse([payload("many.json", json.dumps(body).encode())]).records
    assert record.price_per_hour == pytest.approx((3.99 + 4.5) / 2)
    assert (record.extra["min"], record.extra["max"], record.extra["nodes"]) == (3.49, 9.9, 4)
    assert record.extra["cheapest_node"] == "n0"


def test_every_good_record_validates():
    records = parse([payload("nodes.json")]).records
    validated = validate_records(records, {"lium": "lium"})
    assert validated.rejects == [] and len(validated.records) == len(records) == 4


@pytest.mark.parametrize(
    ("sku", "reason"),
    [
        ("n-text-price", "price '$3.99/hr' is not a plain number"),
        ("n-null-price", "no price (None)"),
        ("n-no-model", "no gpu_model"),
        ("n-zero-gpus", "GPU count 0 is below 1"),
        ("n-odd-tier", "tier 'community' is neither 'secure' nor 'spot'"),
    ],
)
def test_bad_nodes_become_rejects_with_reasons(sku, reason):
    result = parse([payload("bad-rows.json")])
    [refused] = [r for r in result.rejects if r.sku == sku]
    assert reason in refused.reason and refused.payload_ref.endswith("bad-rows.json")
    [good] = result.records
    assert (good.instance_type, good.price_per_hour) == ("1x RTX 4090 24GB", 0.35)


def test_a_renamed_price_field_fails_the_source_naming_provider_and_url():
    with pytest.raises(ParseError) as error:
        parse([payload("bad-renamed-field.json")])
    message = str(error.value)
    assert message.startswith("lium:") and NODES_URL in message
    assert "price_per_gpu_hour" in message


def test_an_empty_feed_is_a_note_not_an_error():
    body = json.dumps({"generated_at": "2026-11-21T06:00:00Z", "count": 0, "nodes": []})
    result = parse([payload("empty.json", body.encode())])
    assert result.records == [] and "listed no nodes" in result.notes[0]


def test_fetch_archives_the_feed(tmp_path: Path):
    body = (FIXTURES / "nodes.json").read_bytes()
    ctx = FetchContext(
        archive=ArchiveWriter(tmp_path, STAMP, SOURCE.name),
        transport=httpx.MockTransport(lambda request: httpx.Response(200, content=body)),
        sleep=lambda s: None,
    )
    [fetched] = fetch(ctx)
    assert fetched.url == NODES_URL
    [archived] = read_payloads(tmp_path / STAMP, "lium")
    assert archived.data == body and len(parse([archived]).records) == 4
