"""Exchange rates are plausible or refused, and a correction is kept beside what it corrects.

Two sample runs replayed for real, each with an ECB file in the ECB's layout (the 90-day
file's: one <Cube time=...> per day) that a hostile or broken mirror could serve: the dollar
at a millionth of a euro, the yen at 1e300, a day three times its neighbours; the second
file corrects the last day's dollar rate.
"""

from __future__ import annotations

import json
import math
import shutil
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import duckdb
import pytest

from chipcost.archive import ArchiveWriter, parse_stamp
from chipcost.core.settings import Settings
from chipcost.extract.ecb_rates import RATES_90D_URL
from tests.conftest import SAMPLE
from tests.lake_support import replay

RUNS = sorted(p for p in SAMPLE.iterdir() if p.is_dir())[:2]
HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?><gesmes:Envelope xmlns:gesmes="http://www.gesmes'
    '.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref"><gesmes:'
    "subject>Reference rates</gesmes:subject><gesmes:Sender><gesmes:name>European Central "
    "Bank</gesmes:name></gesmes:Sender><Cube>"
)


def ecb_file(days: dict[date, dict[str, str]]) -> bytes:
    cubes = "".join(
        f'<Cube time="{day}">'
        + "".join(f'<Cube currency="{c}" rate="{r}"/>' for c, r in rates.items())
        + "</Cube>"
        for day, rates in sorted(days.items(), reverse=True)
    )
    return (HEAD + cubes + "</Cube></gesmes:Envelope>").encode()


def usual(day: date) -> dict[str, str]:
    return {"USD": "1.0812", "JPY": "162.35", "GBP": "0.8521"}


def with_ecb_file(root: Path, run: Path, days: dict[date, dict[str, str]]) -> Path:
    """A copy of sample run `run` whose ecb-rates payload is `days`."""
    target = root / run.name
    shutil.copytree(run, target, ignore=shutil.ignore_patterns("ecb-rates"))
    writer = ArchiveWriter(root, run.name, "ecb-rates", sample=True)
    writer.write(ecb_file(days), RATES_90D_URL, fetched_at=parse_stamp(run.name), ext="xml")
    return target


@pytest.fixture(scope="module")
def loaded(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("fx")
    first = date(2026, 11, 13)
    days = {first - timedelta(days=n): usual(first) for n in range(10)}
    days[first - timedelta(days=2)] = {**usual(first), "USD": "0.000001"}  # 1e-6
    days[first - timedelta(days=3)] = {**usual(first), "JPY": "1e300"}
    days[first - timedelta(days=4)] = {**usual(first), "GBP": "2.6"}  # in bounds, 3x a jump
    later = {**{d: r for d, r in days.items() if d > first - timedelta(days=9)}}
    later[first] = {**usual(first), "USD": "1.0850"}  # the ECB corrects its last day
    runs = [with_ecb_file(root, RUNS[0], days), with_ecb_file(root, RUNS[1], later)]
    db = root / "w.duckdb"
    replay(Settings(data_dir=root, db_path=db), runs)
    return db


def test_implausible_rates_are_refused_each_with_its_reason(loaded):
    with duckdb.connect(str(loaded), read_only=True) as con:
        # the ecb-rates file's (the sample's euro sources archived a daily file of 2017 too)
        stored = con.sql(
            "SELECT currency, min(per_eur), max(per_eur) FROM fx_rates "
            "WHERE source = 'ecb-rates' GROUP BY 1"
        )
        ranges = {c: (low, high) for c, low, high in stored.fetchall()}
        reasons = [r for (r,) in con.sql("SELECT reason FROM rejects WHERE source = 'ecb-rates'")
                   .fetchall()]  # fmt: skip
    assert ranges["USD"] == (1.0812, 1.085) and ranges["JPY"] == (162.35, 162.35)
    assert ranges["GBP"] == (0.8521, 0.8521)
    said = "\n".join(reasons)
    assert "USD at 1e-06 per euro is outside 0.08252 to 15.99" in said, said
    assert "JPY at 1e+300 per euro is outside 8.93 to 1753.9" in said
    assert "GBP at 2.6 per euro on 2026-11-09 is 3.05x from the median 0.8521" in said


def test_a_correction_is_kept_beside_the_rate_it_corrects_and_used(loaded, run):
    with duckdb.connect(str(loaded), read_only=True) as con:
        kept = con.sql(
            "SELECT per_eur, payload_ref FROM fx_rates WHERE day = '2026-11-13' "
            "AND currency = 'USD' ORDER BY observed_at"
        ).fetchall()
    assert [rate for rate, _ in kept] == [1.0812, 1.085]
    assert kept[0][1].startswith(RUNS[0].name) and kept[1][1].startswith(RUNS[1].name)
    done = run("prices", "--currency", "EUR", "--format", "json", "--db", str(loaded))
    assert done.returncode == 0, done.stderr[-2000:]
    rows = json.loads(done.stdout)
    assert rows and all(math.isfinite(r["price_per_chip_hour"]) for r in rows)
    newest = [r for r in rows if r["rate_day"] == "2026-11-13"]
    assert newest and all(r["usd_rate"] == pytest.approx(1 / 1.085) for r in newest)
    said = " ".join(done.stderr.split())
    assert "the rate of 2026-11-13 as a later ECB file corrected it" in said, said


def test_the_same_file_again_adds_no_observation(loaded, tmp_path):
    db = tmp_path / "again.duckdb"
    shutil.copy(loaded, db)
    with duckdb.connect(str(db), read_only=True) as con:
        before = con.sql("SELECT count(*) FROM fx_rates").fetchall()
    root = tmp_path / "again"
    day = date(2026, 11, 13)
    stamp = datetime(2026, 11, 16, 6, tzinfo=UTC).strftime("%Y-%m-%dT%H%M%SZ")
    ArchiveWriter(root, stamp, "ecb-rates").write(
        ecb_file({day: {**usual(day), "USD": "1.0850"}}), RATES_90D_URL,
        fetched_at=parse_stamp(stamp), ext="xml",
    )  # fmt: skip
    replay(Settings(data_dir=tmp_path, db_path=db), [root / stamp])
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.sql("SELECT count(*) FROM fx_rates").fetchall() == before
