"""A read's question declared once (chipcost.core.questions) is every spelling of it.

A filter of `prices` changed in the declaration alone (min_memory declared again as
memory_at_least, the same query keyword) is at once a Typer option, a fast-start option, a
Python API keyword and the name its messages use; the old name is gone from all of them.
"""

from __future__ import annotations

import inspect

import pytest
import typer
import typer.testing

from chipcost import api
from chipcost.cli import declared, quick, reads
from chipcost.core.errors import ChipcostError
from chipcost.core.questions import PRICES, Field, Voice
from chipcost.pipeline import prices as pipeline_prices
from chipcost.pipeline.seed import open_warehouse
from chipcost.warehouse.load import load_run
from tests.helpers import day, record, run_of


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("declared") / "w.duckdb"
    con = open_warehouse(path)
    load_run(con, run_of([record()], day(0)))  # an H100-SXM: 80 GB a chip
    con.close()
    return str(path)


@pytest.fixture
def renamed(monkeypatch):
    """PRICES with min_memory declared as memory_at_least, and nothing else changed."""
    field = Field(
        "memory_at_least",
        "float",
        "At least this much memory per chip, GB.",
        query="min_memory_gb",
        check="number",
    )
    question = PRICES._replace(
        fields=tuple(field if f.name == "min_memory" else f for f in PRICES.fields)
    )
    monkeypatch.setattr(pipeline_prices, "PRICES", question)
    monkeypatch.setattr(reads, "PRICES", question)
    monkeypatch.setitem(quick.SPECS, "prices", quick._spec(question))
    return question


def test_the_declared_name_is_the_commands_option(renamed, db):
    app = typer.Typer()
    app.command(name="prices")(declared.command(renamed))
    app.command(name="other")(lambda: None)  # a group, so the command is named on the line
    runner = typer.testing.CliRunner()
    shown = runner.invoke(app, ["prices", "--help"], env={"COLUMNS": "200"})
    assert "--memory-at-least" in shown.output and "--min-memory" not in shown.output
    refused = runner.invoke(app, ["prices", "--memory-at-least", "-1", "--db", db])
    assert isinstance(refused.exception, ChipcostError)
    assert "--memory-at-least -1.0: give a finite number of 0 or more" in str(refused.exception)
    old = runner.invoke(app, ["prices", "--min-memory", "50", "--db", db])
    assert old.exit_code == 2 and "No such option" in old.output


def test_the_declared_name_is_the_fast_start_option(renamed):
    assert quick.parse("prices", ["--memory-at-least", "50"])["memory_at_least"] == 50.0
    assert quick.parse("prices", ["--min-memory", "50"]) is None  # left to Typer, which refuses


def test_the_declared_name_is_the_api_keyword_and_filters_the_query(renamed, db):
    prices = api._declared(renamed, api._prices)
    assert "memory_at_least" in inspect.signature(prices).parameters
    assert prices(memory_at_least=50, db=db)["chip"].to_list() == ["H100-SXM"]
    assert prices("H100-SXM", memory_at_least=100, db=db).is_empty()
    with pytest.raises(ChipcostError, match=r"memory_at_least=-1: give a finite number"):
        prices(memory_at_least=-1, db=db)
    with pytest.raises(TypeError):
        prices(min_memory=50, db=db)


def test_messages_spell_an_option_as_the_asker_did():
    assert Voice(PRICES).said("max_price", 3) == "--max-price 3"
    assert Voice(PRICES, api=True).said("max_price", 3) == "max_price=3"
    assert Voice(PRICES).said("spot", False) == "--no-spot"
    assert Voice(PRICES).name("db") == "--warehouse"
