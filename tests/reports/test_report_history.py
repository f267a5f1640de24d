"""The report's price history charts, and moves out and back marked instead of 0.0%."""

from __future__ import annotations

import email
import email.policy
import html
import re
from pathlib import Path

import polars as pl
import pytest

from chipcost.reports.build import compose, write_report
from chipcost.reports.labels import signed_pct
from chipcost.reports.text import headline, text_body
from tests.helpers import day, record, run_of
from tests.reports.test_report_output import warehouse


def jump_and_back(path: Path) -> Path:
    """A: 80 -> 640 on the 3rd (x8) -> 80 on the 4th; B: 96 -> 86.4 on the 5th (-10%)."""
    a = {1: 80.0, 2: 80.0, 3: 640.0}
    runs = []
    for n in range(1, 7):
        offers = [
            record(price_per_hour=a.get(n, 80.0), sku="A"),
            record(region="us-west-2", price_per_hour=96.0 if n < 5 else 86.4, sku="B"),
        ]
        runs.append(run_of(offers, day(n)))
    return warehouse(path, runs)


@pytest.fixture(scope="module")
def jumped(tmp_path_factory):
    """The report of `jump_and_back`'s week, made once: the tests below only read it."""
    folder = tmp_path_factory.mktemp("jumped")
    return write_report(jump_and_back(folder / "w.duckdb"), folder / "r")


def test_a_move_out_and_back_is_marked_and_ranked_after_the_real_moves(jumped):
    """On 368c4bd the x8-and-back glitch led the report and its subject."""
    made = jumped
    moves = made.data.moves
    assert moves["region"].to_list() == ["us-west-2", "us-east-1"]  # the real move first
    jump = moves.row(1, named=True)
    assert jump["change_pct"] == 0.0 and jump["jump_back"] and jump["jump_factor"] == 8.0
    assert not moves.row(0, named=True)["jump_back"]
    assert made.subject == "2 offers moved, H100-SXM on demand −10%: week of 2026-11-01"
    # The counts add up and say what they count: offers, and changes (the jump is two).
    assert headline(made.data).startswith(
        "2 offers moved in price (3 price changes in all): 1 down, 0 up, 1 jumped out and back"
    )
    changes = made.html_path.read_text().split('id="changes"')[1].split("</section>")[0]
    shown = re.sub(r"<[^>]+>", "", changes)  # the text a reader sees
    assert "×8.0 and back" in shown and "+0.0%" not in shown
    assert "−10.0%" in changes  # an ordinary move keeps its net change
    assert "×8.0 and back  H100-SXM: $10.0000 -> $10.0000" in text_body(made.data, 10)


def test_the_mail_marks_it_too(jumped):
    made = jumped
    message = email.message_from_bytes(
        bytes(compose(made, "r@example.com", ["a@example.com"])), policy=email.policy.default
    )
    html = message.get_body(("html",)).get_content()
    assert "×8.0 and back" in html and "+0.0%" not in html


def test_a_jump_that_stays_is_a_net_move_not_a_jump_back(tmp_path):
    runs = [run_of([record(price_per_hour=p)], day(n)) for n, p in ((1, 80.0), (3, 640.0))]
    made = write_report(warehouse(tmp_path / "w.duckdb", runs), tmp_path / "r")
    (row,) = made.data.moves.iter_rows(named=True)
    assert row["change_pct"] == 700.0 and not row["jump_back"]


def test_the_report_draws_each_moved_chips_price_history(golden_report):
    made = golden_report
    page = made.html_path.read_text()
    section = page.split('id="history"')[1].split("</section>")[0]
    captions = re.findall(r"<figcaption>([^<]+)</figcaption>", section)
    # Only the chip whose price moved is drawn; the flat ones are named in a sentence.
    assert captions == ["H100-SXM"]
    assert "Cheapest price unchanged over these weeks (not drawn): L4, Trainium1." in section
    h100 = section.split("<figcaption>H100-SXM</figcaption>")[1].split("</svg>")[0]
    # Two lines: on-demand (blue) and spot (orange), each labelled with its last price.
    assert h100.count("<path ") == 2
    assert "on demand: $9.2500 on 2026-11-07" in h100 and "spot: $5.0000 on 2026-11-07" in h100
    assert "2026-11-01" in h100 and "2026-11-07" in h100  # the dates on the axis
    # The history is the last 12 weeks up to the period's end.
    assert made.data.history["day"].min().isoformat() == "2026-11-01"
    assert made.data.history["day"].max().isoformat() == "2026-11-07"


def test_the_mail_body_stays_small_and_without_charts(golden_report):
    made = golden_report
    message = email.message_from_bytes(
        bytes(compose(made, "r@example.com", ["a@example.com"])), policy=email.policy.default
    )
    html = message.get_body(("html",)).get_content()
    assert "<svg" not in html and "price history chart" in html
    assert len(html.encode()) < 100_000


def test_a_change_on_the_last_day_is_drawn_as_a_step_of_that_day():
    import re
    from datetime import date

    from chipcost.reports.charts import LEFT, RIGHT, WIDTH, price_chart

    days = [date(2026, 11, d) for d in (19, 20, 21)]
    svg = price_chart({"spot": list(zip(days, [0.26, 0.26, 0.30], strict=True))}, {}, "t")
    path = re.search(r'<path d="([^"]+)"', svg).group(1)
    # Three days over the width: each price spans its day, the last one's to the right edge;
    # the line used to end where the last day began, its new price a bare vertical stroke.
    edge = WIDTH - LEFT - RIGHT  # 198 px for 3 days
    assert path.startswith("M0.0,")
    assert re.search(rf"H{round(edge * 2 / 3, 1)}V[\d.]+H{edge}\.0$", path), path
    assert ">2026-11-21</text>" in svg and "max-width:100%" in svg


def test_a_2_percent_move_shows_beside_a_price_five_times_higher():
    """On 8ef611a the axis ran from $0 to the highest line: an on-demand price falling 2%
    beside a capacity block five times dearer moved by a pixel or two."""
    import re
    from datetime import date

    from chipcost.reports.charts import BOTTOM, HEIGHT, TOP, price_chart

    days = [date(2026, 11, d) for d in (19, 20, 21)]
    series = {
        "on_demand": list(zip(days, [10.0, 9.8, 9.8], strict=True)),
        "capacity_block": list(zip(days, [50.0, 50.0, 50.0], strict=True)),
    }
    svg = price_chart(series, {"on_demand": "on demand"}, "t")
    on_demand = re.findall(r'<path d="M[\d.]+,([\d.]+)H[\d.]+V([\d.]+)', svg)[0]  # in order given
    drop = float(on_demand[1]) - float(on_demand[0])
    assert drop > 0.2 * (HEIGHT - TOP - BOTTOM)  # a fifth of the chart's height, at least
    assert ">change since 2026-11-19</text>" in svg and ">0%</text>" in svg
    assert ">−2%</text>" in svg and "$0.00" not in svg
    assert "on demand: $9.8000 on 2026-11-21 (−2% since 2026-11-19)" in svg


def test_a_chart_is_tall_enough_to_name_every_line():
    """On ef102b3 H100-SXM's chart had seven lines, five of them hidden under flex-start: the
    legend's last entry ('flex-start $4.7078') stood at 177 px in a chart 172 px tall."""
    from datetime import date

    from chipcost.reports.charts import COLOURS, LEGEND_DESCENT, TOP, price_chart

    days = [date(2026, 11, d) for d in (19, 20, 21)]
    models = list(COLOURS)[:7]
    series = {m: [(d, 1.0 + i) for d in days] for i, m in enumerate(models)}  # all flat
    svg = price_chart(series, {}, "seven lines")
    height = float(re.search(r'<svg [^>]*height="([\d.]+)"', svg).group(1))
    assert re.search(r'viewBox="0 0 400 ' + f'{height:g}"', svg)
    legend = re.findall(r'<text x="204" y="([\d.]+)"[^>]*>([^<]+)</text>', svg)
    assert [name for _, name in legend].count("hidden under " + models[-1]) == 6
    last_y, last = legend[-1]
    assert last == f"{models[-1]} $7.0000"
    assert TOP + float(last_y) + LEGEND_DESCENT <= height


def test_a_move_too_small_for_a_tenth_is_said_as_one_not_as_0_percent(tmp_path):
    """$98.3200 to $98.3210 an instance (+0.001%, 0.00 in change_pct's two decimals) and
    $98.3200 to $98.3000 (−0.02%): each a move, up or down, in the table, the glance and the
    text; before, '+0.0%' and '0%', which read as no move."""
    offers = [(98.32, 98.32), (98.321, 98.30)]
    west = "us-west-2"
    runs = [
        run_of([record(price_per_hour=a, sku="A"), record(region=west, price_per_hour=b)], day(n))
        for n, (a, b) in zip((1, 3), offers, strict=True)
    ]
    made = write_report(warehouse(tmp_path / "w.duckdb", runs), tmp_path / "r")
    up = made.data.moves.filter(pl.col("region") == "us-east-1").row(0, named=True)
    assert not up["back"] and 0 < up["change_pct"] < 0.005
    page = html.unescape(re.sub(r"<[^>]+>", "", made.html_path.read_text()))
    assert "+<0.1%" in page and "−<0.1%" in page
    assert "+0.0%" not in page and "−0.0%" not in page
    # Up and down are not alike, though both are 0.0 to a tenth.
    said = text_body(made.data, 10)
    assert "−<0.1%  H100-SXM: $12.2900 -> $12.2875\n" in said
    assert "+<0.1%  H100-SXM: $12.2900 -> $12.2901\n" in said
    assert signed_pct(up["change_pct"]) == "+<0.1%" and signed_pct(-0.04) == "−<0.1%"
    assert signed_pct(0.0) == "0%" and signed_pct(-2.5) == "−2.5%" and signed_pct(8.0) == "+8%"
