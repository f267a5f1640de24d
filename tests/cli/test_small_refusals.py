"""The smaller inputs of the third round, each refused in one line naming the field, or made
right: discounts files that are no table, no file or not ours; API keywords of the wrong type
or empty; hand-typed measurements that cannot be; a currency variable the export never reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import loaded_warehouse, record


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("small") / "w.duckdb"
    return loaded_warehouse(path, [record(), record(region="eu-west-1", sku="SKU2")])


def refused(done, said: str, code: int = 1) -> str:
    assert done.returncode == code, (done.stdout[-500:], done.stderr[-1000:])
    assert "Traceback" not in done.stderr
    line = " ".join(done.stderr.split())
    assert said in line, line
    return line


@pytest.mark.parametrize(
    ("option", "said"),
    [
        (["--measured-on", "2026-02-30"], "--measured-on '2026-02-30' is not a day that exists"),
        (["--measured-on", "2026-00"], "--measured-on '2026-00' is not a day that exists"),
        (["--tokens-per-second", "1e-30"], "1e-30 tokens/s per chip is below 0.01"),
        (["--figure-per", "instance", "--chip-count", "1e9"], "--chip-count 1e+09: give 1 to"),
    ],
)
def test_a_measurement_that_cannot_be_is_refused(warehouse, tmp_path, run, option, said):
    db = tmp_path / "w.duckdb"
    db.write_bytes(warehouse.read_bytes())
    args = ["throughput", "add", "--chip", "H100-SXM", "--model", "llama-3-70b"]
    args += ["--workload", "inference", "--tokens-per-second", "1500", *option]
    refused(run(*args, "--db", str(db)), said, code=2)


@pytest.mark.parametrize(
    ("given", "day"),
    [("2026-11-21 06:00 UTC", "2026-11-21"), ("2026-11-21T06:00:00+00:00", "2026-11-21"),
     ("2026-11-21T22:00:00-05:00", "2026-11-22"), ("2026-11-21", "2026-11-21")],
)  # fmt: skip
def test_a_measurement_day_is_taken_as_outputs_print_times(warehouse, tmp_path, run, given, day):
    """`sources --runs` and the listings print times; --measured-on takes one as its UTC day."""
    db = tmp_path / "w.duckdb"
    db.write_bytes(warehouse.read_bytes())
    args = ["throughput", "add", "--chip", "H100-SXM", "--model", "llama-3-70b", "--workload",
            "inference", "--tokens-per-second", "1500", "--measured-on", given]  # fmt: skip
    done = run(*args, "--db", str(db))
    assert done.returncode == 0, done.stderr
    listed = run("throughput", "list", "--origin", "user", "--format", "json", "--db", str(db))
    assert [row["source_date"] for row in json.loads(listed.stdout)] == [day]


def test_the_export_does_not_read_the_currency_variable(warehouse, tmp_path, run):
    done = run(
        "export", "--out", str(tmp_path / "out"), "--db", str(warehouse),
        env={"CHIPCOST_CURRENCY": "XYZ"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-1000:]
    assert (tmp_path / "out" / "sku_prices.csv").exists()
