"""The read commands as a script or a person uses them: formats, widths, names, freshness."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from chipcost.core.runs import FAILED
from chipcost.pipeline.seed import open_warehouse
from chipcost.warehouse.load import load_run
from tests import warehouses
from tests.cli_runner import Ran
from tests.cli_runner import chipcost as run_chipcost
from tests.helpers import day, record, run_of

CHIPCOST = str(Path(sys.executable).with_name("chipcost"))
H100 = {"instance_type": "p5.48xlarge", "chip": "H100-SXM", "chip_count": 8.0}
OFFERS = [
    record(),  # H100-SXM us-east-1 on demand: 55.04 / 8 = 6.88 per chip-hour
    record(
        pricing_model="reserved", term="1yr", payment="all_upfront", plan="standard",
        price_per_hour=33.0, upfront=289_080.0, sku="R1",
    ),
    record(pricing_model="spot", zone="us-east-1a", price_per_hour=20.0, sku="S1"),
    record(instance_type="h100-pcie-1x", chip="H100-PCIe", chip_count=1.0, region="us-west-2",
           price_per_hour=2.5, sku="P1"),
    record(instance_type="trn1.32xlarge", chip="Trainium1", chip_count=16.0,
           price_per_hour=21.5, sku="T1"),
    record(instance_type="g6.xlarge", chip="L4", chip_count=1.0, region="eu-west-1",
           price_per_hour=0.8, sku="L1"),
]  # fmt: skip


def chipcost(*args: str, columns: int | None = None) -> Ran:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    if columns:
        env["COLUMNS"] = str(columns)
    return run_chipcost(*args, env=env)


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    """The sample replayed on 2026-11-01, then a live collection that failed on 11-02."""
    path = tmp_path_factory.mktemp("read") / "w.duckdb"
    con = open_warehouse(warehouses.new(path))
    sample = run_of(OFFERS, day(0))
    sample.sample = True
    load_run(con, sample)
    load_run(con, run_of(OFFERS, day(1), status=FAILED))
    con.close()
    return path


def test_a_failed_collection_never_makes_sample_prices_look_fresh(db):
    result = chipcost("prices", "--db", str(db))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "SAMPLE DATA" in out
    assert "prices as of 2026-11-01 06:00 UTC" in out
    assert "2026-11-02" not in out.split("latest")[0]
    assert "latest attempt not successful (2026-11-02 06:00 UTC) for aws-pricing-api (failed)" in (
        out
    )
    # Sample prices are the sample week, not stale sources (a live run past its days is).
    assert "SAMPLE DATA: the sample week, ending 2026-11-01." in " ".join(out.split())


def test_stale_days_come_from_the_environment(db):
    env_days = run_chipcost(
        "prices", "--db", str(db), env={**os.environ, "CHIPCOST_STALE_DAYS": "99999"}
    )
    assert env_days.returncode == 0, env_days.stderr
    assert "stale" not in env_days.stdout


def test_a_family_matches_its_variants_and_json_is_for_scripts(db):
    result = chipcost("prices", "--chip", "H100", "--format", "json", "--db", str(db))
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert {r["chip"] for r in rows} == {"H100-SXM", "H100-PCIe"}
    first = rows[0]
    assert first["source_as_of"] == "2026-11-01T06:00:00+00:00" and first["sample"] is True
    assert {"price_per_chip_hour", "upfront", "memory_gb", "last_seen_at"} <= first.keys()
    assert "SAMPLE DATA" in result.stderr  # notices stay off stdout


def test_lists_by_comma_or_repetition(db):
    comma = chipcost("prices", "--chip", "H100-PCIe,L4", "--format", "csv", "--db", str(db))
    repeated = chipcost(
        "prices", "--chip", "H100-PCIe", "--chip", "L4", "--format", "csv", "--db", str(db)
    )
    assert comma.returncode == 0, comma.stderr
    assert comma.stdout == repeated.stdout
    rows = list(csv.DictReader(io.StringIO(comma.stdout)))
    assert sorted(r["chip"] for r in rows) == ["H100-PCIe", "L4"]


@pytest.mark.parametrize(
    ("args", "chips", "count"),
    [
        (["--min-memory", "80"], {"H100-SXM", "H100-PCIe"}, 5),
        (["--chip-count", "16"], {"Trainium1"}, 1),
        (["--max-price", "1"], {"L4"}, 1),
        (["--min-price", "6", "--max-price", "7"], {"H100-SXM"}, 1),
        (["--spot"], {"H100-SXM"}, 2),  # the zone and the region's cheapest zone
        (["--no-spot", "--chip", "H100-SXM"], {"H100-SXM"}, 2),
        (["--pricing-model", "On-Demand", "--provider", "AWS"], None, 4),
        (["--pricing-model", "reserved"], {"H100-SXM"}, 1),
    ],
)
def test_filters(db, args, chips, count):
    result = chipcost("prices", *args, "--format", "json", "--db", str(db))
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert len(rows) == count
    if chips is not None:
        assert {r["chip"] for r in rows} == chips


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--chip", "H100-SMX"], "unknown chip 'H100-SMX' (did you mean H100-SXM"),
        # A provider's whole name for an offer (as `prices` shows Crusoe's) names the chips in
        # it, not the nearest strings (A100-80GB, A100-40GB on 2b517ec).
        (
            ["--chip", "NVIDIA H100 80GB HGX"],
            "unknown chip 'NVIDIA H100 80GB HGX' (it names H100: H100-NVL, H100-PCIe, H100-SXM)",
        ),
        (["--chip", "1x AMD MI355X 288GB"], "unknown chip '1x AMD MI355X 288GB' (it names MI355X)"),
        (
            ["--region", "us-east-9"],
            "no current price is in region 'us-east-9' (did you mean us-east-1",
        ),
        (["--pricing-model", "ondemand"], "pricing model 'ondemand' (did you mean on_demand"),
        (["--provider", "aw"], "unknown provider 'aw' (did you mean aws"),
        # A typo beside a name the matched rows show is still refused.
        (
            ["--region", "us-east-1", "--region", "us-east-9"],
            "no current price is in region 'us-east-9'",
        ),
        (["--provider", "AWS", "--provider", "aw"], "unknown provider 'aw' (did you mean aws"),
        (["--min-price", "3", "--max-price", "2"], "--min-price 3 is above --max-price 2"),
        (
            ["--chip-count", "eight"],
            "--chip-count 'eight': give the chips per instance, more than 0",
        ),
        (["--chip-count", "0"], "--chip-count '0': give the chips per instance, more than 0"),
        (["--min-memory", "nan"], "--min-memory nan"),
    ],
)
def test_wrong_names_and_numbers_are_explained(db, args, message):
    result = chipcost("prices", *args, "--db", str(db))
    # Each names a value the option does not take (a region no current price is in too, with
    # the nearest that have one): a usage error, exit 2.
    assert result.returncode == 2, result.stdout
    assert message in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("limit", ["-5", "0", "99999999999999999999"])
def test_a_limit_out_of_range_is_refused(db, limit):
    result = chipcost("prices", "--limit", limit, "--db", str(db))
    assert result.returncode == 2
    assert "Invalid value for '--limit'" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("columns", [80, 120])
def test_tables_fit_and_never_cut_a_price(db, columns):
    result = chipcost(
        "prices", "--chip", "H100-SXM", "--region", "us-east-1", "--db", str(db), columns=columns
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    table = lines[: next(i for i, line in enumerate(lines) if line.startswith("prices as of"))]
    assert all(len(line) <= columns for line in table), "\n".join(table)
    assert "…" not in result.stdout
    # What every row shares is said once; every price is whole.
    assert "chip H100-SXM" in lines[1] and "region us-east-1" in lines[1]
    for price in ("6.8800", "4.1250", "2.5000"):
        assert price in result.stdout
    # The upfront fee of the all-upfront reservation, or a word that it did not fit.
    assert "289,080.00" in result.stdout or "upfront $" in result.stdout.split("left out")[1]


def test_wide_shows_every_column(db):
    result = chipcost("prices", "--chip", "H100-SXM", "--wide", "--db", str(db), columns=80)
    assert result.returncode == 0, result.stderr
    for header in ("provider", "region", "instance", "$/instance-hr", "upfront $", "source"):
        assert header in result.stdout
    assert "289,080.00" in result.stdout


def test_sources_reads_the_warehouse(db):
    result = chipcost("sources", "--format", "json", "--db", str(db))
    assert result.returncode == 0, result.stderr
    rows = {r["source"]: r for r in json.loads(result.stdout)}
    api = rows["aws-pricing-api"]
    assert api["last_success_at"] == "2026-11-01T06:00:00+00:00"
    assert api["last_status"] == "failed" and api["stale"] is True and api["sample"] is True
    assert rows["runpod"]["last_success_at"] is None  # registered, never run here
    assert rows["runpod"]["stale"] is True and rows["runpod"]["collected"] is True
    # Registered only to say why it is not collected: no run would make it fresh.
    assert rows["ibm"]["collected"] is False and rows["ibm"]["stale"] is False
    table = chipcost("sources", "--db", str(db), columns=120)
    assert "2026-11-01 06:00" in table.stdout and "stale" in table.stdout
    ibm = next(line for line in table.stdout.splitlines() if line.startswith("ibm"))
    assert "not collected" in ibm and "stale" not in ibm
    runpod = next(line for line in table.stdout.splitlines() if line.startswith("runpod"))
    assert "never run" in runpod and "stale" in runpod
    # A source reading an endpoint its provider has announced for retirement says so.
    assert "runpod: reads an endpoint its provider retires: RunPod's GraphQL API" in table.stdout
    assert "early 2027" in rows["runpod"]["retiring"] and rows["vastai"]["retiring"] == ""
    # At 80 columns a source's name stays whole (it broke as 'aws-savings-pla' / 'ns').
    narrow = chipcost("sources", "--db", str(db), columns=80)
    names = [line.split(" ")[0] for line in narrow.stdout.splitlines()[3:] if line[:1].isalpha()]
    assert "aws-savings-plans" in names and "aws-capacity-blocks" in names
    assert max(len(line) for line in narrow.stdout.splitlines()) <= 80


@pytest.mark.parametrize(
    ("query", "fmt", "expected"),
    [
        ("select interval 14 month + interval 3 day as iv", "json", [{"iv": "P1Y2M3D"}]),
        ("select 'ab'::blob as b, [1, 2] as l, {'k': 'v'} as s", "json",
         [{"b": "YWI=", "l": [1, 2], "s": {"k": "v"}}]),
        ("select 'infinity'::timestamp as t, timestamp_ns '2026-01-01 00:00:00.123456789' as ns",
         "json", [{"t": "infinity", "ns": "2026-01-01T00:00:00.123456789"}]),
        ("select map {'k': 1} as m, 170141183460469231731687303715884105727::hugeint as h", "json",
         [{"m": {"k": 1}, "h": 170141183460469231731687303715884105727}]),
    ],
)  # fmt: skip
def test_sql_writes_every_type(db, query, fmt, expected):
    result = chipcost("sql", query, "--format", fmt, "--db", str(db))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == expected


def test_sql_csv_of_nested_and_interval_columns(db):
    result = chipcost("sql", "select * from source_runs", "--format", "csv", "--db", str(db))
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [json.loads(r["notes"]) for r in rows] == [[], []]
    age = chipcost("sql", "select now() - min(valid_from) as age from price_history",
                   "--format", "csv", "--db", str(db))  # fmt: skip
    assert age.returncode == 0, age.stderr
    assert age.stdout.splitlines()[1].startswith("P")


def test_csv_and_json_convert_the_same_way(db):
    """NaN and infinities are null (an empty CSV cell); a repeated name is made unique."""
    query = "select 'nan'::double as n, '-inf'::double as i, 1 as a, 2 as a"
    as_json = chipcost("sql", query, "--format", "json", "--db", str(db))
    assert json.loads(as_json.stdout) == [{"n": None, "i": None, "a": 1, "a_2": 2}]
    as_csv = chipcost("sql", query, "--format", "csv", "--db", str(db))
    assert list(csv.DictReader(io.StringIO(as_csv.stdout))) == [
        {"n": "", "i": "", "a": "1", "a_2": "2"}
    ]


def test_a_stdout_that_cannot_hold_every_character_gets_escapes_not_a_traceback(db):
    # A process of its own: the encoding of its standard streams is the subject.
    query = "select 'é→' as x"
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    for fmt in ("json", "csv", "table"):
        done = subprocess.run(
            [CHIPCOST, "sql", query, "--format", fmt, "--db", str(db)],
            capture_output=True, text=True, timeout=120, check=False, env=env,
        )  # fmt: skip
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        if fmt == "json":
            assert json.loads(done.stdout) == [{"x": "é→"}]
        else:
            assert "\\xe9\\u2192" in done.stdout


def test_version_and_short_help():
    version = chipcost("--version")
    assert version.returncode == 0 and version.stdout.startswith("chipcost ")
    short = chipcost("prices", "-h")
    assert short.returncode == 0 and "--pricing-model" in short.stdout


def test_columns_follow_the_rows_shown_not_those_cut_by_the_limit(db):
    # The all-upfront reservation is the only row with an upfront fee: past --limit, its
    # column would be empty and take the room of one that tells the rows apart.
    every = chipcost("prices", "--chip", "H100-SXM", "--db", str(db), columns=200)
    assert "upfront $" in every.stdout and "289,080.00" in every.stdout
    first = chipcost("prices", "--chip", "H100-SXM", "--limit", "1", "--db", str(db), columns=200)
    assert first.returncode == 0, first.stderr
    assert "289,080.00" not in first.stdout and "upfront $" not in first.stdout


def test_an_80_column_screen_keeps_the_instance(db):
    # The instance tells two offers of one provider and region apart: at 80 columns it was
    # left out, and three OCI A10 rows read 'oci global on_demand 2.0000' alike.
    result = chipcost("prices", "--by", "offer", "--db", str(db), columns=80)
    assert result.returncode == 0, result.stderr
    header = next(line for line in result.stdout.splitlines() if "$/chip-hr" in line)
    lines = result.stdout.splitlines()
    rule = next(i for i in range(lines.index(header), len(lines)) if lines[i].startswith("───"))
    assert " instance " in " ".join(lines[lines.index(header) : rule]) + " ", result.stdout
    assert "p5.48xlarge" in result.stdout
    table = lines[lines.index(header) : next(i for i, x in enumerate(lines) if "as of" in x)]
    assert max(len(line) for line in table) <= 80, table


QUERY_NUMBERS = (
    "select chip, avg(price_per_hour / 3) as third, count(*) as n, 0.00001::double as tiny "
    "from current_prices group by chip order by chip"
)


@pytest.mark.parametrize("columns", [None, 200])  # a pipe (the plain writer), rich's width
def test_sql_right_aligns_numbers_and_shortens_floats(db, columns):
    """On 368c4bd `sql` left-aligned numbers and printed raw doubles (0.8333333333333334)."""
    table = chipcost("sql", QUERY_NUMBERS, "--db", str(db), columns=columns).stdout
    lines = table.splitlines()
    assert re.fullmatch(r"chip +third +n +tiny", lines[0]), lines[0]
    row = next(line for line in lines if line.startswith("L4 "))
    assert re.fullmatch(r"L4 +0\.266667 +1 +1e-05", row), table
    # Numbers right-aligned under their headers.
    assert lines[0].index("third") + len("third") == row.index("0.266667") + len("0.266667")
    raw = chipcost("sql", QUERY_NUMBERS, "--db", str(db), "--format", "csv").stdout
    assert "0.26666666666666666" in raw  # csv and json keep every digit


def test_a_family_is_listed_cheapest_first_across_its_variants(db):
    """On 368c4bd `prices --chip H100` filled the page with H100-PCIe, the alphabetically
    first variant, before the cheaper H100-SXM offers."""
    rows = chipcost("prices", "--chip", "H100", "--format", "csv", "--db", str(db)).stdout
    prices = [float(line.split(",")[11]) for line in rows.splitlines()[1:]]
    assert len(prices) > 1 and prices == sorted(prices)
    by_chip = chipcost("prices", "--chip", "H100", "--sort", "chip", "--format", "csv",
                       "--db", str(db)).stdout  # fmt: skip
    chips = [line.split(",")[0] for line in by_chip.splitlines()[1:]]
    assert chips == sorted(chips)
    bad = chipcost("prices", "--sort", "cost", "--db", str(db))
    assert bad.returncode == 2 and "--sort cost: sort by one of chip, price" in bad.stderr
