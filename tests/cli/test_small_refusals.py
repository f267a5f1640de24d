"""The smaller inputs of the third round, each refused in one line naming the field, or made
right: discounts files that are no table, no file or not ours; API keywords of the wrong type
or empty; hand-typed measurements that cannot be; a currency variable the export never reads."""

from __future__ import annotations

import json
import os
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
    "command", [["prices"], ["site", "--out", "SITE"], ["report", "--dry-run"]]
)
def test_a_discount_that_is_no_table_is_refused_naming_it(warehouse, tmp_path, run, command):
    rules = tmp_path / "discounts.toml"
    rules.write_text('discount = [ { provider = "aws", percent = 10 }, 5 ]\n')
    args = [str(tmp_path / "site") if a == "SITE" else a for a in command]
    done = run(*args, "--db", str(warehouse), env={"CHIPCOST_DISCOUNTS": str(rules)})
    refused(done, "rule 2 of discount is a int, not a table")


def test_a_discounts_file_that_is_no_regular_file_is_refused_before_it_is_read(
    warehouse, tmp_path, run
):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero"), tmp_path):  # would block, never end, not a file
        done = run("prices", "--db", str(warehouse), env={"CHIPCOST_DISCOUNTS": str(path)})
        refused(done, f"CHIPCOST_DISCOUNTS={path}: not a regular file")


def test_a_discounts_file_that_is_not_ours_is_not_echoed(warehouse, tmp_path, run):
    shadow = tmp_path / "shadow.csv"
    shadow.write_text("root:$6$saltsalt$hashhashhash:19000:0:99999:7:::,x\n")
    done = run("prices", "--db", str(warehouse), env={"CHIPCOST_DISCOUNTS": str(shadow)})
    line = refused(done, "unknown column that is no field name")
    assert "saltsalt" not in line and "hashhash" not in line


def test_a_label_with_terminal_escapes_is_shown_plain(warehouse, tmp_path, run):
    rules = tmp_path / "discounts.toml"
    rules.write_text(
        '[[discount]]\nprovider = "aws"\npercent = 10\nlabel = "EDP\\u001b]8;;http://x\\u0007'
        '\\u202e 2026"\n'
    )
    done = run(
        "prices", "--by", "offer", "--db", str(warehouse), env={"CHIPCOST_DISCOUNTS": str(rules)}
    )
    assert done.returncode == 0, done.stderr[-1000:]
    assert "\x1b" not in done.stdout and "\u202e" not in done.stdout
    assert "EDP]8;;http://x 2026" in done.stdout
    assert str(tmp_path) not in done.stdout  # the file's name, not where it lives


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
