"""One mistake, two askers: the command line's message names the option as the command line
spells it (`--currency USD`, `--speed`), the Python API's names the keyword (`currency=USD`,
`speed=`), each read alike (chipcost.core.questions.Voice). On a real DuckDB warehouse: AWS's
H100 and Trainium1 prices of one day, and a euro rate eleven days older than them, loaded
through the ECB source's parser."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import chipcost
from chipcost.core.errors import ChipcostError
from tests.cli.test_missing_rate import load_usd_rate
from tests.cli_runner import chipcost as run_cli
from tests.helpers import day, record, run_by_provider
from tests.warehouses import of_runs

TRAINIUM1 = record(
    instance_type="trn1.32xlarge", chip="Trainium1", chip_count=16.0, price_per_hour=20.0
)
H100_SPOT = record(pricing_model="spot", price_per_hour=30.0, sku="spot-p5")
MODEL = ("--model", "llama-3-8b", "--workload", "inference")


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    """Prices of 2026-11-01 and the only euro rate on 2026-10-20: no price can be shown in euros."""
    run = run_by_provider({"aws": [record(), TRAINIUM1, H100_SPOT]}, day(0))
    path = of_runs(tmp_path_factory.mktemp("asked") / "w.duckdb", [run])
    load_usd_rate(path, "2026-10-20", 1.1)
    return path


def cli(db: Path, *args: str) -> str:
    """The command's one-line refusal (stderr), after checking it refused."""
    ran = run_cli(*args, "--db", str(db), env={**os.environ, "CHIPCOST_DISCOUNTS": ""})
    assert ran.returncode != 0 and "Traceback" not in ran.stderr, ran.stderr
    return ran.stderr


def api(call) -> str:
    with pytest.raises(ChipcostError) as raised:
        call()
    return str(raised.value)


NO_RATE = "no ECB reference rate for EUR on 2026-11-01"
# Each read asked for euros it cannot show: (the command line, the same through the API).
IN_EUROS = {
    "prices": (("prices", "--currency", "EUR"), lambda db: chipcost.prices(currency="EUR", db=db)),
    "cost": (
        ("cost", *MODEL, "--currency", "EUR"),
        lambda db: chipcost.cost("llama-3-8b", "inference", currency="EUR", db=db),
    ),
    "compare": (
        ("compare", "Trainium1", "H100-SXM", *MODEL, "--currency", "EUR"),
        lambda db: chipcost.compare(
            "Trainium1", "H100-SXM", "llama-3-8b", "inference", currency="EUR", db=db
        ),
    ),
    "history": (
        ("history", "--chip", "H100-SXM", "--currency", "EUR"),
        lambda db: chipcost.history("H100-SXM", currency="EUR", db=db),
    ),
    "index": (
        ("index", "--chip", "H100-SXM", "--currency", "EUR"),
        lambda db: chipcost.index("H100-SXM", currency="EUR", db=db),
    ),
}


@pytest.mark.parametrize("read", sorted(IN_EUROS))
def test_a_currency_without_a_rate_names_the_option_as_each_asker_spells_it(db, read):
    args, call = IN_EUROS[read]
    said, returned = cli(db, *args), api(lambda: call(db))
    assert NO_RATE in said and NO_RATE in returned
    assert said.rstrip().endswith("or show US dollars (--currency USD)"), said
    assert returned.endswith("or show US dollars (currency=USD)"), returned
    assert "--currency" not in returned


def test_filters_that_leave_no_offer_are_named_as_each_asker_spells_them(db):
    said = cli(db, "cost", *MODEL, "--chip", "Trainium1", "--pricing-model", "spot")
    returned = api(
        lambda: chipcost.cost(
            "llama-3-8b", "inference", chip="Trainium1", pricing_model="spot", db=db
        )
    )
    assert "widen --region/--pricing-model/--provider" in said
    assert returned.endswith("widen region=/pricing_model=/provider=")


def test_chips_sharing_no_pricing_model_are_widened_in_each_askers_words(db):
    said = cli(db, "compare", "Trainium1", "H100-SXM", *MODEL, "--pricing-model", "spot")
    returned = api(
        lambda: chipcost.compare(
            "Trainium1", "H100-SXM", "llama-3-8b", "inference", pricing_model="spot", db=db
        )
    )
    assert "share no pricing model under these filters" in said
    assert "share no pricing model under these filters" in returned
    assert said.rstrip().endswith("widen --provider/--region/--pricing-model")
    assert returned.endswith("widen provider=/region=/pricing_model=")


@pytest.mark.parametrize("read", ["cost", "compare"])
def test_a_speed_no_figure_reaches_asks_for_a_lower_one_in_each_askers_words(db, read):
    if read == "cost":
        said = cli(db, "cost", *MODEL, "--chip", "H100-SXM", "--speed", "50000")
        returned = api(
            lambda: chipcost.cost("llama-3-8b", "inference", chip="H100-SXM", speed=50000, db=db)
        )
    else:
        said = cli(db, "compare", "Trainium1", "H100-SXM", *MODEL, "--speed", "50000")
        returned = api(
            lambda: chipcost.compare(
                "Trainium1", "H100-SXM", "llama-3-8b", "inference", speed=50000, db=db
            )
        )
    assert "reaches 50000 tokens/s per user: ask a lower speed (--speed)" in said
    assert returned.endswith("reaches 50000 tokens/s per user: ask a lower speed (speed=)")


def test_a_missing_warehouse_is_named_as_each_asker_gave_it(tmp_path):
    missing = tmp_path / "none.duckdb"
    ran = run_cli("prices", "--db", str(missing), env={**os.environ, "CHIPCOST_DISCOUNTS": ""})
    returned = api(lambda: chipcost.prices(db=missing))
    assert "or pass --db (or set CHIPCOST_DB)" in ran.stderr
    assert "or pass db= (or set CHIPCOST_DB)" in returned
