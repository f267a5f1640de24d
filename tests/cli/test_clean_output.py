"""Provider and user text on the terminal, in the report and in --format csv and json: no
control or bidi character reaches the reader (json keeps the text, each written as its \\u
escape), and no bracket is taken for rich markup."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from chipcost.cli.consoles import Screen
from chipcost.core.runs import FAILED, LoadSummary, RunResult, SourceResult
from chipcost.pipeline.seed import open_warehouse
from chipcost.reports.build import deliver, write_report
from chipcost.warehouse.load import load_run
from tests import warehouses
from tests.helpers import day, loaded_warehouse, record, run_of

# with invisible characters too: 'p5.48x\u200blarge' shows as 'p5.48xlarge' and is another
HOSTILE = "p5\x1b[2J.48x\x00\u200b\u2060\ufeff\u00adlarge\u202e[/]:smile:"
SHOWN = "p5[2J.48xlarge[/]:smile:"
RAW = ("\x1b", "\x00", "\u202e", "\u200b", "\u2060", "\ufeff", "\u00ad")


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("clean") / "w.duckdb"
    con = open_warehouse(warehouses.new(path))
    load_run(con, run_of([record(instance_type=HOSTILE)], day(0)))
    load_run(con, run_of([record(instance_type=HOSTILE, price_per_hour=50.0)], day(1)))
    con.close()
    return path


def assert_clean(text: str) -> None:
    assert not [c for c in RAW if c in text], repr(text[:500])


def test_prices_shows_the_text_cleaned_and_literal(db, run):
    done = run("prices", "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert SHOWN in done.stdout
    assert_clean(done.stdout)


def test_sql_shows_names_and_values_as_text(db, run):
    # Brackets that close nothing once ended `chipcost sql` in a markup error.
    query = "select instance_type as \"[/]:a: name\", '[bold]b[/] :smile:' as e from price_history"
    done = run("sql", query, "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert "[/]:a: name" in done.stdout
    assert SHOWN in done.stdout
    assert "[bold]b[/] :smile:" in done.stdout
    assert_clean(done.stdout)


def test_a_user_source_with_brackets_is_shown_not_parsed(db, run, tmp_path):
    own = tmp_path / "w.duckdb"
    own.write_bytes(db.read_bytes())
    added = run(
        "throughput", "add", "--chip", "H100-SXM", "--model", "llama-3-70b", "--workload",
        "inference", "--tokens-per-second", "1500", "--citation", "our [/bench] \x1b[1mrun",
        "--db", str(own),
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    done = run("cost", "--model", "llama-3-70b", "--workload", "inference", "--db", str(own))
    assert done.returncode == 0, done.stderr
    # The footnote may wrap at the terminal's width: compare with the lines joined.
    assert "our [/bench] [1mrun" in " ".join(done.stdout.split())
    assert_clean(done.stdout)


def test_the_report_the_email_and_the_csv_are_clean(db, tmp_path):
    made = write_report(db, tmp_path / "out")
    eml = deliver(made, ["a@example.com"], dry_run=True).eml_path
    for path in (made.html_path, made.csv_path, eml):
        text = path.read_text(encoding="utf-8", errors="replace")
        assert_clean(text)
    assert SHOWN in made.csv_path.read_text()


def test_a_source_message_in_the_run_summary_is_clean_and_literal():
    from chipcost.cli.commands.collect import print_outcomes
    from chipcost.pipeline.collection import RunOutcome

    source = SourceResult("runpod", "runpod", FAILED, message="answered 500 ([/x]\x1b[31m\u202e)")
    source.notes = ["note [bold]\x00 here"]
    run = RunResult("r", day(0), day(0), "live", "2026-11-01T060000Z", False, [source])
    buffer = io.StringIO()
    outcome = RunOutcome(run, LoadSummary(0, 0, 0, 0, 0))
    print_outcomes(Screen(buffer, 200), [outcome], Path("w.duckdb"))
    assert "answered 500 ([/x][31m)" in buffer.getvalue()
    assert "note [bold] here" in buffer.getvalue()
    assert_clean(buffer.getvalue())
    # Nothing was loaded: no hint to read prices that are not there.
    assert "w.duckdb  (nothing was loaded: see the messages above)" in buffer.getvalue()
    assert "try: chipcost prices" not in buffer.getvalue()


# A provider's names as a hostile one could write them, for --format csv and json: an OSC 8
# link, a bell, a cursor move, the 8-bit CSI, a right-to-left override.
ESCAPES = "evil\x1b]8;;http://x\x07link\x1b]8;;\x07\x1b[2J\x9b31m\u202egpu"


@pytest.fixture(scope="module")
def escapes(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("escapes") / "w.duckdb"
    return loaded_warehouse(path, [record(instance_type=ESCAPES, sku="SKU\x1b[31m")])


def test_csv_output_has_no_control_character(escapes, run):
    done = run("prices", "--format", "csv", "--db", str(escapes))
    assert done.returncode == 0, done.stderr[-1000:]
    assert not [c for c in done.stdout if (ord(c) < 32 and c != "\n") or 0x7F <= ord(c) <= 0x9F]
    assert "\u202e" not in done.stdout
    assert "evil]8;;http://xlink]8;;[2J31mgpu" in done.stdout  # what the table shows


def test_json_output_escapes_control_characters_and_keeps_the_text(escapes, run):
    done = run("prices", "--format", "json", "--db", str(escapes))
    assert done.returncode == 0, done.stderr[-1000:]
    assert not [c for c in done.stdout if (ord(c) < 32 and c != "\n") or 0x7F <= ord(c) <= 0x9F]
    assert "\u202e" not in done.stdout
    [row] = json.loads(done.stdout)
    assert row["instance_type"] == ESCAPES  # the data as it is, escaped in the JSON text
