"""chipcost backfill: three recorded EC2 price list versions served over local HTTP.

The versions (tests/fixtures/aws-bulk/offers/v1.0/aws/AmazonEC2/index.json): 2023-08-01 (an
older header, p5.48xlarge at 98.32), 2025-04-01 (g6e.xlarge appears) and 2025-06-01 (the
June 2025 cut to 55.04; g5.xlarge gone). History must come out dated by those versions.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from datetime import UTC, date, datetime
from pathlib import Path

import duckdb
import pytest

from chipcost.core.errors import ChipcostError
from chipcost.core.settings import Settings, SourceSettings, load_settings
from chipcost.extract._http import MAX_ATTEMPTS
from chipcost.pipeline.backfill import Progress, backfill, parse_since, versions_since
from tests.cli_runner import chipcost
from tests.paths import FIXTURES
from tests.price_files_server import Faults, serve

FIXTURES = FIXTURES / "aws-bulk"
CHIPCOST = str(Path(sys.executable).with_name("chipcost"))
EC2 = "/offers/v1.0/aws/AmazonEC2"
V1, V2, V3 = "20230825183306", "20250415191720", "20251201190623"
V3_CSV = f"{EC2}/{V3}/us-east-1/index.csv"


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def query(db: Path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        con.execute("SET TimeZone = 'UTC'")
        return con.execute(sql).fetchall()
    finally:
        con.close()


def history(db: Path, instance_type: str, model: str = "on_demand") -> list[tuple]:
    return query(
        db,
        "SELECT valid_from, valid_to, end_reason, price_per_hour FROM price_history "
        f"WHERE source = 'aws-bulk' AND instance_type = '{instance_type}' "
        f"AND pricing_model = '{model}' ORDER BY valid_from",
    )


class Recorder(Progress):
    def __init__(self) -> None:
        self.events: list[str] = []

    def start(self, total: int) -> None:
        self.events.append(f"start {total}")

    def version(self, version, position: int) -> None:
        self.events.append(f"version {position} {version.version}")

    def done(self, outcome) -> None:
        self.events.append(f"done {outcome.version.version} {outcome.status}")


def run(tmp_path: Path, url: str, progress: Progress | None = None, since: date = date(2023, 1, 1)):
    settings = Settings(
        data_dir=tmp_path,
        db_path=tmp_path / "w.duckdb",
        sources=SourceSettings(aws_price_list_url=url),
    )
    return backfill(settings, since, ("us-east-1",), progress=progress, sleep=lambda seconds: None)


def test_versions_load_in_order_with_history_at_their_effective_dates(tmp_path):
    recorder = Recorder()
    with serve(FIXTURES) as server:
        outcomes = run(tmp_path, server.url, recorder)
    assert [(o.version.version, o.status) for o in outcomes] == [
        (V1, "loaded"),
        (V2, "loaded"),
        (V3, "loaded"),
    ]
    assert recorder.events[0] == "start 3" and recorder.events[-1] == f"done {V3} loaded"
    db = tmp_path / "w.duckdb"
    assert history(db, "p5.48xlarge") == [
        (utc("2023-08-01"), utc("2025-06-01"), "changed", 98.32),
        (utc("2025-06-01"), None, None, 55.04),
    ]
    assert history(db, "g5.xlarge")[0][:3] == (utc("2023-08-01"), utc("2025-06-01"), "withdrawn")
    assert history(db, "g6e.xlarge")[0][:2] == (utc("2025-04-01"), None)
    reserved = history(db, "p5.48xlarge", "reserved")
    assert len(reserved) == 24 and {r[0] for r in reserved} == {
        utc("2023-08-01"),
        utc("2025-06-01"),
    }
    runs = query(db, "SELECT archive_run, mode, status, observed_at FROM runs ORDER BY observed_at")
    assert runs == [
        ("2023-08-01T000000Z", "backfill", "ok", utc("2023-08-01")),
        ("2025-04-01T000000Z", "backfill", "ok", utc("2025-04-01")),
        ("2025-06-01T000000Z", "backfill", "ok", utc("2025-06-01")),
    ]
    # Provenance: every price points at its archived extract and AWS's versioned file.
    (ref, url) = query(
        db,
        "SELECT payload_ref, source_url FROM price_history WHERE instance_type = 'p5.48xlarge' "
        "AND pricing_model = 'on_demand' AND valid_to IS NULL",
    )[0]
    assert ref.startswith("2025-06-01T000000Z/aws-bulk/") and url.endswith(V3_CSV)
    assert (tmp_path / "archive" / ref).is_file()


def test_a_rerun_adds_nothing_and_downloads_nothing(tmp_path):
    with serve(FIXTURES) as server:
        run(tmp_path, server.url)
        counts = query(
            tmp_path / "w.duckdb",
            "SELECT (SELECT count(*) FROM observations), (SELECT count(*) FROM price_history)",
        )
        server.requests.clear()
        again = run(tmp_path, server.url)
    assert {o.status for o in again} == {"already loaded"}
    assert not [path for path, _ in server.requests if path.endswith(".csv")]
    assert (
        query(
            tmp_path / "w.duckdb",
            "SELECT (SELECT count(*) FROM observations), (SELECT count(*) FROM price_history)",
        )
        == counts
    )


def test_an_interrupted_backfill_resumes_where_it_stopped(tmp_path):
    tries = MAX_ATTEMPTS + 1  # every attempt cut at 5,000 bytes and restarted: no progress
    faults = Faults(cut_at={V3_CSV: [5000] * tries}, ignore_range={V3_CSV})
    with serve(FIXTURES, faults) as server:
        first = run(tmp_path, server.url)
        assert [o.status for o in first] == ["loaded", "loaded", "failed"]
        assert V3_CSV in first[-1].message and "run again" in first[-1].message
        assert history(tmp_path / "w.duckdb", "p5.48xlarge")[-1][1:] == (None, None, 98.32)
        faults.ignore_range.clear()
        second = run(tmp_path, server.url)
    assert [o.status for o in second] == ["already loaded", "already loaded", "loaded"]
    assert server.hits(V3_CSV)[-1] == "bytes=5000-"  # the .part of the first run is resumed
    assert len(server.hits(f"{EC2}/{V3}/region_index.json")) == 1  # archived, not refetched
    assert history(tmp_path / "w.duckdb", "p5.48xlarge")[-1][0] == utc("2025-06-01")


def test_a_file_that_is_not_utf8_stops_its_version_in_one_line_and_is_archived(tmp_path):
    # UTF-16, as a server or a proxy may re-encode it: it was a UnicodeDecodeError traceback,
    # the file lost; then the same command, once the file is right, loads the version.
    served = tmp_path / "served"
    shutil.copytree(FIXTURES, served)
    recorded = served / V3_CSV.lstrip("/")
    recorded.write_bytes(recorded.read_text("utf-8").encode("utf-16"))
    with serve(served) as server:
        first = run(tmp_path, server.url)
        assert [o.status for o in first] == ["loaded", "loaded", "failed"]
        message = first[-1].message
        assert "is UTF-16 text" in message and V3_CSV in message and "run again" in message
        ref = re.search(r"archived as (\S+\.csv\.gz)", message)[1]
        assert (tmp_path / "archive" / ref).is_file()
        shutil.copy(FIXTURES / V3_CSV.lstrip("/"), recorded)
        second = run(tmp_path, server.url)
    assert [o.status for o in second] == ["already loaded", "already loaded", "loaded"]
    assert history(tmp_path / "w.duckdb", "p5.48xlarge")[-1][0] == utc("2025-06-01")


def test_an_html_page_served_for_a_price_file_is_named_as_such(tmp_path):
    # A 200 "Access Denied" page of one line was "ends before its header line (1 line(s)):
    # the file is cut off".
    served = tmp_path / "served"
    shutil.copytree(FIXTURES, served)
    page = b"<html><head><title>Access Denied</title></head><body>Denied</body></html>\n"
    (served / V3_CSV.lstrip("/")).write_bytes(page)
    with serve(served) as server:
        outcomes = run(tmp_path, server.url)
    assert [o.status for o in outcomes] == ["loaded", "loaded", "failed"]
    message = outcomes[-1].message
    assert "is an HTML page ('Access Denied') sent instead of the file" in message
    assert "not an AWS price list CSV" in message and "CHIPCOST_AWS_PRICE_LIST_URL" in message
    assert "cut off" not in message and V3_CSV in message


def test_since_picks_the_versions_in_effect_from_that_date():
    import json

    index = json.loads((FIXTURES / EC2.lstrip("/") / "index.json").read_text())
    chosen, _ = versions_since(index, date(2025, 5, 1))
    assert [v.version for v in chosen] == [V2, V3]
    chosen, _ = versions_since(index, date(2025, 6, 1))
    assert [v.version for v in chosen] == [V3]
    republished = dict(index["versions"][V3], offerVersionUrl=f"{EC2}/20251202000000/index.json")
    index["versions"]["20251202000000"] = republished
    chosen, skipped = versions_since(index, date(2025, 6, 1))
    assert [v.version for v in chosen] == ["20251202000000"]
    assert skipped[0].version.version == V3 and "superseded by 20251202000000" in skipped[0].message


@pytest.mark.parametrize(
    "dates",
    [
        {"versionEffectiveEndDate": "soon"},
        {"versionEffectiveBeginDate": 5},
        {"versionEffectiveEndDate": 5},
        {"versionEffectiveBeginDate": None},
        {"versionEffectiveBeginDate": "0001-01-01T00:00:00Z"},
    ],
)
def test_a_version_whose_dates_are_not_times_is_left_out(dates):
    """On 2487f4c each of these was a traceback (ValueError, AttributeError, and for the year
    1 an OverflowError when its history was loaded)."""
    import json

    index = json.loads((FIXTURES / EC2.lstrip("/") / "index.json").read_text())
    index["versions"][V3] = {**index["versions"][V3], **dates}
    chosen, _ = versions_since(index, date(2023, 1, 1))
    assert V3 not in [v.version for v in chosen] and [v.version for v in chosen][:1] == [V1]


def test_a_version_index_that_is_not_an_object_is_refused():
    with pytest.raises(ChipcostError, match="lists no versions"):
        versions_since([1, 2], date(2023, 1, 1))


def test_a_version_without_region_files_is_skipped_and_archives_nothing(tmp_path):
    root = tmp_path / "aws"
    shutil.copytree(FIXTURES, root)
    (root / EC2.lstrip("/") / V1 / "region_index.json").unlink()
    with serve(root) as server:
        outcomes = run(tmp_path / "data", server.url)
    assert [o.status for o in outcomes] == ["skipped", "loaded", "loaded"]
    assert "no region index for version" in outcomes[0].message
    assert not (tmp_path / "data" / "archive" / "2023-08-01T000000Z").exists()


def test_a_refused_region_index_fails_its_version_not_skips_it(tmp_path):
    """A 403 that is not S3's error document (a proxy's page; a bot check's "Just a
    moment...") on one version's region index: on fc78b66b the version was skipped as one AWS
    publishes no index for ("start --since later"), and the backfill went on, exit 0."""
    index = f"{EC2}/{V2}/region_index.json"
    with serve(FIXTURES, Faults(status={index: [403]})) as server:
        outcomes = run(tmp_path, server.url, since=date(2025, 5, 1))
    assert [(o.version.version, o.status) for o in outcomes] == [(V2, "failed")]
    message = outcomes[0].message
    assert f"GET {server.url}{index} answered 403" in message and "run again" in message
    assert "since" not in message
    assert not (tmp_path / "archive" / outcomes[0].version.stamp).exists()  # nothing of it kept


def test_a_bad_date_is_explained():
    with pytest.raises(ChipcostError, match="write one that exists as YYYY-MM-DD"):
        parse_since("2024-13-01")
    with pytest.raises(ChipcostError, match="write one that exists"):
        parse_since("2025-02-30")
    # A day to come would load the current version and then refuse every older one for good.
    with pytest.raises(ChipcostError, match=r"--since 2026-11-24 is in the future \(today is"):
        parse_since("2026-11-24", today=date(2026, 11, 23))
    assert parse_since("2026-11-23", today=date(2026, 11, 23)) == date(2026, 11, 23)


@pytest.fixture
def command_env(tmp_path) -> dict[str, str]:
    """The environment of a `chipcost backfill` (no Prefect: its flow is tested in
    tests/flows/test_backfill_flow.py), this test's data."""
    return {**os.environ, "CHIPCOST_DATA_DIR": str(tmp_path)}


def test_the_command_backfills_and_prints_what_it_loaded(tmp_path, command_env):
    args = ["backfill", "--since", "2025-05-01", "--region", "us-east-1"]
    with serve(FIXTURES) as server:
        env = {**command_env, "CHIPCOST_AWS_PRICE_LIST_URL": server.url}
        result = chipcost(*args, env=env)
    assert result.returncode == 0, result.stderr
    assert V2 in result.stdout and V3 in result.stdout and V1 not in result.stdout
    loaded = re.findall(r" to \S+ +loaded ", result.stdout)  # the status column
    assert len(loaded) == 2 and "2025-06-01 to now" in result.stdout
    assert (tmp_path / "chipcost.duckdb").is_file()


def test_ctrl_c_says_which_versions_were_loaded_and_that_a_rerun_resumes(tmp_path, command_env):
    # The newer version's file comes at 512 bytes a second (four minutes in all): the older
    # version is loaded and the newer one downloading when Ctrl-C comes. The command stops the
    # download at once and keeps its part.
    args = [CHIPCOST, "backfill", "--since", "2025-05-01", "--region", "us-east-1"]
    db = tmp_path / "chipcost.duckdb"
    with serve(FIXTURES, Faults(trickle={V3_CSV: 512})) as server:
        env = {**command_env, "CHIPCOST_AWS_PRICE_LIST_URL": server.url}
        command = subprocess.Popen(args, stderr=subprocess.PIPE, text=True, env=env)
        deadline = time.monotonic() + 120
        while not server.hits(V3_CSV) or not _runs_in(db):
            assert command.poll() is None and time.monotonic() < deadline, command.stderr.read()
            time.sleep(0.05)
        # The older version's commit is visible once the command lets the file go, an instant
        # before it counts the version as loaded; the newer one's download still has minutes
        # to run, so a second's wait puts Ctrl-C where a person's would come.
        time.sleep(1.0)
        command.send_signal(signal.SIGINT)
        interrupted = time.monotonic()
        _, err = command.communicate(timeout=120)
        took = time.monotonic() - interrupted
    assert command.returncode == 130, err
    assert took < 45, f"the command took {took:.0f} s to stop: it waited for the download"
    parts = list((tmp_path / "downloads").rglob("*.part"))
    assert len(parts) == 1 and parts[0].stat().st_size > 0, "the part is kept to resume from"
    assert "Traceback" not in err
    assert f"interrupted: 1 version loaded ({V2}) into {db}; nothing of the version" in err, err
    assert "Run the same command again: it resumes where it stopped" in err
    assert _runs_in(db) == 1, "the version under way must leave nothing"


def _runs_in(db: Path) -> int:
    """The runs the warehouse holds (0 while it is not there yet, or busy)."""
    try:
        con = duckdb.connect(str(db), read_only=True)
    except duckdb.Error:
        return 0
    try:
        return con.execute("SELECT count(*) FROM runs").fetchone()[0]
    except duckdb.Error:
        return 0
    finally:
        con.close()


def test_a_region_no_version_lists_is_refused_before_any_download(tmp_path):
    with serve(FIXTURES) as server:
        sources = SourceSettings(aws_price_list_url=server.url)
        settings = Settings(data_dir=tmp_path, db_path=tmp_path / "w.duckdb", sources=sources)
        with pytest.raises(ChipcostError) as refused:
            backfill(settings, date(2023, 1, 1), ("us-east-1", "us-east-9"), sleep=lambda s: 0)
        assert not any(path.endswith(".csv") for path, _ in server.requests)
    assert str(refused.value) == (
        "--region us-east-9: none of the 3 EC2 price list versions since 2023-01-01 has a "
        "file for it (did you mean us-east-1?); they list 1 region: us-east-1"
    )
    assert not (tmp_path / "w.duckdb").exists() or _runs_in(tmp_path / "w.duckdb") == 0


def test_a_version_loaded_without_an_asked_region_says_so(tmp_path):
    with serve(FIXTURES) as server:
        run(tmp_path, server.url)  # us-east-1
        settings = Settings(
            data_dir=tmp_path,
            db_path=tmp_path / "w.duckdb",
            sources=SourceSettings(aws_price_list_url=server.url),
        )
        again = backfill(settings, date(2023, 1, 1), ("us-east-1",), sleep=lambda s: None)
        wider = backfill(settings, date(2023, 1, 1), ("us-west-2",), sleep=lambda s: None)
        # With every version loaded no region index is read: a typo is known by AWS's codes.
        with pytest.raises(ChipcostError) as typo:
            backfill(settings, date(2023, 1, 1), ("us-east-9",), sleep=lambda s: None)
    assert str(typo.value).startswith(
        "--region us-east-9: no AWS region has this code (did you mean us-east-2, us-east-1"
    )
    assert str(typo.value).endswith("every version since --since is loaded, with us-east-1")
    assert {o.message for o in again} == {"loaded by an earlier run: nothing to do"}
    assert {o.status for o in wider} == {"already loaded"}
    assert {o.message for o in wider} == {
        "loaded by an earlier run with us-east-1 only: a version is loaded once, so "
        "us-west-2 is not added; backfill into a new --db for it"
    }


def test_chipcost_errors_are_plain(tmp_path):
    settings = load_settings(db=tmp_path / "missing" / "w.duckdb", data_dir=tmp_path / "d")
    with pytest.raises(ChipcostError, match="does not exist"):
        backfill(settings, date(2025, 1, 1))


def test_a_lake_gets_the_same_history_and_is_maintained_once_at_the_end(
    lake, tmp_path, monkeypatch
):
    # A connection per version, as for a file; DuckLake's CHECKPOINT (file merging, half a
    # second and more) once after the last version, not after each: two versions (those in
    # effect since May 2025) show it.
    from chipcost.pipeline import backfill as module
    from chipcost.pipeline import collect
    from chipcost.warehouse.db import connect as open_read
    from chipcost.warehouse.db import maintain
    from tests.lake_support import HISTORY_COLUMNS

    maintained = []
    for where in (module, collect):
        monkeypatch.setattr(where, "maintain", lambda con: maintained.append(maintain(con)))

    with serve(FIXTURES) as server:
        settings = Settings(
            data_dir=tmp_path / "lake-run",
            db_path=tmp_path / "unused.duckdb",
            warehouse_url=lake.url,
            lake_data=lake.lake_data,
            sources=SourceSettings(aws_price_list_url=server.url),
        )
        since = date(2025, 5, 1)
        outcomes = backfill(settings, since, ("us-east-1",), sleep=lambda s: None)
        run(tmp_path, server.url, since=since)  # the same versions into a file
    assert [(o.version.version, o.status) for o in outcomes] == [(V2, "loaded"), (V3, "loaded")]
    assert len(maintained) == 1
    reader = open_read(lake, read_only=True)
    try:
        listed = "SELECT count(*) FROM ducklake_list_files('lake', 'price_history')"
        files = reader.execute(listed).fetchall()[0][0]
        ordered = f"SELECT {HISTORY_COLUMNS} FROM price_history ORDER BY ALL"
        lake_rows = reader.execute(ordered).fetchall()
    finally:
        reader.close()
    assert files == 1  # two versions' files, merged
    assert lake_rows == query(tmp_path / "w.duckdb", ordered)
