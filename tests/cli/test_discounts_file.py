"""A discounts file ($CHIPCOST_DISCOUNTS) that is not what it should be, refused in one line
naming the file, the line and the field before anything is read, or read right: a rule that
is no table, a FIFO or a device, another file given by mistake (not echoed), a byte-order
mark, a column named twice, a NUL, a cell past the CSV reader's limit, a TOML Python cannot
read, a name that is not UTF-8, a label holding terminal escapes. On real warehouses, the
command line through the in-process runner."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.helpers import loaded_warehouse, record
from tests.refusals import refused


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("discounts") / "w.duckdb"
    return loaded_warehouse(path, [record(), record(region="eu-west-1", sku="SKU2")])


@pytest.mark.parametrize(
    "command", [["prices"], ["site", "--out", "SITE"], ["report", "--dry-run"]]
)
def test_a_discount_that_is_no_table_is_refused_naming_it(warehouse, tmp_path, run, command):
    rules = tmp_path / "discounts.toml"
    rules.write_text('discount = [ { provider = "aws", percent = 10 }, 5 ]\n')
    args = [str(tmp_path / "site") if a == "SITE" else a for a in command]
    done = run(*args, "--db", str(warehouse), env={"CHIPCOST_DISCOUNTS": str(rules)})
    refused(done, "rule 2 of discount is a int, not a table", code=1)


def test_a_discounts_file_that_is_no_regular_file_is_refused_before_it_is_read(
    warehouse, tmp_path, run
):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero"), tmp_path):  # would block, never end, not a file
        done = run("prices", "--db", str(warehouse), env={"CHIPCOST_DISCOUNTS": str(path)})
        refused(done, f"CHIPCOST_DISCOUNTS={path}: not a regular file", code=1)


def test_a_discounts_file_that_is_not_ours_is_not_echoed(warehouse, tmp_path, run):
    shadow = tmp_path / "shadow.csv"
    shadow.write_text("root:$6$saltsalt$hashhashhash:19000:0:99999:7:::,x\n")
    done = run("prices", "--db", str(warehouse), env={"CHIPCOST_DISCOUNTS": str(shadow)})
    line = refused(done, "unknown column that is no field name", code=1)
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


def _prices_with(path: Path, tmp_path: Path, run, text: str | bytes, name: str = "d.csv"):
    rules = tmp_path / name
    rules.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    args = ("prices", "--chip", "H100-SXM", "--provider", "aws", "--format", "json")
    return run(*args, "--db", str(path), env={"CHIPCOST_DISCOUNTS": str(rules)})


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("d.csv", "\ufeffprovider,percent,label\naws,10,EDP\n"),  # Excel's "CSV UTF-8"
        ("d.toml", '\ufeff[[discount]]\nprovider = "aws"\npercent = 10\nlabel = "EDP"\n'),
    ],
)
def test_a_discounts_file_with_a_byte_order_mark_is_read(golden, tmp_path, run, name, text):
    done = _prices_with(golden, tmp_path, run, text, name)
    assert done.returncode == 0, done.stderr[-1000:]
    rows = json.loads(done.stdout)
    assert rows and {r["discount"] for r in rows} == {"10% EDP"}


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("provider,percent,provider\naws,10,runpod\n", "line 1: column 'provider' is named twice"),
        ("provider,Percent ,percent\naws,10,20\n", "line 1: column 'percent' is named twice"),
        (b"provider,percent\naws,1\x000\n", "line 2: percent '1\\x000' is not a discount"),
        ("provider,percent,label\naws,10," + "x" * 200_000 + "\n", "not readable as CSV"),
    ],
    ids=["provider twice", "percent twice", "NUL", "huge cell"],
)
def test_a_discounts_csv_that_cannot_be_one_table_is_refused(golden, tmp_path, run, text, said):
    done = _prices_with(golden, tmp_path, run, text)
    assert done.returncode == 1, done.stdout[-500:]
    assert "Traceback" not in done.stderr
    assert said in " ".join(done.stderr.split()), done.stderr


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[[discount]]\nprovider = 'aws'\npercent = " + "9" * 5000 + "\n", "not valid TOML"),
        ("x = " + "[" * 100_000 + "]" * 100_000 + "\n", "nested deeper than the TOML reader"),
    ],
    ids=["5,000-digit percent", "nested 100,000 deep"],
)
def test_a_discounts_toml_that_python_cannot_read_is_one_line(golden, tmp_path, run, text, said):
    done = _prices_with(golden, tmp_path, run, text, "d.toml")
    assert done.returncode == 1, done.stdout[-500:]
    assert "Traceback" not in done.stderr and said in done.stderr, done.stderr[-1000:]


@pytest.mark.parametrize("fmt", ["csv", "json", "table"])
def test_a_discounts_file_whose_name_is_not_utf8_labels_its_rules(golden, tmp_path, run, fmt):
    rules = tmp_path / "EDP\udce9.csv"  # a Latin-1 byte in the name, as Python keeps it
    rules.write_text("provider,percent\naws,10\n")
    args = ("prices", "--chip", "H100-SXM", "--provider", "aws", "--format", fmt)
    done = run(*args, "--db", str(golden), env={"CHIPCOST_DISCOUNTS": str(rules)})
    assert done.returncode == 0, done.stderr[-1000:]
    assert "Traceback" not in done.stderr
    assert "EDP\ufffd.csv" in done.stdout  # the byte as U+FFFD: no output could hold it
