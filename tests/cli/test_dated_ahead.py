"""Time is bounded both ways: a run stamped ahead of the clock is refused before anything
loads; a warehouse that already holds one says so and `remove-run` restates the history as
if it had never loaded; no read expands days that have not come.

The runs are the bundled sample archive's, replayed for real; the run dated ahead is the
sample's last vastai payloads under a 2099 stamp, as an edited archive or a wrong clock
leaves them.
"""

from __future__ import annotations

import json
import shutil
import warnings
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import duckdb
import pytest

import chipcost
from chipcost.core.errors import MissingRateWarning
from chipcost.core.settings import Settings
from chipcost.pipeline import clock
from tests import warehouses
from tests.conftest import SAMPLE
from tests.lake_support import replay

AHEAD = "2099-01-01T060000Z"
RUNS = sorted(p for p in SAMPLE.iterdir() if p.is_dir())
# The history's columns a restatement must give back (the run ids are new on every replay).
_COLUMNS = (
    "source, region, zone, instance_type, pricing_model, term, payment, plan, price_per_hour, "
    "valid_from, valid_to, end_reason, last_seen_at"
)


def dated_ahead(root: Path, source: str = "vastai") -> Path:
    """The sample's last run of `source` under a 2099 stamp, its payloads dated to match."""
    target = root / AHEAD / source
    shutil.copytree(RUNS[-1] / source, target)
    manifest = json.loads((target / "manifest.json").read_text())
    manifest["run"] = AHEAD
    for payload in manifest["payloads"]:
        payload["fetched_at"] = "2099-01-01T06:00:00+00:00"
    (target / "manifest.json").write_text(json.dumps(manifest))
    return root / AHEAD


def test_a_run_stamped_ahead_of_the_clock_is_refused_before_anything_loads(tmp_path, run):
    archive = tmp_path / "archive"
    shutil.copytree(RUNS[-2], archive / RUNS[-2].name)
    dated_ahead(archive)
    db = tmp_path / "w.duckdb"
    done = run("collect", "--replay", str(archive), "--db", str(db))
    assert done.returncode == 1, done.stdout[-1000:]
    assert "Traceback" not in done.stderr
    said = " ".join(done.stderr.split())
    assert f"archived run {archive / AHEAD} is stamped 2099-01-01 06:00:00 UTC" in said, said
    assert "ahead of this machine's clock (20" in said and "nothing was loaded" in said, said
    if db.exists():  # nothing of the earlier, good run either: the replay is refused whole
        with duckdb.connect(str(db), read_only=True) as con:
            assert con.sql("SELECT count(*) FROM runs").fetchall() == [(0,)]


def _history(db: Path) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.sql(f"SELECT {_COLUMNS} FROM price_history ORDER BY ALL").fetchall()


@pytest.fixture(scope="module")
def _made_ahead(tmp_path_factory) -> tuple[Path, Path]:
    """The two warehouses of `holding_ahead`, made once for this file's tests: a warehouse
    that loaded the 2099 run between the sample's last two (as versions that did not check
    the stamp against the clock did), and those two runs as a replay leaves them (never saw
    it)."""
    root = tmp_path_factory.mktemp("ahead")
    ahead = dated_ahead(root / "archive")
    bad = warehouses.new(root / "bad.duckdb")
    good = warehouses.sample(root / "good.duckdb", last=2)
    bad_settings = Settings(data_dir=root, db_path=bad)
    replay(bad_settings, RUNS[-2:-1])
    with pytest.MonkeyPatch.context() as old_version:
        old_version.setattr(clock, "AHEAD_OF_NOW", timedelta(days=365_000))
        replay(bad_settings, [ahead])
    replay(bad_settings, RUNS[-1:])
    return bad, good


@pytest.fixture
def holding_ahead(_made_ahead, tmp_path) -> tuple[Path, Path]:
    """Each test's own copies of the two warehouses (`remove-run` changes the first)."""
    return tuple(Path(shutil.copyfile(made, tmp_path / made.name)) for made in _made_ahead)


def test_a_warehouse_holding_a_run_dated_ahead_says_so_and_remove_run_restates(holding_ahead, run):
    bad, good = holding_ahead
    assert _history(bad) != _history(good)  # the 2099 run hid the last run's vastai prices
    with duckdb.connect(str(bad), read_only=True) as con:
        [(ahead_id,)] = con.sql(f"SELECT run_id FROM runs WHERE archive_run = '{AHEAD}'").fetchall()
    shown = run("sources", "--db", str(bad))
    said = " ".join(shown.stdout.split())
    assert f"dated ahead: vastai's last successful run {ahead_id}" in said, said
    assert f"chipcost remove-run {ahead_id}" in said
    prices = run("prices", "--provider", "vastai", "--db", str(bad))
    assert f"chipcost remove-run {ahead_id}" in " ".join(prices.stdout.split())
    # the export's rows in force are dated so too (on 7bbc9462 it said nothing of it)
    exported = run("export", "--out", str(bad.parent / "focus"), "--db", str(bad))
    assert f"chipcost remove-run {ahead_id}" in " ".join(exported.stdout.split())

    done = run("remove-run", ahead_id, "--db", str(bad))
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"run {ahead_id} removed" in done.stdout
    assert _history(bad) == _history(good)
    after = run("sources", "--db", str(bad))
    assert "dated ahead" not in after.stdout
    again = run("remove-run", ahead_id, "--db", str(bad))
    assert again.returncode == 2 and f"run {ahead_id!r} is not in the warehouse" in again.stderr
    assert "`chipcost sources --runs` lists its runs" in again.stderr


def test_no_read_expands_days_to_come(holding_ahead, run):
    bad, good = holding_ahead
    newest = date.fromisoformat(RUNS[-1].name[:10])
    today = datetime.now(UTC).date()
    # The day of the newest real run; with a run dated 2099 in the file, today, never 2099.
    for db, last in ((good, newest), (bad, today)):
        with warnings.catch_warnings():
            # The file holding a run dated 2099 reads up to today: once today is more than 7
            # days past the sample's last ECB rate, its euro prices of those days are said as
            # left out (tests/cli/test_missing_rate.py); here the days are the point.
            warnings.simplefilter("ignore", MissingRateWarning)
            frame = chipcost.history(chip="H100", until=date(9999, 12, 31), db=db)
            index = chipcost.index(chip="H100", since="2026-11-01", until="9999-12-31", db=db)
        assert frame["day"].max() == last, db
        assert index["day"].max() == last
    done = run("history", "--chip", "H100", "--until", "2027-11-25", "--format", "csv",
               "--db", str(good))  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert max(line[:10] for line in done.stdout.splitlines()[1:]) == str(newest)
    said = " ".join(done.stderr.split())
    assert f"--until 2027-11-25 is past the newest prices ({newest}): the days are cut" in said
    index = run("index", "--chip", "H100", "--until", "9999-12-31", "--db", str(good))
    assert f"is past the newest prices ({newest})" in " ".join(index.stdout.split())
