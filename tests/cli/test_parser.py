"""The one command line (chipcost.cli.parser, on click): click's help at the terminal's width,
usage errors in one line with exit 2 and click's closest spelling, old spellings taken with a
note, and `sql` exiting 1 when its query returns no rows, as every read that matches nothing."""

from __future__ import annotations

import json
import re

import pytest

from chipcost.pipeline.seed import open_warehouse
from chipcost.warehouse.load import load_run
from tests.helpers import day, record, run_of


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("parser") / "w.duckdb"
    con = open_warehouse(path)
    load_run(con, run_of([record()], day(0)))
    con.close()
    return str(path)


@pytest.mark.parametrize("columns", [80, 160])
def test_help_uses_the_terminals_width(run, columns):
    shown = run("prices", "--help", env={"COLUMNS": str(columns)})
    lines = shown.stdout.splitlines()
    assert shown.returncode == 0 and "--max-price" in shown.stdout
    assert max(len(line) for line in lines) <= columns
    # The descriptions fill the line, not a narrow column: a long help fits in fewer lines.
    assert max(len(line) for line in lines) > columns - 20


def test_the_overview_lists_every_command(run):
    from chipcost.cli.parser import COMMANDS

    shown = run("--help")
    assert shown.returncode == 0
    assert all(f"\n  {name} " in shown.stdout for name in COMMANDS)
    bare = run()
    assert bare.returncode == 2 and bare.stdout == shown.stdout


def test_a_misspelt_option_names_the_closest_in_one_line(run):
    done = run("prices", "--max-prise", "3")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "chipcost prices: error: No such option '--max-prise'. (Did you mean one of: "
        "'--max-price', '--min-price'?); see `chipcost prices --help`"
    ]


def test_the_closest_options_are_those_help_lists(run):
    """Not --help (click's own suggestion for --chipp), nor an old spelling taken hidden."""
    done = run("prices", "--chipp", "X")
    assert done.returncode == 2
    assert "(Did you mean one of: '--chip', '--chip-count'?)" in done.stderr
    index = run("index", "--buckett", "spot")  # --bucket: --pricing-model's old spelling
    assert index.returncode == 2 and "--bucket'" not in index.stderr, index.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["history", "--limit", "5"], "--limit is an option of prices, sql, cost, sources, "
         "throughput list;"),
        (["prices", "--origin", "user"], "--origin is an option of throughput list;"),
        (["sources", "--since", "2026-11-01"], "--since is an option of history, index, "
         "report, export, backfill;"),
    ],
)  # fmt: skip
def test_an_option_of_other_commands_names_every_command_that_takes_it(run, args, said):
    """On 131508c0 `history --limit 5` said "--limit is an option of prices, cost, sql": the
    reads alone, not sources nor throughput list, which take it too."""
    done = run(*args)
    assert done.returncode == 2 and said in done.stderr, done.stderr


@pytest.mark.parametrize(
    ("args", "near"),
    [
        (["index", "--provider", "aws"], None),  # said "Did you mean '--wide'?" on c96d2408
        (["index", "--instance", "p5.48xlarge"], None),  # "Did you mean '--since'?"
        (["sql", "--wide", "select 1"], None),  # "Did you mean '--db'?"
        (["prices", "--model", "x"], "--pricing-model"),
    ],
)
def test_an_option_of_other_commands_gets_a_did_you_mean_only_where_one_is_near(run, args, near):
    done = run(*args)
    assert done.returncode == 2, done.stderr
    suggested = re.findall(r"Did you mean(?: one of:)? (.*?)\?", done.stderr)
    assert suggested == ([f"'{near}'"] if near else []), done.stderr
    assert f"{args[1]} is an option of " in done.stderr


@pytest.mark.parametrize("option", ["--provider", "--region"])
def test_index_says_why_it_takes_no_provider_nor_region(run, option):
    """docs/cli.md: the index is the median over every provider; a filter would make another
    index, and the refusal says so rather than leave it a mistake to guess at."""
    done = run("index", "--chip", "H100-SXM", option, "x")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert f"index takes no {option}: its level is the median of every provider's" in done.stderr


def test_a_misspelt_command_names_the_closest(run):
    done = run("prise")
    assert done.returncode == 2 and "No such command 'prise'. Did you mean 'prices'?" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["measure"], "chipcost measure: error: Missing option '--endpoint'"),
        (["history"], "chipcost history: error: Missing option '--chip'"),
        (["compare"], "chipcost compare: error: Missing argument 'CHIP_A'"),
        (
            ["backfill", "--region", "us-east-1"],
            "chipcost backfill: error: Missing option '--since'",
        ),
    ],
)
def test_a_missing_option_is_a_usage_error_in_one_line(run, args, said):
    done = run(*args)
    assert done.returncode == 2 and done.stderr.startswith(said), done.stderr
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr


def test_a_value_out_of_bounds_is_a_usage_error(run):
    done = run("prices", "--limit", "0")
    assert done.returncode == 2 and "'--limit': 0 is not in the range 1<=x<=1000000" in done.stderr
    done = run("prices", "--format", "xml")
    said = "'--format': 'xml' is not one of 'table', 'csv', 'json', 'focus'"
    assert done.returncode == 2 and said in done.stderr and len(done.stderr.splitlines()) == 1


def test_sql_takes_limit_and_its_old_spelling(run, db):
    query = "select * from range(5)"
    new = run("sql", query, "--limit", "2", "--format", "csv", "--db", db)
    old = run("sql", query, "--max-rows", "2", "--format", "csv", "--db", db)
    assert new.returncode == old.returncode == 0
    assert new.stdout == old.stdout and new.stdout.splitlines() == ["range", "0", "1"]
    assert "--max-rows is the old spelling of --limit" in old.stderr


@pytest.mark.parametrize("format", ["table", "csv", "json"])
def test_sql_with_no_rows_exits_1_in_every_format(run, db, format):
    done = run("sql", "select 1 as a where false", "--format", format, "--db", db)
    assert done.returncode == 1 and "the query returned no rows" in done.stderr
    if format == "json":
        assert json.loads(done.stdout) == []


def test_index_takes_pricing_model_and_its_old_spelling(run, db):
    new = run("index", "--pricing-model", "on_demand", "--format", "json", "--db", db)
    old = run("index", "--bucket", "on_demand", "--format", "json", "--db", db)
    assert new.returncode == old.returncode == 0 and new.stdout == old.stdout
    assert "--bucket is the old spelling of --pricing-model" in old.stderr


def test_export_writes_to_out_and_takes_focus_as_its_old_spelling(run, db, tmp_path):
    new = run("export", "--out", str(tmp_path / "new"), "--db", db)
    old = run("export", "--focus", str(tmp_path / "old"), "--db", db)
    assert new.returncode == old.returncode == 0
    assert (tmp_path / "new" / "sku_prices.csv").read_bytes() == (
        tmp_path / "old" / "sku_prices.csv"
    ).read_bytes()
    assert "--focus is the old spelling of --out" in old.stderr
    refused = run("export", "--out", str(tmp_path / "eur"), "--currency", "EUR", "--db", db)
    assert refused.returncode == 2 and "the export converts nothing" in refused.stderr


def test_site_takes_out_and_its_old_positional_directory(run, db, tmp_path):
    new = run("site", "--out", str(tmp_path / "new"), "--db", db)
    old = run("site", str(tmp_path / "old"), "--db", db)
    assert new.returncode == old.returncode == 0
    assert (tmp_path / "new" / "index.html").exists() and (tmp_path / "old" / "index.html").exists()
    assert "DIRECTORY without --out is the old spelling of --out" in old.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["site", "{tmp}/A", "--out", "{tmp}/B"], "DIRECTORY is the old spelling of --out"),
        (["export", "--focus", "{tmp}/A", "--out", "{tmp}/B"],
         "--focus is the old spelling of --out"),
        (["sql", "select 1", "--max-rows", "2", "--limit", "5"],
         "--max-rows is the old spelling of --limit"),
        (["--limit", "5", "sql", "select 1", "--max-rows", "2"],
         "--max-rows is the old spelling of --limit"),
    ],
    ids=["site", "export", "sql", "sql-before"],
)  # fmt: skip
def test_an_old_spelling_given_with_its_new_one_is_refused_naming_both(
    run, db, tmp_path, args, said
):
    """Neither value is taken unsaid (the old one won on 8f82443): refused as --spot --no-spot."""
    done = run(*(a.format(tmp=tmp_path) for a in args), "--db", db)
    command = next(a for a in args if not a.startswith("-") and a != "5")
    assert done.returncode == 2 and not done.stdout, done.stdout
    assert done.stderr.startswith(f"chipcost {command}: error: {said}: give one of them; see ")
    assert "note:" not in done.stderr and not list(tmp_path.iterdir())


def test_the_old_and_new_spellings_of_a_list_join(run, db):
    both = run("index", "--bucket", "spot", "--pricing-model", "on_demand", "--format", "json",
               "--db", db)  # fmt: skip
    apart = run("index", "--pricing-model", "on_demand,spot", "--format", "json", "--db", db)
    assert both.returncode == 0 and both.stdout == apart.stdout, both.stderr


@pytest.mark.parametrize("args", [[], ["prices"], ["throughput", "add"], ["collect"]])
def test_parsing_imports_nothing_heavy(args):
    """Every command's module stays cheap to import: the heavy libraries load when it runs."""
    import subprocess
    import sys

    code = (
        "import sys, click; from chipcost.cli.parser import chipcost, command_for; "
        f"command = command_for({args!r}) or chipcost; "
        "command.get_help(click.Context(command)); "
        "heavy = ('duckdb', 'polars', 'prefect', 'rich', 'typer'); "
        "print(sorted({h for m in sys.modules for h in heavy if m == h or m.startswith(h + '.')}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout
