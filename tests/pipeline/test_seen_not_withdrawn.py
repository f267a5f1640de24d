"""An offer is withdrawn only when its source ran whole and no longer lists it: an offer whose
row the parser refused was seen, and a source that failed or was refused withdraws nothing.

On main at 368c4bd a price the parser rejected closed its offer as withdrawn (back as "new" on
the next good run), while one the validator rejected kept its open price.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from chipcost.archive import ArchiveWriter
from chipcost.core.record import Reject
from chipcost.core.runs import FAILED, OK, RunResult
from chipcost.core.settings import load_settings
from chipcost.extract import registry
from chipcost.extract.verda import INSTANCE_TYPES_URL, PERIODS_URL
from chipcost.extract.vultr import METAL_URL, PLANS_URL
from chipcost.pipeline.collect import WarehouseSession, collect_source, load
from chipcost.pipeline.seed import open_warehouse
from chipcost.warehouse.db import connect
from chipcost.warehouse.load import load_run
from tests import helpers, warehouses
from tests.paths import FIXTURES

VULTR = FIXTURES / "vultr"
MI300X = "vbm-256c-2048gb-8-mi300x-gpu"


def archived(root: Path, day: int, files: list[tuple[str, str]]) -> Path:
    """One archived vultr run of `day` (November 2026) holding these fixture files."""
    moment = datetime(2026, 11, day, 6, 0, tzinfo=UTC)
    stamp = moment.strftime("%Y-%m-%dT%H%M%SZ")
    writer = ArchiveWriter(root, stamp, "vultr")
    for name, url in files:
        writer.write((VULTR / name).read_bytes(), url, ext="json", fetched_at=moment)
    writer.finish()
    return root / stamp


def replay(settings, run_dir: Path):
    result = collect_source(
        registry()["vultr"], settings=settings, stamp=run_dir.name, replay_dir=run_dir
    )
    when = result.observed_at or datetime(2026, 11, 1, tzinfo=UTC)
    with WarehouseSession(settings) as session:
        load(session, RunResult(f"{run_dir.name}-t", when, when, "replay", run_dir.name, False,
                                [result]))  # fmt: skip
    return result


def open_offers(db: Path) -> dict[str, str | None]:
    con = connect(db, read_only=True)
    try:
        rows = con.execute(
            "SELECT instance_type || ' ' || region || ' ' || pricing_model, end_reason "
            "FROM price_history WHERE valid_to IS NULL OR end_reason = 'withdrawn'"
        ).fetchall()
    finally:
        con.close()
    return dict(rows)


def test_an_offer_whose_price_the_parser_refused_is_not_withdrawn(tmp_path):
    settings = load_settings(db=warehouses.new(tmp_path / "w.duckdb"), data_dir=tmp_path)
    good = [("plans-metal.json", METAL_URL), ("plans.json", PLANS_URL)]
    replay(settings, archived(tmp_path / "a", 20, good))
    before = open_offers(settings.db_path)
    assert f"{MI300X} ord on_demand" in before
    # The next day the MI300X plan's price reads "$17.52/hr": refused by the parser.
    bad = [("bad-rows.json", METAL_URL), ("plans.json", PLANS_URL)]
    result = replay(settings, archived(tmp_path / "a", 21, bad))
    assert result.status == OK and MI300X in {r.sku for r in result.rejects}
    after = open_offers(settings.db_path)
    assert after[f"{MI300X} ord on_demand"] is None  # still open, not withdrawn


def test_a_source_that_fails_withdraws_nothing(tmp_path):
    settings = load_settings(db=warehouses.new(tmp_path / "w.duckdb"), data_dir=tmp_path)
    good = [("plans-metal.json", METAL_URL), ("plans.json", PLANS_URL)]
    replay(settings, archived(tmp_path / "a", 20, good))
    before = open_offers(settings.db_path)
    result = replay(settings, archived(tmp_path / "a", 21, [("bad-renamed-field.json", METAL_URL)]))
    assert result.status == FAILED and "hourly_cost" in result.message
    assert open_offers(settings.db_path) == before


@pytest.mark.parametrize(
    ("source", "good", "empty", "url"),
    [
        ("lium", "nodes.json", b'{"nodes": []}', "https://lium.io/api/public/v1/nodes"),
        ("hotaisle", "available.json", b"null", "https://admin.hotaisle.app/api/teams/t/"),
        ("vultr", "plans-metal.json", b'{"plans_metal": [], "meta": {}}', METAL_URL),
    ],
)
def test_an_empty_listing_fails_the_source_and_withdraws_nothing(
    tmp_path, source, good, empty, url
):
    """On main at 368c4bd Lium, Hot Aisle (and Vultr, CloudRift, DigitalOcean, Seeweb) took a
    listing with no offers as 'ok, 0 records' and closed every open offer as withdrawn."""
    settings = load_settings(db=warehouses.new(tmp_path / "w.duckdb"), data_dir=tmp_path)
    first = replay_of(
        settings,
        source,
        archived_files(tmp_path, source, 20, [(FIXTURES / source / good).read_bytes()], url),
    )
    assert first.status == OK and first.records
    before = open_offers(settings.db_path)
    result = replay_of(settings, source, archived_files(tmp_path, source, 21, [empty], url))
    assert result.status == FAILED and "gave no offer" in result.message, result.message
    assert open_offers(settings.db_path) == before


def archived_files(
    root: Path, source: str, day: int, bodies: list[bytes], url: str, ext: str = "json"
) -> Path:
    moment = datetime(2026, 11, day, 6, 0, tzinfo=UTC)
    stamp = moment.strftime("%Y-%m-%dT%H%M%SZ")
    writer = ArchiveWriter(root / "a", stamp, source)
    for body in bodies:
        writer.write(body, url, ext=ext, fetched_at=moment)
    writer.finish()
    return root / "a" / stamp


def replay_of(settings, source: str, run_dir: Path):
    result = collect_source(
        registry()[source], settings=settings, stamp=run_dir.name, replay_dir=run_dir
    )
    when = result.observed_at or datetime(2026, 11, 1, tzinfo=UTC)
    with WarehouseSession(settings) as session:
        load(session, RunResult(f"{run_dir.name}-{source}", when, when, "replay", run_dir.name,
                                False, [result]))  # fmt: skip
    return result


SPOT_JS = (FIXTURES / "aws-spot-feed" / "spot.js").read_text()
NEBIUS_PAGE = (FIXTURES / "nebius" / "prices-2026-08-22.html").read_text()


def two_days(tmp_path, source: str, url: str, ext: str, first: str, second: str):
    """`source` replayed from `first` (day 20), then from `second` (day 21): the second run's
    result, and the offers open or withdrawn after each."""
    settings = load_settings(db=warehouses.new(tmp_path / "w.duckdb"), data_dir=tmp_path)
    runs = []
    for day, body in ((20, first), (21, second)):
        run_dir = archived_files(tmp_path, source, day, [body.encode()], url, ext=ext)
        runs.append((replay_of(settings, source, run_dir), open_offers(settings.db_path)))
    (_, before), (result, after) = runs
    return result, before, after


@pytest.mark.parametrize(
    ("source", "url", "ext", "first", "second", "offer", "refused"),
    [
        # The feed prices p5.48xlarge in us-east as "$23.8843": the parser refuses it.
        ("aws-spot-feed", "https://website.spot.ec2.aws.a2z.com/spot.js", "js", SPOT_JS,
         SPOT_JS.replace('"23.8843"', '"$23.8843"'), "p5.48xlarge us-east-1 spot",
         "spot price '$23.8843' is not a positive number"),
        # Nebius's H100 preemptible price cell reads "ask us".
        ("nebius", "https://nebius.com/prices", "html", NEBIUS_PAGE,
         NEBIUS_PAGE.replace('\\"$2.15\\"', '\\"ask us\\"'), "NVIDIA HGX H100 global spot",
         "'ask us'"),
    ],
)  # fmt: skip
def test_a_refused_row_of_a_source_without_skus_keeps_its_offer_open(
    tmp_path, source, url, ext, first, second, offer, refused
):
    """On main at 0984e9d these rejects carried no sku, and withdrawal was spared only by a
    refused row's sku: the offer each belongs to was closed as withdrawn."""
    result, before, after = two_days(tmp_path, source, url, ext, first, second)
    assert result.status == OK
    assert [r.reason for r in result.rejects if refused in r.reason]
    assert before[offer] is None and after[offer] is None  # open, not withdrawn
    assert "withdrawn" not in after.values()


def test_a_region_the_feed_renames_keeps_its_offers_open(tmp_path):
    """us-east renamed us-east-n: a reject naming the region (add it to REGION_ALIASES), and
    the three us-east-1 offers stay open (they were withdrawn)."""
    renamed = SPOT_JS.replace('"region":"us-east"', '"region":"us-east-n"')
    url = "https://website.spot.ec2.aws.a2z.com/spot.js"
    result, before, after = two_days(tmp_path, "aws-spot-feed", url, "js", SPOT_JS, renamed)
    assert result.status == OK
    unknown = [r for r in result.rejects if "us-east-n" in r.reason]
    assert len(unknown) == 4 and all("REGION_ALIASES" in r.reason for r in unknown)
    east = {k for k in before if " us-east-1 " in k}
    assert len(east) == 3 and all(after[k] is None for k in east)


def test_a_size_the_feed_says_has_no_spot_market_is_withdrawn(tmp_path):
    """N/A is the feed's word that the size is not offered as spot there: not a misread price,
    so its offer is withdrawn."""
    gone = SPOT_JS.replace('"23.8843"', '"N/A*"')
    url = "https://website.spot.ec2.aws.a2z.com/spot.js"
    _, before, after = two_days(tmp_path, "aws-spot-feed", url, "js", SPOT_JS, gone)
    assert before["p5.48xlarge us-east-1 spot"] is None
    assert after["p5.48xlarge us-east-1 spot"] == "withdrawn"


def test_verda_periods_of_a_unit_not_known_keep_the_commitment_offers_open(tmp_path):
    """unit_name "week" in every long-term period: the 65 commitment offers were withdrawn
    without a word; now each period is a reject naming it, and they stay open."""
    settings = load_settings(db=warehouses.new(tmp_path / "w.duckdb"), data_dir=tmp_path)
    types = (FIXTURES / "verda" / "instance-types.json").read_bytes()
    periods = (FIXTURES / "verda" / "long-term-periods.json").read_text()
    weeks = periods.replace('"unit_name": "month"', '"unit_name": "week"')
    weeks = weeks.replace('"unit_name": "year"', '"unit_name": "week"')
    results = []
    for day, body in ((20, periods), (21, weeks)):
        moment = datetime(2026, 11, day, 6, 0, tzinfo=UTC)
        stamp = moment.strftime("%Y-%m-%dT%H%M%SZ")
        writer = ArchiveWriter(tmp_path / "a", stamp, "verda")
        writer.write(types, INSTANCE_TYPES_URL, ext="json", fetched_at=moment)
        writer.write(body.encode(), PERIODS_URL, ext="json", fetched_at=moment)
        writer.finish()
        results.append(replay_of(settings, "verda", tmp_path / "a" / stamp))
    assert results[1].status == OK
    assert len([r for r in results[1].rejects if "unit_name 'week'" in r.reason]) == 5
    con = connect(settings.db_path, read_only=True)
    try:
        ends = con.execute(
            "SELECT end_reason, count(*) FROM price_history WHERE pricing_model = 'commitment' "
            "GROUP BY ALL"
        ).fetchall()
    finally:
        con.close()
    assert ends == [(None, 65)]


@pytest.mark.parametrize("kind", ["file", "lake"])
def test_rejects_naming_different_fields_each_keep_open_only_what_they_name(
    tmp_path, request, kind
):
    """One run's rejects name their offers by different fields: the whole key, a region and a
    type, a sku. Each keeps open the offers agreeing with it on the fields it names and no
    other: the whole key of a spot price in us-east-1 keeps p5's on-demand offer there from
    nothing, though it agrees with it on every field the region-and-type reject names. The
    step is one match a set of fields named (warehouse/history_steps.py), in a file and in a
    lake (its catalog on a real PostgreSQL)."""
    region_type_sku = [
        ("us-east-1", "p5.48xlarge", "SKU1"),
        ("us-east-1", "p4d.24xlarge", "SKU2"),
        ("eu-west-1", "p5.48xlarge", "SKU3"),
        ("eu-west-1", "p4d.24xlarge", "SKU4"),
        ("us-west-2", "p5.48xlarge", "SKU5"),
    ]
    offers = [helpers.record(region=r, instance_type=t, sku=sku) for r, t, sku in region_type_sku]
    spot = helpers.record(region="us-east-1", pricing_model="spot", sku="")
    named = {"provider": "aws", "region": "eu-west-1", "instance_type": "p4d.24xlarge"}
    second = helpers.run_of(offers[-1:], helpers.day(1))
    second.sources[0].rejects = [
        Reject.of_record(spot, "price '$9.1' is not a number", {}),
        Reject(spot.source, "count 'x' is not a number", {}, offer=named),
        Reject(spot.source, "price 'x' is not a number", {}, sku="SKU2"),
    ]
    where = (
        warehouses.new(tmp_path / "w.duckdb") if kind == "file" else request.getfixturevalue(kind)
    )
    con = open_warehouse(where)
    try:
        load_run(con, helpers.run_of(offers, helpers.day(0)))
        load_run(con, second)
        ends = con.execute("SELECT sku, end_reason FROM price_history ORDER BY sku").fetchall()
    finally:
        con.close()
    assert ends == [
        ("SKU1", "withdrawn"),
        ("SKU2", None),
        ("SKU3", "withdrawn"),
        ("SKU4", None),
        ("SKU5", None),
    ]
