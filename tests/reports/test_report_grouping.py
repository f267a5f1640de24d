"""The weekly report read in two minutes: offers that moved alike on one line (page, e-mail,
Prefect summary), the subject naming the largest real move, and a page under 300 KB.

On 368c4bd one GCP move on a3-highgpu-1g/2g/4g/8g in several regions was 16 identical rows
of the HTML and the artifact, the headline counted offers as "price changes", and the page
of the sample was 2.4 MB.
"""

from __future__ import annotations

import email
import email.policy
import re
from collections import Counter

import pytest

from chipcost.reports.build import deliver, write_report
from chipcost.reports.text import headline, markdown
from tests.browser import needs_chromium
from tests.helpers import day, record, run_of
from tests.reports.test_report_output import warehouse

REGIONS = ("us-east-1", "us-west-2", "eu-west-1", "ap-south-1")


def alike(path):
    """One provider's H100 price falling 10% the same day in four regions, and one other
    offer moving 5% up."""
    runs = []
    for n in (1, 2, 3):
        price = 100.0 if n < 3 else 90.0
        offers = [record(region=r, price_per_hour=price, sku=f"H-{r}") for r in REGIONS]
        a100 = 40.0 if n < 2 else 42.0
        offers.append(
            record(chip="A100-80GB", instance_type="p4de.24xlarge", price_per_hour=a100, sku="A")
        )
        runs.append(run_of(offers, day(n)))
    return warehouse(path, runs)


@pytest.fixture(scope="module")
def alike_report(tmp_path_factory):
    """The report of `alike`'s week, made once: the tests below read it (and write its e-mail
    beside it)."""
    folder = tmp_path_factory.mktemp("alike")
    return write_report(alike(folder / "w.duckdb"), folder / "r")


def test_offers_that_moved_alike_are_one_line_everywhere(alike_report):
    made = alike_report
    assert made.data.moves.height == 5
    assert made.subject.startswith("5 offers moved, H100-SXM on demand −10% (aws, 4 offers)")
    page = made.html_path.read_text()
    changes = re.sub(r"<[^>]+>", " ", page.split('id="changes"')[1].split("</section>")[0])
    # One line in the largest moves, one in the full table folded under them.
    assert changes.count("−10.0%") == 2 and "(4 offers)" in changes
    summary = markdown(made.data, [])
    rows = [line for line in summary.splitlines() if line.startswith("| −10%")]
    assert len(rows) == 1 and "aws · 4 regions" in rows[0] and "4 offers" in rows[0]
    message = email.message_from_bytes(
        deliver(made, [], dry_run=True).eml_path.read_bytes(), policy=email.policy.default
    )
    html = message.get_body(("html",)).get_content()
    assert html.count("−10.0%") == 1 and "(4 offers)" in html


def test_the_headline_names_what_it_counts(alike_report):
    assert headline(alike_report.data).startswith(
        "5 offers moved in price (5 price changes in all): 4 down, 1 up."
    )


def test_the_sample_report_page_is_under_300_kb(sample_report):
    """On 368c4bd the sample's page was 2.4 MB (every move with its sparkline, every chip of
    every model's cost, a 9 KB stylesheet per table). 300 KB until the head-to-head section
    drew its two charts (about 8 KB of SVG) and its break-even column; 310 KB until the sample
    was made from the sources' fixtures (311 KB: more offers and moves in its week); 315 KB
    until the index counted a euro price at each day's rate (319 KB: four more chips' levels
    move with the euro, each drawn); 322 KB once the speed chart drew each chip's frontier,
    until each sparkline's unused pattern, inline style, 14-decimal coordinates and per-point
    paint were written once (reports/sparklines.py)."""
    made, _ = sample_report
    page = made.html_path.read_text()
    assert made.html_path.stat().st_size < 300_000
    # Nothing lost: every section and table, and each sparkline a point per value it says.
    sections = ("versus", "index", "changes", "spot", "history", "cheapest", "cost", "new")
    for key in (*sections, "withdrawn", "health", "disagree"):
        assert f'id="{key}"' in page, key
    assert page.count("<table") == 11
    plots = _plots(page)
    assert len(plots) == page.count('<svg class="gt-nanoplot') > 30 and all(
        plot.count("<circle") == int(n) for n, plot in plots
    )
    # What it opens with, in order: the articles' questions, the index, the moves.
    order = [page.index(f'id="{key}"') for key in ("versus", "index", "changes", "cost")]
    assert order == sorted(order)
    changes = page.split('id="changes"')[1].split("</section>")[0]
    # Each element id once: on 444acd6f great-tables' heading ids repeated across the tables
    # (`stub-1` eleven times, a column `spot` beside the section `spot`), 52 ids in all.
    ids = Counter(re.findall(r'\bid="([^"]+)"', page))
    assert [name for name, n in ids.items() if n > 1] == [] and "spot" in ids
    # The 8 largest (a header and a row each), then the 16 largest folded (two header rows,
    # rows, chip group rows at most).
    assert changes.count("<tr") <= (1 + 8) + (2 + 16 + 16)
    assert len(made.csv_path.read_text().splitlines()) > 700  # every change stays in the CSV


@needs_chromium
def test_the_sample_e_mail_fits_a_390_px_phone(sample_report, tmp_path, browser):
    """On 368c4bd the e-mail's tables ran past a phone's screen (pricing and cost cut off)."""
    _, eml = sample_report
    message = email.message_from_bytes(eml.read_bytes(), policy=email.policy.default)
    html = tmp_path / "mail.html"
    html.write_text(message.get_body(("html",)).get_content())
    page = browser.new_page(viewport={"width": 390, "height": 800})
    page.goto(html.as_uri())
    widths = page.eval_on_selector_all(
        "table", "ts => ts.map(t => [t.scrollWidth, document.documentElement.clientWidth])"
    )
    page.close()
    assert len(widths) >= 3 and all(wide <= room for wide, room in widths), widths


def test_a_source_not_collected_is_not_counted_among_the_sources(tmp_path, monkeypatch):
    """On 368c4bd a failed live run counted crusoe (then registered, never collected) among
    "25 of 25 sources stale"; `chipcost sources` says "not collected". Crusoe is collected now:
    a registry where it is not stands in for any such source."""
    import dataclasses

    import chipcost.extract as extract
    from chipcost.core.runs import SKIPPED
    from chipcost.reports.text import health_line
    from tests import report_warehouse as golden

    found = extract.registry()
    not_collected = dataclasses.replace(found["crusoe"], collected=False)
    monkeypatch.setattr(extract, "registry", lambda: {**found, "crusoe": not_collected})
    runs = golden.golden_runs()
    crusoe = golden.source("crusoe", [], 6, status=SKIPPED, message="not collected")
    runs[-1].sources.append(crusoe)
    made = write_report(golden.build(tmp_path / "w.duckdb", runs), tmp_path / "r")
    assert "crusoe" not in made.data.health["source"].to_list()
    line = health_line(made.data)  # crusoe not among them
    assert " of 3 stale" in line and "1 of 3 had not succeeded" in line


def test_the_report_judges_staleness_now_as_the_reads_do(tmp_path):
    """On 368c4bd the report said "24 sources, none stale" (at the period's end) while every
    read said "stale ... and 18 more" (now), with nothing saying why they differed."""
    from chipcost.reports.text import health_line
    from chipcost.warehouse.db import connect
    from chipcost.warehouse.freshness import freshness
    from tests import report_warehouse as golden

    db = golden.build(tmp_path / "w.duckdb")
    made = write_report(db, tmp_path / "r")
    sources = made.data.health["source"].to_list()
    con = connect(db, read_only=True)
    try:  # what `prices` and `sources` say at the report's own moment
        read = freshness(con, sources, stale_days=2, now=made.data.generated_at)
    finally:
        con.close()
    assert made.data.stale_now == tuple(s.source for s in read.stale)
    when = f"{made.data.generated_at:%Y-%m-%d %H:%M} UTC"
    line = health_line(made.data)
    assert line.startswith(f"Sources now ({when}): {len(read.stale)} of 3 stale")
    assert "as `chipcost sources` reports them" in line


def test_one_providers_repricing_of_every_size_is_one_line(tmp_path):
    """On 2487f4c one GCP cut of 15% on L4 at every g2 size was a line per size (and two
    lines for sizes whose per-chip prices differed in the seventh digit only), so it filled
    every list of moves of the sample's report and hid the other chips' moves."""
    sizes = {"g2-standard-12": 0.4277325, "g2-standard-24": 0.427733, "g2-standard-48": 0.6851}
    runs = []
    for n in (1, 2):
        cut = 1.0 if n == 1 else 0.85
        offers = [
            record(
                chip="L4", instance_type=size, chip_count=1, price_per_hour=price * cut, sku=size
            )
            for size, price in sizes.items()
        ]
        offers.append(record(instance_type="p5.48xlarge", price_per_hour=100 * (1.1 - n / 10)))
        runs.append(run_of(offers, day(n)))
    made = write_report(warehouse(tmp_path / "w.duckdb", runs), tmp_path / "r")
    summary = markdown(made.data, [])
    rows = [line for line in summary.splitlines() if line.startswith("| −")]
    l4 = [row for row in rows if "| L4 |" in row]
    assert len(l4) == 1 and "g2-standard-12, g2-standard-24, g2-standard-48" in l4[0]
    # The offers' prices as shown: a range where they differ, never two lines for one price.
    assert "$0.4277–$0.6851 | $0.3636–$0.5823 |" in l4[0]
    assert made.subject.startswith("4 offers moved, L4 on demand −15% (aws, 3 offers)")


def test_the_folded_health_of_the_sample_says_sample_not_fresh(sample_report):
    """On 2487f4c the sample report's folded Health read "48 sources, 0 stale now" while
    `chipcost sources` marked every one stale (the sample week ended days ago)."""
    made, _ = sample_report
    page = re.sub(r"\s+", " ", made.html_path.read_text())
    health = page.split('id="health"', 1)[1][:3000]
    assert "0 stale now" not in health
    assert re.search(r"\d+ sources, \d+ holding the bundled sample week", health), health[:500]


def test_a_glitch_the_headline_counts_is_named_in_the_moves(sample_report):
    """On 2487f4c the headline said "1 jumped out and back (likely a data glitch)" and no list
    named it: it sorts after the real moves, past the sixteen the page shows."""
    made, eml = sample_report
    assert "1 jumped out and back (likely a data glitch)" in headline(made.data)
    page = re.sub(r"<[^>]+>", " ", made.html_path.read_text())
    changes = page.split('id="changes"', 1)[1] if 'id="changes"' in page else page
    assert "×8.0 and back" in " ".join(changes.split())
    assert "The 16 largest and 1 jumped out and back past them" in " ".join(changes.split())
    # After the real moves in the folded table too, in a group of its own: on ef102b3 it was
    # listed in H100-SXM's group, the real moves of seven chips after it.
    folded = made.html_path.read_text().split('id="changes"', 1)[1].split("</section>")[0]
    groups = re.findall(r'class="gt_group_heading"[^>]*>([^<]*)<', folded.split("<details")[1])
    assert groups[-1] == "H100-SXM, jumped out and back (likely a data glitch)", groups
    last = re.sub(r"<[^>]+>", " ", folded.split("gt_group_heading")[-1])
    assert "×8.0 and back" in " ".join(last.split())
    assert sum("jumped out and back" in g for g in groups) == 1
    message = email.message_from_bytes(eml.read_bytes(), policy=email.policy.default)
    assert "and back" in message.get_body(("plain",)).get_content()


def test_a_chip_chipcost_does_not_know_leads_no_subject(tmp_path):
    """A provider's GPU chipcost cannot name (chip 'unknown', which the explorer leaves out)
    moved ten-fold; H100-SXM moved 10%: the subject names H100-SXM's move, and the price
    alert too."""
    from chipcost.reports.alerts import alert_message, large_moves

    runs = []
    for n, (odd, h100) in enumerate([(1.0, 100.0), (10.0, 90.0)], start=1):
        offers = [
            record(chip="unknown", instance_type="mystery-gpu", chip_count=1, sku="M",
                   price_per_hour=odd),
            record(instance_type="p5.48xlarge", price_per_hour=h100),
        ]  # fmt: skip
        runs.append(run_of(offers, day(n)))
    db = warehouse(tmp_path / "w.duckdb", runs)
    made = write_report(db, tmp_path / "r")
    assert made.subject.startswith("2 offers moved, H100-SXM on demand −10%"), made.subject
    moves = large_moves(db, day(0), 5.0)
    assert set(moves["chip"]) == {"unknown", "H100-SXM"}
    alert = alert_message(moves, 5.0, "a@example.com", ["b@example.com"])
    assert alert["Subject"].endswith("H100-SXM on demand −10%"), alert["Subject"]
    from chipcost.reports.notify import price_alerts
    from chipcost.warehouse.db import connect

    con = connect(db, read_only=True)
    try:  # the chat apps' title too
        _, title = price_alerts(con, day(0), day(3), 5.0)
    finally:
        con.close()
    assert "moves of 5% or more, H100-SXM on demand −10%" in title, title


def _plots(page: str) -> list[tuple[str, str]]:
    """Each sparkline's count of values (its label) and its drawing."""
    return re.findall(r'aria-label="Line plot of (\d+) values[^>]*>(.*?)</svg>', page, re.S)
