"""Inputs that cannot crash or hang a read: the API's keywords checked at its edge (iterables
read once, as polars takes them; containers, endless iterators, numbers past a float and
text Unicode cannot hold refused naming the keyword); command-line values that are not UTF-8;
names far longer than any known one; the did-you-mean within the read's time limit; discounts
files with a byte-order mark, a column named twice or a NUL; control characters in CSV and
JSON output. On a real warehouse (the golden one, and one holding a hostile provider's names),
the command line through the in-process runner."""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path

import duckdb
import pytest

import chipcost
from chipcost.core.errors import ChipcostError
from chipcost.core.names import close_matches
from chipcost.core.sql_limits import SqlLimits
from chipcost.warehouse.reader import open_reader
from tests.conftest import SAMPLE
from tests.helpers import loaded_warehouse, record

LLAMA = ("llama-3-70b", "inference")


@pytest.mark.parametrize(
    "once",
    [
        lambda: iter(["H100"]),
        lambda: (name for name in ["H100"]),
        lambda: {"H100"},
        lambda: dict.fromkeys(["H100"]).keys(),
    ],
    ids=["iterator", "generator", "set", "keys"],
)
def test_an_iterable_is_read_once_and_filters(golden, once):
    listed = chipcost.prices(chip=["H100"], db=golden)
    every = chipcost.prices(db=golden)
    assert 0 < len(listed) < len(every)
    assert chipcost.prices(chip=once(), db=golden).equals(listed)


def test_an_iterable_of_chip_counts_and_regions_filters(golden):
    eights = chipcost.prices(chip_count=iter([8]), db=golden)
    assert len(eights) and set(eights["chip_count"]) == {8}
    region = chipcost.prices(region=iter(["us-east-1"]), db=golden)
    assert len(region) and set(region["region"]) == {"us-east-1"}


@pytest.mark.parametrize(
    ("call", "said"),
    [
        (lambda db: chipcost.prices(chip=iter([]), db=db), "chip=[]: give a name"),
        (lambda db: chipcost.prices(chip=itertools.count(), db=db), "chip: more than 10,000"),
        (lambda db: chipcost.prices(currency=5, db=db), "currency=5: give a currency code"),
        (lambda db: chipcost.prices(currency=["EUR"], db=db), "currency=['EUR']: give text"),
        (lambda db: chipcost.prices(max_price=10**400, db=db), "max_price=1000"),
        (lambda db: chipcost.prices(min_memory=10**400, db=db), "too large; give a finite"),
        (lambda db: chipcost.prices(region="\udce9", db=db), "region: '\\\\udce9' is not UTF-8"),
        (lambda db: chipcost.prices(chip=["H100", "\ud800"], db=db), "chip: '\\\\ud800' is not"),
        (lambda db: chipcost.cost(*LLAMA, tokens=[1], db=db), "tokens=[1]: give a number or"),
        (lambda db: chipcost.cost(*LLAMA, tokens=10**400, db=db), "tokens=1000"),
        (lambda db: chipcost.cost(*LLAMA, migration_cost={"a": 1}, db=db), "migration_cost="),
        (lambda db: chipcost.cost(*LLAMA, max_instances=10**400, db=db), "max_instances=1000"),
        (lambda db: chipcost.index(pricing_model=5, db=db), "pricing model 5: give a name"),
        (lambda db: chipcost.sources(db=5), "db=5: give text or a path"),
    ],
    ids=lambda v: "" if callable(v) else v[:24],
)
def test_a_keyword_that_cannot_be_is_refused_naming_it(golden, call, said):
    with pytest.raises(ChipcostError) as refused:
        call(golden)
    assert said in str(refused.value), str(refused.value)


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


def test_a_read_through_the_api_still_runs_after_a_read_timed_out(golden):
    con = open_reader(golden, limits=SqlLimits(timeout=0.05))
    time.sleep(0.1)
    con.close()
    with pytest.raises(duckdb.ConnectionException):
        con.execute("SELECT 1")
    # the stale limit of the closed read does not stop the next one's did-you-mean
    with pytest.raises(ChipcostError, match="did you mean"):
        chipcost.prices(instance="p5.48xlarg", db=golden)
