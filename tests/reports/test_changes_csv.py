"""The report's CSV of every change, written from the warehouse a batch at a time, and what the
report holds of the period's events (their counts and the first rows it shows): on the sample
week, the same as the events read whole."""

from __future__ import annotations

import csv
import io

import polars as pl

from chipcost.reports.build import changes_csv, glitch_marks, write_changes_csv, write_report
from chipcost.reports.data import printable_text
from chipcost.reports.period import ReportOptions
from chipcost.warehouse.changes import EventCounts, change_events
from chipcost.warehouse.reader import open_reader


def _whole(made) -> pl.DataFrame:
    """Every event of the report's period, read whole as one frame."""
    con = open_reader(made.db_path)
    try:
        return change_events(con, made.data.period.start, made.data.period.end)
    finally:
        con.close()


def test_the_csv_is_byte_for_byte_the_events_written_at_once(sample_report, tmp_path):
    made, _ = sample_report
    glitches = glitch_marks(made.data.glitches)
    at_once = changes_csv(printable_text(_whole(made)), glitches).write_csv().encode()
    assert made.csv_path.read_bytes() == at_once
    # in batches of 50 rows: more than ten of them, each after the first without its header
    batched = tmp_path / "changes.csv"
    con = open_reader(made.db_path)
    try:
        write_changes_csv(con, made.data.period, batched, batch=50, glitches=glitches)
    finally:
        con.close()
    assert at_once.count(b"\n") - 1 == made.data.events.events > 500
    assert batched.read_bytes() == at_once
    # the Parquet file DuckDB wrote the events to is gone, from the report's folder too
    assert sorted(p.name for p in tmp_path.iterdir()) == ["changes.csv"]
    assert not [p for p in made.csv_path.parent.iterdir() if p.name.startswith(".")]


def test_the_report_holds_the_counts_and_the_first_rows_it_shows(sample_report):
    made, _ = sample_report
    whole, data = _whole(made), made.data
    new = whole.filter((pl.col("change") == "new") & ~pl.col("history_start"))
    withdrawn = whole.filter(pl.col("change") == "withdrawn")
    assert data.events == EventCounts(
        events=whole.height,
        new=new.height,
        withdrawn=withdrawn.height,
        changed=whole.filter(pl.col("change") == "changed").height,
        first_seen=whole.filter(pl.col("history_start")).height,
    )
    shown = data.options.report_rows // 2
    assert new.height > shown  # the sample week has more new offers than the report shows
    assert data.new_shown.select(whole.columns).equals(printable_text(new.head(shown)))
    assert data.withdrawn_shown.select(whole.columns).equals(printable_text(withdrawn.head(shown)))


def test_a_glitch_is_marked_and_the_money_says_its_currency(sample_report, tmp_path):
    """The sample week's H100-SXM at spheron went x8 and back (the page marks it '×8.0 and
    back', after the real moves): both its changes are marked so in the CSV, no other row is;
    every row says its prices are US dollars, with `--currency EUR` too (the page's cheapest
    prices are then in euros, the changes never)."""
    made, _ = sample_report
    rows = list(csv.DictReader(io.StringIO(made.csv_path.read_text(encoding="utf-8"))))
    marked = [r for r in rows if r["glitch"]]
    assert [(r["provider"], r["chip"], r["change_pct"], r["glitch"]) for r in marked] == [
        ("spheron", "H100-SXM", "700.0", "×8.0 and back"),
        ("spheron", "H100-SXM", "-87.5", "×8.0 and back"),
    ]
    assert {r["currency"] for r in rows} == {"USD"}
    euros = write_report(made.db_path, tmp_path, options=ReportOptions(currency="EUR"))
    assert euros.data.currency == "EUR" and "€" in euros.html_path.read_text(encoding="utf-8")
    again = list(csv.DictReader(io.StringIO(euros.csv_path.read_text(encoding="utf-8"))))
    assert again == rows  # the same dollars, said as dollars
