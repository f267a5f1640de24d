"""A run archived before the ecb-rates source existed, replayed: Seeweb's plans and the ECB
daily file that version fetched beside them to store the plans in US dollars
(tests/fixtures/seeweb/archive-bcd7f3e1, one run of chipcost's own synthetic sample archive at
that commit, byte for byte). The file's rates are loaded as fx_rates rows naming it, so every
Seeweb price reads in US dollars at the rate the run fetched; a rate of the same day observed
later still converts instead (warehouse/fx.py)."""

from __future__ import annotations

import json
import shutil
from datetime import date

import duckdb
import pytest

from chipcost.archive import ArchiveWriter, parse_stamp
from chipcost.extract.ecb_rates import RATES_90D_URL
from tests.cli_runner import chipcost
from tests.paths import FIXTURES

OLD = FIXTURES / "seeweb" / "archive-bcd7f3e1"
DAILY = "2026-11-21T060000Z/seeweb/0002.xml.gz"


@pytest.fixture(scope="module")
def replayed(tmp_path_factory):
    db = tmp_path_factory.mktemp("old") / "w.duckdb"
    done = chipcost("collect", "--replay", str(OLD), "--db", str(db))
    assert done.returncode == 0, done.stderr[-2000:]
    return db


def seeweb_prices(db) -> tuple[list[dict], str]:
    done = chipcost("prices", "--provider", "seeweb", "--format", "json", "--db", str(db))
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout), " ".join(done.stderr.split())


def test_the_daily_file_beside_the_plans_is_loaded_naming_its_payload(replayed):
    with duckdb.connect(str(replayed), read_only=True) as con:
        rates = con.sql(
            "SELECT day, currency, per_eur, source, payload_ref FROM fx_rates ORDER BY currency"
        ).fetchall()
    assert rates == [
        (date(2026, 11, 20), currency, rate, "seeweb", DAILY)
        for currency, rate in [("CHF", 0.9391), ("EUR", 1.0), ("GBP", 0.8521), ("JPY", 162.35),
                               ("USD", 1.0934)]
    ]  # fmt: skip


def test_every_seeweb_price_reads_in_us_dollars_at_the_rate_the_run_fetched(replayed):
    rows, said = seeweb_prices(replayed)
    assert len(rows) == 14 and "left out" not in said, said  # none for want of a rate
    l40s = {(r["instance_type"], r["region"]): r for r in rows}[("ECS1GPU7", "it-fr2")]
    assert (l40s["currency"], l40s["stated_currency"]) == ("USD", "EUR")
    assert l40s["price_per_chip_hour"] == pytest.approx(0.85 * 1.0934)


def test_a_rate_of_the_day_observed_later_converts_instead(replayed, tmp_path):
    # The ECB's 90-day file fetched a day later gives 2026-11-20 another rate: both are kept,
    # each with its payload, and the one observed last converts (warehouse/fx.py).
    db = shutil.copy(replayed, tmp_path / "w.duckdb")
    later = tmp_path / "later"
    stamp = "2026-11-22T060000Z"
    ninety_days = (
        '<?xml version="1.0" encoding="UTF-8"?><gesmes:Envelope><Cube><Cube time="2026-11-20">'
        '<Cube currency="USD" rate="1.0779"/></Cube></Cube></gesmes:Envelope>'
    )
    ArchiveWriter(later, stamp, "ecb-rates").write(
        ninety_days.encode(), RATES_90D_URL, fetched_at=parse_stamp(stamp), ext="xml"
    )
    done = chipcost("collect", "--replay", str(later), "--db", str(db))
    assert done.returncode == 0, done.stderr[-2000:]
    with duckdb.connect(str(db), read_only=True) as con:
        usd = con.sql(
            "SELECT per_eur, source FROM fx_rates WHERE currency = 'USD' ORDER BY observed_at"
        ).fetchall()
    assert usd == [(1.0934, "seeweb"), (1.0779, "ecb-rates")]
    rows, _ = seeweb_prices(db)
    l40s = {(r["instance_type"], r["region"]): r for r in rows}[("ECS1GPU7", "it-fr2")]
    assert l40s["price_per_chip_hour"] == pytest.approx(0.85 * 1.0779)
