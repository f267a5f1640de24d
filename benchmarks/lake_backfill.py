"""Backfill of synthetic EC2 price list versions served over local HTTP, with 1, 2 and 4 workers.

    .venv/bin/python -m benchmarks.lake_backfill --versions 8 --file-mb 16 --pace-mb 8

Every version has one region file (benchmarks/bulk_filter.py's synthetic CSV in AWS's
format); the server sends each download at `--pace-mb` MB/s, as one connection to AWS's
price list host would, so what the workers overlap is waiting on the network. Each worker
count (`--workers`, 1, 2 and 4 unless given) backfills into a new data directory (a file
warehouse) through the Prefect flow, on a temporary Prefect server.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from tests.paths import FIXTURES

EC2 = "offers/v1.0/aws/AmazonEC2"
WORKERS = (1, 2, 4)


def build_tree(root: Path, versions: int, megabytes: int) -> list[str]:
    """Offer index, version index, and per version a region index and one region CSV."""
    from benchmarks.bulk_filter import generate

    offers = root / "offers/v1.0/aws"
    offers.mkdir(parents=True)
    shutil.copy(FIXTURES / "aws-bulk/offers/v1.0/aws/index.json", offers / "index.json")
    csv = root / "region.csv"
    generate(csv, megabytes)
    names, entries = [], {}
    for n in range(versions):
        begin = datetime(2024 + n // 12, n % 12 + 1, 1, tzinfo=UTC)
        end = datetime(2024 + (n + 1) // 12, (n + 1) % 12 + 1, 1, tzinfo=UTC)
        name = f"{begin:%Y%m%d}120000"
        folder = root / EC2 / name
        (folder / "us-east-1").mkdir(parents=True)
        os.link(csv, folder / "us-east-1/index.csv")
        region = {
            "regionCode": "us-east-1",
            "currentVersionUrl": f"/{EC2}/{name}/us-east-1/index.json",
        }
        (folder / "region_index.json").write_text(json.dumps({"regions": {"us-east-1": region}}))
        entries[name] = {
            "versionEffectiveBeginDate": f"{begin:%Y-%m-%dT%H:%M:%SZ}",
            "versionEffectiveEndDate": "" if n == versions - 1 else f"{end:%Y-%m-%dT%H:%M:%SZ}",
            "offerVersionUrl": f"/{EC2}/{name}/index.json",
        }
        names.append(name)
    (root / EC2 / "index.json").write_text(
        json.dumps({"offerCode": "AmazonEC2", "versions": entries})
    )
    return names


def backfill_workers(
    root: Path, versions: int, megabytes: int, pace_mb: float, workers: Sequence[int] = WORKERS
) -> None:
    """Backfill the same versions with each count of `workers`; print seconds and overlap."""
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "CRITICAL")
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    from chipcost.cli.prefect_server import temporary_server
    from chipcost.flows.backfill import run_backfill
    from tests.price_files_server import Faults, serve

    build_tree(root / "aws", versions, megabytes)
    pace = pace_mb * 1024 * 1024
    print(
        f"\nbackfill: {versions} versions x 1 region file of {megabytes} MB, served at "
        f"{pace_mb:g} MB/s per download (0: unpaced)",
        flush=True,
    )
    with temporary_server(), serve(root / "aws", Faults(pace=pace)) as server:
        os.environ["CHIPCOST_AWS_PRICE_LIST_URL"] = server.url
        for count in workers:
            data = root / f"data-{count}"
            server.traffic.most = 0
            begin = time.perf_counter()
            outcomes = run_backfill(
                since="2023-01-01",
                regions=["us-east-1"],
                db=str(data / "w.duckdb"),
                data_dir=str(data),
                workers=count,
            )
            seconds = time.perf_counter() - begin
            loaded = sum(o.status == "loaded" for o in outcomes)
            print(
                f"  {count} worker(s): {seconds:6.1f} s, {loaded} versions loaded, at most "
                f"{server.traffic.most} requests in flight",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--versions", type=int, default=8)
    parser.add_argument("--file-mb", type=int, default=16)
    parser.add_argument("--pace-mb", type=float, default=8.0)
    parser.add_argument("--workers", type=int, nargs="+", default=list(WORKERS))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="chipcost-backfill-") as tmp:
        backfill_workers(Path(tmp), args.versions, args.file_mb, args.pace_mb, args.workers)


if __name__ == "__main__":
    main()
