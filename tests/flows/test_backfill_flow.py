"""The backfill flow: region files fetched as concurrent task runs, versions loaded in order.

Three recorded EC2 price list versions (2023-08-01, 2025-04-01, 2025-06-01; see
tests/pipeline/test_backfill.py) served by a local HTTP server that can hold a request until
another was served: the oldest version's file arrives last, and must still load first.
"""

from __future__ import annotations

import inspect
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from chipcost.extract._http import MAX_ATTEMPTS
from chipcost.flows.backfill import BackfillStopped, backfill, run_backfill
from chipcost.pipeline.backfill import Progress
from tests.paths import FIXTURES, ROOT
from tests.pipeline.test_backfill import EC2, V1, V2, V3, history, query
from tests.price_files_server import Faults, serve

pytestmark = pytest.mark.usefixtures("prefect_server")

BULK = FIXTURES / "aws-bulk"
CSV = {v: f"{EC2}/{v}/us-east-1/index.csv" for v in (V1, V2, V3)}


class Order(Progress):
    def __init__(self) -> None:
        self.loaded: list[tuple[str, str]] = []

    def done(self, outcome) -> None:
        self.loaded.append((outcome.version.version, outcome.status))


def run(tmp_path: Path, url: str, monkeypatch, workers: int = 2, progress=None, **kw):
    monkeypatch.setenv("CHIPCOST_AWS_PRICE_LIST_URL", url)
    return run_backfill(
        since="2023-01-01",
        regions=kw.get("regions", ["us-east-1"]),
        db=str(tmp_path / "w.duckdb"),
        data_dir=str(tmp_path),
        workers=workers,
        progress=progress,
        sleep=lambda seconds: None,
    )


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def test_files_download_concurrently_and_load_oldest_first(tmp_path, monkeypatch):
    # Each file waits until two are in flight at once (a serial client would wait 30 s and fail
    # below); the oldest version's file is answered only after the newest one was served. Task
    # runs may start in any order, so the test forces neither which two go first.
    faults = Faults(together=set(CSV.values()), hold_until={CSV[V1]: CSV[V3]})
    order = Order()
    with serve(BULK, faults) as server:
        outcomes = run(tmp_path, server.url, monkeypatch, progress=order)
    csvs = [path for path in server.traffic.served if path.endswith(".csv")]
    assert server.traffic.most_together >= 2  # two files were in flight at once...
    assert csvs.index(CSV[V1]) > csvs.index(CSV[V3])  # ...the oldest finished after the newest...
    assert order.loaded == [(V1, "loaded"), (V2, "loaded"), (V3, "loaded")]  # ...loaded in order
    assert [o.status for o in outcomes] == ["loaded"] * 3
    db = tmp_path / "w.duckdb"
    assert history(db, "p5.48xlarge") == [
        (utc("2023-08-01"), utc("2025-06-01"), "changed", 98.32),
        (utc("2025-06-01"), None, None, 55.04),
    ]
    runs = query(db, "SELECT archive_run FROM runs ORDER BY started_at")
    assert runs == [("2023-08-01T000000Z",), ("2025-04-01T000000Z",), ("2025-06-01T000000Z",)]


def test_a_rerun_loads_nothing_and_downloads_no_price_file(tmp_path, monkeypatch):
    with serve(BULK) as server:
        run(tmp_path, server.url, monkeypatch)
        counted = "SELECT (SELECT count(*) FROM observations), (SELECT count(*) FROM runs)"
        before = query(tmp_path / "w.duckdb", counted)
        server.requests.clear()
        again = run(tmp_path, server.url, monkeypatch, workers=4)
    assert {o.status for o in again} == {"already loaded"}
    assert not [path for path, _ in server.requests if path.endswith(".csv")]
    assert query(tmp_path / "w.duckdb", counted) == before


def test_a_failed_version_stops_the_loads_and_a_rerun_resumes_from_it(tmp_path, monkeypatch):
    # V2's file is cut short on every attempt; V3's downloads meanwhile and is archived.
    faults = Faults(cut_at={CSV[V2]: [5000] * (MAX_ATTEMPTS + 1)}, ignore_range={CSV[V2]})
    with serve(BULK, faults) as server:
        with pytest.raises(BackfillStopped, match=f"version {V2} failed") as stopped:
            run(tmp_path, server.url, monkeypatch)
        statuses = [(o.version.version, o.status) for o in stopped.value.outcomes]
        assert statuses == [(V1, "loaded"), (V2, "failed")]
        loaded = query(tmp_path / "w.duckdb", "SELECT archive_run FROM runs")
        assert loaded == [("2023-08-01T000000Z",)]
        faults.ignore_range.clear()
        v3_downloads = len(server.hits(CSV[V3]))
        again = run(tmp_path, server.url, monkeypatch)
    assert [o.status for o in again] == ["already loaded", "loaded", "loaded"]
    assert server.hits(CSV[V2])[-1] == "bytes=5000-"  # the partial download is resumed
    assert len(server.hits(CSV[V3])) == v3_downloads  # archived by the first run: reused
    assert history(tmp_path / "w.duckdb", "p5.48xlarge")[-1][:3] == (utc("2025-06-01"), None, None)


def test_regions_of_one_version_share_its_manifest(tmp_path, monkeypatch):
    root = tmp_path / "aws"
    shutil.copytree(BULK, root)
    index_file = root / EC2.lstrip("/") / V3 / "region_index.json"
    index = json.loads(index_file.read_text())
    west = f"{EC2}/{V3}/us-west-2/index.json"
    index["regions"]["us-west-2"] = {"regionCode": "us-west-2", "currentVersionUrl": west}
    index_file.write_text(json.dumps(index))
    with serve(root) as server:
        run(tmp_path / "data", server.url, monkeypatch, regions=["us-east-1", "us-west-2"])
    run_dir = tmp_path / "data" / "archive" / "2025-06-01T000000Z" / "aws-bulk"
    payloads = json.loads((run_dir / "manifest.json").read_text())["payloads"]
    kinds = sorted((p["request"]["kind"], p["request"].get("region", "")) for p in payloads)
    assert kinds == [
        ("ec2", "us-east-1"),
        ("ec2", "us-west-2"),
        ("offer-index", ""),
        ("region-index", ""),
        ("version-index", ""),
    ]
    names = sorted(p["name"] for p in payloads)
    assert names == ["0001.json.gz", "0002.json.gz", "0003.json.gz", "0004.csv.gz", "0005.csv.gz"]
    assert all((run_dir / name).is_file() for name in names)


def test_workers_below_one_are_refused(tmp_path, monkeypatch):
    with pytest.raises(BackfillStopped, match="--workers 0"):
        run(tmp_path, "http://127.0.0.1:9", monkeypatch, workers=0)


def test_the_backfill_deployment_is_declared():
    config = yaml.safe_load((ROOT / "prefect.yaml").read_text())
    (deployment,) = [d for d in config["deployments"] if d["name"] == "backfill"]
    assert deployment["entrypoint"] == "flows/backfill.py:backfill"
    assert set(deployment["parameters"]) <= set(inspect.signature(backfill.fn).parameters)
