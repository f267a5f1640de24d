"""What scripts rely on: a read that matches nothing exits 1 in every format while its stdout
still parses, a blank filter is refused rather than read as none, and each chip that has no
row says why."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from tests.report_warehouse import build

COST = ["cost", "--model", "llama-3-70b", "--workload", "inference"]


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    return str(build(tmp_path_factory.mktemp("scripting") / "w.duckdb"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["prices", "--chip", "K80"], "no current prices for K80"),
        (["prices", "--chip", "Trainium3"], "Trainium3: price not published (AWS sells Trn3"),
        (["history", "--chip", "K80"], "the warehouse has never held a price of K80"),
        ([*COST, "--chip", "H100-SXM", "--region", "us-west-2", "--pricing-model", "spot"],
         "no current offer matches for llama-3-70b inference"),
        ([*COST, "--chip", "K80"], "no current price for K80"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_nothing_matched_exits_1_in_every_format_and_stdout_still_parses(
    run, db, args, message, fmt
):
    done = run(*args, "--format", fmt, "--db", db)
    assert done.returncode == 1 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    if fmt == "json":
        assert json.loads(done.stdout) == []
    elif fmt == "csv":
        assert list(csv.DictReader(io.StringIO(done.stdout))) == []


@pytest.mark.parametrize(
    "args",
    [
        ["prices", "--region", ""],
        ["prices", "--provider", " , "],
        ["prices", "--pricing-model", ""],
        ["prices", "--chip-count", ""],
        ["history", "--chip", "H100-SXM", "--region", ""],
        [*COST, "--chip", ""],
        [*COST, "--baseline", ""],
        ["throughput", "list", "--workload", ""],
    ],
)
def test_a_blank_filter_is_refused_not_read_as_every_value(run, db, args):
    done = run(*args, "--db", db)
    assert done.returncode == 2, (done.stdout[-300:], done.stderr)
    assert " is empty: give " in done.stderr and done.stdout == ""


def test_a_family_is_not_a_baseline(run, db):
    done = run(*COST, "--baseline", "H100", "--db", db)
    assert done.returncode == 2
    assert "--baseline 'H100' is a family (H100-SXM, H100-PCIe, H100-NVL): pick one" in done.stderr


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_each_chip_without_history_says_why(run, db, fmt):
    done = run("history", "--chip", "H100-SXM,K80", "--no-chart", "--format", fmt, "--db", db)
    assert done.returncode == 0, done.stderr
    why = "the warehouse has never held a price of K80"
    if fmt == "json":
        assert {r["chip"] for r in json.loads(done.stdout)} == {"H100-SXM"}
        assert f"note: {why}" in done.stderr
    else:
        assert why in done.stdout and "H100-SXM" in done.stdout


@pytest.mark.parametrize(
    ("command", "fmt"),
    [
        (["prices", "--chip", "H100-SXM"], "json"),
        ([*COST], "json"),
        # on 131508c0 these said nothing of the rows --limit left out
        (["prices", "--chip", "H100-SXM"], "focus"),
        (["prices", "--by", "chip"], "csv"),
        (["prices", "--by", "region"], "json"),
        (["sql", "select * from price_history"], "csv"),
        (["sql", "select * from price_history"], "json"),
        (["sources"], "csv"),
    ],
)
def test_rows_cut_by_the_limit_are_counted_on_stderr(run, db, command, fmt):
    every = json.loads(run(*command, "--format", "json", "--db", db).stdout)
    done = run(*command, "--format", fmt, "--limit", "1", "--db", db)
    assert done.returncode == 0, done.stderr
    if fmt == "json":
        assert len(json.loads(done.stdout)) == 1
    else:
        assert len(list(csv.DictReader(io.StringIO(done.stdout)))) == 1
    more = len(every) - 1
    said = f"{more:,} more row{'s' if more != 1 else ''} (--limit)"
    assert len(every) > 1 and done.stderr.count(said) == 1, done.stderr
    whole = run(*command, "--format", fmt, "--limit", str(len(every)), "--db", db)
    assert whole.returncode == 0 and "(--limit)" not in whole.stderr, whole.stderr


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_prices_name_each_chip_of_several_that_matched_nothing(run, db, fmt):
    done = run("prices", "--chip", "H100-SXM,K80", "--format", fmt, "--db", db)
    assert done.returncode == 0, done.stderr
    note = "note: no current price of K80 matches these filters"
    assert note in (done.stdout if fmt == "table" else done.stderr)
    if fmt == "json":
        assert {r["chip"] for r in json.loads(done.stdout)} == {"H100-SXM"}
    # A family's members without a price are not named: the family matched.
    family = run("prices", "--chip", "H100,Trainium", "--format", fmt, "--db", db)
    assert "note: no current price" not in family.stdout + family.stderr


def test_migrate_creates_its_data_directory_but_not_a_db_option_s(run, tmp_path):
    # The data directory is chipcost's to create, as a collection does (CHIPCOST_DATA_DIR or
    # --data-dir); the directory of a file named with --db or CHIPCOST_DB is the user's.
    data = tmp_path / "new" / "data"
    done = run("migrate", env={"CHIPCOST_DATA_DIR": str(data)})
    assert done.returncode == 0, done.stderr
    assert (data / "chipcost.duckdb").is_file() and "schema version" in done.stdout
    elsewhere = tmp_path / "typo" / "w.duckdb"
    done = run("migrate", "--db", str(elsewhere))
    assert done.returncode == 1 and "does not exist" in done.stderr
    assert "fix --db / CHIPCOST_DB" in done.stderr and not elsewhere.parent.exists()


def test_a_blank_site_directory_is_refused_not_read_as_here(run, db, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    done = run("site", "--out", "", "--db", db)
    assert done.returncode == 2 and "the directory is empty" in done.stderr
    assert not (tmp_path / "index.html").exists()


def test_a_misspelt_source_gets_the_closest_name():
    from chipcost.core.errors import ChipcostError
    from chipcost.pipeline.collect import select_sources

    with pytest.raises(ChipcostError, match=r"unknown source aws-pricng-api \(did you mean "):
        select_sources(["aws-pricng-api"])


@pytest.mark.parametrize(
    ("given", "source"),
    [(" aws-bulk", "aws-bulk"), ("AWS-Bulk", "aws-bulk"), ("Vast.ai", "vastai"),
     ("Massed Compute", "massedcompute"), ("together clusters", "together-clusters")],
)  # fmt: skip
def test_a_source_is_taken_as_the_other_name_options_take_names(given, source):
    """Any case, spaces around, a provider's name in words, as --provider takes them."""
    from chipcost.pipeline.collect import select_sources

    assert [s.name for s in select_sources([given])] == [source]


@pytest.mark.parametrize("given", ["-5", "nan", "0", "ten", "2000"])
def test_an_alert_size_that_is_none_is_refused_before_anything_runs(run, tmp_path, given):
    done = run("collect", "--alert-pct", given, "--db", str(tmp_path / "w.duckdb"))
    said = f"--alert-pct '{given}': give a percent above 0 and at most 1000"
    assert done.returncode == 2 and said in done.stderr
    assert not (tmp_path / "w.duckdb").exists()


@pytest.mark.parametrize(
    ("given", "said"),
    [("bogus", "--notify 'bogus' is not"), ("nope://hook/T0K3N", "--notify nope://… is not")],
)
def test_a_notify_target_apprise_cannot_send_to_is_a_usage_error(run, tmp_path, given, said):
    """Named as it was typed (on c96d2408 `--notify bogus` exited 1 naming `bogus://…`, a
    scheme no one typed), less what may be a secret, before anything runs."""
    from tests.paths import ROOT

    done = run("collect", "--replay", str(ROOT / "sample" / "archive"), "--notify", given,
               "--db", str(tmp_path / "w.duckdb"))  # fmt: skip
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert "bogus://" not in done.stderr and "T0K3N" not in done.stderr
    assert not (tmp_path / "w.duckdb").exists()


def test_a_notify_target_in_the_environment_names_the_variable(run, tmp_path):
    """A target read from $CHIPCOST_NOTIFY that apprise cannot send to is named with the
    variable (exit 1, as any variable's bad value), before anything runs: it said
    "notification target 1", which names nothing the user set."""
    from tests.paths import ROOT

    done = run("collect", "--replay", str(ROOT / "sample" / "archive"),
               "--db", str(tmp_path / "w.duckdb"), env={"CHIPCOST_NOTIFY": "bogus"})  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "CHIPCOST_NOTIFY target 1 ('bogus') is not an apprise URL" in done.stderr
    assert not (tmp_path / "w.duckdb").exists()


@pytest.mark.parametrize(("given", "taken"), [("10%", 10.0), (" 7.5 % ", 7.5), ("10", 10.0)])
def test_an_alert_size_is_taken_as_the_other_percent_options_take_one(given, taken):
    from chipcost.pipeline.collection import alert_size

    assert alert_size(given) == taken


def test_no_warehouse_points_at_the_demo_too(run, tmp_path):
    done = run("prices", "--chip", "H100-SXM")  # the fixture's data directory has none
    assert done.returncode == 1 and "run `chipcost collect` first (`chipcost demo`" in done.stderr


def test_a_query_wider_than_the_terminal_is_shown_a_block_per_row(run, db):
    # A table of price_changes' 18 columns in 80 cut every name and value into pieces.
    query = "select * from price_changes order by all limit 2"
    done = run("sql", query, "--db", db, env={"COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("-[ row 1 ]") and any(s.startswith("-[ row 2 ]") for s in lines)
    assert any(re.fullmatch(r"new_price_per_hour +[0-9.]+ *", line) for line in lines)
    assert "2 rows, a block each: a table would be wider than 80 columns" in done.stdout
    assert max(len(line) for line in lines[:-3]) <= 80
    narrow = "select chip, count(*) as n from price_history group by 1 order by 1 limit 2"
    done = run("sql", narrow, "--db", db, env={"COLUMNS": "80"})
    assert done.stdout.startswith("chip") and "2 rows\n" in done.stdout  # a table where it fits


def test_filters_that_cancel_out_name_each_one_whose_removal_gives_prices(run, db):
    done = run("prices", "--chip", "H100-SXM", "--spot", "--pricing-model", "on_demand",
               "--db", db)  # fmt: skip
    assert done.returncode == 1
    assert (
        "no current price matches all of these filters; some match without --pricing-model "
        "on_demand, or without --spot"
    ) in done.stderr
    # Of two filters, only the one whose removal gives prices is named.
    alone = run("prices", "--chip", "H100-SXM", "--max-price", "0.01", "--db", db)
    assert "some match without --max-price 0.01" in alone.stderr
