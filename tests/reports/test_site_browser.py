"""The price explorer in a real browser (the system's chromium, driven by Playwright):
what it opens on, filter, sort, download, no network, screenshot. Its view in the address and
its column picker: test_site_view.py."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from urllib.parse import parse_qs

import pytest

from chipcost.reports.site import write_site
from chipcost.warehouse.db import connect
from chipcost.warehouse.offers import chosen_throughput
from tests.browser import needs_chromium

pytestmark = [needs_chromium]
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed: pip install -e '.[test]'"
)


@pytest.fixture(scope="module")
def site(golden_site) -> Path:
    """The golden warehouse's explorer (tests/reports/conftest.py): 6 offers (H100-SXM x5,
    Trainium1)."""
    return golden_site


@pytest.fixture
def page(browser, site):
    context = browser.new_context(accept_downloads=True, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors, fetched = [], []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: fetched.append(r.url))
    page.goto((site / "index.html").as_uri() + EVERY_OFFER)
    yield page
    # Self-contained: the page runs without errors and asks no server for anything.
    assert errors == []
    assert [u for u in fetched if not u.startswith(("file:", "data:", "blob:"))] == []
    context.close()


# The table of every offer (the page opens on each chip's cheapest: test_it_opens_on_...).
EVERY_OFFER = "#view=offer"
# The marks the cells show, written by the Download CSV as columns after the columns shown
# (an AWS spot price's interruption bucket while its own column is hidden; with the cost per
# token in view, the kind of its figure and a derived figure's range).
MARKS = [
    "Price estimate", "Sample data", "Spot interruption (AWS)", "Spot doubt", "GPU alone",
    "Cost estimate",
    "Throughput range (tokens/s per chip)",
]  # fmt: skip


def column(page, label: str) -> list[str]:
    """The texts of one column of the table, in the order shown."""
    return page.locator(
        f"#offers tbody td:nth-child({header_index(page, label)})"
    ).all_inner_texts()


def header_index(page, label: str) -> int:
    headers = page.locator("#offers thead th").all_inner_texts()
    return [" ".join(h.split()).rstrip(" ▲▼") for h in headers].index(label) + 1


def prices(page) -> list[float]:
    return [float(p) for p in column(page, "USD / chip-hour")]


def every_model(page) -> None:
    """Every pricing model, not only on demand as the page opens."""
    page.select_option("#pricing_model", "")


def test_it_opens_on_demand_cheapest_per_token_first(page):
    # The golden warehouse's 4 on-demand H100-SXM offers (one chip: per token orders as per
    # chip-hour); the spot and the reserved offer are a choice away.
    assert page.inner_text("#count") == "4 of 6 offers"
    assert page.input_value("#pricing_model") == "on_demand"
    assert prices(page) == [9.25, 10.0, 12.6, 12.6]
    header = page.locator("#offers thead th", has_text="USD / M tokens")
    assert header.get_attribute("aria-sort") == "ascending"
    assert "llama-3-70b inference, lowest first" in page.inner_text("#order")
    assert page.evaluate("location.hash") == EVERY_OFFER  # the one change from the defaults
    every_model(page)
    assert page.inner_text("#count") == "6 of 6 offers"
    assert column(page, "Pricing")[0] == "spot"  # per token: the Trainium1 offer has no figure
    assert column(page, "Pricing")[-1] == "reserved 1yr, standard, all upfront"


def test_it_opens_on_each_chips_cheapest_offer_and_links_to_every_offer(browser, site):
    """As plain `chipcost prices`, the page opens on one row per chip: its cheapest offer of
    the pricing model chosen (on demand first), with provider and region; "Every offer" in
    the link bar and the Show choice give the table of every offer, as the line above the
    table says: of every pricing model (on 71def2b, 566 of the sample's 2,707, the on demand
    filter the page opened on left on)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto((site / "index.html").as_uri())
        assert page.input_value("#view") == "chip" and page.evaluate("location.hash") == ""
        assert page.inner_text("#count").startswith(
            "1 chips, each its cheapest on demand offer anywhere (the rule of chipcost prices "
            "--by chip"
        )
        assert shown(page) == answered(site, "on_demand")
        assert page.inner_text("#count").endswith('Show "every offer" for all 6 offers.')
        page.click('nav.contents a:has-text("Every offer")')
        assert page.input_value("#view") == "offer" and page.inner_text("#count") == "6 of 6 offers"
        assert page.input_value("#pricing_model") == ""  # all, as the line said
        assert view_of(page) == {"view": "offer", "pricing_model": ""}
        box = page.locator("#filters").bounding_box()
        assert box is not None and abs(box["y"]) < 2  # scrolled to the table's controls
        page.select_option("#view", "chip")  # any pricing model: H100-SXM's spot, Trainium1's
        assert page.inner_text("#count").startswith("2 chips, each its cheapest offer anywhere")
        assert shown(page) == answered(site, None) and len(shown(page)) == 2
        page.click("button[type=reset]")  # on demand again: Show's choice does the same
        page.select_option("#view", "offer")
        assert page.inner_text("#count") == "6 of 6 offers"
        assert page.input_value("#pricing_model") == ""
        page.select_option("#view", "chip")
        page.select_option("#pricing_model", "spot")  # a model chosen by hand stays
        assert page.inner_text("#count").endswith(
            'Show "every offer" for the 1 offer these filters keep (of 6).'
        )
        page.select_option("#view", "offer")
        assert page.inner_text("#count") == "1 of 6 offers"
        assert column(page, "Pricing") == ["spot"]
    finally:
        context.close()


def test_the_link_to_every_offer_opens_every_offer_in_a_new_tab_too(browser, site):
    """The link's address names what its click shows: every offer of every pricing model."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto((site / "index.html").as_uri())
        href = page.locator("nav.contents a", has_text="Every offer").get_attribute("href")
        other = context.new_page()
        other.goto((site / "index.html").as_uri() + href)
        assert other.inner_text("#count") == "6 of 6 offers"
    finally:
        context.close()


def view_of(page) -> dict[str, str]:
    """The view in the address, as {parameter: value}."""
    hash_ = page.evaluate("location.hash")[1:]
    return {k: v[0] for k, v in parse_qs(hash_, keep_blank_values=True).items()}


def shown(page) -> list[tuple]:
    """The rows shown: chip, price per chip-hour, provider and region, sorted."""
    labels = ("Chip", "USD / chip-hour", "Provider", "Region")
    cells = zip(*(column(page, label) for label in labels), strict=True)
    return sorted((chip, float(price), provider, region) for chip, price, provider, region in cells)


def answered(site: Path, model: str | None) -> list[tuple]:
    """What `chipcost.prices(by="chip")` answers of the site's warehouse, as `shown`."""
    import chipcost

    glance = chipcost.prices(by="chip", pricing_model=model, db=site.parent / "w.duckdb")
    return sorted(
        (r["chip"], round(r["price_per_chip_hour"], 4), r["provider"], r["region"])
        for r in glance.to_dicts()
    )


def test_filters_narrow_the_rows_and_the_charts(page):
    every_model(page)
    page.select_option("#chip", "Trainium1")
    assert page.inner_text("#count") == "1 of 6 offers"
    assert column(page, "Pricing") == ["reserved 1yr, standard, all upfront"]
    assert page.locator("figure[data-chip]:visible figcaption").all_inner_texts() == ["Trainium1"]
    page.click("button[type=reset]")
    page.select_option("#view", "offer")
    every_model(page)
    page.fill("#memory", "64")  # H100-SXM has 80 GB, Trainium1 32
    page.fill("#price", "10")
    assert sorted(prices(page)) == [5.0, 9.25, 10.0]
    page.fill("#price", "")
    page.select_option("#pricing_model", "spot")
    assert column(page, "Pricing") == ["spot"] and column(page, "Region") == ["us-east-2"]
    page.select_option("#pricing_model", "")
    page.fill("#search", "aws-bulk")
    assert column(page, "USD / chip-hour") == ["10.0000", "12.6000"]


def test_headers_sort_both_ways(page):
    every_model(page)
    header = page.locator("#offers thead th", has_text="USD / chip-hour")
    header.click()
    assert header.get_attribute("aria-sort") == "ascending"
    assert prices(page) == [1.25, 5.0, 9.25, 10.0, 12.6, 12.6]
    header.click()
    assert header.get_attribute("aria-sort") == "descending"
    assert prices(page) == [12.6, 12.6, 10.0, 9.25, 5.0, 1.25]
    page.locator("#offers thead th", has_text="Region").click()
    assert column(page, "Region") == sorted(column(page, "Region"))
    assert header.get_attribute("aria-sort") == "none"


def test_cost_per_token_follows_the_chosen_model(page, site):
    con = connect(site.parent / "w.duckdb", read_only=True)
    try:
        figures = {
            (r["chip"], r["model"], r["workload"]): r["tokens_per_second_per_chip"]
            for r in chosen_throughput(con).to_dicts()
        }
    finally:
        con.close()
    every_model(page)
    page.select_option("#chip", "H100-SXM")
    for tokens in ("llama-3-70b|inference", "llama-3-70b|training"):
        page.select_option("#model", tokens)
        tps = figures[("H100-SXM", *tokens.split("|"))]
        expected = [f"{p / (tps * 3600 / 1e6):.4f}" for p in prices(page)]
        costs = column(page, "USD / M tokens")
        assert [c.replace(",", "").split(" (")[0] for c in costs] == expected
        # Training state is 16 bytes a parameter: 1,130 GB, two of the 640 GB instances.
        needs = " (needs 2)" if tokens.endswith("training") else ""
        assert [c.endswith(needs) and ("(" in c) == bool(needs) for c in costs] == [True] * 5


def test_download_gives_the_rows_shown_as_csv(page, tmp_path):
    every_model(page)
    page.select_option("#chip", "H100-SXM")
    header = page.locator("#offers thead th", has_text="USD / chip-hour")
    header.click()
    header.click()  # most expensive first
    with page.expect_download() as download:
        page.click("#download")
    assert download.value.suggested_filename == "chipcost-offers.csv"
    saved = tmp_path / "offers.csv"
    download.value.save_as(saved)
    rows = list(csv.DictReader(io.StringIO(saved.read_text())))
    # the columns shown, named as shown; then the marks the cells show, as columns
    assert list(rows[0]) == [
        *KEY_COLUMNS,
        "USD upfront",
        *MARKS,
    ]
    assert [float(r["USD / chip-hour"]) for r in rows] == [12.6, 12.6, 10.0, 9.25, 5.0]
    assert [r["Pricing"] for r in rows] == column(page, "Pricing")
    assert all(r["Chip"] == "H100-SXM" and float(r["USD / M tokens"]) > 0 for r in rows)


def test_a_screenshot_shows_the_page(page, tmp_path):
    shot = tmp_path / "site.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


KEY_COLUMNS = (
    "Chip",
    "Pricing",
    "USD / chip-hour",
    "USD / M tokens",
    "Provider",
    "Region",
    "Instance",
    "Chip count",
    "USD / instance-hour",
)


def test_the_key_columns_are_in_view_on_a_laptop_beside_long_names(browser, tmp_path):
    # Names as long as real marketplaces give them: every key column must still show in 1280
    # pixels, neither the page nor the table scrolling sideways.
    from tests.helpers import loaded_warehouse, record

    long = record(
        instance_type="Standard_ND96isr_H100_v5_with_a_long_marketplace_name", upfront=1_051_200.0,
        region="southcentralus-long-region-name",
        zone="southcentralus-long-region-name-az3",
        pricing_model="reserved", term="3yr", payment="partial_upfront", plan="convertible",
    )  # fmt: skip
    db = loaded_warehouse(tmp_path / "w.duckdb", [long])
    write_site(db, tmp_path / "site")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(
            (tmp_path / "site" / "index.html").as_uri() + "#view=offer&pricing_model="
        )  # not on demand
        assert page.inner_text("#count") == "1 of 1 offers"
        headers = [
            " ".join(h.split()).rstrip(" ▲▼") for h in page.locator("#offers th").all_inner_texts()
        ]
        assert headers == [*KEY_COLUMNS, "USD upfront"]
        for label in headers:
            box = page.locator("#offers tbody td").nth(header_index(page, label) - 1).bounding_box()
            assert box is not None and box["x"] + box["width"] <= 1280, (label, box)
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280
        box = page.locator(".scroll").first
        assert box.evaluate("e => e.scrollWidth <= e.clientWidth")
    finally:
        context.close()


def test_reset_clears_the_filters_and_keeps_the_default_model(page):
    page.select_option("#model", "llama-3-70b|training")
    page.select_option("#chip", "Trainium1")
    page.locator("#offers thead th", has_text="Region").click()
    page.click("button[type=reset]")
    assert page.input_value("#model") == "llama-3-70b|inference"  # not the list's first
    assert page.input_value("#chip") == "" and page.input_value("#view") == "chip"
    assert page.inner_text("#count").startswith("1 chips, each its cheapest on demand offer")
    assert page.input_value("#pricing_model") == "on_demand"
    assert page.evaluate("location.hash") == ""
    header = page.locator("#offers thead th", has_text="USD / M tokens")
    assert header.get_attribute("aria-sort") == "ascending"


@pytest.fixture(scope="module")
def slices_site(tmp_path_factory) -> Path:
    """One H100 (80 GB), eight H100 (640 GB, its price an estimate), and an eighth of an L4 (3
    of its 24 GB): the explorer made once, each test opening it in a context of its own."""
    from tests.helpers import loaded_warehouse, record

    folder = tmp_path_factory.mktemp("slices")

    offers = [
        record(instance_type="p5.4xlarge", chip_count=1.0, price_per_hour=2.0, sku="1"),
        record(
            instance_type="p5.48xlarge",
            chip_count=8.0,
            price_per_hour=40.0,
            sku="8",
            extra={"estimate": "no public price found"},
        ),
        record(instance_type="g6f.large", chip="L4", chip_count=0.125, price_per_hour=0.23),
    ]
    write_site(loaded_warehouse(folder / "w.duckdb", offers), folder / "site")
    return folder / "site" / "index.html"


@pytest.fixture
def slices(browser, slices_site):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(slices_site.as_uri() + EVERY_OFFER)
    yield page
    context.close()


def test_an_offer_that_cannot_hold_the_model_is_marked_and_ranked_after(slices):
    page = slices
    # GPT-3 175B inference needs at least 175 GB: only the eight H100 hold it.
    page.select_option("#model", "gpt-3-175b|inference")  # sorted on its cost, cheapest first
    assert column(page, "Instance") == ["p5.48xlarge", "p5.4xlarge", "g6f.large"]
    costs = column(page, "USD / M tokens")
    assert "needs" not in costs[0]
    assert costs[1].endswith(" (needs 3)") or costs[1].endswith(" (needs 5)")  # 175/350 GB
    cell = page.locator("#offers tbody tr:nth-child(2) td.nofit")
    assert "this instance has 80 GB" in cell.get_attribute("title")
    page.locator("#offers thead th", has_text="USD / M tokens").click()  # most expensive first
    assert column(page, "Instance")[0] == "p5.48xlarge"  # those that cannot stay after


def test_a_slice_of_a_gpu_shows_its_fraction_and_its_share_of_memory(slices):
    page = slices
    page.select_option("#chip", "L4")
    page.click("#picker summary")
    page.check("#columns input[value=memory_gb]")  # not in view until chosen
    assert column(page, "Chip count") == ["0.125"] and column(page, "GB / chip") == ["24"]
    page.fill("#memory", "4")  # the slice gives 3 GB
    assert page.inner_text("#count") == "0 of 3 offers"


def test_an_estimate_is_marked_beside_its_price_and_says_what_it_rests_on(slices):
    page = slices
    instances, prices = column(page, "Instance"), column(page, "USD / chip-hour")
    marked = {name for name, price in zip(instances, prices, strict=True) if "(estimate)" in price}
    assert marked == {"p5.48xlarge"}
    row = instances.index("p5.48xlarge") + 1
    cell = page.locator(f"#offers tbody tr:nth-child({row}) td:has(span.estimate)")
    assert cell.get_attribute("title").endswith("no public price found")


def test_the_price_is_in_view_on_a_phone_and_the_page_does_not_overflow(browser, site):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto((site / "index.html").as_uri() + EVERY_OFFER)
        box = page.locator("#offers thead th", has_text="USD / chip-hour").bounding_box()
        assert box is not None and box["x"] + box["width"] <= 390, box
        # The table may scroll sideways in its box; the page itself does not.
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.click("#picker summary")
        box = page.locator("#columns").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    finally:
        context.close()


@pytest.mark.parametrize("text", ["<!--<script>", "</script><script>alert(1)</script>", "a & b >"])
def test_hostile_provider_text_neither_blanks_nor_runs_in_the_page(browser, tmp_path, text):
    """On main at 368c4bd a provider string `<!--<script>` swallowed the page's own script and
    the explorer showed no offer at all."""
    from tests.helpers import loaded_warehouse, record

    offers = [
        record(instance_type=text, price_per_hour=2.0, sku="1"),
        record(instance_type="p5.48xlarge", chip_count=8.0, price_per_hour=40.0, sku="8"),
    ]
    write_site(loaded_warehouse(tmp_path / "w.duckdb", offers), tmp_path / "site")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        errors, dialogs = [], []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto((tmp_path / "site" / "index.html").as_uri() + EVERY_OFFER)
        assert page.inner_text("#count") == "2 of 2 offers"
        assert text in column(page, "Instance")
        assert errors == [] and dialogs == []
    finally:
        context.close()


def test_the_download_keeps_the_marks_the_cells_show(browser, slices_site, tmp_path):
    """The CSV writes as columns what the cells mark: the price an estimate rests on ('8x H100
    (estimate)' on the page; on 2ef1a0c a bare number), the sample flag, and the kind of a
    throughput figure neither measured nor published that a cost rests on ('(derived)' in the
    cell, not only in its tooltip)."""
    context = browser.new_context(accept_downloads=True, viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(slices_site.as_uri() + EVERY_OFFER)
        with page.expect_download() as download:
            page.click("#download")
        saved = tmp_path / "offers.csv"
        download.value.save_as(saved)
        rows = list(csv.DictReader(io.StringIO(saved.read_text())))
        assert list(rows[0])[-len(MARKS) :] == MARKS
        by_instance = {r["Instance"]: r for r in rows}
        assert by_instance["p5.48xlarge"]["Price estimate"] == "no public price found"
        assert by_instance["p5.4xlarge"]["Price estimate"] == ""
        assert {r["Sample data"] for r in rows} == {"false"}  # collected, not the sample
        # each cost the CSV marks derived says so in its cell, and no other does
        costs = dict(zip(column(page, "Instance"), column(page, "USD / M tokens"), strict=True))
        kinds = {r["Instance"]: r["Cost estimate"] for r in rows}
        assert "derived" in kinds.values(), kinds
        for instance, kind in kinds.items():
            assert (f" ({kind})" in costs[instance]) == bool(kind), (instance, costs)
        # no cost column in view: no cost mark either
        page.click("#picker summary")
        page.uncheck("#columns input[value=cost]")
        with page.expect_download() as download:
            page.click("#download")
        download.value.save_as(saved)
        head = saved.read_text().splitlines()[0].split(",")
        assert head[-5:] == MARKS[:5] and "Cost estimate" not in head
    finally:
        context.close()


@pytest.fixture(scope="module")
def sample_site(tmp_path_factory) -> Path:
    """The bundled sample's explorer: its 2,705 offers' cards on a phone before the comparison."""
    from tests import warehouses

    root = tmp_path_factory.mktemp("sample-site")
    write_site(warehouses.sample(root / "w.duckdb"), root / "site")
    return root / "site"


def test_on_a_phone_the_comparison_is_a_link_from_the_top(browser, sample_site):
    """On 697f5e5, at 390 px, "Is chip A cheaper than chip B?" started 18,337 px down a
    29,336 px page, after 100 cards, with no link to it at the top."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto((sample_site / "index.html").as_uri())
        link = page.locator("nav.contents a", has_text="Is chip A cheaper than chip B?")
        box = link.bounding_box()
        assert box is not None and box["y"] + box["height"] <= 844, box  # in the first screen
        versus = page.locator("#versus").bounding_box()
        assert versus is not None and versus["y"] > 5 * 844  # far down: the link is needed
        link.click()
        page.wait_for_function("Math.abs(document.querySelector('#versus')"
                               ".getBoundingClientRect().top) < 2")  # fmt: skip
        for key in ("view=offer&pricing_model=", "history"):  # the other parts it names too
            assert page.locator(f'nav.contents a[href="#{key}"]').count() == 1
        assert page.locator("#history").count() == 1
    finally:
        context.close()


def test_on_a_phone_it_opens_on_a_card_per_chip_and_every_offer_is_a_link_away(
    browser, sample_site
):
    """At 390 px the sample's page opened on 100 of 2,705 offers' cards; it opens on one card
    per chip (its cheapest on demand offer), and "Every offer" at the top gives them all."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto((sample_site / "index.html").as_uri())
        count = page.inner_text("#count")
        chips = int(count.split()[0])
        assert count.startswith(f"{chips} chips, each its cheapest on demand offer")
        assert page.locator("#offers tbody tr").count() == chips and 20 < chips < 100
        more = page.locator("#more")  # "Show -56 more of -56" on 71def2b, hidden
        assert more.is_hidden() and not re.search(r"-\d", more.text_content() or "")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        link = page.locator("nav.contents a", has_text="Every offer")
        box = link.bounding_box()
        assert box is not None and box["y"] + box["height"] <= 844, box  # in the first screen
        link.click()
        assert page.input_value("#view") == "offer"
        count = page.inner_text("#count")  # "2,707 of 2,707 offers"
        shown, total = (int(n.replace(",", "")) for n in count.split()[0:3:2])
        assert shown == total > 2000, count  # every offer of the sample, of any pricing model
        # one number format: the page's first line says the same count as the table's
        assert page.inner_text("p.meta").startswith(f"{total:,} current offers of ")
        assert count == f"{total:,} of {total:,} offers"
        assert page.locator("#offers tbody tr").count() == 100
        box = page.locator("#filters").bounding_box()
        assert box is not None and abs(box["y"]) < 2
    finally:
        context.close()


def test_show_more_draws_100_rows_at_a_time(browser, sample_site):
    """docs/site.md: drawn 100 rows at a time. On 71def2b *Show more* said and drew 400 more
    (500 rows after one click)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto((sample_site / "index.html").as_uri() + "#view=offer&pricing_model=")
        total = int(page.inner_text("#count").split()[0].replace(",", ""))
        rows = page.locator("#offers tbody tr")
        for drawn in (100, 200):
            assert rows.count() == drawn
            assert page.inner_text("#more") == f"Show 100 more of {total - drawn:,}"
            page.click("#more")
        assert rows.count() == 300
    finally:
        context.close()


def inner_scroll(page) -> list[tuple[str, int, int]]:
    """Each table box that scrolls down inside the page: its table, its height, its content's."""
    return page.evaluate("""[...document.querySelectorAll('.scroll')]
        .filter((e) => e.scrollHeight > e.clientHeight + 1)
        .map((e) => [e.querySelector('table').id || e.querySelector('table').className,
                     e.clientHeight, e.scrollHeight])""")


@pytest.mark.parametrize("width", [390, 1280])
def test_on_a_touch_screen_the_tables_run_down_the_page_not_in_a_box(browser, sample_site, width):
    """On 71def2b, at 390 px, the sample's "Is chip A cheaper" cards (3,964 px) were cut at a
    591 px box, and on a touch screen of 1280 px the offers scrolled in a 630 px box: a box
    that scrolls inside the page traps a finger's scrolling."""
    context = browser.new_context(viewport={"width": width, "height": 900}, has_touch=True)
    try:
        page = context.new_page()
        page.goto((sample_site / "index.html").as_uri() + "#view=offer&pricing_model=")
        assert inner_scroll(page) == []
        for table in ("#offers", "table.versus"):  # taller than the screen: a box would cut them
            box = page.locator(table).bounding_box()
            assert box is not None and box["height"] > 900, (table, box)
    finally:
        context.close()


def test_with_a_mouse_the_offers_scroll_in_their_box_under_their_header(browser, sample_site):
    """On a laptop the offers' box keeps the header row in view while its rows scroll."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto((sample_site / "index.html").as_uri() + "#view=offer&pricing_model=")
        box = page.locator(".scroll:has(#offers)")
        assert box.evaluate("e => (e.scrollTop = 1000, e.scrollTop)") == 1000
        top = box.evaluate("e => e.getBoundingClientRect().top + e.clientTop")
        header = page.locator("#offers thead th").first.bounding_box()
        assert header is not None and abs(header["y"] - top) < 1, (header, top)
    finally:
        context.close()


@pytest.mark.parametrize("width", [390, 1280])
def test_each_filter_is_captioned_on_one_line(browser, site, width):
    """On 71def2b "USD / chip-hour ≤" put its "≤" on a line of its own, at 390 and 1280 px."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    try:
        page = context.new_page()
        page.goto((site / "index.html").as_uri())
        lines = page.evaluate("""[...document.querySelectorAll('#filters label')].map((label) => {
            const tops = new Set();
            const walker = document.createTreeWalker(label, NodeFilter.SHOW_TEXT);
            for (let text = walker.nextNode(); text; text = walker.nextNode()) {
              if (text.parentElement.closest('select') || !text.textContent.trim()) continue;
              const range = document.createRange();
              range.selectNodeContents(text);
              for (const rect of range.getClientRects()) tops.add(Math.round(rect.top));
            }
            return [label.textContent.trim().slice(0, 20), tops.size];
        })""")
        assert len(lines) > 8 and all(n == 1 for _, n in lines), lines
    finally:
        context.close()


def test_the_download_keeps_a_spot_prices_bucket_and_doubt(browser, sample_site, tmp_path):
    """The Pricing cell of an AWS spot offer shows its interruption bucket, and a spot price
    not below on demand '(!)' (as `prices` marks it): the CSV keeps both as columns, with the
    bucket's column hidden as the page opens; the cost a derived figure gives, its range."""
    context = browser.new_context(accept_downloads=True, viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        found = []
        for view in ("pricing_model=spot", "pricing_model=spot&chip=RTX-5090"):
            page.goto((sample_site / "index.html").as_uri() + f"#view=offer&{view}")
            page.reload()
            rows, cells = _downloaded(page, tmp_path)
            assert list(rows[0])[-len(MARKS) :] == MARKS
            for row, cell in zip(rows, cells, strict=False):  # the rows drawn, in its order
                bucket = row["Spot interruption (AWS)"]
                assert (f"interruption {bucket}" in cell) == bool(bucket), (row, cell)
                assert ("(!)" in cell) == bool(row["Spot doubt"]), (row, cell)
                assert ("(GPU alone)" in cell) == (row["GPU alone"] == "true"), (row, cell)
            found += rows
        assert {r["Provider"] for r in found if r["Spot interruption (AWS)"]} == {"aws"}
        # daytona's spot prices are the GPU's alone, as `prices` marks them
        assert {r["Provider"] for r in found if r["GPU alone"] == "true"} >= {"daytona"}
        doubted = [r for r in found if r["Spot doubt"]]
        assert doubted and all("not below on demand" in r["Spot doubt"] for r in doubted)
        ranges = [r["Throughput range (tokens/s per chip)"] for r in found]
        ranged = [r for r, said in zip(found, ranges, strict=True) if said]
        assert ranged and all(r["Cost estimate"] == "derived" for r in ranged)
        assert all(re.fullmatch(r"\d+-\d+", said) for said in ranges if said)
    finally:
        context.close()


def _downloaded(page, tmp_path: Path) -> tuple[list[dict], list[str]]:
    """The Download CSV's rows, and the Pricing cells of the rows drawn."""
    with page.expect_download() as download:
        page.click("#download")
    saved = tmp_path / "offers.csv"
    download.value.save_as(saved)
    rows = list(csv.DictReader(io.StringIO(saved.read_text())))
    return rows, column(page, "Pricing")


# The price columns of the page, as it keys them.
PRICES = ("price_per_chip_hour", "price_per_hour", "upfront")


def test_every_price_shows_as_the_command_line_rounds_it(browser, sample_site):
    """docs/cli.md: a price shows one way in every view, the stored value rounded once, a tie
    to the even digit. offers.json held 0.6902499242 cut to 0.69025, which the page rounded
    again: A10G's g5.xlarge reservation in eu-west-1 showed 0.6903 where `chipcost prices`
    says 0.6902 (120 hourly prices of the sample, 237 per month, 1,080 per year). Every cell
    of every offer, per hour, month and year, against the command line's cells of the prices
    (as one multiset of rows: the price columns alone draw the fastest)."""
    from collections import Counter

    import chipcost
    from chipcost.cli.price_cells import cell
    from chipcost.reads.price_glance import PER_HOURS

    listed = chipcost.prices(db=str(sample_site.parent / "w.duckdb")).to_dicts()
    listed = [o for o in listed if o["chip"] != "unknown"]  # not in the explorer (docs/site.md)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        for per, hours in PER_HOURS.items():
            page.goto(  # the same file under a new #: the page reads the view afresh
                (sample_site / "index.html").as_uri()
                + f"#view=offer&pricing_model=&per={per}&cols={','.join(PRICES)}"
            )
            # Every row drawn (100 at a time), then each row's cells read at once.
            rows = page.evaluate("""() => {
                const more = document.getElementById('more');
                while (!more.hidden) more.click();
                return [...document.querySelectorAll('#offers tbody tr')]
                    .map((tr) => [...tr.cells].map((td) => td.textContent));
            }""")
            shown = Counter((p.removesuffix(" (estimate)"), i, u) for p, i, u in rows)
            said = Counter(
                tuple(
                    cell(c, None if o[c] is None else o[c] * hours, per)
                    if c != "upfront"
                    else cell(c, o[c])
                    for c in PRICES
                )
                for o in listed
            )
            assert len(rows) == len(listed) > 2000
            assert shown == said, (per, sorted((shown - said).items())[:3])
    finally:
        context.close()
