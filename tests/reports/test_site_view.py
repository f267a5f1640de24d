"""The price explorer's view in its address (filters, order, columns), restored on load so that
a view can be shared, its column picker, and its words explained where they appear; in the
system's chromium, driven by Playwright."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipcost.reports.site import write_site
from tests import report_warehouse
from tests.browser import needs_chromium
from tests.reports.test_site_browser import column, prices
from tests.reports.test_site_browser import view_of as view

pytestmark = [needs_chromium]
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed: pip install -e '.[test]'"
)


@pytest.fixture(scope="module")
def index(golden_site) -> str:
    """The golden warehouse's explorer (6 offers: H100-SXM x5, Trainium1), as an address."""
    return (golden_site / "index.html").as_uri()


@pytest.fixture
def open_page(browser):
    """A new page (a new context: nothing kept from an earlier one) on an address, on the
    table of every offer unless the address names a view (the page opens on each chip's
    cheapest: test_site_browser.py)."""
    contexts = []

    def opened(url: str, width: int = 1280):
        context = browser.new_context(viewport={"width": width, "height": 900})
        contexts.append(context)
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        if "view=" not in url:
            url = url.replace("#", "#view=offer&") if "#" in url else url + "#view=offer"
        page.goto(url)
        page.errors = errors
        return page

    yield opened
    for context in contexts:
        context.close()


def headers(page) -> list[str]:
    texts = page.locator("#offers thead th").all_inner_texts()
    return [" ".join(t.split()).rstrip(" ▲▼") for t in texts]


def test_a_filtered_sorted_view_is_written_to_the_address_and_restored_from_it(index, open_page):
    page = open_page(index)
    page.select_option("#pricing_model", "")  # every pricing model
    page.select_option("#chip", "H100-SXM")
    page.fill("#price", "12")
    header = page.locator("#offers thead th", has_text="USD / chip-hour")
    header.click()
    header.click()  # dearest first
    assert prices(page) == [10.0, 9.25, 5.0]
    said = view(page)
    assert said == {
        "view": "offer",
        "chip": "H100-SXM",
        "pricing_model": "",
        "price": "12",
        "sort": "price_per_chip_hour",
        "dir": "desc",
    }
    shared = page.url
    again = open_page(shared)  # as someone the address was sent to opens it
    assert again.input_value("#chip") == "H100-SXM" and again.input_value("#pricing_model") == ""
    assert again.input_value("#price") == "12"
    assert prices(again) == [10.0, 9.25, 5.0] and again.inner_text("#count") == "3 of 6 offers"
    assert header_sort(again, "USD / chip-hour") == "descending"
    assert again.errors == []


def header_sort(page, label: str) -> str | None:
    return page.locator("#offers thead th", has_text=label).get_attribute("aria-sort")


def test_an_address_typed_by_hand_opens_on_its_view(index, open_page):
    page = open_page(index + "#pricing_model=spot&model=llama-3-70b%7Ctraining")
    assert page.inner_text("#count") == "1 of 6 offers" and column(page, "Pricing") == ["spot"]
    assert page.input_value("#model") == "llama-3-70b|training"
    # A value the page does not offer (a chip no longer sold) falls back to every value.
    page = open_page(index + "#chip=H999&sort=nonsense&model=none%7Cnone&cols=nothing")
    assert page.input_value("#chip") == "" and page.inner_text("#count") == "4 of 6 offers"
    assert page.input_value("#model") == "llama-3-70b|inference" and "Region" in headers(page)
    assert header_sort(page, "USD / M tokens") == "ascending"
    assert page.errors == []


def test_an_address_of_the_last_release_opens_on_the_view_it_meant(index, open_page):
    """model= was the pricing model, tokens= the model, the column "pricing": read so for one
    release, and written anew (a pricing model never holds the "|" of a model)."""
    page = open_page(index + "#model=spot&tokens=llama-3-70b%7Ctraining&cols=chip,pricing")
    assert page.input_value("#pricing_model") == "spot" and column(page, "Pricing") == ["spot"]
    assert page.input_value("#model") == "llama-3-70b|training"
    assert view(page)["cols"] == "chip,offer_label" and "tokens" not in view(page)
    assert page.errors == []


def test_going_back_to_an_earlier_address_restores_its_view(index, open_page):
    page = open_page(index + "#pricing_model=")
    assert page.inner_text("#count") == "6 of 6 offers"
    page.evaluate("location.hash = 'view=offer&chip=Trainium1&pricing_model='")
    page.wait_for_function("document.getElementById('count').textContent === '1 of 6 offers'")
    assert page.input_value("#chip") == "Trainium1"


def test_the_column_picker_shows_and_hides_columns_and_remembers_them(index, open_page):
    page = open_page(index)
    assert "Zone" not in headers(page) and "Region" in headers(page)
    page.click("#picker summary")
    boxes = page.locator("#columns input")
    labels = page.locator("#columns label").all_inner_texts()
    assert [t.strip() for t in labels][:3] == ["Chip", "Pricing", "USD / chip-hour"]
    assert boxes.count() >= 14  # every column of the offers, the hidden ones too
    page.check("#columns input[value=zone]")
    page.uncheck("#columns input[value=region]")
    assert "Zone" in headers(page) and "Region" not in headers(page)
    assert headers(page).index("Zone") > headers(page).index("Provider")  # the declared order
    page.select_option("#pricing_model", "spot")
    assert column(page, "Zone") == ["us-east-2a"]
    assert "cols=chip,offer_label," in page.evaluate("location.hash")  # commas as themselves
    chosen = view(page)["cols"].split(",")
    assert "zone" in chosen and "region" not in chosen
    again = open_page(page.url)
    assert headers(again) == headers(page) and column(again, "Zone") == ["us-east-2a"]
    again.click("#picker summary")
    assert again.is_checked("#columns input[value=zone]")
    assert not again.is_checked("#columns input[value=region]")
    again.click("button[type=reset]")  # back to the columns the page opens with
    assert "Region" in headers(again) and "Zone" not in headers(again)


def test_the_words_a_visitor_may_not_know_are_explained_where_they_appear(index, open_page):
    page = open_page(index)
    # Every column's heading says on hover what it is (on 71def2b Provider, Region and
    # Instance said nothing).
    page.click("#picker summary")
    for box in page.locator("#columns input").all():
        box.check()
    said = page.locator("#offers thead th").evaluate_all("ths => ths.map((th) => th.title)")
    titles = dict(zip(headers(page), said, strict=True))
    assert len(titles) > 12 and {h for h, t in titles.items() if len(t) < 20} == set(), titles
    legend = page.inner_text("#legend")
    for word in ("(needs N)", "(estimate)", "interruption", "savings plan", "capacity block"):
        assert word in legend, word
    assert "N such instances would" in legend and "Spot Instance Advisor" in legend
    page.select_option("#model", "llama-3-70b|training")  # 1,130 GB: two of the 640 GB
    cell = page.locator("#offers tbody td.nofit").first
    assert "(needs 2)" in cell.inner_text() and "2 of them would hold it" in cell.get_attribute(
        "title"
    )


def test_a_new_column_of_the_offers_joins_the_picker(tmp_path, open_page, monkeypatch):
    """A column added to chipcost.reports.site.COLUMNS (power in watts, say) needs no change in the
    page's script: it is in the picker under its own name, hidden until chosen."""
    import chipcost.reports.site as site

    db = report_warehouse.build(tmp_path / "w.duckdb")
    real = site.current_offers

    def with_watts(con, *args):
        import polars as pl

        return real(con, *args).with_columns(watts=pl.lit(700))

    monkeypatch.setattr(site, "current_offers", with_watts)
    monkeypatch.setattr(site, "COLUMNS", (*site.COLUMNS, "watts"))
    write_site(db, tmp_path / "site")
    page = open_page((tmp_path / "site" / "index.html").as_uri())
    assert "watts" not in headers(page)
    page.click("#picker summary")
    page.check("#columns input[value=watts]")
    assert column(page, "watts") == ["700"] * 4 and page.errors == []


def test_a_missing_data_file_is_said_not_a_blank_table(index, open_page, tmp_path):
    site = Path(index.removeprefix("file://")).parent
    copy = tmp_path / "alone.html"
    copy.write_text((site / "index.html").read_text())
    page = open_page(copy.as_uri())
    assert "offers.js did not load" in page.inner_text("#count")
