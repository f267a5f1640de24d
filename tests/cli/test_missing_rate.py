"""A euro price with no ECB rate within 7 days is left out of every read in US dollars (`prices`
lists it apart, in its own currency), and
every read says so: how many, whose, and the command that fetches the rates. On a real DuckDB
warehouse holding Seeweb's and OVHcloud's euro prices and no rate, then with a rate loaded
through the ECB source's own parser and the loader."""

from __future__ import annotations

import csv
import json
import os
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from chipcost.core.commands import RATES
from chipcost.core.payload import Payload
from chipcost.core.runs import OK, RunResult, SourceResult
from chipcost.core.settings import load_settings
from chipcost.extract.ecb_rates import RATES_90D_URL
from chipcost.extract.ecb_rates import SOURCE as ECB
from chipcost.pipeline.seed import open_warehouse
from chipcost.warehouse.fx import unrated
from chipcost.warehouse.load import load_run
from chipcost.warehouse.reader import read_connection
from tests.cli_runner import chipcost as run_cli
from tests.helpers import day, record, run_by_provider
from tests.warehouses import of_runs

AWS = record()  # p5.48xlarge, H100-SXM, USD
SEEWEB = record(
    provider="seeweb",
    source="seeweb",
    region="it-fr2",
    instance_type="L40S-1",
    chip="L40S",
    chip_count=1.0,
    price_per_hour=1.5,
    currency="EUR",
    sku="L40S-1",
)
OVH = [
    record(
        provider="ovhcloud",
        source="ovhcloud",
        region="GRA11",
        instance_type=name,
        chip=chip,
        chip_count=1.0,
        price_per_hour=price,
        currency="EUR",
        sku=name,
    )
    for name, chip, price in (("h100-380", "H100-PCIe", 2.9), ("l40s-90", "L40S", 1.4))
]
# fmt: skip
BOTH = "2 prices in EUR of ovhcloud, seeweb left out"
WHY = "no ECB rate within 7 days of their day (the latest 2026-11-01) converts them"
LOADED = datetime(2026, 11, 1, 17, 0, tzinfo=UTC)


@pytest.fixture
def no_rate(tmp_path) -> Path:
    """The three providers' prices of 2026-11-01 and no exchange rate at all."""
    run = run_by_provider({"aws": [AWS], "seeweb": [SEEWEB], "ovhcloud": OVH}, day(0))
    return of_runs(tmp_path / "no-rate.duckdb", [run])


def cli(db: Path, *args: str):
    return run_cli(*args, "--db", str(db), env={**os.environ, "CHIPCOST_DISCOUNTS": ""})


def test_prices_of_a_chip_only_euros_list_says_why_there_is_none(no_rate):
    ran = cli(no_rate, "prices", "--chip", "L40S")
    assert ran.returncode == 1
    assert "no source lists it today" not in ran.stderr
    assert f"no current price in US dollars matches: {BOTH}: {WHY}" in ran.stderr
    assert f"`{RATES}` fetches the rates" in ran.stderr


def test_prices_of_a_provider_whose_prices_are_all_euros_is_not_unknown(no_rate):
    ran = cli(no_rate, "prices", "--provider", "ovhcloud")
    assert ran.returncode == 1 and "unknown provider" not in ran.stderr
    assert "2 prices in EUR of ovhcloud left out" in ran.stderr
    # A provider that is unknown still is.
    assert "unknown provider" in cli(no_rate, "prices", "--provider", "ovhclod").stderr


@pytest.mark.parametrize("format", ["table", "json", "csv"])
def test_prices_shown_say_what_of_the_asked_chips_was_left_out(no_rate, format):
    ran = cli(no_rate, "prices", "--chip", "H100", "--format", format)
    assert ran.returncode == 0, ran.stderr
    said = ran.stdout + ran.stderr if format == "table" else ran.stderr
    # H100 is the family: OVHcloud's H100 PCIe in euros is left out, its L40S is not asked.
    assert "1 price in EUR of ovhcloud left out" in said
    assert "(2026-11-01) converts it to US dollars" in said
    if format == "json":
        assert {r["provider"] for r in json.loads(ran.stdout)} == {"aws"}


def test_cost_says_a_chip_priced_only_in_euros_has_no_dollar_price(no_rate):
    args = ("cost", "--model", "llama-3-70b", "--workload", "inference")
    ran = cli(no_rate, *args, "--chip", "L40S")
    assert ran.returncode == 1
    assert f"no current price for L40S in US dollars: {BOTH}" in ran.stderr
    ranked = cli(no_rate, *args)
    assert ranked.returncode == 0, ranked.stderr
    assert "3 prices in EUR of ovhcloud, seeweb left out" in ranked.stdout + ranked.stderr


def test_index_says_which_of_its_chips_prices_were_left_out(no_rate):
    ran = cli(no_rate, "index", "--chip", "H100")
    assert ran.returncode == 0, ran.stderr
    assert "1 price in EUR of ovhcloud left out" in ran.stdout + ran.stderr
    every = cli(no_rate, "index", "--format", "json")
    assert "3 prices in EUR of ovhcloud, seeweb left out" in every.stderr


def test_history_says_which_of_its_chips_prices_were_left_out(no_rate):
    ran = cli(no_rate, "history", "--chip", "L40S,H100")
    assert ran.returncode == 0, ran.stderr
    assert "3 prices in EUR of ovhcloud, seeweb left out" in ran.stdout + ran.stderr


def test_the_report_says_what_it_could_not_include(no_rate, tmp_path):
    ran = cli(no_rate, "report", "--since", "2026-10-30", "--until", "2026-11-02",
              "--out", str(tmp_path / "report"))  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    [page] = (tmp_path / "report").glob("*.html")
    assert "Not in this report: 3 prices in EUR of ovhcloud, seeweb left out" in page.read_text()


def test_export_writes_a_euro_price_in_euros_and_needs_no_rate(no_rate, tmp_path):
    """The export converts nothing (a span of days has no one rate): a euro price is written
    in euros, PricingCurrency EUR, as FOCUS defines it (the currency a service was priced
    in). On 2487f4c these three prices were left out for want of a rate, and with one they
    were written in dollars at the rate of their last sighting, PricingCurrency USD."""
    ran = cli(no_rate, "export", "--out", str(tmp_path / "focus"))
    assert ran.returncode == 0, ran.stderr
    assert "not exported" not in ran.stdout
    with (tmp_path / "focus" / "sku_prices.csv").open() as rows:
        found = list(csv.DictReader(rows))
    assert {r["ServiceProviderName"]: r["PricingCurrency"] for r in found} == {
        "aws": "USD", "ovhcloud": "EUR", "seeweb": "EUR",
    }  # fmt: skip


def load_usd_rate(path: Path, day_text: str, per_eur: float) -> None:
    """An ECB file with one day's dollar rate, parsed by the ecb-rates source and loaded."""
    load_usd_rates(path, {day_text: per_eur})


def load_usd_rates(path: Path, rates: dict[str, float]) -> None:
    """An ECB file with these days' dollar rates, as the ECB writes one (each day a Cube),
    parsed by the ecb-rates source and loaded."""
    days = "".join(f'<Cube time="{day_text}"><Cube currency="USD" rate="{per_eur}"/></Cube>'
                   for day_text, per_eur in rates.items())  # fmt: skip
    xml = f"<gesmes:Envelope><Cube>{days}</Cube></gesmes:Envelope>".encode()
    stamp = "2026-11-01T170000Z"
    parsed = ECB.parse([Payload(xml, RATES_90D_URL, LOADED, "r.xml", f"{stamp}/ecb-rates/r.xml")])
    result = SourceResult(source="ecb-rates", provider="ecb", status=OK, observed_at=LOADED,
                          payloads=1, facts=parsed.facts, payload_digest=stamp)  # fmt: skip
    con = open_warehouse(path)
    try:
        load_run(con, RunResult(stamp, LOADED, LOADED, "live", stamp, False, [result]))
    finally:
        con.close()


def test_with_a_rate_in_force_the_euro_prices_are_shown_and_nothing_is_said(no_rate):
    load_usd_rate(no_rate, "2026-10-30", 1.1)  # two days before the prices' day
    ran = cli(no_rate, "prices", "--chip", "L40S", "--format", "json")
    assert ran.returncode == 0, ran.stderr
    prices = {r["provider"]: r["price_per_hour"] for r in json.loads(ran.stdout)}
    assert prices == pytest.approx({"seeweb": 1.65, "ovhcloud": 1.54})
    assert "left out" not in ran.stderr


def test_a_rate_older_than_seven_days_converts_nothing(no_rate):
    load_usd_rate(no_rate, "2026-10-24", 1.1)  # eight days before
    con = read_connection(load_settings(db=str(no_rate)))
    try:
        left = unrated(con)
        assert (left.count, left.providers, left.chips) == (
            3, ("ovhcloud", "seeweb"), ("H100-PCIe", "L40S"),
        )  # fmt: skip
        assert unrated(con, chips=["L40S"], providers=["seeweb"]).count == 1
        assert unrated(con, current=False).count == 3
    finally:
        con.close()


@pytest.mark.parametrize(
    "rate_day", [None, "2026-10-24", "2026-11-20"]
)  # none, 8 days early, later
@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("history", "--chip", "L40S"), "no prices of L40S in US dollars match these filters"),
        (("history", "--chip", "L40S", "--format", "json"), "no prices of L40S in US dollars"),
        (("history", "--chip", "L40S", "--provider", "seeweb"), "1 price in EUR of seeweb"),
        (("index", "--chip", "L40S"), "no index for L40S (on_demand) in US dollars"),
    ],
)
def test_a_chip_priced_only_in_euros_without_a_rate_is_said_by_history_and_index(
    no_rate, rate_day, args, said
):
    """On 697f5e5 these said "no prices of L40S match these filters" and "no index for L40S
    ... run `chipcost collect`", with no word of the rate (a rate after the prices' day is
    none for them either)."""
    if rate_day:
        load_usd_rate(no_rate, rate_day, 1.1)
    ran = cli(no_rate, *args)
    assert ran.returncode == 1 and "Traceback" not in ran.stderr, ran.stderr
    text = " ".join(ran.stderr.split())
    assert said in text and "left out: no ECB rate within 7 days" in text
    assert f"`{RATES}` fetches the rates" in text


def test_history_says_a_past_euro_price_left_out_though_todays_has_a_rate(tmp_path):
    """A Seeweb price of a day no rate converts, then a changed one a rate converts: the
    history shows the second and says the first was left out (it spoke of today's alone)."""
    later = day(10)
    dearer = replace(SEEWEB, price_per_hour=1.8)
    runs = [
        run_by_provider({"aws": [AWS], "seeweb": [SEEWEB]}, day(0)),
        run_by_provider({"aws": [AWS], "seeweb": [dearer]}, later),
    ]
    db = of_runs(tmp_path / "w.duckdb", runs)
    load_usd_rate(db, later.date().isoformat(), 1.1)
    ran = cli(db, "history", "--chip", "L40S")
    assert ran.returncode == 0, ran.stderr
    said = " ".join((ran.stdout + ran.stderr).split())
    assert "1 price in EUR of seeweb left out: no ECB rate within 7 days of its day" in said


def test_prices_keep_the_unconverted_prices_in_their_own_currency(no_rate):
    ran = cli(no_rate, "prices", "--by", "offer")
    assert ran.returncode == 0, ran.stderr
    said = " ".join(ran.stdout.split())
    assert "not in this table, no ECB rate within 7 days of their day converting them to US " in (
        said
    )
    for kept in (
        "H100-PCIe ovhcloud GRA11 h100-380 on demand: €2.9000 a chip-hour on 2026-11-01",
        "L40S ovhcloud GRA11 l40s-90 on demand: €1.4000 a chip-hour on 2026-11-01",
        "L40S seeweb it-fr2 L40S-1 on demand: €1.5000 a chip-hour on 2026-11-01",
    ):
        assert kept in said
    # filtered as the table is: only Seeweb's when only Seeweb and AWS are asked
    narrowed = " ".join(cli(no_rate, "prices", "--provider", "seeweb,aws").stdout.split())
    assert "(1 price, in their own currency;" in narrowed and "ovhcloud GRA11" not in narrowed
    # with nothing in US dollars to show, the message lists them
    only = cli(no_rate, "prices", "--chip", "L40S")
    assert only.returncode == 1
    assert "In their own currency: L40S ovhcloud GRA11 l40s-90 on demand: €1.4000" in only.stderr


# Each read names the prices it leaves out for want of a rate, in their own currency, through
# the one list prices uses (chipcost.reads.price_notes.unconverted_words).
OWN = "In their own currency: "
H100_PCIE = "H100-PCIe ovhcloud GRA11 h100-380 on demand: €2.9000 a chip-hour on 2026-11-01"
L40S_OVH = "L40S ovhcloud GRA11 l40s-90 on demand: €1.4000 a chip-hour on 2026-11-01"
L40S_SEEWEB = "L40S seeweb it-fr2 L40S-1 on demand: €1.5000 a chip-hour on 2026-11-01"


def said_by(ran) -> str:
    return " ".join((ran.stdout + ran.stderr).split())


def test_plain_prices_name_the_unconverted_under_the_glance(no_rate):
    said = said_by(cli(no_rate, "prices"))
    assert "not in this table, no ECB rate within 7 days" in said
    assert all(kept in said for kept in (H100_PCIE, L40S_OVH, L40S_SEEWEB))


@pytest.mark.parametrize("args", [("--chip", "H100"), ("--by", "chip", "--chip", "H100")])
@pytest.mark.parametrize("format", ["json", "csv"])
def test_prices_as_rows_name_the_unconverted_on_stderr(no_rate, args, format):
    """A list of rows in US dollars has no place for a price in euros: it is named on stderr."""
    ran = cli(no_rate, "prices", *args, "--format", format)
    assert ran.returncode == 0, ran.stderr
    assert f"{OWN}{H100_PCIE}" in " ".join(ran.stderr.split())
    assert "ovhcloud" not in ran.stdout and "L40S" not in ran.stderr


def test_history_names_the_unconverted_prices_in_their_own_currency(no_rate):
    ran = cli(no_rate, "history", "--chip", "L40S,H100")
    assert ran.returncode == 0, ran.stderr
    said = said_by(ran)
    assert OWN in said and all(kept in said for kept in (H100_PCIE, L40S_OVH, L40S_SEEWEB))
    # filtered as the rows are: a provider asked names its prices alone
    seeweb = said_by(cli(no_rate, "history", "--chip", "L40S,H100", "--provider", "seeweb,aws"))
    assert L40S_SEEWEB in seeweb and "ovhcloud GRA11" not in seeweb
    # JSON is the rows in US dollars; the prices kept apart are said on stderr
    as_json = cli(no_rate, "history", "--chip", "L40S,H100", "--format", "json")
    assert as_json.returncode == 0, as_json.stderr
    assert {r["provider"] for r in json.loads(as_json.stdout)} == {"aws"}
    assert L40S_SEEWEB in " ".join(as_json.stderr.split())
    # where nothing in dollars matches, the message lists them
    only = cli(no_rate, "history", "--chip", "L40S")
    assert only.returncode == 1
    said = " ".join(only.stderr.split())
    assert f"converts them to US dollars; `{RATES}` fetches the rates. {OWN}{L40S_OVH}" in said
    assert L40S_SEEWEB in said and "Traceback" not in only.stderr


def test_history_gives_a_past_unconverted_price_its_days(tmp_path):
    """Seeweb's price held from day 0 to day 5 with no rate, then changed on day 10 with one:
    the first is named with the days it was in force and the rows lack (to day 9: the
    history carries a price to the day before it changed), the second is in the rows."""
    dearer = replace(SEEWEB, price_per_hour=1.8)
    runs = [
        run_by_provider({"aws": [AWS], "seeweb": [SEEWEB]}, day(0)),
        run_by_provider({"aws": [AWS], "seeweb": [SEEWEB]}, day(5)),
        run_by_provider({"aws": [AWS], "seeweb": [dearer]}, day(10)),
    ]
    db = of_runs(tmp_path / "w.duckdb", runs)
    load_usd_rate(db, day(10).date().isoformat(), 1.1)
    said = said_by(cli(db, "history", "--chip", "L40S"))
    first, last = day(0).date(), day(9).date()
    assert f"L40S seeweb it-fr2 L40S-1 on demand: €1.5000 a chip-hour from {first} to {last}" in (
        said
    )
    assert "€1.8000" not in said  # converted: in the rows, not apart


def test_index_names_the_constituents_it_could_not_convert(no_rate):
    ran = cli(no_rate, "index", "--chip", "H100")
    assert ran.returncode == 0, ran.stderr
    said = said_by(ran)
    assert f"{OWN}{H100_PCIE}" in said and "L40S" not in said.split(OWN)[1]
    only = cli(no_rate, "index", "--chip", "L40S")
    assert only.returncode == 1
    assert L40S_OVH in " ".join(only.stderr.split()) and L40S_SEEWEB in only.stderr


def test_cost_names_the_offers_left_out_of_its_ranking(no_rate):
    args = ("cost", "--model", "llama-3-70b", "--workload", "inference")
    ranked = cli(no_rate, *args)
    assert ranked.returncode == 0, ranked.stderr
    said = said_by(ranked)
    assert all(kept in said for kept in (H100_PCIE, L40S_OVH, L40S_SEEWEB))
    # filtered as the ranking is
    narrowed = said_by(cli(no_rate, *args, "--provider", "aws,seeweb"))
    assert L40S_SEEWEB in narrowed and "ovhcloud GRA11" not in narrowed
    only = cli(no_rate, *args, "--chip", "L40S")
    assert only.returncode == 1
    assert f"{OWN}{L40S_OVH}; {L40S_SEEWEB}" in " ".join(only.stderr.split())
    # a provider whose every price is in euros is known, its offers named, not "collected none"
    euros = cli(no_rate, *args, "--provider", "seeweb")
    assert euros.returncode == 1 and "collected none" not in euros.stderr
    said = " ".join(euros.stderr.split())
    assert "(1 in their own currency, no ECB rate within 7 days of their day" in said
    assert L40S_SEEWEB in said and "Traceback" not in euros.stderr


def test_compare_names_the_offers_of_a_chip_it_could_not_convert(no_rate):
    ran = cli(no_rate, "compare", "H100-SXM", "L40S", "--model", "llama-3-70b",
              "--workload", "inference")  # fmt: skip
    assert ran.returncode == 1 and "Traceback" not in ran.stderr
    said = " ".join(ran.stderr.split())
    assert "no current price for L40S in US dollars" in said
    assert f"{OWN}{L40S_OVH}; {L40S_SEEWEB}" in said and "H100-PCIe" not in said


def test_the_report_names_what_it_could_not_include(no_rate, tmp_path):
    ran = cli(no_rate, "report", "--since", "2026-10-30", "--until", "2026-11-02",
              "--out", str(tmp_path / "report"))  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    [page] = (tmp_path / "report").glob("*.html")
    text = " ".join(page.read_text().split())
    assert OWN in text
    assert all(kept in text for kept in (H100_PCIE, L40S_OVH, L40S_SEEWEB))


def test_the_explorer_lists_the_unconverted_offers_apart(no_rate, tmp_path):
    ran = cli(no_rate, "site", "--out", str(tmp_path / "site"))
    assert ran.returncode == 0, ran.stderr
    assert "3 offers more, in their own currency, listed apart under the table" in " ".join(
        ran.stdout.split()
    )
    data = json.loads((tmp_path / "site" / "offers.json").read_text())
    # not in the table (its prices are US dollars, sorted and converted as such) ...
    assert data["offers"]["provider"]["dictionary"] == ["aws"]
    # ... but listed apart, each in its own currency
    kept = {(r["provider"], r["chip"]): (r["price_per_chip_hour"], r["currency"], r["day"])
            for r in data["unconverted"]}  # fmt: skip
    assert kept == {
        ("ovhcloud", "H100-PCIe"): (2.9, "EUR", "2026-11-01"),
        ("ovhcloud", "L40S"): (1.4, "EUR", "2026-11-01"),
        ("seeweb", "L40S"): (1.5, "EUR", "2026-11-01"),
    }
    page = (tmp_path / "site" / "index.html").read_text()
    assert page.count("<li><b>no rate</b>: ") == 3 and f"{L40S_SEEWEB}</li>" in page
    # with a rate in force, they are offers like any other, and nothing is listed apart
    load_usd_rate(no_rate, "2026-10-30", 1.1)
    assert cli(no_rate, "site", "--out", str(tmp_path / "rated")).returncode == 0
    rated = json.loads((tmp_path / "rated" / "offers.json").read_text())
    assert rated["unconverted"] == [] and rated["count"] == 4
    assert 'id="unconverted"' not in (tmp_path / "rated" / "index.html").read_text()


# Rates that stop in the middle of the history: Seeweb's L40S in euros and AWS's in dollars,
# seen on days 0, 4, 8 and 12 (2026-11-01 to 11-13) at one price, one span each; the last
# sighting has a rate, so no count of prices by their last sighting says anything.
AWS_L40S = record(instance_type="g6e.xlarge", chip="L40S", chip_count=1.0, price_per_hour=1.9,
                  sku="g6e")  # fmt: skip
GAPS = {
    # a rate on 11-01 holds to 11-08; the next is 11-13's: 11-09 to 11-12 have none
    "middle": ({"2026-11-01": 1.1, "2026-11-13": 1.1}, [("2026-11-09", "2026-11-12")]),
    # none before 11-03, and 11-03's holds to 11-10: two runs of days, one price
    "start and middle": (
        {"2026-11-03": 1.1, "2026-11-13": 1.1},
        [("2026-11-01", "2026-11-02"), ("2026-11-11", "2026-11-12")],
    ),
}


def gapped(tmp_path: Path, rates: dict[str, float]) -> Path:
    runs = [run_by_provider({"aws": [AWS_L40S], "seeweb": [SEEWEB]}, day(n)) for n in (0, 4, 8, 12)]
    db = of_runs(tmp_path / "gapped.duckdb", runs)
    load_usd_rates(db, rates)
    return db


def gap_words(first: str, last: str) -> str:
    return f"{L40S_SEEWEB.split(' on 2026')[0]} from {first} to {last}"


def rated_days(gaps: list[tuple[str, str]]) -> set[str]:
    """The days 2026-11-01 to 11-13 outside `gaps`."""
    every = {f"2026-11-{n:02d}" for n in range(1, 14)}
    return {d for d in every if not any(first <= d <= last for first, last in gaps)}


@pytest.mark.parametrize("gap", GAPS)
@pytest.mark.parametrize("format", ["table", "csv", "json"])
def test_history_names_the_days_rates_are_missing_and_keeps_the_rest(tmp_path, gap, format):
    """On fca3d7b's parent, Seeweb's price left these days' rows and nothing was said: the
    count of prices without a rate looked at the last sighting, which had one."""
    rates, gaps = GAPS[gap]
    db = gapped(tmp_path, rates)
    ran = cli(db, "history", "--chip", "L40S", "--provider", "seeweb", "--format", format)
    assert ran.returncode == 0, ran.stderr
    said = said_by(ran) if format == "table" else " ".join(ran.stderr.split())
    assert f"{len(gaps)} price{'s' if len(gaps) > 1 else ''} in EUR of seeweb left out" in said
    assert f"`{RATES}` fetches the rates" in said
    for first, last in gaps:
        assert gap_words(first, last) in said
    if format == "json":  # the days with a rate, and those alone, are rows, in dollars
        rows = json.loads(ran.stdout)
        assert {r["day"] for r in rows} == rated_days(gaps)
        assert [r["price_per_chip_hour"] for r in rows] == pytest.approx([1.65] * len(rows))
    if format == "csv":
        assert {r["day"] for r in csv.DictReader(ran.stdout.splitlines())} == rated_days(gaps)


def test_history_of_every_provider_shows_the_dearer_price_on_the_days_without_a_rate(tmp_path):
    rates, gaps = GAPS["middle"]
    ran = cli(gapped(tmp_path, rates), "history", "--chip", "L40S", "--format", "json")
    assert ran.returncode == 0, ran.stderr
    by_day = {r["day"]: r["provider"] for r in json.loads(ran.stdout)}
    assert len(by_day) == 13
    assert {d for d, p in by_day.items() if p == "aws"} == {"2026-11-09", "2026-11-10",
                                                            "2026-11-11", "2026-11-12"}  # fmt: skip
    assert gap_words(*gaps[0]) in " ".join(ran.stderr.split())


def test_history_of_days_all_without_a_rate_says_so_in_its_message(tmp_path):
    rates, gaps = GAPS["middle"]
    db = gapped(tmp_path, rates)
    args = ("--chip", "L40S", "--provider", "seeweb")
    ran = cli(db, "history", *args, "--since", "2026-11-10", "--until", "2026-11-12")
    assert ran.returncode == 1 and "Traceback" not in ran.stderr
    said = " ".join(ran.stderr.split())
    assert "no prices of L40S in US dollars match these filters from 2026-11-10 to 2026-11-12" in (
        said
    )
    assert gap_words("2026-11-10", "2026-11-12") in said


def test_with_every_day_rated_nothing_is_said(tmp_path):
    db = gapped(tmp_path, {"2026-11-01": 1.1, "2026-11-07": 1.1, "2026-11-13": 1.1})
    for args in (("history", "--chip", "L40S"), ("index", "--chip", "L40S")):
        ran = cli(db, *args)
        assert ran.returncode == 0, ran.stderr
        assert "left out" not in said_by(ran) and "€" not in said_by(ran)


@pytest.mark.parametrize("gap", GAPS)
def test_index_names_the_constituents_days_without_a_rate(tmp_path, gap):
    rates, gaps = GAPS[gap]
    db = gapped(tmp_path, rates)
    for format in ("table", "json"):
        ran = cli(db, "index", "--chip", "L40S", "--since", "2026-11-01", "--format", format)
        assert ran.returncode == 0, ran.stderr
        said = said_by(ran) if format == "table" else " ".join(ran.stderr.split())
        assert all(gap_words(first, last) in said for first, last in gaps), said
        if format == "json":  # one constituent on the days without a rate, two on the others
            rows = {r["day"]: r["constituents"] for r in json.loads(ran.stdout)}
            assert {d for d, n in rows.items() if n == 2} == rated_days(gaps)
    # days asked after the gap: nothing to say
    after = cli(db, "index", "--chip", "L40S", "--since", "2026-11-13")
    assert after.returncode == 0 and "left out" not in said_by(after)


def test_the_python_api_warns_the_days_it_left_out(tmp_path):
    import chipcost
    from chipcost.core.errors import MissingRateWarning

    rates, gaps = GAPS["start and middle"]
    db = gapped(tmp_path, rates)
    with pytest.warns(MissingRateWarning) as warned:
        frame = chipcost.history("L40S", provider="seeweb", db=db)
    [message] = [str(w.message) for w in warned]
    assert all(gap_words(first, last) in message for first, last in gaps)
    assert f"`{RATES}` fetches the rates" in message
    assert {str(d) for d in frame["day"].to_list()} == rated_days(gaps)
    with pytest.warns(MissingRateWarning, match="from 2026-11-11 to 2026-11-12"):
        chipcost.index("L40S", since="2026-11-01", db=db)


def test_the_report_names_the_days_its_history_lacks_a_rate(tmp_path):
    rates, gaps = GAPS["middle"]
    db = gapped(tmp_path, rates)
    ran = cli(db, "report", "--since", "2026-11-07", "--until", "2026-11-13",
              "--out", str(tmp_path / "report"))  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    [page] = (tmp_path / "report").glob("*.html")
    text = " ".join(page.read_text().split())
    assert "Not in this report: 1 price in EUR of seeweb left out" in text
    assert gap_words(*gaps[0]) in text


@pytest.mark.parametrize("gap", GAPS)
def test_the_explorer_names_the_days_its_history_charts_lack_a_rate(tmp_path, gap):
    rates, gaps = GAPS[gap]
    db = gapped(tmp_path, rates)
    ran = cli(db, "site", "--out", str(tmp_path / "site"), "--weeks", "2")
    assert ran.returncode == 0, ran.stderr
    page = " ".join((tmp_path / "site" / "index.html").read_text().split())
    said = page.split('id="history-left-out">', 1)[1].split("</p>", 1)[0]
    # each run of days without a rate is named, as `chipcost history` names it
    counted = "1 price" if len(gaps) == 1 else f"{len(gaps)} prices"
    assert said.startswith(f"<b>Not in these charts</b>: {counted} in EUR of seeweb left out")
    for first, last in gaps:
        assert gap_words(first, last) in said
    data = json.loads((tmp_path / "site" / "offers.json").read_text())
    assert data["history_left_out"].startswith(f"{counted} in EUR of seeweb left out")


def test_the_explorer_with_every_day_rated_says_nothing_of_its_charts(tmp_path):
    db = gapped(tmp_path, {"2026-11-01": 1.1, "2026-11-07": 1.1, "2026-11-13": 1.1})
    assert cli(db, "site", "--out", str(tmp_path / "site"), "--weeks", "2").returncode == 0
    assert 'id="history-left-out"' not in (tmp_path / "site" / "index.html").read_text()
    assert json.loads((tmp_path / "site" / "offers.json").read_text())["history_left_out"] == ""
