"""`index` speaks like every read: the sample mark, "prices as of", stale and failing sources,
`sample` in its JSON and CSV, and its footnote only when a row is starred. The warehouse is
three sample runs replayed for real, the last with lambda's payload broken (lambda fails)."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from chipcost.archive import ArchiveWriter, parse_stamp, read_manifest
from chipcost.core.settings import Settings
from tests.conftest import SAMPLE
from tests.lake_support import replay

RUNS = sorted(p for p in SAMPLE.iterdir() if p.is_dir())[:3]


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("index")
    archive = root / "archive"
    for run in RUNS:
        shutil.copytree(run, archive / run.name)
    last = archive / RUNS[-1].name
    entry = read_manifest(last / "lambda")["payloads"][0]
    shutil.rmtree(last / "lambda")
    ArchiveWriter(archive, last.name, "lambda", sample=True).write(
        b"<html>502 Bad Gateway</html>", entry["url"], fetched_at=parse_stamp(last.name)
    )
    db = root / "w.duckdb"
    replay(Settings(data_dir=root, db_path=db), [archive / r.name for r in RUNS])
    return db


def test_the_index_table_says_sample_freshness_and_failing_sources(warehouse, run):
    done = run("index", "--db", str(warehouse))
    assert done.returncode == 0, done.stderr[-2000:]
    said = " ".join(done.stdout.split())
    assert "SAMPLE DATA" in said
    assert "prices as of" in said
    assert "latest attempt not successful" in said and "lambda (failed)" in said, said
    starred = " *" in done.stdout.split("constituents per day")[0]
    assert ("* the providers differ from the day before" in said) is starred


@pytest.mark.parametrize("format", ["json", "csv"])
def test_the_index_rows_say_sample(warehouse, run, format):
    done = run("index", "--chip", "H100", "--format", format, "--db", str(warehouse))
    assert done.returncode == 0, done.stderr[-2000:]
    if format == "json":
        rows = json.loads(done.stdout)
    else:
        rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert rows and all(str(r["sample"]).lower() == "true" for r in rows)
    assert "SAMPLE DATA" in done.stderr and "prices as of" in done.stderr
