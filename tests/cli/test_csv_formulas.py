"""Every CSV chipcost writes defuses text a spreadsheet would run as a formula, also behind
leading spaces: `prices`, `history` and `sql --format csv`, the report's and the site's CSV.

On main at 368c4bd the commands wrote `=HYPERLINK(...)`, `@SUM(...)` and `+cmd|` as they came,
and the site and report CSVs missed a formula behind a leading space.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from chipcost.core.clean import printable, spreadsheet_text
from chipcost.pipeline.seed import open_warehouse
from chipcost.reports.site import write_site
from chipcost.warehouse.load import load_run
from tests import warehouses
from tests.cli_runner import chipcost
from tests.helpers import day, record, run_of

HOSTILE = ['=HYPERLINK("http://x","y")', " =1+2", "@SUM(A1)", "+cmd|' /C calc'!A0", "\t=1",
           # a formula behind a control or invisible character, which a tool may strip first
           "\x1b=1+1", "\u202e=1+2", "\u200e@SUM(1)", "\u200b=1+3",
           # a formula after a ;: a spreadsheet splitting on it makes a cell of it that starts
           # with the formula (the CSV writer quotes a cell with a comma, not one with a ;)
           ";=1+2", "H100; @SUM(1)", "p5 ; +cmd|' /C calc'!A0"]  # fmt: skip


@pytest.mark.parametrize("text", HOSTILE)
def test_formula_text_gets_a_leading_quote(text):
    assert spreadsheet_text(text) == "'" + text


@pytest.mark.parametrize(
    "text",
    [
        "p5.48xlarge",
        "us-east-1",
        "a=b",
        "1x H100 SXM",
        "",
        "us-east-1, us-west-2",
        "a;b=c",
        "random dataset, --ignore-eos",
        "1, -2",
    ],  # fmt: skip
)
def test_other_text_is_left_alone(text):
    assert spreadsheet_text(text) == text


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("formulas") / "w.duckdb"
    con = open_warehouse(warehouses.new(path))
    try:
        for n in range(2):
            offers = [  # the provider's names and ids as a hostile provider could write them
                record(instance_type=text, sku=text, price_per_hour=10.0 + i + n, chip=chip)
                for chip in ("H100-SXM", "H200")  # compare needs two chips
                for i, text in enumerate(HOSTILE)
            ]
            load_run(con, run_of(offers, day(n)))
    finally:
        con.close()
    return path


def rows(*args: str) -> list[dict[str, str]]:
    done = chipcost(*args)
    assert done.returncode == 0, done.stderr[-2000:]
    return list(csv.DictReader(io.StringIO(done.stdout)))


def test_prices_csv_defuses_every_formula(warehouse):
    found = rows("prices", "--chip", "H100-SXM", "--format", "csv", "--db", str(warehouse))
    # A tab is a space, as in the table (no control character reaches the terminal).
    assert sorted(r["instance_type"] for r in found) == sorted("'" + printable(t) for t in HOSTILE)
    assert all(float(r["price_per_hour"]) > 0 for r in found)  # numbers stay numbers


def test_sql_csv_defuses_text_but_not_negative_numbers(warehouse):
    query = "SELECT ' =1+2' AS text, -3.5 AS number, '-' AS dash"
    [row] = rows("sql", "--format", "csv", "--db", str(warehouse), query)
    assert row == {"text": "' =1+2", "number": "-3.5", "dash": "'-"}


def test_history_csv_defuses_every_formula(warehouse):
    found = rows("history", "--chip", "H100-SXM", "--format", "csv", "--db", str(warehouse))
    assert found and not [r for r in found for v in r.values() if v.lstrip().startswith("=")]


def test_the_site_csv_defuses_a_formula_behind_spaces(warehouse, tmp_path):
    write_site(warehouse, tmp_path / "site")
    found = list(csv.DictReader((tmp_path / "site" / "offers.csv").open()))
    assert {r["instance_type"] for r in found} == {"'" + t for t in HOSTILE}


# Every command and option that writes CSV, and where the CSV lands ("-": stdout). DB, DIR
# are filled in; test_every_csv_writer_is_walked holds this list to `chipcost --help`.
CSV_WRITERS = {
    "prices --format csv": (["prices", "--format", "csv"], "-"),
    "prices --format focus": (["prices", "--format", "focus"], "-"),
    "history --format csv": (["history", "--chip", "H100-SXM", "--format", "csv"], "-"),
    "history --format focus": (["history", "--chip", "H100-SXM", "--format", "focus"], "-"),
    "index --format csv": (["index", "--chip", "H100-SXM", "--format", "csv"], "-"),
    "cost --format csv": (
        ["cost", "--model", "llama-3-70b", "--workload", "inference", "--format", "csv"],
        "-",
    ),
    "compare --format csv": (
        [
            "compare",
            "H200",
            "H100-SXM",
            "--model",
            "llama-3-70b",
            "--workload",
            "inference",
            "--format",
            "csv",
        ],
        "-",
    ),  # fmt: skip
    "sql --format csv": (
        ["sql", "SELECT instance_type FROM price_history", "--format", "csv"],
        "-",
    ),
    "sources --format csv": (["sources", "--format", "csv"], "-"),
    "throughput list --format csv": (["throughput", "list", "--format", "csv"], "-"),
    "export --out": (["export", "--out", "DIR"], "sku_prices.csv"),
    "site": (["site", "--out", "DIR"], "offers.csv"),
    "report": (["report", "--out", "DIR"], "chipcost-changes_*.csv"),
}


def test_every_csv_writer_is_walked():
    helps = {}
    for command in ("prices", "history", "index", "cost", "compare", "sql", "sources",
                    "export", "site", "report", "collect", "backfill", "migrate", "demo",
                    "remove-run"):  # fmt: skip
        shown = chipcost(command, "--help")
        helps[command] = "csv" in shown.stdout.lower()
    walked = {name.split()[0] for name in CSV_WRITERS}
    assert {c for c, says in helps.items() if says} <= walked, helps


@pytest.mark.parametrize("name", list(CSV_WRITERS))
def test_every_csv_writer_defuses_formulas(warehouse, tmp_path, name):
    args, where = CSV_WRITERS[name]
    out = tmp_path / "out"
    args = [str(out) if a == "DIR" else a for a in args]
    done = chipcost(*args, "--db", str(warehouse))
    assert done.returncode == 0, done.stderr[-2000:]
    text = done.stdout if where == "-" else next(out.glob(where)).read_text()
    cells = [v for row in csv.reader(io.StringIO(text)) for v in row]
    assert cells, name
    assert not [v for v in cells if v.lstrip()[:1] in ("=", "+", "@") or v[:1] == "\t"], name
    # nor after a ; (a spreadsheet splitting there), unless the cell starts with '
    behind = [v for v in cells if v[:1] != "'" and re.search(r";\s*[=+@-]", v)]
    assert not behind, (name, behind)
    if name in ("prices --format csv", "export --out", "site"):
        # the hostile names are there (on the terminal with a tab as a space, as the table)
        shown = {"'" + (printable(t) if where == "-" else t) for t in HOSTILE}
        assert shown <= set(cells), name
