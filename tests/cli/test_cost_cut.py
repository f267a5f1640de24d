"""`chipcost cost` reads, of the offers alike in all a choice reads but the price (chip,
pricing model, term, provider, chips per instance: transform/cost_fit.py ALIKE), the cheapest
only, cut in DuckDB, so its ranking holds rows in the number of chips, providers and terms, not
of offers; the report's and the explorer's head-to-head answers read their ranking of every
offer so cut too (reads/articles.py). What each answers is what ranking every offer
answers: the same question with the cut turned off, on a real DuckDB warehouse of many offers,
ties and baselines among them."""

from __future__ import annotations

import json
import os

import pytest

from chipcost.reads import cost
from chipcost.reads.articles import article_answers
from chipcost.warehouse import cost_per_token
from chipcost.warehouse.reader import open_reader
from tests.cli_runner import chipcost
from tests.helpers import day, record, run_of
from tests.warehouses import of_runs

CHIPS = (("H100-SXM", (1, 8)), ("H200", (8,)), ("A100-80GB", (1, 8)), ("L4", (1, 4)))
PROVIDERS = ("aws", "lambda", "runpod")
PRICINGS = (("on_demand", "none", "none"), ("reserved", "1yr", "all_upfront"))


def _offers(chips=CHIPS) -> list:
    found = []
    for c, (chip, counts) in enumerate(chips):
        for count in counts:
            for p, provider in enumerate(PROVIDERS):
                for pricing_model, term, payment in PRICINGS:
                    for n, region in enumerate(("us-east-1", "eu-west-1", "ap-south-1")):
                        # a provider cheapest for each chip in turn, a one-chip instance cheaper
                        # per chip than a larger one that holds more, regions apart but two
                        # at one price (a tie)
                        per_chip = (
                            1.0
                            + (p + c) % 3 / 10
                            + min(n, 1) / 4
                            + (0.5 if term == "1yr" else 0)
                            - (0.3 if count == 1 else 0)
                        )
                        found.append(record(
                            provider=provider, source=provider, region=region, chip=chip,
                            instance_type=f"{chip.lower()}.{count}x", chip_count=float(count),
                            pricing_model=pricing_model, term=term, payment=payment,
                            price_per_hour=round(per_chip * count, 4),
                            sku=f"{provider}-{chip}-{count}-{region}-{term}",
                        ))  # fmt: skip
    return found


def _counted(monkeypatch) -> list[int]:
    """How many rows each of cost's reads of cost_per_token returned, in order."""
    read: list[int] = []
    rows_of = cost_per_token.cost_rows

    def counted(*given, **options):
        rows = rows_of(*given, **options)
        read.append(len(rows))
        return rows

    monkeypatch.setattr(cost, "cost_rows", counted)
    return read


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    return of_runs(tmp_path_factory.mktemp("cut") / "w.duckdb", [run_of(_offers(), day(0))])


ASKED = [
    ("--model", "llama-3-70b", "--workload", "inference"),
    ("--model", "llama-3-70b", "--workload", "training"),
    ("--model", "gpt-3-175b", "--workload", "inference"),
    ("--model", "llama-3-70b", "--workload", "inference", "--baseline", "A100-80GB"),
    ("--model", "llama-3-8b", "--workload", "inference", "--baseline", "H100-SXM"),
    ("--model", "llama-3-70b", "--workload", "inference", "--max-instances", "1"),
]


@pytest.mark.parametrize("args", ASKED, ids=[" ".join(a[1::2][:3]) for a in ASKED])
def test_the_cut_ranking_is_the_ranking_of_every_offer(db, monkeypatch, args):
    env = {**os.environ, "CHIPCOST_DISCOUNTS": ""}
    read = _counted(monkeypatch)
    cut = chipcost("cost", *args, "--format", "json", "--db", str(db), env=env)
    monkeypatch.setattr(cost, "ALIKE", ())
    every = chipcost("cost", *args, "--format", "json", "--db", str(db), env=env)
    assert cut.returncode == every.returncode == 0, cut.stderr + every.stderr
    assert json.loads(cut.stdout) and cut.stdout == every.stdout and cut.stderr == every.stderr
    assert read[0] < read[-1] / 2  # the cut read fewer than half the offers


# The chips the articles pair (chipcost.reads.articles.ARTICLE_PAIRS), Trainium3 unpriced.
ARTICLE_CHIPS = (
    ("H100-SXM", (1, 8)), ("H200", (8,)), ("B200", (8,)), ("Trainium2", (16,)),
    ("TPU-v6e", (1, 8)), ("MI300X", (8,)),
)  # fmt: skip


def test_the_head_to_head_answers_are_those_of_every_offer(tmp_path, monkeypatch):
    db = of_runs(tmp_path / "w.duckdb", [run_of(_offers(ARTICLE_CHIPS), day(0))])

    def answers() -> list[dict]:
        con = open_reader(db)
        try:
            return article_answers(con, stale_days=10_000)
        finally:
            con.close()

    read = _counted(monkeypatch)
    cut = answers()
    monkeypatch.setattr(cost, "ALIKE", ())
    every = answers()
    assert cut == every
    assert sum(a["answer"] is not None for a in cut) >= 8, cut  # the pairs priced are answered
    assert len(read) == 4 and read[0] < read[2] / 2 and read[1] < read[3] / 2


# Your prices: a discount, another currency or a bound on interruptions may change which of the
# offers alike is cheapest, so the cut is taken after them, in DuckDB, as every offer's ranking
# takes them (on the sample warehouse: its ECB rates and AWS's interruption buckets).
YOURS = [
    ("--currency", "EUR"),
    ("--max-interruption", "10"),
    ("--max-interruption", "5", "--currency", "EUR"),
    ("--discounts",),
    ("--discounts", "--currency", "EUR", "--max-interruption", "20"),
]
DISCOUNTS = """\
[[discount]]
provider = "aws"
percent = 40
region = "us-west-2"

[[discount]]
provider = "aws"
percent = 10

[[discount]]
provider = "lambda"
percent = 25
"""


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory):
    from tests import warehouses

    return warehouses.sample(tmp_path_factory.mktemp("sample") / "w.duckdb")


@pytest.mark.parametrize("asked", YOURS, ids=[" ".join(a) for a in YOURS])
def test_the_cut_after_your_prices_is_the_ranking_of_every_offer(
    sample_db, tmp_path, monkeypatch, asked
):
    rules = tmp_path / "discounts.toml"
    rules.write_text(DISCOUNTS)
    env = {**os.environ, "CHIPCOST_DISCOUNTS": str(rules) if "--discounts" in asked else ""}
    args = [a for a in asked if a != "--discounts"]
    read = _counted(monkeypatch)
    ask = ("cost", "--model", "llama-3-70b", "--workload", "inference", "--format", "json")
    cut = chipcost(*ask, *args, "--db", str(sample_db), env=env)
    monkeypatch.setattr(cost, "ALIKE", ())
    every = chipcost(*ask, *args, "--db", str(sample_db), env=env)
    assert cut.returncode == every.returncode == 0, cut.stderr + every.stderr
    rows = json.loads(cut.stdout)["rows"] if cut.stdout.startswith("{") else json.loads(cut.stdout)
    assert rows and cut.stdout == every.stdout and cut.stderr == every.stderr
    assert read[0] < read[-1] / 2, read  # the cut read fewer than half the offers
    if "--currency" in args:
        assert {r["currency"] for r in rows} == {"EUR"}
    if "--max-interruption" in args:
        spot = [r for r in rows if r["pricing_model"] == "spot"]
        assert all(r["provider"] == "aws" and r["interruption"] for r in spot), spot


def test_your_discount_chooses_the_offer_it_makes_cheapest(db, tmp_path):
    """Half off runpod in ap-south-1, its dearest region at list price, makes its offers there
    each chip's cheapest: on the code before, the ranking chose among the offers at their list
    prices and then discounted the chosen (us-east-1's)."""
    rules = tmp_path / "discounts.toml"
    rules.write_text('[[discount]]\nprovider = "runpod"\nregion = "ap-south-1"\npercent = 50\n')
    env = {**os.environ, "CHIPCOST_DISCOUNTS": str(rules)}
    done = chipcost(
        "cost", "--model", "llama-3-8b", "--workload", "inference", "--format", "json",
        "--db", str(db), env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    rows = rows["rows"] if isinstance(rows, dict) else rows
    assert rows and {(r["provider"], r["region"], r["discount"]) for r in rows} == {
        ("runpod", "ap-south-1", "50% discounts.toml")
    }, [(r["chip"], r["provider"], r["region"], r["discount"]) for r in rows]
