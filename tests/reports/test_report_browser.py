"""The weekly report in a real browser (the system's chromium): its widest table fits a
1,024-pixel screen without scrolling sideways, and codes are never broken inside."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chipcost.pipeline.seed import open_warehouse
from chipcost.reports.build import write_report
from chipcost.warehouse.load import load_run
from tests.browser import needs_chromium
from tests.helpers import day, record, run_of

pytestmark = [needs_chromium]
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed: pip install -e '.[test]'"
)

# The longest codes the sample's changes table holds: a zone of a long region, a long
# instance type, a move out and back (its "×8.0 and back" mark), and several changes.
ZONED = {"region": "ap-northeast-1", "zone": "ap-northeast-1d", "pricing_model": "spot"}
LONG = {"instance_type": "vbm-112c-2048gb-8-h100-gpu", "region": "us-central-tx-1"}


def prices(n: int) -> list:
    spot = [40.0, 36.0, 38.0, 35.0, 39.0][n]
    jump = [8.0, 64.0, 8.0, 8.0, 8.0][n]
    return [
        record(price_per_hour=spot, sku="zoned", **ZONED),
        record(price_per_hour=jump, sku="long", **LONG),
    ]


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("report")
    con = open_warehouse(root / "w.duckdb")
    for n in range(5):
        load_run(con, run_of(prices(n), day(n)))
    con.close()
    return write_report(root / "w.duckdb", root / "out").html_path


def one_line(page, text: str) -> bool:
    # The full tables, folded under the largest moves (spot moves have their own).
    moves = page.locator("#changes details tbody, #spot details tbody")
    box = moves.get_by_text(text, exact=True).first.bounding_box()
    assert box is not None, text
    return box["height"] < 20


def test_the_changes_table_fits_a_small_laptop_screen(report, browser):
    page_text = report.read_text()
    changes = page_text.split('id="changes"')[1].split("</section>")[0]
    changes += page_text.split('id="spot"')[1].split("</section>")[0]
    shown = re.sub(r"<[^>]+>", "", changes)
    assert "ap-northeast-1d" in shown and "×8.0 and back" in shown and "(4×)" in shown
    page = browser.new_page(viewport={"width": 1024, "height": 800})
    page.goto(report.as_uri())
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    widths = page.eval_on_selector_all(
        "section table",
        "ts => ts.map(t => [t.closest('section').id, t.scrollWidth, t.parentElement.clientWidth])",
    )
    assert widths and all(shown <= room for _, shown, room in widths), widths
    # A region or zone wraps as a whole, never at its hyphens.
    assert one_line(page, "ap-northeast-1d") and one_line(page, "us-central-tx-1")
    # With room to spare nothing wraps.
    page.set_viewport_size({"width": 1280, "height": 800})
    assert one_line(page, "aws · ap-northeast-1 · ap-northeast-1d")
    assert one_line(page, "×8.0 and back")
    page.close()
