"""`chipcost history` as a user runs it (tests.cli_runner), the golden warehouse."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys

import pytest

from chipcost.core.vocabulary import MODEL_LABELS
from chipcost.warehouse.history import HISTORY_COLUMNS
from tests import report_warehouse
from tests.cli_runner import chipcost


def test_history_draws_a_table_and_a_chart(golden):
    result = chipcost("history", "--chip", "H100-SXM", "--db", str(golden))
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "H100-SXM: cheapest USD per chip-hour by day" in text
    # The table: A's cut to 9.00 on the 4th, its rise to 9.25 on the 6th; spot from the 3rd.
    assert "2026-11-04      9.0000   5.0000" in text
    assert "2026-11-06      9.2500   5.0000" in text
    assert "on demand: $9.2500 on 2026-11-07 at aws · us-east-1 · p5.48xlarge (4 offers)" in text
    assert text.count("H100-SXM: cheapest USD per chip-hour") == 2  # the table's, the chart's
    chart = text.rsplit("H100-SXM: cheapest USD per chip-hour", 1)[1]
    # A marker a pricing model, said in the legend under the plot, not over its top line.
    plot, legend = chart.split("└")[0], chart.split("└")[1].split("prices as of")[0]
    keys = {label: marker for marker, label in re.findall(r"(\S) (on demand|spot)\b", legend)}
    assert {"on demand", "spot"} <= set(keys) and "on demand" not in plot, chart
    assert all(plot.count(marker) > 10 for marker in keys.values()), chart
    assert "2026-11-07" in chart
    assert "\x1b[" not in text  # no colour codes in piped output


def test_history_as_csv_and_json(golden):
    args = ("history", "--chip", "H100-SXM", "--db", str(golden))
    rows = list(csv.DictReader(io.StringIO(chipcost(*args, "--format", "csv").stdout)))
    # Every row names its money, converted or not.
    assert tuple(rows[0]) == (*HISTORY_COLUMNS, "currency")
    assert {r["currency"] for r in rows} == {"USD"}
    assert len(rows) == 7 + 5  # on-demand every day, spot from the third
    assert {r["pricing_model"] for r in rows} == {"on_demand", "spot"}
    spot = json.loads(chipcost(*args, "--format", "json", "--pricing-model", "spot").stdout)
    assert [r["day"] for r in spot][:2] == ["2026-11-03", "2026-11-04"]
    assert {r["price_per_chip_hour"] for r in spot} == {5.0}


def test_history_filters_and_since(golden):
    result = chipcost(
        "history", "--chip", "H100-SXM", "--region", "us-west-2", "--since", "2026-11-05",
        "--format", "csv", "--db", str(golden),
    )  # fmt: skip
    prices = [float(r["price_per_chip_hour"]) for r in csv.DictReader(io.StringIO(result.stdout))]
    assert prices == [12.6, 12.6, 12.6]


def test_history_with_nothing_to_show_says_what_to_check(golden):
    result = chipcost("history", "--chip", "B200", "--db", str(golden))
    assert result.returncode == 1
    assert "the warehouse has never held a price of B200" in result.stderr
    assert "Traceback" not in result.stderr
    result = chipcost("history", "--chip", "H100-SXM", "--since", "2027-01-01", "--db", str(golden))
    assert result.returncode == 1
    assert "no prices of H100-SXM match these filters from 2027-01-01" in result.stderr
    result = chipcost("history", "--chip", "H1OO-SXM", "--db", str(golden))
    assert result.returncode == 2 and "unknown chip 'H1OO-SXM'" in result.stderr


def test_history_does_not_start_prefect(golden):
    code = (
        "import sys\n"
        f"sys.argv = ['chipcost', 'history', '--chip', 'L4', '--db', {str(golden)!r}]\n"
        "import chipcost.cli.entry\n"
        "try:\n    chipcost.cli.entry.main()\nexcept SystemExit:\n    pass\n"
        "print('PREFECT LOADED' if 'prefect' in sys.modules else 'PREFECT NOT LOADED')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert "PREFECT NOT LOADED" in result.stdout, result.stdout + result.stderr


def test_history_says_when_its_prices_were_fetched(golden, tmp_path):
    table = chipcost("history", "--chip", "H100-SXM", "--no-chart", "--db", str(golden))
    assert table.returncode == 0, table.stderr
    assert "prices as of 2026-11-07 06:00 UTC" in table.stdout
    assert "stale (no successful run in 2 days" in table.stdout
    assert "SAMPLE DATA" not in table.stdout
    # As data on stdout, the notes go to stderr; sample prices say so.
    sample = report_warehouse.sample_marked(tmp_path / "sample.duckdb")
    args = ("history", "--chip", "H100-SXM", "--format", "json", "--db", str(sample))
    result = chipcost(*args)
    assert result.returncode == 0, result.stderr
    assert len(json.loads(result.stdout)) == 12
    assert "SAMPLE DATA" in result.stderr and "prices as of 2026-11-07" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--region", "us-west-9"],
            "the history holds no price in region 'us-west-9' (did you mean us-west-2",
        ),
        (
            ["--pricing-model", "ondemand"],
            "unknown pricing model 'ondemand' (did you mean on_demand",
        ),
        (["--provider", "awz"], "unknown provider 'awz' (did you mean aws"),
        (["--since", "2026-11-06", "--until", "2026-11-04"], "--since 2026-11-06 is after --until"),
    ],
)
def test_history_refuses_what_it_cannot_match_and_says_why(golden, args, message):
    result = chipcost("history", "--chip", "H100-SXM", *args, "--db", str(golden))
    # Each names a value the option does not take (a region too: the nearest ones with a
    # price are named): a usage error, exit 2.
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_history_takes_the_pricing_model_option_of_the_other_commands(golden):
    args = ("history", "--chip", "H100-SXM", "--format", "csv", "--db", str(golden))
    rows = csv.DictReader(io.StringIO(chipcost(*args, "--pricing-model", "spot").stdout))
    assert {r["pricing_model"] for r in rows} == {"spot"}
    # A company name is read as its cloud, as in prices and cost.
    rows = csv.DictReader(io.StringIO(chipcost(*args, "--provider", "Amazon").stdout))
    assert {r["provider"] for r in rows} == {"aws"}


def test_an_80_column_screen_shows_whole_days_and_pricing_models():
    from datetime import date

    import polars as pl

    from chipcost.cli.commands.history import print_history
    from chipcost.cli.consoles import Screen

    models = ["capacity_block", "commitment", "on_demand", "reserved", "savings_plan", "spot"]
    frame = pl.DataFrame(
        [
            {
                "day": date(2026, 11, d), "pricing_model": m, "price_per_chip_hour": 3.8826,
                "provider": "aws", "region": "us-east-1", "zone": "", "offers": 2,
                "instance_type": "p5.48xlarge",
            }
            for d in (14, 15) for m in models
        ]
    )  # fmt: skip
    console = Screen(io.StringIO(), 80)
    print_history(console, "H100-SXM", frame)
    text = console.file.getvalue()
    table = text.splitlines()[1:]
    assert max(len(line) for line in table) <= 80 and "…" not in text
    assert "\n2026-11-14 " in text and "\n2026-11-15 " in text
    for word in ("capacity", "block", "commitment", "demand", "reserved", "savings", "spot"):
        assert f" {word}" in text
    wide = Screen(io.StringIO(), 120)
    print_history(wide, "H100-SXM", frame)
    assert "   capacity block   " in wide.file.getvalue()  # one line where there is room


def test_the_chart_tells_its_series_apart_without_colour(monkeypatch):
    from datetime import date

    import polars as pl

    from chipcost.cli.commands.history import MARKERS, print_chart
    from chipcost.cli.consoles import Screen

    monkeypatch.setenv("NO_COLOR", "1")
    frame = pl.DataFrame(
        [
            {"day": date(2026, 11, d), "pricing_model": m, "price_per_chip_hour": p + d / 100}
            for d in (14, 15, 16) for m, p in (("on_demand", 6.0), ("spot", 2.0), ("reserved", 4.0))
        ]
    )  # fmt: skip
    console = Screen(io.StringIO(), 80, terminal=True)  # a terminal, NO_COLOR set
    print_chart(console, "H100-SXM", frame)
    text = console.file.getvalue()
    assert "\x1b[" not in text
    plot, legend = text.split("└")[0], text.split("└")[1]
    top = next(line for line in plot.splitlines() if "┤" in line)  # the plot's top line
    assert "on demand" not in plot and "reserved" not in top
    for model, marker in zip(("on_demand", "reserved", "spot"), MARKERS, strict=False):
        assert f"{marker} {MODEL_LABELS[model]}" in legend  # the table's header, not the code
        assert plot.count(marker) > 10, plot


def test_the_chart_draws_each_series_where_it_is_or_says_it_hidden(monkeypatch):
    """On 4084da5 the sample's H100-SXM chart drew 5 of its 7 series: reserved (2.68) under
    savings_plan (2.61), commitment (1.53) under on_demand (1.29). On 697f5e5 a hidden series
    was drawn rows off its price (Trainium2's capacity blocks, 2.08-2.16, on the 2.51 row) and
    the axis read 5.37, 4.80, 4.23. Now each series is on the row of its price, or its legend
    says under which series it is hidden; ticks are round prices printed exactly."""
    from datetime import date

    import polars as pl

    from chipcost.cli.commands.history import MARKERS, print_chart
    from chipcost.cli.consoles import Screen

    monkeypatch.setenv("NO_COLOR", "1")
    prices = {
        "capacity_block": 3.87, "commitment": 1.5343, "flex_start": 4.7078, "on_demand": 1.29,
        "reserved": 2.6832, "savings_plan": 2.6144, "spot": 0.90,
    }  # fmt: skip
    frame = pl.DataFrame(
        [
            {"day": date(2026, 11, d), "pricing_model": m, "price_per_chip_hour": p}
            for d in range(14, 22) for m, p in prices.items()
        ]
    )  # fmt: skip
    console = Screen(io.StringIO(), 100, terminal=True)
    print_chart(console, "H100-SXM", frame)
    text = console.file.getvalue()
    plot, legend = text.split("└")[0], text.split("└")[1]
    rows = plot.splitlines()[2:]
    ticks = {float(line.split("┤")[0]): i for i, line in enumerate(rows) if "┤" in line}
    assert sorted(ticks) == [1.0, 2.0, 3.0, 4.0]  # round prices, printed as they are
    (a, row_a), (b, row_b) = sorted(ticks.items())[0], sorted(ticks.items())[-1]
    per_row = (b - a) / (row_a - row_b)  # prices per row (rows count down the screen)

    def row_of(price: float) -> int:
        return round(row_a - (price - a) / per_row)

    legend = " ".join(legend.split())
    for model, marker in zip(sorted(prices), MARKERS, strict=False):
        drawn = [i for i, line in enumerate(rows) if marker in line.split("┤")[-1][1:]]
        if f"{marker} {MODEL_LABELS[model]} (hidden under" in legend:
            assert not drawn, model
            continue
        assert f"{marker} {MODEL_LABELS[model]}" in legend
        assert drawn and all(abs(i - row_of(prices[model])) <= 1 for i in drawn), (model, plot)
    # savings plan (2.61) is drawn after reserved (2.68), on its row: reserved is said hidden.
    assert "# reserved (hidden under = savings plan)" in legend
    assert all(len(line) <= 100 for line in text.splitlines())


def test_each_columns_line_names_the_term_it_is_the_cheapest_of(tmp_path):
    """A column is the cheapest of every term of its pricing model: on 2487f4c the sample's
    H100-SXM "reserved 2.6832" (3-year, all upfront) and "commitment 1.4539" (Verda's 2-year)
    named no term anywhere."""
    from tests import warehouses

    db = warehouses.sample(tmp_path / "w.duckdb", last=1)
    done = chipcost("history", "--chip", "H100-SXM", "--no-chart", "--db", str(db))
    lines = " ".join(done.stdout.split())
    assert "· p5.48xlarge, 3yr, standard, all upfront (" in lines, lines
    # (an estimate is marked est., as the table marks it)
    assert re.search(
        r"commitment: \$[\d.]+( est\.)? on \S+ at verda · global · \S+, \dyr \(", lines
    )
    assert re.search(r"on demand: \$[\d.]+( est\.)? on \S+ at [^(]* \(\d+ offers\)", lines)
