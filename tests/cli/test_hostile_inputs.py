"""Inputs that cannot crash or hang a read: the API's keywords checked at its edge (iterables
read once, as polars takes them; containers, endless iterators, numbers past a float and
text Unicode cannot hold refused naming the keyword); command-line values that are not UTF-8;
names far longer than any known one; the did-you-mean within the read's time limit; discounts
files with a byte-order mark, a column named twice or a NUL; control characters in CSV and
JSON output. On a real warehouse (the golden one, and one holding a hostile provider's names),
the command line through the in-process runner."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from chipcost.core.errors import ChipcostError
from chipcost.core.names import close_matches
from chipcost.core.sql_limits import SqlLimits
from chipcost.warehouse.reader import open_reader
from tests.conftest import SAMPLE
from tests.helpers import loaded_warehouse, record


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("--region", "\udce9u-west-1"), "--region"),  # byte 0xe9 as Python keeps it from argv
        (("--provider=aws\udcff",), "--provider"),
        (("--chip", "H100\udcc3"), "--chip"),
    ],
)
def test_a_value_that_is_not_utf8_is_one_line_naming_the_option(golden, run, args, option):
    done = run("prices", *args, "--db", str(golden))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert f"the value of {option} (" in done.stderr and "is not UTF-8 text" in done.stderr
    assert "\\x" in done.stderr  # the byte, escaped: the terminal gets no raw byte


@pytest.mark.parametrize("option", ["--instance", "--chip", "--region", "--provider"])
def test_a_name_longer_than_any_known_is_refused_at_once(golden, run, option):
    started = time.monotonic()
    done = run("prices", option, "x" * 120_000, "--db", str(golden))
    assert time.monotonic() - started < 20  # was 364 s for --instance
    assert done.returncode in (1, 2), done.stderr[-500:]  # 2: an unknown name, 1: a region
    assert "Traceback" not in done.stderr
    assert "(120,000 characters, longer than any known name)" in done.stderr
    assert len(done.stderr) < 2_000  # the name is cut, not echoed whole


@pytest.mark.parametrize(
    ("command", "said"),
    [
        (("cost", "--workload", "inference", "--model"), "longer than any known name"),
        (("collect", "--replay", str(SAMPLE), "--source"), "longer than any known name"),
        (("prices", "--currency"), "--currency xxxxxxxx"),  # the golden one holds no rates
    ],
    ids=["cost --model", "collect --source", "prices --currency"],
)
def test_other_names_longer_than_any_known_are_refused_at_once(golden, run, command, said):
    started = time.monotonic()
    done = run(*command, "x" * 120_000, "--db", str(golden))
    assert time.monotonic() - started < 20
    assert done.returncode in (1, 2) and "Traceback" not in done.stderr, done.stderr[-500:]
    assert said in done.stderr
    assert len(done.stderr) < 2_000  # the name is cut


def test_the_did_you_mean_runs_within_the_read_time_limit(golden):
    names = [f"p{n}.{n % 97}xlarge-{n}" for n in range(20_000)]
    con = open_reader(golden, limits=SqlLimits(timeout=0.2))
    try:
        time.sleep(0.3)
        with pytest.raises(ChipcostError, match=r"the read ran past 0.2 s \(CHIPCOST_SQL_TIMEOUT"):
            close_matches("p5.48xlarge-1", names)
    finally:
        con.close()
    # A read closed in time leaves no limit behind: the next did-you-mean runs whole.
    assert close_matches("p5.48xlarge-5", names[:200])


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


# A provider's names as a hostile one could write them: an OSC 8 link, a bell, a cursor
# move, the 8-bit CSI, a right-to-left override.
HOSTILE = "evil\x1b]8;;http://x\x07link\x1b]8;;\x07\x1b[2J\x9b31m\u202egpu"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("hostile") / "w.duckdb"
    return loaded_warehouse(path, [record(instance_type=HOSTILE, sku="SKU\x1b[31m")])


def test_csv_output_has_no_control_character(hostile, run):
    done = run("prices", "--format", "csv", "--db", str(hostile))
    assert done.returncode == 0, done.stderr[-1000:]
    assert not [c for c in done.stdout if (ord(c) < 32 and c != "\n") or 0x7F <= ord(c) <= 0x9F]
    assert "\u202e" not in done.stdout
    assert "evil]8;;http://xlink]8;;[2J31mgpu" in done.stdout  # what the table shows


def test_json_output_escapes_control_characters_and_keeps_the_text(hostile, run):
    done = run("prices", "--format", "json", "--db", str(hostile))
    assert done.returncode == 0, done.stderr[-1000:]
    assert not [c for c in done.stdout if (ord(c) < 32 and c != "\n") or 0x7F <= ord(c) <= 0x9F]
    assert "\u202e" not in done.stdout
    [row] = json.loads(done.stdout)
    assert row["instance_type"] == HOSTILE  # the data as it is, escaped in the JSON text
