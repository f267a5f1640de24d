"""The price explorer's units in a real browser (the system's chromium, driven by Playwright):
prices per hour or per month, in another currency at the ECB rate embedded when the page was
made, the upfront fee, the CSV as the table shows it, a phone's layout and the price axis of
the history charts."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from chipcost.reports.site import write_site
from tests.browser import needs_chromium
from tests.cli.test_your_prices import load_rates
from tests.paths import FIXTURES
from tests.reports.test_site_browser import MARKS, column
from tests.reports.test_site_view import headers

pytestmark = [needs_chromium]
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed: pip install -e '.[test]'"
)

# The ECB's daily file of 2013-08-20 (tests/fixtures/ecb-rates/ORIGIN.md): units per euro.
RATES = FIXTURES / "ecb-rates" / "eurofxref-daily-2013-08-20.xml"
USD_PER_EUR, GBP_PER_EUR = 1.3392, 0.85490
# A three-year all-upfront reservation's fee: the whole term paid at once (8 chips, $10 an hour
# spread over 26,280 hours).
FEE = 262_800.0


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """An on-demand H100 offer and a three-year all-upfront reservation, with the ECB's rates."""
    from tests.helpers import loaded_warehouse, record

    folder = tmp_path_factory.mktemp("units")
    offers = [
        record(instance_type="p5.48xlarge", chip_count=8.0, price_per_hour=40.0, sku="od"),
        record(
            instance_type="p5.48xlarge", chip_count=8.0, price_per_hour=10.0, upfront=FEE,
            pricing_model="reserved", term="3yr", payment="all_upfront", plan="standard",
            sku="ri",
        ),
    ]  # fmt: skip
    db = loaded_warehouse(folder / "w.duckdb", offers)
    load_rates(db, RATES.read_bytes(), "2026-11-07T170000Z")
    write_site(db, folder / "site")
    return folder / "site" / "index.html"


@pytest.fixture
def page(browser, site):
    context = browser.new_context(accept_downloads=True, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site.as_uri() + "#view=offer&pricing_model=")  # every offer, every pricing model
    yield page
    assert errors == []
    context.close()


def numbers(texts: list[str]) -> list[float]:
    return [float(t.split(" (")[0].replace(",", "")) for t in texts]


def test_the_switch_shows_every_price_per_month_of_730_hours(page):
    hourly = {label: numbers(column(page, f"USD / {label}-hour")) for label in ("chip", "instance")}
    costs = column(page, "USD / M tokens")
    page.select_option("#per", "month")
    for label, prices in hourly.items():
        assert numbers(column(page, f"USD / {label}-month")) == [round(p * 730, 2) for p in prices]
    assert column(page, "USD / M tokens") == costs  # a cost per token stays per token
    assert "USD / chip-hour" not in headers(page)
    assert "per=month" in page.evaluate("location.hash")
    page.fill("#price", "1000")  # the filter is in the unit shown: $1.25 x 730 = $912.50
    assert numbers(column(page, "USD / chip-month")) == [912.5]


def test_a_currency_is_converted_at_the_rate_embedded_in_the_page(page):
    rate = page.evaluate("window.chipcostData.rates.GBP")
    assert rate == {"per_usd": pytest.approx(GBP_PER_EUR / USD_PER_EUR, rel=1e-5),
                    "day": "2013-08-20"}  # fmt: skip
    offered = page.locator("#currency option").all_inner_texts()
    assert {"USD", "EUR", "GBP", "JPY"} <= set(offered)
    assert "ZAR" not in offered  # the file holds no rate of the rand: not offered
    usd = numbers(column(page, "USD / chip-hour"))
    costs = numbers(column(page, "USD / M tokens"))
    page.select_option("#currency", "GBP")
    gbp = numbers(column(page, "GBP / chip-hour"))
    assert gbp == [round(p * rate["per_usd"], 4) for p in usd]
    assert numbers(column(page, "GBP / M tokens")) == pytest.approx(
        [c * rate["per_usd"] for c in costs], abs=1e-4
    )
    said = page.inner_text("#money")
    assert "Prices in GBP" in said and "2013-08-20" in said and f"{rate['per_usd']:.4f}" in said


def test_the_upfront_column_shows_the_fee_of_an_all_upfront_reservation(page):
    rows = dict(zip(column(page, "Pricing"), column(page, "USD upfront"), strict=True))
    assert rows == {"reserved 3yr, standard, all upfront": "262,800.00", "on demand": ""}
    page.select_option("#per", "month")  # a fee paid once is not per month
    page.select_option("#currency", "EUR")
    rate = page.evaluate("window.chipcostData.rates.EUR.per_usd")
    fee = numbers([c for c in column(page, "EUR upfront") if c])
    assert fee == [round(FEE * rate, 2)]


def test_the_csv_holds_the_columns_and_rows_shown_in_the_unit_and_currency_chosen(page, tmp_path):
    page.select_option("#per", "month")
    page.select_option("#currency", "GBP")
    page.click("#picker summary")
    page.uncheck("#columns input[value=region]")
    page.uncheck("#columns input[value=price_per_hour]")
    shown = headers(page)
    assert "Region" not in shown and "GBP / chip-month" in shown
    with page.expect_download() as download:
        page.click("#download")
    saved = tmp_path / "offers.csv"
    download.value.save_as(saved)
    header, *rows = list(csv.reader(io.StringIO(saved.read_text())))
    # the columns shown, then the marks the cells show (test_site_browser.py)
    assert header == [*shown, *MARKS]
    assert [r[header.index("Pricing")] for r in rows] == column(page, "Pricing")
    for label in ("GBP / chip-month", "GBP upfront"):
        cells = column(page, label)
        csv_values = [r[header.index(label)] for r in rows]
        assert [float(v) if v else None for v in csv_values] == pytest.approx(
            [
                n if c else None
                for c, n in zip(cells, numbers([c or "0" for c in cells]), strict=True)
            ],
            abs=0.005,
        )


@pytest.fixture(scope="module")
def sample_site(tmp_path_factory) -> Path:
    """The bundled sample's explorer (tests/warehouses.py: the suite's one sample replay), as a
    visitor sees it: its long names and marks are what pushed columns off a phone."""
    from tests import warehouses

    root = tmp_path_factory.mktemp("sample-site")
    write_site(warehouses.sample(root / "w.duckdb"), root / "site")
    return root / "site" / "index.html"


def test_on_a_phone_nothing_overflows_and_the_sort_column_shows(browser, sample_site):
    """At 390 pixels the sample's page was 513 wide with Columns open, and its sort column
    (USD / M tokens) cut off at the right edge."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto(sample_site.as_uri())
        page.click("#picker summary")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        box = page.locator("#columns").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
        # "Columns shown" under the order's words (on 71def2b over "to sort by it.")
        order, shown = (page.locator(s).bounding_box() for s in ("#order", "#columns legend"))
        assert order and shown and shown["y"] >= order["y"] + order["height"], (order, shown)
        sorted_by = page.locator("#offers thead th[aria-sort=ascending]")
        assert sorted_by.inner_text().strip().startswith("USD / M tokens")
        box = sorted_by.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
        # Each offer is a card: its cost per token in view beside its name.
        cost = page.locator("#offers tbody tr").first.locator("td[data-label='USD / M tokens']")
        box = cost.bounding_box()
        assert box is not None and box["x"] + box["width"] <= 390, box
        assert re.fullmatch(r"[\d.,]+", cost.inner_text().strip())
    finally:
        context.close()


def test_the_history_charts_have_a_price_axis_and_keep_flat_lines_apart(browser, sample_site):
    """The sample's MI300X: four pricing models, each flat all along, were one line at 0%."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(sample_site.as_uri())
        chart = page.locator("figure[data-chip=MI300X] svg")
        chart.scroll_into_view_if_needed()
        texts = chart.locator("text").all_text_contents()
        assert texts[0].startswith("USD per chip-hour")
        ticks = [t for t in texts if re.fullmatch(r"\$[\d,.]+", t)]
        assert len(ticks) >= 2, texts
        for model in ("on demand", "reserved", "savings plan", "spot"):
            assert any(t.startswith(f"{model} $") for t in texts), (model, texts)
        lines = chart.locator("path[stroke-width='2']")
        tops = {round(b["y"]) for b in (lines.nth(i).bounding_box() for i in range(lines.count()))}
        assert lines.count() == 4 and len(tops) == 4, tops  # four lines, at four heights
    finally:
        context.close()
