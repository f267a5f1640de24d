"""What chipcost prints it takes back: every spelling of a pricing model that a read's table
shows (a header of `history`, a cell of `prices`, a legend, `prices --by provider`'s columns) is
taken as `--pricing-model` without a note, and every payment and term it shows is the record's
code or its one label, on the sample replayed into a real warehouse."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chipcost.core.vocabulary import PAYMENTS, PRICING_MODELS, TERMS
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
        code = spelling.lower().replace(" ", "_").replace("-", "_")
        assert f"pricing model {code}" in done.stdout or f" {code} " in done.stdout, spelling


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
