"""`chipcost site DIR`: the files it writes, and scraped text kept as text."""

from __future__ import annotations

import csv
import json
import os
import re
from pathlib import Path

import pytest

from chipcost.reports.explorer_data import offer_rows
from chipcost.reports.period import ReportError
from chipcost.reports.site import COLUMNS, write_site
from chipcost.warehouse.db import connect
from chipcost.warehouse.offers import chosen_throughput
from tests import report_warehouse
from tests.helpers import day, record, run_of
from tests.reports.test_report_output import chipcost, warehouse

NASTY = "</script><script>alert(1)</script>"


def test_cli_writes_page_json_and_csv(tmp_path):
    db = report_warehouse.build(tmp_path / "w.duckdb")
    result = chipcost("site", str(tmp_path / "out"), "--db", str(db))
    assert result.returncode == 0, result.stderr
    assert "price explorer:" in result.stdout and "(6 offers of 2 chips)" in result.stdout
    data = json.loads((tmp_path / "out" / "offers.json").read_text())
    assert data["columns"] == list(COLUMNS) and data["count"] == 6
    offers = offer_rows(data)
    assert len(offers) == 6 and list(offers[0]) == list(COLUMNS)
    assert data["as_of"] == "2026-11-07 06:00 UTC" and data["sample"] is False
    throughput = offer_rows({"offers": data["throughput"]})
    assert {(t["chip"], t["model"], t["workload"]) for t in throughput} >= {
        ("H100-SXM", "llama-3-70b", "inference")
    }
    con = connect(db, read_only=True)
    try:  # the sources, cut into phrases for offers.json, read back whole
        assert [t["source"] for t in throughput] == chosen_throughput(con)["source"].to_list()
    finally:
        con.close()
    assert data["throughput"]["source"]["separator"] == "; "
    # The page reads offers.js: what offers.json holds, less what the page shows as HTML.
    script = (tmp_path / "out" / "offers.js").read_text()
    assert script.startswith("window.chipcostData = ") and script.endswith(";\n")
    page_data = json.loads(script.removeprefix("window.chipcostData = ").removesuffix(";\n"))
    assert page_data == {k: v for k, v in data.items() if k not in ("head_to_head", "speed_curve")}
    rows = list(csv.DictReader((tmp_path / "out" / "offers.csv").open()))
    assert len(rows) == 6 and rows[0]["chip"] == "H100-SXM"
    page = (tmp_path / "out" / "index.html").read_text()
    assert '<figure data-chip="H100-SXM">' in page and "<svg" in page
    assert "p5.48xlarge" not in page  # no copy of the offers in the page
    assert not re.search(r"(src|href)=[\"']?(https?:)?//", page)  # nothing fetched elsewhere


def test_scraped_text_stays_data_outside_the_page(tmp_path):
    db = warehouse(
        tmp_path / "w.duckdb", [run_of([record(instance_type=NASTY), record(sku="2")], day(0))]
    )
    made = write_site(db, tmp_path / "out")
    assert "alert(1)" not in made.index.read_text()  # the offers are in offers.js, as JSON
    data = json.loads((tmp_path / "out" / "offers.json").read_text())
    assert NASTY in [row["instance_type"] for row in offer_rows(data)]
    rows = list(csv.DictReader((tmp_path / "out" / "offers.csv").open()))
    assert {r["instance_type"] for r in rows} == {NASTY, "p5.48xlarge"}


def test_the_page_is_named_by_a_url_a_browser_opens(tmp_path):
    """A folder with a '#', a '%' or a space is quoted in the URL printed (before, the URL
    stopped at the '#', and '%41' was read as 'A')."""
    from urllib.parse import unquote, urlsplit

    db = report_warehouse.build(tmp_path / "w.duckdb")
    out = tmp_path / "a#b c%41"
    result = chipcost("site", str(out), "--db", str(db), env={"COLUMNS": "400"})
    assert result.returncode == 0, result.stderr
    url = result.stdout.split("open it in a browser: ")[1].split()[0]
    assert urlsplit(url).fragment == "" and unquote(urlsplit(url).path) == str(
        (out / "index.html").resolve()
    )


def test_offers_json_is_compact(tmp_path):
    """Text once per distinct value, numbers as stored, as offers.csv and the command line
    keep them (0.30000000000000004 GB of RAM too): the page rounds what it shows once, as the
    command line does."""
    offers = [
        record(price_per_hour=0.1 * 3, ram_gb=0.1 * 3, sku=str(i), region=f"r{i % 2}")
        for i in range(4)
    ]
    db = warehouse(tmp_path / "w.duckdb", [run_of(offers, day(0))])
    write_site(db, tmp_path / "out")
    data = json.loads((tmp_path / "out" / "offers.json").read_text())
    region = data["offers"]["region"]
    assert region["dictionary"] == ["r0", "r1"] and sorted(region["codes"]) == [0, 0, 1, 1]
    assert data["offers"]["ram_gb"] == [0.1 * 3] * 4
    stored = connect(db, read_only=True)
    try:
        (price,) = {
            p for (p,) in stored.execute("SELECT price_per_hour FROM per_chip_prices").fetchall()
        }
    finally:
        stored.close()
    assert data["offers"]["price_per_hour"] == [price] * 4
    assert data["offers"]["interruption"] == {"dictionary": [], "codes": [None] * 4}
    rows = offer_rows(data)
    assert sorted(r["region"] for r in rows) == ["r0", "r0", "r1", "r1"]
    assert [r["ram_gb"] for r in rows] == [0.1 * 3] * 4


def test_formula_like_text_is_defused_in_the_csv(tmp_path):
    db = warehouse(tmp_path / "w.duckdb", [run_of([record(instance_type="=HYPERLINK(1)")], day(0))])
    write_site(db, tmp_path / "out")
    (row,) = csv.DictReader((tmp_path / "out" / "offers.csv").open())
    assert row["instance_type"] == "'=HYPERLINK(1)"


def test_a_file_in_the_way_is_explained(tmp_path):
    db = report_warehouse.build(tmp_path / "w.duckdb")
    (tmp_path / "taken").write_text("x")
    result = chipcost("site", str(tmp_path / "taken"), "--db", str(db))
    assert result.returncode == 1 and "is a file: give a directory" in result.stderr
    assert "Traceback" not in result.stderr


def test_without_a_warehouse_says_what_to_do(tmp_path):
    result = chipcost("site", str(tmp_path / "out"), "--db", str(tmp_path / "none.duckdb"))
    assert result.returncode == 1 and "run `chipcost collect` first" in result.stderr
    assert not Path(tmp_path / "out").exists()


def test_weeks_beyond_ten_years_are_refused_before_reading(tmp_path):
    db = report_warehouse.build(tmp_path / "w.duckdb")
    # 100 million weeks before the newest run is before year 1: it was a traceback.
    result = chipcost(
        "site", "--out", str(tmp_path / "out"), "--weeks", "100000000", "--db", str(db)
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "'--weeks': 100000000 is not in the range 1<=x<=521" in result.stderr
    assert not (tmp_path / "out").exists()
    with pytest.raises(ReportError, match="weeks 522: give 1 to 521 weeks of price history"):
        write_site(db, tmp_path / "out", weeks=522)
    assert write_site(db, tmp_path / "out", weeks=521).offers == 6


def test_the_pricing_is_said_in_the_clis_words(tmp_path):
    """One wording of how an offer is paid (chipcost.core.vocabulary.pricing_words), in the
    explorer's data and in `chipcost cost --wide` alike."""
    from chipcost.core.vocabulary import pricing_words
    from tests.helpers import loaded_warehouse

    keys = [
        ("on_demand", "none", "none", "dynamic"),
        ("reserved", "3yr", "all_upfront", "standard"),
        ("savings_plan", "1yr", "no_upfront", "ec2_instance"),
    ]
    offers = [
        record(pricing_model=m, term=t, payment=p, plan=plan, sku=str(i), price_per_hour=8.0 + i)
        for i, (m, t, p, plan) in enumerate(keys)
    ]
    db = loaded_warehouse(tmp_path / "w.duckdb", offers)
    write_site(db, tmp_path / "out")
    data = json.loads((tmp_path / "out" / "offers.json").read_text())
    said = {r["offer_label"] for r in offer_rows(data)}
    assert said == {
        "on demand, dynamic",
        "reserved 3yr, standard, all upfront",
        "savings plan 1yr, EC2 instance, no upfront",
    }
    assert said == {pricing_words(*key) for key in keys}
    cost = chipcost(
        "cost", "--model", "llama-3-70b", "--workload", "inference", "--wide", "--db", str(db)
    )
    assert cost.returncode == 0, cost.stderr
    for label in said:
        assert label in cost.stdout, (label, cost.stdout)


def test_the_answers_name_their_pair_set_commands_as_code_and_label_each_cell(tmp_path):
    """On 2487f4c the explorer's "Is chip A cheaper" table showed `chipcost measure` with its
    backticks, named no pair ("llama-3-70b inference" on every row), and at 390 px ran each
    answer 30 lines down a column 110 px wide (now a card of labelled cells)."""
    from tests import warehouses

    db = warehouses.sample(tmp_path / "w.duckdb", last=1)
    assert chipcost("site", str(tmp_path / "out"), "--db", str(db)).returncode == 0
    page = (tmp_path / "out" / "index.html").read_text()
    versus = page[page.index('<section id="versus"') :]
    versus = versus[: versus.index("</section>")]
    assert "`" not in versus and "<code>chipcost measure</code>" in versus
    assert '<td data-label="For">Trainium2 vs H100-SXM: llama-3-70b inference</td>' in versus
    cells = re.findall(r"<td[^>]*>", versus)
    assert cells and all("data-label=" in c for c in cells)


def test_an_empty_warehouse_says_how_to_fill_the_page(tmp_path):
    """On 2487f4c the page read "0 current offers of 0 chips from 0 providers, prices as of ;"
    and nothing said to collect. (`chipcost site` writes no page of an empty warehouse:
    tests/cli/test_exits_as_greps.py; this is the page written from Python.)"""
    db = tmp_path / "w.duckdb"
    assert chipcost("migrate", "--db", str(db)).returncode == 0
    made = write_site(db, tmp_path / "out")
    assert made.offers == 0 and made.chips == 0
    page = (tmp_path / "out" / "index.html").read_text()
    assert "prices as of ;" not in page
    assert "no current prices yet: run <code>chipcost collect</code>" in page


def test_a_narrow_screen_gets_each_path_whole(tmp_path):
    """On 2487f4c a 40-column terminal printed file:///.../index. and html on two lines, and
    the report's paths broken after an underscore: none could be copied."""
    from tests import warehouses

    db = warehouses.sample(tmp_path / "w.duckdb", last=1)
    out = tmp_path / "a_long_folder_name_for_the_explorer"
    env = {**os.environ, "COLUMNS": "40"}
    done = chipcost("site", str(out), "--db", str(db), env=env)
    assert f"file://{(out / 'index.html').resolve()}" in done.stdout.splitlines()
    made = chipcost("report", "--db", str(db), "--out", str(tmp_path / "r"), "--dry-run", env=env)
    lines = made.stdout.splitlines()
    assert any(line.endswith(".html") and line.startswith(str(tmp_path)) for line in lines), lines


@pytest.mark.parametrize("model", ["", "on_demand", "spot", "reserved"])
def test_the_first_view_is_each_chips_cheapest_offer_as_prices_by_chip(sample_explorer, model):
    """The explorer opens on one row per chip: offers.json names, per pricing model ('' for
    any), the offer `chipcost prices --by chip` answers for each chip (price_glance's rule, no
    second copy in the page's script): a slice of a GPU or a government region is none."""
    import chipcost
    from chipcost.reads.price_glance import in_cheapest

    db, data = sample_explorer
    offers = offer_rows(data)
    chosen = [offers[i] for i in data["cheapest"][model]]
    glance = chipcost.prices(by="chip", pricing_model=model or None, db=db).to_dicts()
    glance = [r for r in glance if r["chip"] != "unknown"]  # the explorer holds known chips
    assert len(glance) > 10 and len(chosen) == len({r["chip"] for r in chosen})
    assert {r["chip"]: r["price_per_chip_hour"] for r in chosen} == {
        r["chip"]: r["price_per_chip_hour"] for r in glance
    }
    # The same offer, its zone named: where a region's row of its cheapest spot zone (zone '',
    # plan region_cheapest: Trainium1's us-east-1) is as cheap as that zone's own row
    # (us-east-1a), `prices --by chip` answers with the zone's row, as the explorer does.
    where = ("provider", "region", "zone", "instance_type", "pricing_model")
    picked = {r["chip"]: tuple(r[k] for k in where) for r in chosen}
    assert {r["chip"]: tuple(r[k] for k in where) for r in glance} == picked
    assert not [r for r in glance if r["plan"] == "region_cheapest"]
    if not model:
        assert any(r["chip"] == "Trainium1" and r["zone"] for r in glance)
    assert all(in_cheapest(r) for r in chosen)
    assert all(r["pricing_model"] == model for r in chosen if model)
    if not model:  # the rule matters here: the sample holds slices, none of them chosen
        assert any(not in_cheapest(r) for r in offers)


@pytest.fixture(scope="module")
def sample_explorer(tmp_path_factory):
    """The bundled sample's warehouse and the offers.json of its explorer."""
    from tests import warehouses

    root = tmp_path_factory.mktemp("sample-explorer")
    db = warehouses.sample(root / "w.duckdb")
    write_site(db, root / "site")
    return str(db), json.loads((root / "site" / "offers.json").read_text())


@pytest.fixture(scope="module")
def sample_explorer_eur(sample_explorer):
    """The sample's explorer with --currency EUR: the rows of its offers.csv."""
    db, _ = sample_explorer
    write_site(db, Path(db).parent / "eur", currency="EUR")
    return list(csv.DictReader((Path(db).parent / "eur" / "offers.csv").open()))


def test_one_offer_is_counted_in_the_singular(tmp_path):
    """The command and the page said "1 offers of 1 chips" of a warehouse of one offer."""
    db = warehouse(tmp_path / "w.duckdb", [run_of([record()], day(0))])
    done = chipcost("site", str(tmp_path / "out"), "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert "(1 offer of 1 chip)" in done.stdout
    page = (tmp_path / "out" / "index.html").read_text()
    assert "1 current offer of 1 chip from 1 provider, prices as of" in page


def test_the_files_keep_a_spot_prices_doubt_and_a_derived_figures_range(sample_explorer):
    """offers.json and offers.csv carry why a spot price is doubtful, as `prices` marks it
    (`spot (!)`), and the throughput table a derived figure's range, as cost and compare give
    it (Trainium2's Llama 3 70B inference figure, 382-1,292 tok/s on the sample)."""
    import polars as pl

    import chipcost

    db, data = sample_explorer
    assert "spot_doubt" in data["columns"]
    doubted = {
        (o["provider"], o["region"], o["instance_type"]): o["spot_doubt"]
        for o in offer_rows(data)
        if o["spot_doubt"]
    }
    listed = chipcost.prices(pricing_model="spot", db=db).filter(
        pl.col("spot_doubt").is_not_null() & (pl.col("chip") != "unknown")
    )
    assert doubted and doubted == {
        (r["provider"], r["region"], r["instance_type"]): r["spot_doubt"]
        for r in listed.iter_rows(named=True)
    }
    figures = offer_rows({"offers": data["throughput"]})
    (trn2,) = [
        f for f in figures
        if (f["chip"], f["model"], f["workload"]) == ("Trainium2", "llama-3-70b", "inference")
    ]  # fmt: skip
    cost = chipcost.cost(model="llama-3-70b", workload="inference", chip="Trainium2", db=db)
    assert (trn2["range_low"], trn2["range_high"]) == pytest.approx(
        (cost["throughput_range_low"][0], cost["throughput_range_high"][0]), rel=1e-5
    )
    # a measured figure has none
    assert all(f["range_low"] is None for f in figures if f["kind"] != "derived")


def test_the_files_hold_each_price_as_stored(sample_explorer):
    """offers.json held prices cut to six digits (0.6902499242 as 0.69025), which the page
    rounded again to 0.6903 where `chipcost prices` says 0.6902: each price is the stored
    value, the page rounding it once as the command line does (the page's cells:
    test_site_browser.py test_every_price_shows_as_the_command_line_rounds_it)."""
    from collections import Counter

    import polars as pl

    import chipcost

    db, data = sample_explorer
    prices = ("price_per_chip_hour", "price_per_hour", "upfront")
    known = pl.col("chip") != "unknown"  # the explorer holds the offers of known chips
    listed = chipcost.prices(db=db).filter(known).select(prices).rows()
    held = [tuple(o[c] for c in prices) for o in offer_rows(data)]
    assert len(held) > 2000 and Counter(held) == Counter(listed)


def test_offers_csv_says_the_currency_of_its_prices_and_the_one_each_is_stated_in(
    sample_explorer, sample_explorer_eur
):
    """offers.csv named no currency: OVHcloud's a10-45 was 0.819204, a conversion to US
    dollars of its 0.76 EUR, with nothing to say so. Its `currency` column names the prices'
    currency, and `stated_currency` the provider's; with --currency EUR the list price stays
    beside them in US dollars (the prices as stated after them: the next test)."""
    db, _ = sample_explorer
    rows = list(csv.DictReader((Path(db).parent / "site" / "offers.csv").open()))
    assert list(rows[0])[-5:-3] == ["stated_currency", "currency"]
    assert {r["currency"] for r in rows} == {"USD"}
    (a10,) = [r for r in rows if (r["provider"], r["instance_type"]) == ("ovhcloud", "a10-45")]
    assert (a10["price_per_chip_hour"], a10["stated_currency"]) == ("0.819204", "EUR")
    assert {r["stated_currency"] for r in rows if r["provider"] == "aws"} == {"USD"}
    rows = sample_explorer_eur
    assert list(rows[0])[-6:-3] == ["stated_currency", "list_price_per_chip_hour_usd", "currency"]
    (a10,) = [r for r in rows if (r["provider"], r["instance_type"]) == ("ovhcloud", "a10-45")]
    assert (a10["price_per_chip_hour"], a10["stated_currency"], a10["currency"]) == (
        "0.76", "EUR", "EUR",
    )  # fmt: skip
    assert a10["list_price_per_chip_hour_usd"] == "0.819204"


def test_the_count_of_offers_says_what_it_counts(sample_explorer):
    """`prices`' glance said all 2,731 offers (its region rows counted), `export` 2,713 in
    force now, the explorer 2,707, none saying why. The explorer counts as docs/warehouse.md
    says a count should (no region row of a spot zone), and says it; the offers of GPUs no
    known chip is named for, which it does not show, it names beside its count."""
    db, data = sample_explorer
    con = connect(db, read_only=True)
    try:
        ((every, unknown, region),) = con.execute(
            "SELECT count(*) FILTER (WHERE plan <> 'region_cheapest'), "
            "count(*) FILTER (WHERE plan <> 'region_cheapest' AND chip = 'unknown'), "
            "count(*) FILTER (WHERE plan = 'region_cheapest') FROM per_chip_prices"
        ).fetchall()
    finally:
        con.close()
    assert unknown and region  # the sample holds both
    assert data["count"] == every - unknown == len(offer_rows(data))
    assert (data["unknown_offers"], data["region_rows"]) == (unknown, region)
    page = (Path(db).parent / "site" / "index.html").read_text()
    assert (
        f"{every - unknown:,} current offers of " in page
        and " (each spot zone once, not again as its region's cheapest; not shown: "
        f"{unknown} offers whose GPU names no chip chipcost knows, which <code>chipcost sql"
        in page
    )


def test_the_files_carry_each_price_as_its_provider_states_it(sample_explorer, sample_explorer_eur):
    """offers.csv and offers.json said OVHcloud's a10-45 was stated in EUR, but held only
    0.819204 USD, its conversion: not the provider's 0.76 to check it against. Each offer
    carries its price as stated, per chip-hour and per instance-hour, after the currency (the
    columns before it keep their places); a price stated in US dollars is the price itself."""
    db, data = sample_explorer
    rows = list(csv.DictReader((Path(db).parent / "site" / "offers.csv").open()))
    stated = ["stated_price_per_chip_hour", "stated_price_per_hour"]
    assert list(rows[0])[-5:] == ["stated_currency", "currency", *stated, "gpu_alone"]
    assert data["columns"] == list(rows[0])
    eur = {
        (r["provider"], r["instance_type"]): (r["price_per_chip_hour"], *(r[s] for s in stated))
        for r in rows
        if r["stated_currency"] == "EUR"
    }
    assert {p for p, _ in eur} == {"ovhcloud", "scaleway", "seeweb"}
    assert eur[("ovhcloud", "a10-45")] == ("0.819204", "0.76", "0.76")
    assert eur[("scaleway", "B300-SXM-8-288G")] == ("8.08425", "7.5", "60.0")  # 8 chips
    usd = [r for r in rows if r["stated_currency"] == "USD"]
    assert usd and all(
        (r["price_per_chip_hour"], r["price_per_hour"]) == tuple(r[s] for s in stated) for r in usd
    )
    # offers.json holds the same figures, as stored (Scaleway's L40S-1-48G: 1.469916 EUR)
    held = offer_rows(data)
    assert [[o[s] for s in stated] for o in held] == [[float(r[s]) for s in stated] for r in rows]
    # In euros, a price stated in euros is its own figure again; the stated figures stay put.
    rows = sample_explorer_eur
    assert list(rows[0])[-6:] == [
        "stated_currency", "list_price_per_chip_hour_usd", "currency", *stated, "gpu_alone",
    ]  # fmt: skip
    (a10,) = [r for r in rows if (r["provider"], r["instance_type"]) == ("ovhcloud", "a10-45")]
    assert [a10[c] for c in ("price_per_chip_hour", "currency", *stated)] == [
        "0.76", "EUR", "0.76", "0.76",
    ]  # fmt: skip
    aws = [r for r in rows if r["provider"] == "aws"]
    assert aws and all(
        r["stated_price_per_chip_hour"] == r["list_price_per_chip_hour_usd"] for r in aws
    )


def test_the_files_keep_every_figure_the_command_line_keeps(sample_explorer):
    """offers.json cut every figure but the prices to six digits, so it disagreed with
    offers.csv beside it and with `chipcost prices` and `throughput list` (--format csv): the
    Azure A10 slice's chip count 0.333333 (0.3333333333333333: 0.91 an hour is 2.73 a
    chip-hour, 0.909999 by the file), Vultr's MI300X host 2267.5 GB of RAM (2267.50390625),
    A10's derived bert-large figure 73529.4 tokens/s (73529.41176470589). Each figure is as
    stored; the page rounds what it shows."""
    db, data = sample_explorer
    rows = list(csv.DictReader((Path(db).parent / "site" / "offers.csv").open()))
    offers = offer_rows(data)
    flags = ("sample", "gpu_alone")  # true or false, not figures
    numbers = [c for c in data["columns"] if c not in flags and isinstance(data["offers"][c], list)]
    assert {"chip_count", "ram_gb", "price_per_chip_hour"} <= set(numbers)
    for column in numbers:
        in_csv = [None if r[column] == "" else float(r[column]) for r in rows]
        assert [o[column] for o in offers] == in_csv, column
    held = {(o["provider"], o["instance_type"]): o for o in offers}
    assert held[("azure", "Standard_NC8ads_A10_v4")]["chip_count"] == 0.3333333333333333
    assert held[("vultr", "vbm-256c-2048gb-8-mi300x-gpu")]["ram_gb"] == 2267.50390625
    con = connect(db, read_only=True)
    try:
        chosen = chosen_throughput(con)
    finally:
        con.close()
    throughput = offer_rows({"offers": data["throughput"]})
    for column in ("tokens_per_second_per_chip", "range_low", "range_high", "memory_needed_gb"):
        assert [t[column] for t in throughput] == chosen[column].to_list(), column
    (bert,) = [
        t for t in throughput
        if (t["chip"], t["model"], t["workload"]) == ("A10", "bert-large", "inference")
    ]  # fmt: skip
    assert bert["tokens_per_second_per_chip"] == 73529.41176470589


def test_the_files_and_page_say_a_price_is_the_gpus_alone(sample_explorer):
    """On 5ed854ca offers.json and offers.csv had spot_doubt but no gpu_alone, and the page
    said nothing of it: daytona's B200 at the GPU's price read as a whole instance's. The
    column is the last, so every column before it keeps its place; it marks what `prices`
    marks, every offer of cudo, daytona, modal and tensordock and gcp's N1-attached GPUs."""
    db, data = sample_explorer
    site = Path(db).parent / "site"
    assert data["columns"][-1] == "gpu_alone" and COLUMNS[-1] == "gpu_alone"
    header = next(csv.reader((site / "offers.csv").open()))
    assert header[-1] == "gpu_alone" and header.index("spot_doubt") == 20
    offers = offer_rows(data)
    marked = {(o["provider"], o["instance_type"]) for o in offers if o["gpu_alone"]}
    assert {p for p, _ in marked} == {"cudo", "daytona", "modal", "tensordock", "gcp"}
    assert {t for p, t in marked if p == "gcp"} == {"nvidia-tesla-t4", "nvidia-tesla-v100"}
    assert ("daytona", "1x B200") in marked
    assert all(
        o["gpu_alone"] is False for o in offers if (o["provider"], o["instance_type"]) not in marked
    )
    page = (site / "index.html").read_text()
    assert "<dt>(GPU alone)</dt>" in page and "daytona, modal, tensordock" in page
