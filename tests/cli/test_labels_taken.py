"""What chipcost prints it takes back: every spelling of a pricing model that a read's table
shows (a header of `history`, a cell of `prices`, a legend, `prices --by provider`'s columns) is
taken as `--pricing-model` without a note, a whole pricing label ('savings plan 1yr, all
upfront') selects the offers it names, and every payment and term it shows is the record's
code or its one label, on the sample replayed into a real warehouse."""

from __future__ import annotations

import math
import re
from datetime import date, timedelta
from pathlib import Path

import pytest

from chipcost import api
from chipcost.cli.price_cells import SHORT
from chipcost.core.errors import UsageError
from chipcost.core.figures import speed_label, speed_value
from chipcost.core.vocabulary import (
    MODEL_LABELS,
    NO_TERM_WORDS,
    PAYMENTS,
    PRICING_MODELS,
    TERMS,
    model_code,
    pricing_words,
)
from tests import warehouses
from tests.cli.test_read_commands import chipcost

# Every read command with a table, asked so that its table holds rows.
READS = {
    "prices": ("prices", "--chip", "H100-SXM"),
    "prices --region": ("prices", "--chip", "H100-SXM", "--region", "us-east-1"),
    "prices --by provider": ("prices", "--by", "provider"),
    "history": ("history", "--chip", "H100-SXM"),
    "index": ("index",),
    "index --pricing-model": ("index", "--pricing-model", "on_demand,spot,commitment"),
    # a chip's days, and the newest day's constituents under them (on 0cae6cf: "H100-SXM
    # on_demand 2026-11-21: ...")
    "index --chip": ("index", "--chip", "H100-SXM", "--pricing-model", "on_demand,spot"),
    "cost": ("cost", "--model", "llama-3-70b", "--workload", "inference", "--wide"),
    "compare": ("compare", "Trainium2", "H100-SXM", "--model", "llama-3-70b", "--workload",
                "inference"),
    "sources": ("sources",),
}  # fmt: skip


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    return warehouses.sample(tmp_path_factory.mktemp("labels") / "w.duckdb", last=2)


def _words(code: str) -> re.Pattern[str]:
    """A code's words joined by a space, a hyphen or '_', in any case, as a whole word:
    'on_demand' finds 'on demand', 'On-demand', 'on_demand'."""
    joined = r"[ _-]".join(re.escape(word) for word in code.split("_"))
    return re.compile(rf"(?<![\w-])({joined})(?![\w-])", re.IGNORECASE)


def printed(text: str, codes: tuple[str, ...]) -> dict[str, set[str]]:
    """Each code's spellings in `text`."""
    return {code: {m[1] for m in _words(code).finditer(text)} for code in codes}


@pytest.fixture(scope="module")
def tables(db) -> dict[str, str]:
    """Each read's table, wide enough that nothing wraps."""
    shown = {}
    for read, args in READS.items():
        done = chipcost(*args, "--db", str(db), columns=400)
        assert done.returncode == 0, (read, done.stderr)
        shown[read] = done.stdout
    return shown


def test_every_pricing_model_a_table_prints_is_taken_back_without_a_note(db, tables):
    spellings = {s for text in tables.values() for ss in printed(text, PRICING_MODELS).values()
                 for s in ss}  # fmt: skip
    # Tables say a pricing model in its words (history's and --by's headers, prices', cost's,
    # compare's and index's cells); its code, as csv and json write it, is taken too.
    assert {"capacity block", "on demand", "savings plan"} <= spellings
    for spelling in sorted(spellings | set(PRICING_MODELS)):
        done = chipcost("prices", "--pricing-model", spelling, "--limit", "1", "--db", str(db))
        assert done.returncode == 0, (spelling, done.stderr)
        assert "note" not in done.stderr, (spelling, done.stderr)
        words = MODEL_LABELS[model_code(spelling)]
        assert f"pricing model {words}" in done.stdout or f" {words} " in done.stdout, spelling


def test_index_takes_its_own_headers_back(db, tables):
    kinds = printed(tables["index --pricing-model"], ("on_demand", "spot", "commitment"))
    assert all(kinds.values()), kinds
    for spelling in sorted({s for ss in kinds.values() for s in ss}):
        done = chipcost("index", "--pricing-model", spelling, "--db", str(db))
        assert done.returncode == 0 and "note" not in done.stderr, (spelling, done.stderr)


def test_payments_and_terms_in_tables_are_one_code_and_one_label(tables):
    """No option takes a payment or a term: a table shows the data's code or its one label
    (all_upfront, "all upfront"), no third spelling."""
    found = printed("\n".join(tables.values()), tuple(p for p in PAYMENTS if p != "none"))
    assert found["all_upfront"], "the sample's tables show all_upfront prices"
    spelt = {code: {code, code.replace("_", " ")} for code in found}
    assert all(spellings <= spelt[code] for code, spellings in found.items()), found
    terms = printed("\n".join(tables.values()), tuple(t for t in TERMS if t != "none"))
    assert terms["1yr"] == {"1yr"} and terms["3yr"] == {"3yr"}, terms


def test_every_table_says_a_pricing_model_in_its_words(tables):
    """One label for people: no table prints a pricing model's or a payment's code (on
    2b517ec compare and index printed on_demand, savings_plan 1yr, and `prices --by provider`
    savings_plan 3yr all_upfront beside an "on demand" header); csv and json keep the codes."""
    codes = [c for c in (*PRICING_MODELS, *PAYMENTS) if "_" in c]
    for read, text in tables.items():
        said = [c for c in codes if re.search(rf"(?<![\w-]){c}(?![\w-])", text)]
        assert not said, (read, said)


def _label(row: dict, short: bool = False) -> str:
    plan = SHORT.get(row["plan"], row["plan"]) if short else row["plan"]
    return pricing_words(row["pricing_model"], row["term"], row["payment"], plan)


_PRICING = ("pricing_model", "term", "payment", "plan")


def _names(row: dict) -> dict[str, str]:
    """The pricing parts an offer's label says (a label leaves out no term, no payment, the
    default plan; a reservation's 'no term' says its term of none)."""
    named = {
        p: row[p] for p in _PRICING if p == "pricing_model" or row[p] not in ("none", "default")
    }
    if row["term"] == "none" and row["pricing_model"] in NO_TERM_WORDS:
        named["term"] = "none"
    return named


def test_a_whole_pricing_label_from_a_table_selects_the_offers_it_names(db, tables):
    """Each label `prices` prints (short or whole), or `compare` prints, given back as the
    pricing model selects exactly the offers whose pricing it names; on 0cae6cf every label with
    a term was refused ('unknown pricing model savings_plan_1yr')."""
    every = api.prices(chip="H100-SXM", db=str(db)).to_dicts()
    labels = {_label(r, short): r for r in every for short in (False, True)}
    printed_labels = [x for x in labels if x in tables["prices"] or x in tables["compare"]]
    assert {"savings plan 1yr, ec2, all upfront", "reserved 3yr, std, all upfront"} <= set(
        printed_labels
    ), sorted(labels)
    # each pricing model's longest label, short and whole, and compare's: a label of each way
    # a table writes one (the rest are read by the same parse)
    longest = {}
    for label in sorted(printed_labels, key=len):
        longest[(labels[label]["pricing_model"], label == _label(labels[label]))] = label
    chosen = {*longest.values(), *(x for x in printed_labels if x in tables["compare"])}
    assert len(chosen) < len(printed_labels), (len(chosen), len(printed_labels))
    for label in sorted(chosen):
        wanted = _names(labels[label])
        got = api.prices(chip="H100-SXM", pricing_model=label, db=str(db)).to_dicts()
        named = [r for r in every if wanted.items() <= r.items()]
        assert got and len(got) == len(named), (label, len(got), len(named))
        assert all(wanted.items() <= r.items() for r in got), label


def test_a_label_in_a_comma_list_keeps_its_commas(db):
    """`--pricing-model` splits at commas, so a label's commas are put back: a piece that is no
    pricing model belongs to the label before it. 'spot, region cheapest' is the row `prices`
    adds for a region's cheapest spot zone (its plan is the view's, no record's: on 65da5f2 it
    was refused)."""
    asked = "reserved 1yr, std, all upfront,spot, region cheapest"
    done = chipcost(
        "prices", "--chip", "H100-SXM", "--pricing-model", asked, "--format", "csv",
        "--db", str(db),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = [line.split(",") for line in done.stdout.splitlines()[1:]]
    head = done.stdout.splitlines()[0].split(",")
    paid = {
        tuple(r[head.index(c)] for c in ("pricing_model", "term", "plan", "payment")) for r in rows
    }
    assert ("reserved", "1yr", "standard", "all_upfront") in paid
    assert paid == {
        ("reserved", "1yr", "standard", "all_upfront"),
        ("spot", "none", "region_cheapest", "none"),
    }


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        ("reserved 1yr, bogus", "'bogus' is no term, payment or plan of a pricing model"),
        ("reserved 1yr 3yr", "it names two terms, 1yr and 3yr"),
    ],
)
def test_a_label_with_a_word_no_offer_has_is_refused_naming_it(db, asked, said):
    with pytest.raises(UsageError, match=said):
        api.prices(pricing_model=asked, db=str(db))


def test_the_api_asked_for_the_region_rows_says_where_they_are(db):
    """The Python API gives each offer once (no region rows): asked for them by their label it
    says how to find them, instead of an empty frame."""
    with pytest.raises(UsageError, match="ask pricing_model='spot' and keep the rows whose "):
        api.prices(chip="H100-SXM", pricing_model="spot, region cheapest", db=str(db))
    spot = api.prices(chip="H100-SXM", pricing_model="spot", db=str(db))
    assert spot["cheapest_in_region"].sum() > 0


def test_the_prices_header_says_the_shared_pricing_in_the_columns_words(db):
    """Pricing every row shares is said once above the table in the label's words, not as
    codes ('pricing model savings_plan   term 1yr' on 0cae6cf)."""
    done = chipcost(
        "prices", "--chip", "H100-SXM", "--pricing-model", "savings plan 1yr", "--db", str(db),
        columns=200,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    head = done.stdout.splitlines()[1]
    assert "pricing model savings plan 1yr" in head and "savings_plan" not in head, head
    assert "term" not in head, head


@pytest.mark.parametrize("speed", ["5", "25", "7.5"])
def test_a_speed_as_the_cost_header_says_it_is_taken_back(speed):
    """'at 25 or more tokens/s per user', as cost's and compare's headers say the speed, and
    its shorter forms, are --speed 25 (on d938aed only a number or '25 tok/s' was)."""
    said = speed_label(speed).split(" (")[0]  # 'at 25 or more tokens/s per user'
    for text in (said, said.removeprefix("at "), f"{speed} tokens/s per user", f"{speed} tok/s"):
        assert speed_value(text) == speed, text
    for text in ("tok/s", f"{speed} tokens", f"{speed} per user", f"{speed} tok/s per"):
        with pytest.raises(UsageError, match="give max, server"):
            speed_value(text)


def test_a_time_a_read_prints_is_taken_as_its_day(db, tables):
    """'prices as of 2026-11-21 06:00 UTC' (every read's freshness line), or a time as csv and
    json write it, given as --since is its UTC day."""
    (stamp,) = re.findall(r"prices as of (\d{4}-\d\d-\d\d \d\d:\d\d UTC)", tables["prices"])
    day = date.fromisoformat(stamp[:10])
    before = day - timedelta(days=1)
    # the evening before in New York is already `day` in UTC
    for since in (stamp, f"{day}T06:00:00+00:00", f"{before}T23:30:00-05:00"):
        frame = api.history(chip="H100-SXM", since=since, db=str(db))
        assert frame["day"].min() == day, (since, frame["day"].min())
    frame = api.history(chip="H100-SXM", since=f"{before}T12:00:00Z", db=str(db))
    assert frame["day"].min() == before


def test_a_where_cell_given_as_a_region_is_answered_with_the_two_filters(db, tables):
    """`prices`' 'where' column says provider and region ('aws us-east-1'): given as a region it
    is refused with the --provider and --region it stands for (on d938aed: 'no current price is
    in region ...', nearest three unrelated regions), and those two select its offers."""
    rows = api.prices(chip="H100-SXM", db=str(db)).to_dicts()
    cells = {f"{r['provider']} {r['region']}": r for r in rows}
    printed_cells = [c for c in cells if c in tables["prices"]]
    assert "aws us-east-1" in printed_cells, sorted(cells)
    done = chipcost("prices", "--chip", "H100-SXM", "--region", "aws us-east-1", "--db", str(db))
    assert done.returncode == 2, done.stdout
    assert "give --provider aws --region us-east-1;" in done.stderr, done.stderr
    # a region of one word, another provider's, and a zone's cell ('aws us-east-2b')
    others = [c for c in printed_cells if c.endswith(" global")][:1]
    zones = {
        f"{r['provider']} {r['zone']}": r
        for r in rows
        if r["zone"] and r["zone"] != r["region"] and r["zone"].startswith(r["region"])
    }  # a zone that names its region is the cell's whole place
    assert zones
    for cell, row in [*((c, cells[c]) for c in others), *list(zones.items())[:1]]:
        with pytest.raises(UsageError, match=f"give provider={row['provider']} region="):
            api.prices(chip="H100-SXM", region=cell, db=str(db))
    got = api.prices(chip="H100-SXM", provider="aws", region="us-east-1", db=str(db))
    assert got.height > 0


def test_history_says_when_a_column_is_narrower_than_its_pricing_model(db):
    """history's columns are pricing models: a label asked with a term or payment is said
    beside its column, not left for the reader to remember."""
    done = chipcost(
        "history", "--chip", "H100-SXM", "--pricing-model", "savings plan 1yr, all upfront,spot",
        "--no-chart", "--db", str(db), columns=200,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    said = " ".join((done.stdout + done.stderr).split())
    assert "the savings plan column is savings plan 1yr, all upfront only (--pricing-model)" in said
    assert "the spot column" not in said


def test_an_instance_type_with_a_comma_in_its_name_is_taken_back(db):
    """Modal's '1x A100, 40 GB', as every table, csv and json prints it, selects its offers in
    prices, history and cost and from Python, alone or in a list (on e435575 it was cut at its
    comma: "unknown instance type '1x A100'")."""
    rows = api.prices(provider="modal", db=str(db)).to_dicts()
    named = sorted({r["instance_type"] for r in rows if "," in r["instance_type"]})
    assert named, "the sample has no instance type with a comma"
    name = named[0]
    for asked in (name, [name], f"{name},p5.48xlarge"):
        found = api.prices(instance=asked, db=str(db))
        assert name in found["instance_type"].to_list(), asked
    chip = next(r["chip"] for r in rows if r["instance_type"] == name)
    for args in (
        ("prices", "--instance", name),
        ("history", "--chip", chip, "--instance", name),
    ):
        done = chipcost(*args, "--db", str(db), columns=300)
        assert done.returncode == 0, (args, done.stderr)


def test_index_takes_its_commitment_label_and_the_reports_column(db, tables):
    """The index labels its commitment rows 'commitment 1yr' and the report's column says
    '1-yr commitment': both are the index's commitment (on e435575: 'not a pricing model of
    the index'); another term is refused saying the index's is 1-year."""
    done = chipcost("index", "--chip", "H100-SXM", "--pricing-model", "commitment", "--db",
                    str(db), columns=300)  # fmt: skip
    assert "commitment 1yr" in done.stdout
    for label in ("commitment 1yr", "1-yr commitment"):
        again = chipcost("index", "--chip", "H100-SXM", "--pricing-model", label, "--db",
                         str(db), columns=300)  # fmt: skip
        assert again.returncode == 0, (label, again.stderr)
        assert again.stdout == done.stdout
    refused = chipcost("index", "--pricing-model", "commitment 3yr", "--db", str(db))
    assert refused.returncode == 2 and "any 1-year commitment" in refused.stderr


@pytest.mark.parametrize(
    ("provider", "said"),
    [
        ("Vast.ai", None),  # the README's spelling (on e435575: "did you mean vastai?")
        ("ibm", "'ibm' has no price: chipcost does not collect it"),  # e435575: "lium?"
        ("ecb", "publishes reference data (ecb-rates), no accelerator prices"),
        # the README's names, from the titles of the registry (on 2dbe3361: "unknown provider
        # 'IBM Cloud' (did you mean gmicloud?)")
        ("IBM Cloud", "'ibm' has no price: chipcost does not collect it"),
        ("samsung cloud platform", "'scp' has no price: chipcost does not collect it"),
        ("the ECB", "publishes reference data (ecb-rates), no accelerator prices"),
        ("Latitude.sh", None),
    ],
)
def test_a_provider_sources_lists_is_taken_or_said_why_it_has_no_price(db, provider, said):
    done = chipcost("prices", "--provider", provider, "--limit", "1", "--db", str(db))
    if said is None:
        assert done.returncode == 0, done.stderr
    else:
        assert done.returncode == 2 and said in " ".join(done.stderr.split()), done.stderr


def test_a_provider_named_by_its_title_is_refused_why_by_cost_and_python(db):
    """cost and chipcost.prices read a title as --provider does (on 2dbe3361: "unknown
    provider 'Samsung Cloud Platform' (nearest: shadeform, amddevcloud, oci)")."""
    done = chipcost("cost", "--model", "llama-3-70b", "--workload", "inference", "--provider",
                    "Samsung Cloud Platform", "--db", str(db))  # fmt: skip
    said = "'scp' has no price: chipcost does not collect it"
    assert done.returncode == 2 and said in " ".join(done.stderr.split()), done.stderr
    with pytest.raises(UsageError, match="'ibm' has no price: chipcost does not collect it"):
        api.prices(provider="IBM Cloud", db=str(db))


def test_the_unknown_chip_a_table_shows_is_explained(db):
    done = chipcost("prices", "--chip", "unknown", "--db", str(db))
    assert done.returncode == 2
    line = " ".join(done.stderr.split())
    assert "'unknown' is no chip: it marks offers whose GPU names no chip" in line
    assert "nearest" not in line


def test_export_says_why_it_takes_no_currency_not_even_the_dollar(db, tmp_path):
    """The export converts nothing (each price in its provider's currency): `--currency $`,
    which reads print, is answered with that, not taken as a promise of dollars only."""
    done = chipcost("export", "--out", str(tmp_path / "focus"), "--currency", "$", "--db", str(db))
    said = " ".join(done.stderr.split())
    assert done.returncode == 2 and "the export converts nothing" in said
    assert not (tmp_path / "focus").exists()


@pytest.mark.parametrize("speed", ["5", "25", "7.5", "max"])
def test_a_speed_header_with_its_words_is_taken_back(speed):
    """cost's and compare's whole header ('at 5 or more tokens/s per user (MLPerf Server bound
    for Llama 2 70B)', 'at maximum throughput (MLPerf Offline, ...)') is the speed (on e435575
    only the words before the parenthesis were)."""
    assert speed_value(speed_label(speed)) == speed
    if speed == "max":
        assert speed_value("maximum throughput") == "max"


def test_a_measurements_speed_is_taken_as_reads_print_it(db, tmp_path):
    copy = tmp_path / "w.duckdb"
    copy.write_bytes(db.read_bytes())
    base = (
        "throughput", "add", "--chip", "H100-SXM", "--model", "llama-3-70b", "--workload",
        "inference", "--tokens-per-second", "3000", "--precision", "fp8", "--db", str(copy),
    )  # fmt: skip
    # compare's figure line says '6.9 tok/s per user' (on e435575: "is not a number: write e.g.
    # 300e9, 300B"); '1K' was recorded as 1,000 tok/s per user
    done = chipcost(*base, "--speed", "6.9 tok/s per user")
    assert done.returncode == 0, done.stderr
    listed = api.sql(
        query="SELECT tokens_per_second_per_user FROM throughput WHERE origin = 'user'",
        db=str(copy),
    )
    assert listed["tokens_per_second_per_user"].to_list() == [6.9]
    for speed in ("1K", "max"):
        refused = chipcost(*base, "--speed", speed)
        assert refused.returncode == 2 and "--operating-point max-throughput" in refused.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("history", "--chip", "H100-SXM"),
        ("cost", "--model", "llama-3-70b", "--workload", "inference"),
        ("compare", "H200", "H100-SXM", "--model", "llama-3-70b", "--workload", "inference"),
    ],
)
@pytest.mark.parametrize("cell", ["aws us-east-1", "aws · us-east-1"])
def test_every_read_answers_a_where_cell_with_its_two_options(db, args, cell):
    """history, cost and compare said 'give aws us-east-1' on e2f7b55, no option named; the
    history's and the report's 'aws · us-east-1' was an unknown region."""
    done = chipcost(*args, "--region", cell, "--db", str(db))
    assert done.returncode == 2
    assert "give --provider aws --region us-east-1" in " ".join(done.stderr.split())


def test_a_zone_a_row_prints_given_as_a_region_is_taken_as_that_zone(db):
    # tests/cli/test_zone_as_region.py reads every read's rows of the zone
    rows = api.prices(chip="H100-SXM", provider="aws", db=str(db)).to_dicts()
    zone = next(r["zone"] for r in rows if r["zone"] not in ("", None, r["region"]))
    for args in (("prices",), ("history", "--chip", "H100-SXM")):
        done = chipcost(*args, "--region", zone, "--db", str(db))
        assert done.returncode == 0, done.stderr
        assert zone in done.stdout


def test_a_migration_cost_as_cost_prints_money(db):
    asked = ("cost", "--model", "llama-3-70b", "--workload", "inference", "--format", "json")
    signed = chipcost(*asked, "--migration-cost", "$36,000", "--db", str(db))
    plain = chipcost(*asked, "--migration-cost", "36000", "--db", str(db))
    assert signed.returncode == 0, signed.stderr  # on e2f7b55: "is not a number"
    assert signed.stdout == plain.stdout


def test_a_price_bound_is_read_in_the_unit_the_table_shows(db):
    """With --per month the table's cells are per chip-month, and so is --max-price (on
    e2f7b55 a monthly cell given back was read per chip-hour: every row passed it)."""
    import json

    asked = ("prices", "--chip", "H100-SXM", "--per", "month", "--format", "json", "--db", str(db))
    every = json.loads(chipcost(*asked).stdout)
    monthly = sorted(r["price_per_chip_month"] for r in every)
    # a cell of the table, given back (to four places, rounded up: the cell's own price passes)
    bound = math.ceil(monthly[len(monthly) // 2] * 1e4) / 1e4
    done = chipcost(*asked, "--max-price", f"{bound:,.4f}")
    kept = json.loads(done.stdout)
    assert 0 < len(kept) < len(every)
    assert all(r["price_per_chip_month"] <= bound + 1e-6 for r in kept)
    assert len(kept) == sum(1 for m in monthly if m <= bound + 1e-6)
    assert "is per chip-month, as the table's prices" in " ".join(done.stderr.split())


def test_an_estimated_price_cell_is_taken_as_its_amount(db):
    """'$0.1729 est.', as prices prints an estimated price, is $0.1729 (on e2f7b55 'give a
    number'); with --currency the bound is said to be in that currency, as the cells."""
    plain = chipcost("prices", "--max-price", "2.5", "--format", "json", "--db", str(db))
    marked = chipcost("prices", "--max-price", "$2.5000 est.", "--format", "json", "--db", str(db))
    assert marked.returncode == 0 and marked.stdout == plain.stdout, marked.stderr
    euros = chipcost("prices", "--max-price", "2.5", "--currency", "EUR", "--db", str(db))
    assert "--max-price 2.5 is in EUR, as the table's prices" in euros.stdout


@pytest.mark.parametrize("per", ["hour", "month"])
def test_a_price_cell_given_back_as_a_bound_keeps_its_row(db, per):
    """A cell is its price rounded (four decimals an hour, cents a month): given back as
    `--max-price` and `--min-price` it keeps the rows shown as it, those stored a hair above or
    below it among them (4.1624 stored 4.16240011)."""
    import json

    from chipcost.cli.price_cells import price_text

    asked = ("prices", "--chip", "H100-SXM", "--region", "us-east-1")
    done = chipcost(*asked, "--format", "json", "--db", str(db))
    hours = {"hour": 1, "month": 730}[per]
    stored = [(r, r["price_per_chip_hour"] * hours) for r in json.loads(done.stdout)]
    rounded = [(r, p) for r, p in stored if float(price_text(p, per).replace(",", "")) != p]
    assert len(rounded) >= 3  # cells that are not their stored price
    for row, price in rounded[:4]:
        cell = price_text(price, per)
        kept = chipcost(*asked, "--per", per, "--min-price", cell, "--max-price", cell,
                        "--format", "json", "--db", str(db))  # fmt: skip
        assert kept.returncode == 0, (cell, kept.stderr)
        key = ("instance_type", "pricing_model", "term", "payment", "plan", "sku")
        assert {tuple(r[k] for k in key) for r in json.loads(kept.stdout)} >= {
            tuple(row[k] for k in key)
        }, (cell, price)


def test_a_cell_under_a_header_that_names_its_pricing_model_is_refused_saying_so(db):
    """`prices --pricing-model reserved` heads its table 'pricing model reserved' and prints
    each cell without it ('1yr, std, all upfront'): given back alone, it is refused in the
    words it was typed in, saying to put the model first."""
    done = chipcost("prices", "--chip", "H100-SXM", "--pricing-model", "reserved", "--db",
                    str(db), columns=400)  # fmt: skip
    assert "pricing model reserved" in done.stdout and "1yr, std, all upfront" in done.stdout
    refused = chipcost("prices", "--chip", "H100-SXM", "--pricing-model",
                       "1yr, std, all upfront", "--db", str(db))  # fmt: skip
    assert refused.returncode == 2
    said = " ".join(refused.stderr.split())
    assert "'1yr, std, all upfront'" in said and "_" not in said.split("'")[1]
    assert "give the model first" in said
    named = chipcost("prices", "--chip", "H100-SXM", "--pricing-model",
                     "reserved 1yr, std, all upfront", "--db", str(db))  # fmt: skip
    assert named.returncode == 0, named.stderr


@pytest.mark.parametrize("sign", ["", "€", "EUR "])
def test_a_euro_cell_given_back_as_a_bound_keeps_its_row(db, sign):
    """A bound is in the currency and unit the table shows, as the explorer's filter is: a
    cell of `prices --currency EUR --per month`, given back as --max-price and --min-price
    (bare, or with the sign or code of the euro), keeps its row; a cent below it as the
    --max-price drops it. On 031889ca the bound was read as US dollars of list price, and a
    euro cell dropped its own row."""
    import json

    from chipcost.cli.price_cells import price_text

    asked = ("prices", "--chip", "H100-SXM", "--currency", "EUR", "--per", "month")
    table = chipcost(*asked, "--limit", "400", "--db", str(db), columns=400).stdout
    rows = json.loads(chipcost(*asked, "--format", "json", "--db", str(db)).stdout)
    key = ("provider", "region", "zone", "instance_type", "pricing_model", "term", "payment",
           "plan", "sku")  # fmt: skip
    euros = [r for r in rows if r["currency"] == "EUR" and r["price_per_chip_month"]]
    picked = [euros[0], euros[len(euros) // 2], euros[-1]]
    for row in picked:
        cell = price_text(row["price_per_chip_month"], "month")
        assert cell in table.split(), cell  # a cell the table shows
        bound = f"{sign}{cell}"
        kept = chipcost(*asked, "--min-price", bound, "--max-price", bound, "--format", "json",
                        "--db", str(db))  # fmt: skip
        assert kept.returncode == 0, (bound, kept.stderr)
        assert tuple(row[k] for k in key) in {
            tuple(r[k] for k in key) for r in json.loads(kept.stdout)
        }
        below = f"{float(cell.replace(',', '')) - 0.01:.2f}"
        under = chipcost(*asked, "--min-price", "0", "--max-price", below, "--format", "json",
                         "--db", str(db))  # fmt: skip
        shown = {tuple(r[k] for k in key) for r in json.loads(under.stdout or "[]")}
        assert tuple(row[k] for k in key) not in shown, (below, row)


@pytest.mark.parametrize("bound", ["$3.8616", "USD 3.8616", "£3.8616"])
def test_a_bound_in_another_currency_than_the_table_s_is_refused_saying_which(db, bound):
    """With --currency EUR the table's cells are euros: a bound in dollars or pounds is
    refused in one line naming the table's currency."""
    done = chipcost("prices", "--chip", "H100-SXM", "--currency", "EUR", "--max-price", bound,
                    "--db", str(db))  # fmt: skip
    assert done.returncode == 2
    said = " ".join(done.stderr.split())
    assert f"--max-price {bound}: a price bound is in the currency the table shows, EUR" in said
    assert "Traceback" not in said and "note:" not in said
    assert not done.stdout  # no note of how the bound is read before its refusal


def test_a_reservation_with_no_term_says_it_is_held_at_the_on_demand_rate(db):
    """Google's future reservations (no term, charged as on demand: $11.27 an H100-SXM hour in
    the sample) were a plain 'reserved' beside 3-year reservations: the label says what they
    are, every table that shows one says it (compare's short label with a note), and the
    label, whole or short, is taken back as the offers it names."""
    assert pricing_words("reserved", "none", "none", "default") == (
        "reserved, no term, at on-demand rate"
    )
    assert pricing_words("reserved", "none", None, None, short=True) == "reserved, no term"
    assert pricing_words("reserved", "3yr", None, None) == "reserved 3yr"
    assert pricing_words("on_demand", "none", "none", "default") == "on demand"
    shown = chipcost("prices", "--chip", "H100-SXM", "--pricing-model", "reserved",
                     "--db", str(db), columns=200)  # fmt: skip
    lines = [line for line in shown.stdout.splitlines() if line.startswith("gcp ")]
    assert lines and all("no term, at on-demand rate" in line for line in lines), lines
    history = chipcost("history", "--chip", "H100-SXM", "--provider", "gcp", "--pricing-model",
                       "reserved", "--no-chart", "--db", str(db), columns=200)  # fmt: skip
    assert ", no term, at on-demand rate (" in " ".join(history.stdout.split())
    compare = chipcost("compare", "B200", "H100-SXM", "--model", "llama-3-70b", "--workload",
                       "inference", "--db", str(db), columns=80)  # fmt: skip
    assert compare.returncode == 0, compare.stderr
    assert any(line.startswith("reserved, no term  ") for line in compare.stdout.splitlines())
    assert "reserved, no term: at on-demand rate" in " ".join(compare.stdout.split())
    for label in ("reserved, no term, at on-demand rate", "reserved, no term"):
        got = api.prices(chip="H100-SXM", pricing_model=label, db=str(db))
        assert got.height and set(got["provider"]) == {"gcp"}, label
        assert set(got["term"]) == {"none"} and set(got["pricing_model"]) == {"reserved"}
    both = api.prices(
        chip="H100-SXM", pricing_model="reserved, no term, at on-demand rate,spot", db=str(db)
    )
    assert set(both["pricing_model"]) == {"reserved", "spot"}
