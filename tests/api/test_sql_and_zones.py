"""chipcost.sql() under `chipcost sql`'s guard and limits, and chipcost.prices() giving each
spot offer once, on a real DuckDB file: the bundled sample's two newest runs replayed (AWS spot
priced per zone in several regions)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import polars as pl
import pytest

import chipcost
from chipcost.core.errors import ChipcostError
from tests import warehouses


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    return warehouses.sample(tmp_path_factory.mktemp("zones") / "w.duckdb", last=2)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_sql_returns_a_polars_frame_of_the_query(db):
    frame = chipcost.sql("SELECT archive_run, records FROM runs ORDER BY observed_at", db=db)
    assert isinstance(frame, pl.DataFrame)
    assert frame["archive_run"].to_list() == ["2026-11-20T060000Z", "2026-11-21T060000Z"]
    assert frame["records"].dtype.is_integer() and frame["records"].min() > 0
    empty = chipcost.sql("SELECT * FROM runs WHERE false", db=db)
    assert empty.is_empty() and "run_id" in empty.columns


def test_sql_gives_every_interval_column_as_text_whatever_its_values(db):
    """One type per column, as docs/api.md says: an hours-only INTERVAL is text too."""
    frame = chipcost.sql(
        "SELECT INTERVAL 3 HOUR AS h, INTERVAL 2 MONTH AS m, v FROM (VALUES "
        "(INTERVAL 1 DAY), (INTERVAL 90 MINUTE)) t(v)",
        db=db,
    )
    assert frame.schema == {"h": pl.String, "m": pl.String, "v": pl.String}
    assert frame.rows() == [("03:00:00", "2 months", "1 day"), ("03:00:00", "2 months", "01:30:00")]


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("DELETE FROM price_history", "a DELETE statement is refused"),
        ("SELECT 1; SELECT 2", "give exactly one SQL statement"),
        ("SELECT * FROM read_csv('/etc/passwd')", "reads only the warehouse"),
        ("ATTACH ':memory:' AS other", "ATTACH"),
    ],
)
def test_sql_refuses_what_chipcost_sql_refuses_and_changes_nothing(db, query, said):
    before = digest(db)
    with pytest.raises(ChipcostError, match=said):
        chipcost.sql(query, db=db)
    assert digest(db) == before


def test_sql_runs_within_the_read_limits(db, monkeypatch):
    monkeypatch.setenv("CHIPCOST_SQL_TIMEOUT", "1")
    runaway = "SELECT count(*) FROM range(1000000000) a, range(1000000000) b"
    with pytest.raises(ChipcostError, match=r"ran past 1 s \(CHIPCOST_SQL_TIMEOUT\)"):
        chipcost.sql(runaway, db=db)


def test_sql_says_db_in_the_apis_words(tmp_path):
    with pytest.raises(ChipcostError, match="db=") as refused:
        chipcost.sql("SELECT 1", db=tmp_path / "none.duckdb")
    assert "--db" not in str(refused.value)


def test_spot_prices_give_each_zone_offer_once_and_mark_the_cheapest(db):
    spot = chipcost.prices(pricing_model="spot", provider="aws", db=db)
    assert "region_cheapest" not in spot["plan"].to_list()
    # Every zone's offer once: as many rows, and the same sum, as the zone prices stored.
    [(zones, total)] = chipcost.sql(
        "SELECT count(*), sum(price_per_hour) FROM current_prices "
        "WHERE provider = 'aws' AND pricing_model = 'spot' AND chip_count > 0",
        db=db,
    ).rows()
    assert spot.height == zones
    assert spot["price_per_hour"].sum() == pytest.approx(total)
    # One zone marked per region and instance type: the one spot_region_cheapest names.
    marked = spot.filter(pl.col("cheapest_in_region"))
    cheapest = chipcost.sql(
        "SELECT region, instance_type, cheapest_zone AS zone, price_per_hour "
        "FROM spot_region_cheapest WHERE provider = 'aws' AND chip_count > 0",
        db=db,
    )
    key = ["region", "instance_type", "zone"]
    assert marked.select(*key, "price_per_hour").sort(key).equals(cheapest.sort(key))
    # A zone's row is marked True or False; a spot price per region (the public spot feed's)
    # has no zones to choose from: null.
    zoned = pl.col("zone") != ""
    assert spot.filter(zoned)["cheapest_in_region"].null_count() == 0
    assert spot.filter(~zoned)["cheapest_in_region"].is_null().all()
    others = spot.filter(~pl.col("cheapest_in_region"))
    assert others.height > 0
    # None of the others is cheaper than its region's marked zone.
    joined = others.join(marked, on=["region", "instance_type"], suffix="_cheapest")
    assert (joined["price_per_hour"] >= joined["price_per_hour_cheapest"]).all()


def test_an_offer_priced_without_zones_has_no_mark(db):
    listed = chipcost.prices("H100-SXM", pricing_model="on_demand", db=db)
    assert listed.height > 0 and listed["cheapest_in_region"].is_null().all()
