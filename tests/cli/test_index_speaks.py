"""`index` speaks like every read: the sample mark, "prices as of", stale and failing sources,
`sample` in its JSON and CSV, and its footnote only when a row is starred. The warehouse is
four sample runs replayed for real, the last two with lambda's payload broken (lambda fails
on 2026-11-16 and 17)."""

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

RUNS = sorted(p for p in SAMPLE.iterdir() if p.is_dir())[:4]


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("index")
    archive = root / "archive"
    for run in RUNS:
        shutil.copytree(run, archive / run.name)
    for run in RUNS[-2:]:
        broken = archive / run.name
        entry = read_manifest(broken / "lambda")["payloads"][0]
        shutil.rmtree(broken / "lambda")
        ArchiveWriter(archive, run.name, "lambda", sample=True).write(
            b"<html>502 Bad Gateway</html>", entry["url"], fetched_at=parse_stamp(run.name)
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


def _day(rows: list[dict], day: str) -> dict:
    return next(r for r in rows if r["chip"] == "H100-SXM" and str(r["day"]) == day)


def test_a_failing_providers_price_is_flagged_then_left_out_past_the_stale_limit(warehouse, run):
    # lambda succeeded on 2026-11-15 and failed on the 16th and 17th: those days its price is
    # the 15th's, carried. Within CHIPCOST_STALE_DAYS (1 here) it stays a constituent, flagged.
    args = ("index", "--chip", "H100-SXM", "--format", "json", "--db", str(warehouse))
    done = run(*args, env={"CHIPCOST_STALE_DAYS": "1"})
    assert done.returncode == 0, done.stderr[-2000:]
    rows = json.loads(done.stdout)
    assert _day(rows, "2026-11-15")["failing"] is None  # its own good run's day
    kept = _day(rows, "2026-11-16")
    assert kept["failing"] == "lambda (lambda)" and "lambda" in kept["prices"]
    # Past the limit it is left out, and `left_out` names why.
    gone = _day(rows, "2026-11-17")
    assert "lambda" not in gone["prices"] and gone["failing"] is None
    assert gone["left_out"] == (
        f"lambda {_price(kept, 'lambda')} (lambda failing, no successful run since 2026-11-15)"
    )
    assert gone["constituents"] == kept["constituents"] - 1
    # With the default limit (2 days) the 17th keeps it, flagged.
    default = json.loads(run(*args).stdout)
    assert _day(default, "2026-11-17")["failing"] == "lambda (lambda)"
    table = run("index", "--chip", "H100-SXM", "--db", str(warehouse), env={"COLUMNS": "200"})
    said = " ".join(table.stdout.split())
    assert "from a failing source: lambda (lambda)" in said and "! a constituent's source" in said


def _price(row: dict, provider: str) -> str:
    return next(p.split()[1] for p in row["prices"].split("; ") if p.split()[0] == provider)


def test_the_reports_index_signs_a_move_as_index_does():
    """`index` prints '+9.8%'; the report's price index printed '9.8%' for the same rise."""
    import polars as pl

    from chipcost.reports.tables import index_table

    frame = pl.DataFrame(
        {"chip": ["H100-SXM", "B200"], "level": [2.1, 3.2], "change": [0.098, -0.045],
         "constituents": [4, 3], "constituents_changed": [False, True],
         "trend": [[1.9, 2.1], [3.4, 3.2]]}
    )  # fmt: skip
    html = index_table(frame).as_raw_html()
    assert "+9.8%" in html and "−4.5%" in html


def test_an_index_asked_after_the_newest_prices_says_so(warehouse, run):
    """On 2487f4c: "no index ... in the history from 2030-01-01 to 2026-11-07", a period that
    ends before it begins (--until cut to the newest prices)."""
    done = run("index", "--since", "2030-01-01", "--until", "2030-02-01", "--db", str(warehouse))
    said = " ".join(done.stderr.split())
    assert done.returncode == 1 and "--since 2030-01-01 is after the newest prices (" in said


def test_an_index_of_a_pricing_model_the_chip_never_had_says_which_it_has(warehouse, run):
    """On 131508c0 `index --chip A10 --pricing-model commitment` advised running collect or
    widening the days, neither of which gives a chip with no commitment offer an index."""
    done = run("index", "--chip", "A10", "--pricing-model", "commitment", "--db", str(warehouse))
    said = " ".join(done.stderr.split())
    assert done.returncode == 1, said
    assert "the history holds no 1-year commitment offer of A10 on any day" in said, said
    assert "only on demand and spot: give --pricing-model on_demand,spot" in said, said
    assert "widen the days" not in said
    done = run("index", "--chip", "A10", "--pricing-model", "spot", "--db", str(warehouse))
    assert done.returncode == 0, done.stderr


def test_an_index_of_days_without_prices_still_says_to_collect_or_widen(warehouse, run):
    days = ("--since", "2020-01-01", "--until", "2020-02-01")
    done = run("index", "--chip", "A10", "--pricing-model", "commitment,on_demand", *days,
               "--db", str(warehouse))  # fmt: skip
    said = " ".join(done.stderr.split())
    assert done.returncode == 1 and "or widen the days" in said, said


@pytest.mark.parametrize("command", [["index"], ["history", "--chip", "H100"]])
def test_swapped_days_are_refused_with_the_same_hint_by_index_and_history(warehouse, run, command):
    """On 131508c0 `index` refused --since after --until without history's "swap them"."""
    done = run(*command, "--since", "2026-11-18", "--until", "2026-11-15", "--db", str(warehouse))
    said = " ".join(done.stderr.split())
    assert done.returncode == 2, said
    assert "--since 2026-11-18 is after --until 2026-11-15: swap them;" in said, said
