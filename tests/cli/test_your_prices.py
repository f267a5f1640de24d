"""Your prices as a user asks for them: a discounts file and a currency on `prices` and
`cost` (the command line) and the Python API, on the golden warehouse with ECB rates
loaded through the real parser and loader."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

import chipcost
from chipcost.core.payload import Payload
from chipcost.core.runs import OK, RunResult, SourceResult
from chipcost.extract.ecb_rates import RATES_90D_URL, SOURCE
from chipcost.pipeline.seed import open_warehouse
from chipcost.reports.explorer_data import offer_rows
from chipcost.warehouse.load import load_run
from tests import report_warehouse
from tests.cli_runner import chipcost as run_cli

LOADED = datetime(2026, 11, 7, 17, 0, tzinfo=UTC)


def rates_file(days: dict[str, dict[str, float]]) -> bytes:
    cubes = "".join(
        f'<Cube time="{day}">'
        + "".join(f'<Cube currency="{c}" rate="{r}"/>' for c, r in rates.items())
        + "</Cube>"
        for day, rates in days.items()
    )
    return f"<gesmes:Envelope><Cube>{cubes}</Cube></gesmes:Envelope>".encode()


def load_rates(path: Path, data: bytes, run_id: str) -> None:
    payload = Payload(data, RATES_90D_URL, LOADED, "rates.xml", f"{run_id}/ecb-rates/0001.xml")
    parsed = SOURCE.parse([payload])
    result = SourceResult(
        source="ecb-rates", provider="ecb", status=OK, observed_at=LOADED, payloads=1,
        facts=parsed.facts, payload_digest=run_id,
    )  # fmt: skip
    run = RunResult(run_id, LOADED, LOADED, "live", run_id, False, [result])
    con = open_warehouse(path)
    try:
        load_run(con, run)
    finally:
        con.close()


@pytest.fixture(scope="module")
def golden(tmp_path_factory) -> Path:
    path = report_warehouse.build(tmp_path_factory.mktemp("yours") / "w.duckdb")
    # The prices were last seen on Saturday 2026-11-07: Friday's rate is theirs.
    first = {
        "2026-11-05": {"USD": 1.2, "GBP": 0.8},
        "2026-11-06": {"USD": 1.0, "GBP": 0.8},  # replaced below
        "2026-10-01": {"USD": 1.1, "CHF": 0.95},  # CHF only long before: no rate in force
    }
    load_rates(path, rates_file(first), "2026-11-07T170000Z")
    # A later file restates Friday's rate: kept beside the earlier row, and used.
    load_rates(path, rates_file({"2026-11-06": {"USD": 1.25, "GBP": 0.8}}), "2026-11-08T170000Z")
    return path


@pytest.fixture
def discounts(tmp_path) -> Path:
    path = tmp_path / "discounts.toml"
    path.write_text('[[discount]]\nprovider = "aws"\npercent = 10\nlabel = "EDP 2026"\n')
    return path


def cli(*args: str, **env: str):
    return run_cli(*args, env={**os.environ, "CHIPCOST_DISCOUNTS": "", **env})


def test_a_later_rate_file_is_kept_beside_the_same_day(golden):
    rows = chipcost.prices(chip="H100-SXM", currency="USD", db=golden)  # opens; rates held
    assert rows.height
    import duckdb

    con = duckdb.connect(str(golden), read_only=True)
    try:
        friday = con.execute(
            "SELECT per_eur, payload_ref FROM fx_rates "
            "WHERE day = '2026-11-06' AND currency = 'USD' ORDER BY payload_ref"
        ).fetchall()
        assert friday == [
            (1.0, "2026-11-07T170000Z/ecb-rates/0001.xml"),
            (1.25, "2026-11-08T170000Z/ecb-rates/0001.xml"),
        ]
        # The euro's own 1 again for Friday adds nothing.
        assert con.execute("SELECT count(*) FROM fx_rates WHERE currency = 'EUR'").fetchone() == (
            3,
        )
    finally:
        con.close()


def test_discounts_show_ninety_percent_of_list_labelled(golden, discounts):
    args = ("prices", "--chip", "H100-SXM", "--provider", "aws", "--db", str(golden))
    result = cli(*args, "--format", "json", CHIPCOST_DISCOUNTS=str(discounts))
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert rows and all(r["discount"] == "10% EDP 2026" for r in rows)
    for row in rows:
        assert row["price_per_chip_hour"] == pytest.approx(
            0.9 * row["list_price_per_chip_hour_usd"]
        )
    assert "after your discounts (EDP 2026: aws 10%" in result.stderr
    table = cli(*args, CHIPCOST_DISCOUNTS=str(discounts))
    assert "current per-chip prices (USD, after your discounts)" in table.stdout
    assert "10% EDP 2026" in table.stdout and "--list-prices shows list prices" in table.stdout
    # us-east-1's API price, 74.00 / 8 = 9.25 a chip-hour: 8.3250 after 10%
    assert "8.3250" in table.stdout and "9.2500" in table.stdout
    listed = cli(*args, "--list-prices", "--format", "json", CHIPCOST_DISCOUNTS=str(discounts))
    plain = json.loads(listed.stdout)
    assert "discount" not in plain[0] and min(r["price_per_chip_hour"] for r in plain) == 5.0


def test_a_price_bound_is_on_the_prices_shown_after_discounts_and_currency(golden, discounts):
    """docs/your-prices.md: --max-price bounds the prices shown, after your discounts and in
    the currency shown; --list-prices bounds the list prices."""
    args = ("prices", "--chip", "H100-SXM", "--provider", "aws", "--format", "json",
            "--db", str(golden))  # fmt: skip

    def listed(*more: str) -> list[float]:
        done = cli(*args, *more, CHIPCOST_DISCOUNTS=str(discounts))
        assert done.returncode == 0, done.stderr
        return [row["price_per_chip_hour"] for row in json.loads(done.stdout)]

    # us-east-1's API price, 9.25 a chip-hour: 8.325 after 10%, 6.66 euros at 1.25 a euro
    assert pytest.approx(8.325) in listed("--max-price", "8.5")
    assert pytest.approx(6.66) in listed("--currency", "EUR", "--max-price", "7")
    assert pytest.approx(6.66) not in listed("--currency", "EUR", "--max-price", "6.5")
    assert max(listed("--list-prices", "--max-price", "8.5")) <= 8.5
    assert pytest.approx(9.25) in listed("--list-prices", "--min-price", "9.2")
    assert pytest.approx(8.325) not in listed("--min-price", "9")


def test_a_rule_for_a_region_its_provider_has_no_price_in_is_said_in_one_line(golden, tmp_path):
    path = tmp_path / "d.toml"
    path.write_text(
        '[[discount]]\nprovider = "aws"\nregion = "us-east-1"\npercent = 5\nlabel = "ok"\n\n'
        '[[discount]]\nprovider = "aws"\nregion = "us-east1"\npercent = 10\nlabel = "typo"\n\n'
        # a provider with no price in the warehouse is not judged: its regions are not known
        '[[discount]]\nprovider = "runpod"\nregion = "nowhere"\npercent = 10\nlabel = "x"\n'
    )
    result = cli("prices", "--chip", "H100-SXM", "--db", str(golden), CHIPCOST_DISCOUNTS=str(path))
    assert result.returncode == 0, result.stderr
    said = " ".join((result.stdout + result.stderr).split())
    assert (
        "discounts file d.toml, line 7: the warehouse holds no aws price in region 'us-east1' "
        "(closest: us-east-1"
    ) in said, said
    assert "so the rule applies to nothing" in said
    assert "line 1:" not in said and "'nowhere'" not in said and str(tmp_path) not in said


def test_a_rule_whose_region_is_a_zone_is_said_with_the_region_to_give(golden, tmp_path):
    """A rule's region names a region (every zone of it included), not a zone: a zone the
    reads take as --region is said as one, with its region, not as a misspelt region."""
    path = tmp_path / "d.toml"
    path.write_text('[[discount]]\nprovider = "aws"\nregion = "us-east-2a"\npercent = 5\n')
    zoned = cli("prices", "--region", "us-east-2a", "--format", "json", "--db", str(golden))
    assert zoned.returncode == 0 and json.loads(zoned.stdout), zoned.stderr
    result = cli("prices", "--chip", "H100-SXM", "--db", str(golden), CHIPCOST_DISCOUNTS=str(path))
    assert result.returncode == 0, result.stderr
    said = " ".join((result.stdout + result.stderr).split())
    assert (
        "discounts file d.toml, line 1: 'us-east-2a' is a zone of aws's region us-east-2, and a "
        "rule's region names a region, not a zone, so the rule applies to nothing; give its "
        "region us-east-2 (every offer of the region, its zones' included) or drop it"
    ) in said, said
    assert "holds no aws price in region" not in said


def test_a_discount_reorders_what_is_cheapest(golden, tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("provider,region,percent,label\naws,us-west-2,40,west deal\n")
    result = cli(
        "prices", "--chip", "H100-SXM", "--pricing-model", "on_demand", "--sort", "price",
        "--format", "json", "--db", str(golden), CHIPCOST_DISCOUNTS=str(path),
    )  # fmt: skip
    rows = json.loads(result.stdout)
    assert rows[0]["region"] == "us-west-2" and rows[0]["price_per_chip_hour"] == pytest.approx(
        7.56
    )
    assert [r["discount"] for r in rows].count("40% west deal") == len(
        [r for r in rows if r["region"] == "us-west-2"]
    )
    assert [r["price_per_chip_hour"] for r in rows] == sorted(
        r["price_per_chip_hour"] for r in rows
    )


def test_currency_converts_at_the_rate_of_the_price_day(golden):
    result = cli("prices", "--chip", "H100-SXM", "--currency", "eur", "--format", "json",
                 "--db", str(golden))  # fmt: skip
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    for row in rows:
        assert row["currency"] == "EUR" and row["rate_day"] == "2026-11-06"
        assert row["usd_rate"] == pytest.approx(1 / 1.25)
        assert row["price_per_chip_hour"] == pytest.approx(
            row["list_price_per_chip_hour_usd"] / 1.25
        )
    assert "1 USD = 0.8000 EUR (ECB, 2026-11-06)" in result.stderr
    gbp = cli("prices", "--chip", "H100-SXM", "--db", str(golden), CHIPCOST_CURRENCY="GBP")
    assert "current per-chip prices (GBP)" in gbp.stdout and "GBP/chip-hr" in gbp.stdout
    assert "1 USD = 0.6400 GBP (ECB, 2026-11-06)" in gbp.stdout  # 0.8 / 1.25
    frame = chipcost.prices(chip="H100-SXM", currency="EUR", db=golden)
    assert set(frame["currency"]) == {"EUR"}
    # the sign the tables print it with ('€/chip-hr') names it too (on 0cae6cf: no ECB rate)
    for sign, code in (("€", "EUR"), ("£", "GBP")):
        frame = chipcost.prices(chip="H100-SXM", currency=sign, db=golden)
        assert set(frame["currency"]) == {code}, sign
    assert "currency" not in chipcost.prices(chip="H100-SXM", currency="$", db=golden).columns


def test_cost_ranks_your_prices(golden, discounts):
    args = ("cost", "--model", "llama-3-70b", "--workload", "inference", "--format", "json",
            "--db", str(golden))  # fmt: skip
    listed = {(r["chip"], r["pricing_model"]): r for r in json.loads(cli(*args).stdout)}
    yours = cli(*args, "--currency", "EUR", CHIPCOST_DISCOUNTS=str(discounts))
    assert yours.returncode == 0, yours.stderr
    for row in json.loads(yours.stdout):
        before = listed[(row["chip"], row["pricing_model"])]
        # in euros the cost is named for them (on b80dacd usd_per_million_tokens held euros)
        assert "usd_per_million_tokens" not in row
        assert row["eur_per_million_tokens"] == pytest.approx(
            before["usd_per_million_tokens"] * 0.9 / 1.25
        )
        assert row["discount"] == "10% EDP 2026" and row["currency"] == "EUR"
    table = cli(*args[:5], "--db", str(golden), "--currency", "EUR")
    assert "€/M tokens" in table.stdout and "in EUR at the ECB reference rate" in table.stdout


def test_a_cost_in_another_currency_is_named_for_it(golden):
    """From Python as in csv and json: euros under eur_..., dollars under usd_ (on b80dacd the
    usd_ columns held euros)."""
    asked = {"model": "llama-3-70b", "workload": "inference", "db": golden}
    euros = chipcost.cost(currency="EUR", **asked)
    dollars = chipcost.cost(**asked)
    assert (
        "eur_per_million_tokens" in euros.columns and "usd_per_million_tokens" not in euros.columns
    )
    assert "usd_per_million_tokens" in dollars.columns
    assert euros["eur_per_million_tokens"][0] == pytest.approx(
        dollars["usd_per_million_tokens"][0] * 0.8, rel=1e-3
    )


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            '[[discount]]\nprovider = "awz"\npercent = 10\n',
            "line 1: unknown provider 'awz' (did you mean aws",
        ),
        (
            '[[discount]]\nprovider = "aws"\npercent = 120\n',
            "line 1: percent 120 is not a discount",
        ),
        (
            '[[discount]]\nprovider = "aws"\npercent = 10\n\n'
            '[[discount]]\nprovider = "aws"\npercent = 5\n',
            "lines 1 and 5: two rules for the same offers (aws)",
        ),
        (
            '[[discount]]\nprovider = "aws"\nchip = "H100-SXM"\npercent = 10\n'
            '[[discount]]\nprovider = "aws"\nregion = "us-east-1"\npercent = 5\n',
            "lines 1 and 5: both rules match some offers",
        ),
    ],
)
def test_a_bad_discounts_file_is_one_line_naming_file_and_line(golden, tmp_path, text, said):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    result = cli("prices", "--chip", "H100-SXM", "--db", str(golden), CHIPCOST_DISCOUNTS=str(path))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"discounts file {path}" in result.stderr and said in result.stderr, result.stderr
    assert "$/chip-hr" not in result.stdout  # nothing shown as discounted


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--currency", "EUX"), "--currency EUX: no ECB reference rate for it (did you mean EUR"),
        (("--currency", "CHF"), "no ECB reference rate for CHF on 2026-11-07 or the 7 days before"),
    ],
)
def test_a_currency_without_a_rate_is_refused(golden, args, said):
    result = cli("prices", "--chip", "H100-SXM", "--db", str(golden), *args)
    # A code the ECB does not publish is a usage error (2); a day without its rate is not.
    assert result.returncode == (2 if "EUX" in said else 1) and said in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and not result.stdout.strip()


def test_no_rates_yet_says_to_collect_them(tmp_path):
    path = report_warehouse.build(tmp_path / "w.duckdb")
    result = cli("prices", "--chip", "H100-SXM", "--db", str(path), CHIPCOST_CURRENCY="EUR")
    assert result.returncode == 1
    assert "CHIPCOST_CURRENCY=EUR: the warehouse holds no exchange rates yet" in result.stderr
    assert "ecb-rates" in result.stderr


def test_history_converts_each_day_at_its_own_rate(golden):
    args = ("history", "--chip", "H100-SXM", "--pricing-model", "on_demand", "--db", str(golden))
    result = cli(*args, "--since", "2026-11-05", "--currency", "EUR", "--format", "json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    rate = {"2026-11-05": 1.2, "2026-11-06": 1.25, "2026-11-07": 1.25}  # Saturday: Friday's
    assert [r["day"] for r in rows] == list(rate)
    for row in rows:
        listed = row["list_price_per_chip_hour_usd"]
        assert row["price_per_chip_hour"] == pytest.approx(listed / rate[row["day"]])
    table = cli(*args, "--since", "2026-11-05", "--currency", "EUR", "--no-chart")
    assert "cheapest EUR per chip-hour by day" in table.stdout and "€" in table.stdout
    too_early = cli(*args, "--currency", "EUR")
    assert too_early.returncode == 1
    assert "no ECB reference rate for EUR on 2026-11-01" in too_early.stderr
    assert "eurofxref-hist.xml" in too_early.stderr  # how to load the older rates


def test_the_rates_url_may_point_at_the_whole_history(tmp_path):
    import httpx

    from chipcost.core.settings import SourceSettings
    from chipcost.extract.ecb_rates import RATES_HISTORY_URL
    from tests.sources import context

    asked = []

    def answer(request):
        asked.append(str(request.url))
        return httpx.Response(200, content=rates_file({"2001-02-05": {"USD": 0.93}}))

    ctx = context(
        tmp_path, "ecb-rates", answer, settings=SourceSettings(ecb_rates_url=RATES_HISTORY_URL)
    )
    [found] = SOURCE.fetch(ctx)
    assert asked == [RATES_HISTORY_URL] and found.url == RATES_HISTORY_URL
    days = {str(r["day"]) for r in SOURCE.parse([found]).facts["fx_rates"]}
    assert days == {"2001-02-05"}


def test_the_index_in_a_currency_moves_with_the_rate(golden):
    args = ("index", "--chip", "H100-SXM", "--since", "2026-11-05", "--db", str(golden))
    usd = {r["day"]: r for r in json.loads(cli(*args, "--format", "json").stdout)}
    result = cli(*args, "--currency", "EUR", "--format", "json")
    assert result.returncode == 0, result.stderr
    eur = {r["day"]: r for r in json.loads(result.stdout)}
    rate = {"2026-11-05": 1 / 1.2, "2026-11-06": 1 / 1.25, "2026-11-07": 1 / 1.25}
    assert set(eur) == set(rate)
    for day, row in eur.items():
        assert row["level"] == pytest.approx(usd[day]["level"] * rate[day])
        assert row["currency"] == "EUR"
    moved = 1 + (usd["2026-11-06"]["change_1d_pct"] or 0) / 100  # changes are in percent
    friday = moved * rate["2026-11-06"] / rate["2026-11-05"]
    assert eur["2026-11-06"]["change_1d_pct"] == pytest.approx(100 * (friday - 1))
    assert eur["2026-11-05"]["change_1d_pct"] is None  # no rate in force on 2026-11-04
    frame = chipcost.index(chip="H100-SXM", since="2026-11-05", currency="EUR", db=golden)
    assert frame["level"].to_list() == pytest.approx([eur[d]["level"] for d in sorted(eur)])


def test_compare_answers_on_your_prices(tmp_path):
    from tests.helpers import loaded_warehouse, record

    h100 = {"instance_type": "p5.48xlarge", "chip": "H100-SXM", "chip_count": 8.0}
    trn1 = {"instance_type": "trn1.32xlarge", "chip": "Trainium1", "chip_count": 16.0}
    path = loaded_warehouse(
        tmp_path / "w.duckdb",
        [
            record(price_per_hour=80.0, sku="H", **h100),
            record(price_per_hour=20.0, sku="T", **trn1),
            record(price_per_hour=40.0, sku="R", provider="runpod", source="runpod", **h100),
        ],
    )
    rules = tmp_path / "d.csv"
    rules.write_text("provider,chip,percent,label\naws,Trainium1,50,trn deal\n")
    args = ("compare", "Trainium1", "H100-SXM", "--model", "llama-3-70b", "--workload",
            "training", "--format", "json", "--db", str(path))  # fmt: skip
    listed = json.loads(cli(*args).stdout)[0]
    yours = cli(*args, CHIPCOST_DISCOUNTS=str(rules))
    assert yours.returncode == 0, yours.stderr
    mine = json.loads(yours.stdout)[0]
    assert mine["a_discount"] == "50% trn deal" and mine["b_discount"] is None
    assert mine["a_usd_per_million_tokens"] == pytest.approx(listed["a_usd_per_million_tokens"] / 2)
    # no verdict (the two chips' training figures are at different points): the break-even
    # moves with the price, halving where Trainium1 must reach it, doubling where H100 must
    assert mine["verdict"] == listed["verdict"] == "cannot say"
    scale = 0.5 if mine["break_even_for"] == "Trainium1" else 2.0
    assert mine["break_even_tokens_per_second_per_chip"] == pytest.approx(
        listed["break_even_tokens_per_second_per_chip"] * scale
    )
    table = cli(*args[:-4], "--db", str(path), CHIPCOST_DISCOUNTS=str(rules))
    assert "prices after your discount (Trainium1 aws: 50% trn deal)" in " ".join(
        table.stdout.split()
    )


def test_compare_against_a_free_baseline_is_one_line_and_a_free_chip_is_cheaper(tmp_path):
    from tests.helpers import loaded_warehouse, record

    h100 = {"instance_type": "p5.48xlarge", "chip": "H100-SXM", "chip_count": 8.0}
    trn1 = {"instance_type": "trn1.32xlarge", "chip": "Trainium1", "chip_count": 16.0}
    path = loaded_warehouse(
        tmp_path / "w.duckdb",
        [
            record(price_per_hour=80.0, sku="H", **h100),
            record(price_per_hour=20.0, sku="T", **trn1),
        ],
    )
    rules = tmp_path / "d.csv"
    rules.write_text("provider,chip,percent,label\naws,H100-SXM,100,credits\n")
    asked = ("--model", "llama-3-70b", "--workload", "training", "--db", str(path))
    # Against a baseline that costs nothing no change can be stated (it was a
    # ZeroDivisionError with a traceback): said in one line.
    refused = cli("compare", "Trainium1", "H100-SXM", *asked, CHIPCOST_DISCOUNTS=str(rules))
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert "H100-SXM's offer (aws p5.48xlarge) costs nothing after your discounts" in (
        " ".join(refused.stderr.split())
    )
    # The other way round the free chip is 100% cheaper, its break-even zero.
    done = cli("compare", "H100-SXM", "Trainium1", *asked, "--format", "json",
               CHIPCOST_DISCOUNTS=str(rules))  # fmt: skip
    assert done.returncode == 0, done.stderr
    row = json.loads(done.stdout)[0]
    # at no price H100-SXM is cheaper whatever its (derived) training figure
    assert (row["change_pct"], row["verdict"]) == (pytest.approx(-100.0), "cheaper")
    assert row["break_even_tokens_per_second_per_chip"] == 0


def test_the_explorer_shows_your_prices(golden, discounts, tmp_path):
    out = tmp_path / "site"
    result = cli("site", "--out", str(out), "--currency", "EUR", "--db", str(golden),
                 CHIPCOST_DISCOUNTS=str(discounts))  # fmt: skip
    assert result.returncode == 0, result.stderr
    data = json.loads((out / "offers.json").read_text())
    assert data["currency"] == "EUR"
    # your prices' columns in their places, before the stated prices and the GPU-alone mark
    assert data["columns"][-6:] == [
        "list_price_per_chip_hour_usd",
        "discount",
        "currency",
        "stated_price_per_chip_hour",
        "stated_price_per_hour",
        "gpu_alone",
    ]
    for row in offer_rows(data):
        listed = row["list_price_per_chip_hour_usd"]
        assert row["price_per_chip_hour"] == pytest.approx(listed * 0.9 / 1.25, rel=1e-5)
        assert row["discount"] == "10% EDP 2026"
        # the price as its provider states it (US dollars): the list price, before discounts
        assert (row["stated_currency"], row["stated_price_per_chip_hour"]) == ("USD", listed)
    page = (out / "index.html").read_text()
    assert "<b>Your prices</b>: after your discounts (EDP 2026: aws 10%" in page
    assert "EUR / chip-hour" in page and "list prices in US dollars" in page  # the history
    assert '"currency":"EUR"' in (out / "offers.js").read_text()  # the table's headings say EUR
    listed = cli("site", "--out", str(tmp_path / "plain"), "--db", str(golden))
    plain = json.loads((tmp_path / "plain" / "offers.json").read_text())
    assert (
        listed.returncode == 0 and plain["currency"] == "USD" and "discount" not in plain["columns"]
    )


def test_the_report_shows_your_prices_where_it_says_where_to_buy(golden, discounts, tmp_path):
    result = cli("report", "--dry-run", "--out", str(tmp_path / "r"), "--currency", "EUR",
                 "--db", str(golden), CHIPCOST_DISCOUNTS=str(discounts))  # fmt: skip
    assert result.returncode == 0, result.stderr
    [page] = (tmp_path / "r").glob("*.html")
    html = page.read_text()
    cheapest = html[html.index('id="cheapest"') : html.index('id="cheapest"') + 20000]
    assert "Your prices: after your discounts (EDP 2026: aws 10%" in html
    assert "1 USD = 0.8000 EUR (ECB, 2026-11-06)" in html
    # us-east-1's on-demand H100-SXM, 74.00 / 8 = 9.25 a chip-hour list: 9.25 x 0.9 / 1.25
    assert "€6.6600" in cheapest and "your discount 10% EDP 2026" in cheapest
    listed = cli("report", "--dry-run", "--out", str(tmp_path / "l"), "--db", str(golden))
    assert listed.returncode == 0, listed.stderr
    [plain] = (tmp_path / "l").glob("*.html")
    assert "Your prices" not in plain.read_text() and "$9.2500" in plain.read_text()


def test_remove_run_takes_out_the_exchange_rates_the_run_loaded(tmp_path):
    path = report_warehouse.build(tmp_path / "w.duckdb")
    load_rates(path, rates_file({"2026-11-05": {"USD": 1.2}}), "2026-11-07T170000Z")
    # a later file, as a run stamped ahead would bring, restating the same day
    load_rates(path, rates_file({"2026-11-05": {"USD": 1.5}}), "2099-01-01T060000Z")
    done = cli("remove-run", "2099-01-01T060000Z", "--db", str(path))
    assert done.returncode == 0, done.stderr
    con = open_warehouse(path)
    try:
        left = con.sql("SELECT currency, per_eur, payload_ref FROM fx_rates ORDER BY 1").fetchall()
    finally:
        con.close()
    assert ("USD", 1.2, "2026-11-07T170000Z/ecb-rates/0001.xml") in left
    assert all(not ref.startswith("2099") for _, _, ref in left)
    assert 1.5 not in {rate for _, rate, _ in left}
