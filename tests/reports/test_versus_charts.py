"""The head-to-head section's charts: each pair's cost per token (point and range, published
and derived told apart) and throughput against per-user speed, in the weekly report and the
explorer, looked at in a real browser at a laptop's and a phone's width."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chipcost.reports.site import write_site
from chipcost.reports.versus_charts import cost_chart, speed_chart
from tests.browser import needs_chromium
from tests.cli.test_cost_cli import _warehouse, chipcost

ANSWER = {
    "answer": "Trainium2 is likely dearer per token than H100-SXM (at the figures, 67% dearer)",
    "chip_a": "Trainium2", "chip_b": "H100-SXM", "workload": "inference",
    "verdict": "likely dearer", "a_kind": "calibrated", "b_kind": "benchmark",
    "a_usd_per_million_tokens": 0.77, "a_cost_low": 0.29, "a_cost_high": 1.9,
    "b_usd_per_million_tokens": 0.46, "b_cost_low": 0.46, "b_cost_high": 0.46,
}  # fmt: skip


def test_the_cost_chart_tells_published_from_derived_and_draws_the_range():
    svg = cost_chart([ANSWER, {**ANSWER, "answer": None, "why_not": "no price"}])
    assert svg.count("<svg") == 1 and 'viewBox="0 0 360' in svg
    assert "Trainium2 vs H100-SXM: likely dearer" in svg
    dots = re.findall(r'<circle cx="([\d.]+)" cy="[\d.]+" r="4" fill="(\w+|#\w+)"', svg)
    (a_x, a_fill), (b_x, b_fill) = dots
    assert a_fill == "white" and b_fill != "white"  # hollow: derived; filled: published
    lines = re.findall(r'<line x1="([\d.]+)" x2="([\d.]+)" y1="[\d.]+" y2="[\d.]+" stroke="#', svg)
    (low, high), (b_low, b_high) = [(float(a), float(b)) for a, b in lines[:2]]
    assert low < float(a_x) < high  # the derived figure within its range
    assert b_low == b_high and abs(b_low - float(b_x)) < 1  # a point for a benchmark
    assert cost_chart([{**ANSWER, "answer": None}]) == ""


def test_the_cost_chart_says_each_cost_as_the_tables_do():
    """On 697f5e5 the chart said "H100-SXM $0.09" beside a table's $0.0902."""
    svg = cost_chart([{**ANSWER, "a_usd_per_million_tokens": 1.7812, "b_usd_per_million_tokens":
                       0.0902, "b_cost_low": 0.0902, "b_cost_high": 0.0902}])  # fmt: skip
    assert ">Trainium2 $1.7812<" in svg and ">H100-SXM $0.0902<" in svg


def test_the_speed_chart_draws_figures_as_dots_and_the_derivation_dashed():
    points = [
        {"chip": "B200", "tokens_per_second_per_chip": 12690, "tokens_per_second_per_user": None,
         "kind": "benchmark"},
        {"chip": "B200", "tokens_per_second_per_chip": 7443, "tokens_per_second_per_user": 25.2,
         "kind": "benchmark"},
        {"chip": "B200", "tokens_per_second_per_chip": 9000, "tokens_per_second_per_user": None,
         "kind": "derived"},
        {"chip": "B200", "tokens_per_second_per_chip": 5800, "tokens_per_second_per_user": 25,
         "kind": "derived"},
    ]  # fmt: skip
    svg = speed_chart(points)
    assert svg.count("<circle") == 2 + 1  # two figures, one legend dot
    (line,) = re.findall(r'<polyline points="([^"]+)"[^>]*stroke-dasharray', svg)
    (x0, y0), (x1, y1) = [tuple(map(float, p.split(","))) for p in line.split()]
    assert x1 > x0 and y1 > y0  # faster per user: fewer tokens per chip (SVG y grows down)
    assert speed_chart([]) == ""


def test_the_speed_chart_draws_each_chips_frontier_only():
    """A point another of the chip's beats on both axes (a configuration under its frontier)
    is not drawn: InferenceX's hundreds of points per chip made the report's chart 12 KB."""
    points = [
        {"chip": "B200", "tokens_per_second_per_chip": tps, "tokens_per_second_per_user": user,
         "kind": "independent"}
        for tps, user in ((4000, 20), (3000, 40), (1000, 80), (2500, 30), (900, 60))
    ]  # fmt: skip
    svg = speed_chart(points)
    # (2500, 30) is under (3000, 40), (900, 60) under (1000, 80): three drawn, one legend dot
    assert svg.count("<circle") == 3 + 1


# Each label's box and text, read in one call (a round trip per label was most of the test).
LABELS = """chart => [...chart.querySelectorAll('text')].map(t => {
  const box = t.getBoundingClientRect();
  return {text: t.textContent, x: box.x, width: box.width, height: box.height};
})"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> list[Path]:
    """The weekly report (as `chipcost report` writes it) and the explorer of one warehouse."""
    root = tmp_path_factory.mktemp("versus")
    db = _warehouse(root / "w.duckdb")
    result = chipcost("report", "--out", str(root / "report"), "--db", str(db))
    assert result.returncode == 0, result.stderr
    (report,) = (root / "report").glob("*.html")
    write_site(db, root / "site")
    return [report, root / "site" / "index.html"]


@needs_chromium
@pytest.mark.parametrize("width", [1280, 390])
def test_both_charts_are_readable_in_the_report_and_the_explorer(pages, browser, width):
    context = browser.new_context(viewport={"width": width, "height": 900})
    for page_file in pages:
        page = context.new_page()
        page.goto(page_file.as_uri())
        # The report folds the second chart under the answers: opened, as a reader would.
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        charts = page.locator("#versus svg.versus-chart")
        assert charts.count() == 2, page_file
        for n in range(2):
            chart = charts.nth(n).bounding_box()
            assert chart is not None and chart["x"] + chart["width"] <= width
            labels = charts.nth(n).evaluate(LABELS)
            assert labels, page_file
            for box in labels:  # no label runs off its chart
                assert box["x"] >= chart["x"] - 1, box["text"]
                assert box["x"] + box["width"] <= chart["x"] + chart["width"] + 1, box["text"]
                assert box["height"] >= 9  # 11 units: not shrunk past reading on a phone
    context.close()
