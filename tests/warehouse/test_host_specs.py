"""The host's vCPUs, memory and local disk: loaded, kept current, read and filtered on, in a
real DuckDB file, through the Python API and the command line's JSON and CSV."""

from __future__ import annotations

import csv
import io
import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

import chipcost
from chipcost.core.errors import ChipcostError
from chipcost.core.runs import OK, SourceResult
from chipcost.pipeline.seed import open_warehouse
from chipcost.warehouse.load import load_run
from tests.cli_runner import Ran
from tests.cli_runner import chipcost as run_chipcost
from tests.helpers import day, record, run_of

P5 = {"vcpus": 192.0, "ram_gb": 2048.0, "disk_gb": 30720.0}  # the Price List's p5.48xlarge
OFFERS = [
    record(**P5),  # H100-SXM on demand, 8 chips
    record(pricing_model="spot", zone="us-east-1a", price_per_hour=20.0, sku="S1", **P5),
    record(instance_type="g6.xlarge", chip="L4", chip_count=1.0, price_per_hour=0.8,
           sku="L1", vcpus=4.0, ram_gb=16.0, disk_gb=250.0),
    # A source that publishes no host: left empty, and never matched by a minimum.
    record(instance_type="h100-pcie-1x", chip="H100-PCIe", chip_count=1.0, price_per_hour=2.5,
           sku="P1"),
]  # fmt: skip


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("host") / "w.duckdb"
    con = open_warehouse(path)
    load_run(con, run_of(OFFERS, day(0)))
    con.close()
    return path


def by_instance(frame) -> dict[str, dict]:
    return {row["instance_type"]: row for row in frame.to_dicts() if row["zone"] == ""}


def test_the_api_frame_carries_the_host_and_none_where_unpublished(db):
    rows = by_instance(chipcost.prices(db=db))
    assert {k: rows["p5.48xlarge"][k] for k in P5} == P5
    assert (rows["g6.xlarge"]["vcpus"], rows["g6.xlarge"]["ram_gb"]) == (4.0, 16.0)
    assert [rows["h100-pcie-1x"][k] for k in P5] == [None, None, None]


@pytest.mark.parametrize(
    ("asked", "instances"),
    [
        ({"min_vcpus": 8}, {"p5.48xlarge"}),
        ({"min_vcpus": 4}, {"p5.48xlarge", "g6.xlarge"}),
        ({"min_ram": 2048}, {"p5.48xlarge"}),
        ({"min_ram": 2049}, set()),
        ({"min_vcpus": 1, "min_ram": 16, "chip": "L4"}, {"g6.xlarge"}),
    ],
)
def test_minimums_keep_offers_whose_host_reaches_them(db, asked, instances):
    found = chipcost.prices(db=db, **asked)
    assert set(found["instance_type"]) == instances


def test_a_minimum_that_is_not_a_number_is_refused(db):
    with pytest.raises(ChipcostError, match=r"min_vcpus='eight': give a number"):
        chipcost.prices(min_vcpus="eight", db=db)
    # a number as a table prints it is taken from Python as on the command line
    assert chipcost.prices(min_vcpus="8", db=db).equals(chipcost.prices(min_vcpus=8, db=db))


def run(*args: str) -> Ran:
    return run_chipcost("prices", *args)


def test_json_and_csv_carry_the_host_columns_and_the_filters(db):
    answer = run("--min-vcpus", "100", "--min-ram", "1000", "--format", "json", "--db", str(db))
    assert answer.returncode == 0, answer.stderr
    rows = json.loads(answer.stdout)
    assert {r["instance_type"] for r in rows} == {"p5.48xlarge"}
    assert all((r["vcpus"], r["ram_gb"], r["disk_gb"]) == (192, 2048, 30720) for r in rows)
    table = run("--chip", "H100-PCIe", "--format", "csv", "--db", str(db))
    assert table.returncode == 0, table.stderr
    [row] = list(csv.DictReader(io.StringIO(table.stdout)))
    assert (row["vcpus"], row["ram_gb"], row["disk_gb"]) == ("", "", "")


def test_wide_shows_the_host_columns(db):
    shown = run_chipcost(
        "prices", "--chip", "L4", "--wide", "--db", str(db), env={**os.environ, "COLUMNS": "300"}
    )
    assert shown.returncode == 0, shown.stderr
    assert "vCPUs" in shown.stdout and "RAM GB" in shown.stdout and "disk GB" in shown.stdout
    [line] = [line for line in shown.stdout.splitlines() if "g6.xlarge" in line]
    assert line.split()[line.split().index("g6.xlarge") + 1 :][:5] == ["1", "24", "4", "16", "250"]


def test_a_new_host_of_an_unchanged_price_follows_the_newest_sighting(tmp_path):
    con = open_warehouse(tmp_path / "w.duckdb")
    load_run(con, run_of([record(**P5)], day(0)))
    load_run(con, run_of([record(vcpus=192.0, ram_gb=2048.0, disk_gb=None)], day(1)))
    rows = con.execute(
        "SELECT vcpus, ram_gb, disk_gb, valid_to FROM price_history ORDER BY valid_from"
    ).fetchall()
    assert rows == [(192.0, 2048.0, None, None)]  # the same price: one row, host updated
    observed = con.execute("SELECT vcpus, disk_gb FROM observations ORDER BY observed_at")
    assert observed.fetchall() == [(192.0, 30720.0), (192.0, None)]
    con.close()


def source_run(by_source: dict[str, list], when) -> object:
    """One run of AWS sources, each with its own records."""
    sources = [
        SourceResult(
            source=source,
            provider="aws",
            status=OK,
            records=[replace(r, observed_at=when, source=source) for r in found],
            seen_keys={r.offer_key() for r in found},
            observed_at=when,
        )
        for source, found in by_source.items()
    ]
    return replace(run_of([], when), sources=sources)


def test_a_source_without_hosts_shows_the_one_its_provider_publishes(tmp_path):
    """AWS's spot prices carry no host: the Price List's for the same instance type is shown
    beside them, where it gives one value; a type it does not list stays empty."""
    spot = {"pricing_model": "spot", "zone": "us-east-1a", "price_per_hour": 20.0}
    con = open_warehouse(tmp_path / "w.duckdb")
    load_run(
        con,
        source_run(
            {
                "aws-pricing-api": [
                    record(**P5),
                    # Two regions that disagree on g6's disk: the disk is not carried over.
                    record(instance_type="g6.xlarge", chip="L4", chip_count=1.0, sku="L1",
                           price_per_hour=0.8, vcpus=4.0, ram_gb=16.0, disk_gb=250.0),
                    record(instance_type="g6.xlarge", chip="L4", chip_count=1.0, sku="L2",
                           region="us-west-2", price_per_hour=0.8, vcpus=4.0, ram_gb=16.0,
                           disk_gb=500.0),
                    # A type listed without a host by a source that publishes hosts: left empty.
                    record(instance_type="p4d.24xlarge", chip="A100-40GB", sku="A1"),
                ],
                "aws-spot": [
                    record(**spot),
                    record(instance_type="g6.xlarge", chip="L4", chip_count=1.0, **spot),
                    record(instance_type="p4d.24xlarge", chip="A100-40GB", **spot),
                    record(instance_type="p6-b200.48xlarge", chip="B200", **spot),
                ],
            },
            day(0),
        ),
    )  # fmt: skip
    rows = con.execute(
        "SELECT source, region, instance_type, vcpus, ram_gb, disk_gb FROM current_prices"
    ).fetchall()
    con.close()
    host = {(s, r, t): rest for s, r, t, *rest in rows}
    assert host[("aws-spot", "us-east-1", "p5.48xlarge")] == [192.0, 2048.0, 30720.0]
    assert host[("aws-spot", "us-east-1", "g6.xlarge")] == [4.0, 16.0, None]
    assert host[("aws-spot", "us-east-1", "p4d.24xlarge")] == [None, None, None]
    assert host[("aws-spot", "us-east-1", "p6-b200.48xlarge")] == [None, None, None]
    assert host[("aws-pricing-api", "us-east-1", "p4d.24xlarge")] == [None, None, None]
