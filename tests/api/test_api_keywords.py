"""The API's keywords checked at its edge, on the golden warehouse: an iterable is read once,
as polars takes one, and filters; a value of a type no read takes, an empty list, an endless
iterator, a number past a float or text Unicode cannot hold is refused naming the keyword; a
read that timed out leaves no limit on the next; docs/api.md's headings list every keyword."""

from __future__ import annotations

import inspect
import itertools
import re
import time
from pathlib import Path

import duckdb
import pytest

import chipcost
from chipcost import api
from chipcost.core.errors import ChipcostError, UsageError
from chipcost.core.sql_limits import SqlLimits
from chipcost.warehouse.reader import open_reader

LLAMA = ("llama-3-70b", "inference")


@pytest.mark.parametrize(
    "once",
    [
        lambda: iter(["H100"]),
        lambda: (name for name in ["H100"]),
        lambda: {"H100"},
        lambda: dict.fromkeys(["H100"]).keys(),
    ],
    ids=["iterator", "generator", "set", "keys"],
)
def test_an_iterable_is_read_once_and_filters(golden, once):
    listed = chipcost.prices(chip=["H100"], db=golden)
    every = chipcost.prices(db=golden)
    assert 0 < len(listed) < len(every)
    assert chipcost.prices(chip=once(), db=golden).equals(listed)


def test_an_iterable_of_chip_counts_and_regions_filters(golden):
    eights = chipcost.prices(chip_count=iter([8]), db=golden)
    assert len(eights) and set(eights["chip_count"]) == {8}
    region = chipcost.prices(region=iter(["us-east-1"]), db=golden)
    assert len(region) and set(region["region"]) == {"us-east-1"}


@pytest.mark.parametrize(
    ("call", "said"),
    [
        (lambda db: chipcost.prices(chip=iter([]), db=db), "chip=[]: give a name"),
        (lambda db: chipcost.prices(chip=itertools.count(), db=db), "chip: more than 10,000"),
        (lambda db: chipcost.prices(currency=5, db=db), "currency=5: give a currency code"),
        (lambda db: chipcost.prices(currency=["EUR"], db=db), "currency=['EUR']: give text"),
        (lambda db: chipcost.prices(max_price=10**400, db=db), "max_price=1000"),
        (lambda db: chipcost.prices(min_memory=10**400, db=db), "too large; give a finite"),
        (lambda db: chipcost.prices(region="\udce9", db=db), "region: '\\\\udce9' is not UTF-8"),
        (lambda db: chipcost.prices(chip=["H100", "\ud800"], db=db), "chip: '\\\\ud800' is not"),
        (lambda db: chipcost.cost(*LLAMA, tokens=[1], db=db), "tokens=[1]: give a number or"),
        (lambda db: chipcost.cost(*LLAMA, tokens=10**400, db=db), "tokens=1000"),
        (lambda db: chipcost.cost(*LLAMA, migration_cost={"a": 1}, db=db), "migration_cost="),
        (lambda db: chipcost.cost(*LLAMA, max_instances=10**400, db=db), "max_instances=1000"),
        (lambda db: chipcost.index(pricing_model=5, db=db), "pricing model 5: give a name"),
        (lambda db: chipcost.sources(db=5), "db=5: give text or a path"),
    ],
    ids=lambda v: "" if callable(v) else v[:24],
)
def test_a_keyword_that_cannot_be_is_refused_naming_it(golden, call, said):
    with pytest.raises(UsageError) as refused:
        call(golden)
    assert said in str(refused.value), str(refused.value)


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ({"chip": []}, "chip=[]: give a name, a comma list or a non-empty list of names"),
        ({"region": []}, "region=[]: give a name"),
        ({"list_prices": "no"}, "list_prices='no': give True or False"),
        ({"min_memory": "lots"}, "min_memory='lots': give a number"),
        ({"chip": 5}, "chip name 5: give a name"),
    ],
)
def test_api_keywords_of_the_wrong_type_are_refused_naming_them(golden, given, said):
    with pytest.raises(UsageError, match=said.replace("[", r"\[").replace("]", r"\]")):
        chipcost.prices(db=golden, **given)


@pytest.mark.parametrize(
    ("keywords", "said"),
    [
        # On 2487f4c: TypeError "'PosixPath' object is not iterable" from deep inside; bytes
        # read as their byte values (b"\x08" as 8 chips); 0 and False as US dollars.
        ({"chip_count": Path("/tmp")}, "chip_count=PosixPath('/tmp'): give the chips per"),
        ({"chip_count": b"\x08"}, "chip_count=b'\\x08': give the chips per instance"),
        ({"chip_count": [8, True]}, "chip_count=[8, True]: give the chips per instance"),
        ({"currency": 0}, "currency=0: give a currency code"),
        ({"currency": False}, "currency=False: give a currency code"),
    ],
)
def test_the_api_names_the_keyword_of_a_value_of_the_wrong_type(golden, keywords, said):
    with pytest.raises(UsageError) as refused:
        api.prices(db=golden, **keywords)
    assert said in str(refused.value)


@pytest.mark.parametrize("query", [None, 5, b"SELECT 1"])
def test_the_apis_sql_takes_its_query_as_text(golden, query):
    """On 2487f4c sql(None) and sql(5) were DuckDB's "incompatible function arguments"."""
    with pytest.raises(UsageError, match="query=.*: give (the query as )?text"):
        api.sql(query, db=golden)


def test_a_read_through_the_api_still_runs_after_a_read_timed_out(golden):
    con = open_reader(golden, limits=SqlLimits(timeout=0.05))
    time.sleep(0.1)
    con.close()
    with pytest.raises(duckdb.ConnectionException):
        con.execute("SELECT 1")
    # the stale limit of the closed read does not stop the next one's did-you-mean
    with pytest.raises(ChipcostError, match="did you mean"):
        chipcost.prices(instance="p5.48xlarg", db=golden)


def test_docs_api_names_every_keyword_each_read_takes():
    """Each `## \\`name(...)\\`` heading of docs/api.md lists the keywords the function takes,
    in its order, but for the old names it still takes with a warning."""
    from chipcost.core import asks
    from tests.paths import ROOT

    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    headings = dict(re.findall(r"^## `(\w+)\(([^)]*)\)`", text, flags=re.M))
    assert {"prices", "cost", "compare", "index", "history", "sources", "sql"} <= set(headings)
    for name, listed in headings.items():
        declared = getattr(asks, name, None)
        old = (
            {f.name for f in asks.Question.of(declared).fields if f.same_as} if declared else set()
        )
        takes = [p for p in inspect.signature(getattr(chipcost, name)).parameters if p not in old]
        said = [part.split("=")[0].strip() for part in listed.split(",")]
        assert [p for p in said if p != "*"] == takes, name


@pytest.mark.parametrize("keyword", ["provider", "region"])
def test_index_given_a_filter_other_reads_take_says_why_it_takes_none(golden, keyword):
    """As `chipcost index --provider` says it: the level is the median of every provider's
    cheapest price (it was Python's bare "unexpected keyword argument")."""
    with pytest.raises(TypeError) as refused:
        chipcost.index(**{keyword: "aws"}, db=golden)
    said = str(refused.value)
    assert said.startswith(f"index() got an unexpected keyword argument '{keyword}': its level")
    assert "median of every provider's cheapest price" in said
    with pytest.raises(TypeError) as unknown:  # a keyword no read takes: Python's words alone
        chipcost.index(bogus=1, db=golden)
    assert str(unknown.value) == "index() got an unexpected keyword argument 'bogus'"
