"""The record's vocabulary is declared once (core/vocabulary.py) and everything else reads it:
a pricing model added in one place only fails here."""

from __future__ import annotations

import ast
from pathlib import Path

import duckdb
import pytest

from chipcost.core.vocabulary import (
    BUCKET_LABELS,
    BUCKET_ORDER,
    COMMITMENT_BUCKETS,
    MODEL_COLOURS,
    MODEL_LABELS,
    PRICING_MODEL_TABLE,
    PRICING_MODELS,
    TERMS,
    bucket_sql,
)
from chipcost.reports.digest import EMAIL_BUCKETS
from tests.paths import PRODUCT, ROOT

# The code folders (tests excepted: they may name models to check them).
CODE = PRODUCT
VOCABULARY = ROOT / "core" / "vocabulary.py"


def test_every_pricing_model_has_its_label_colour_and_report_bucket():
    for model in PRICING_MODEL_TABLE:
        assert MODEL_LABELS[model.code] and MODEL_COLOURS[model.code].startswith("#")
        if model.commits:
            assert set(COMMITMENT_BUCKETS) <= set(BUCKET_ORDER)
        else:
            assert model.code in BUCKET_ORDER, f"put {model.code} in BUCKET_ORDER"
    own = {m.code for m in PRICING_MODEL_TABLE if not m.commits}
    assert set(BUCKET_ORDER) == own | set(COMMITMENT_BUCKETS)
    assert list(BUCKET_LABELS) == list(BUCKET_ORDER)
    assert set(EMAIL_BUCKETS) <= set(BUCKET_ORDER)


@pytest.mark.parametrize("model", PRICING_MODELS)
@pytest.mark.parametrize("term", ["none", "1mo", "1yr", "3yr", "7d"])
def test_the_report_bucket_in_sql_follows_the_table(model, term):
    [(bucket,)] = duckdb.sql(
        f"SELECT {bucket_sql()} FROM (SELECT '{model}' AS pricing_model, '{term}' AS term)"
    ).fetchall()
    commits = next(m.commits for m in PRICING_MODEL_TABLE if m.code == model)
    if not commits:
        assert bucket == model
    else:
        assert bucket == (f"commit_{term}" if term in ("1yr", "3yr") else "commit_other")


def spelled_lists(text: str) -> list[str]:
    """Literal tuples, lists, sets and dict keys naming three or more pricing models."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            items = node.elts
        elif isinstance(node, ast.Dict):
            items = [k for k in node.keys if k is not None]
        else:
            continue
        named = {i.value for i in items if isinstance(i, ast.Constant)} & set(PRICING_MODELS)
        if len(named) >= 3:
            found.append(f"line {node.lineno}: {sorted(named)}")
    return found


def test_no_module_lists_the_pricing_models_again():
    modules = [p for folder in CODE for p in (ROOT / folder).rglob("*.py") if p != VOCABULARY]
    assert len(modules) > 100
    again = {
        str(p.relative_to(ROOT)): found
        for p in modules
        if (found := spelled_lists(p.read_text(encoding="utf-8")))
    }
    assert not again, f"read them from core/vocabulary.py instead: {again}"


def test_the_check_sees_a_list_spelled_out():
    assert spelled_lists("ORDER = ('on_demand', 'spot', 'reserved')")
    assert spelled_lists("LABELS = {'on_demand': 'a', 'spot': 'b', 'commitment': 'c'}")
    assert not spelled_lists("PLANS = {'on_demand': 'default', 'spot': 'interruptible'}")


def test_terms_and_the_term_pattern_agree():
    import re

    from chipcost.core.vocabulary import TERM_PATTERN

    assert all(re.match(TERM_PATTERN, term) for term in TERMS)
    assert re.match(TERM_PATTERN, "14d") and not re.match(TERM_PATTERN, "2w")


def test_the_sql_views_list_no_pricing_models():
    views = list((ROOT / "warehouse" / "views").glob("*.sql"))
    for view in views:
        text = Path(view).read_text(encoding="utf-8")
        named = [m for m in PRICING_MODELS if f"'{m}'" in text]
        assert len(named) < 3, f"{view.name} lists {named}: derive it from core/vocabulary.py"


# The DuckDB type each kind of record column has in the warehouse.
_DUCKDB = {"timestamp": "TIMESTAMP WITH TIME ZONE", "text": "VARCHAR", "number": "DOUBLE"}


def test_the_record_columns_are_declared_once(tmp_path):
    """PriceRecord's fields are the columns: the frame schema and the loader read them, and
    the observations table the migrations made (history, not rewritten) holds each, in order
    and of its kind; a record the loader writes comes back whole."""
    from chipcost.core.frames import RECORD_SCHEMA
    from chipcost.core.record import RECORD_COLUMNS
    from chipcost.warehouse.db import connect
    from chipcost.warehouse.load import load_run
    from tests.helpers import day, record, run_of

    names = [name for name, _ in RECORD_COLUMNS]
    assert list(RECORD_SCHEMA) == names
    sent = record(extra={"note": "x"}, vcpus=192.0, upfront=1.5)
    con = connect(tmp_path / "w.duckdb")
    try:
        load_run(con, run_of([sent], day(0)))
        table = [(r[0], r[1]) for r in con.execute("DESCRIBE observations").fetchall()]
        [back] = con.execute(f"SELECT {', '.join(names)} FROM observations").fetchall()
    finally:
        con.close()
    assert table == [("run_id", "VARCHAR")] + [
        (name, _DUCKDB.get(kind, "VARCHAR")) for name, kind in RECORD_COLUMNS
    ]
    came = dict(zip(names, back, strict=True))
    assert came.pop("extra") == '{"note": "x"}' and came.pop("observed_at") == sent.observed_at
    assert all(came[name] == getattr(sent, name) for name in came), came


def test_the_choice_rule_view_ranks_the_kinds_of_core_figures(tmp_path):
    """The view's kind order is written in from core/figures.py KINDS when the views are
    created: no view file spells the kinds, and the created view holds them in that order."""
    from chipcost.core.figures import KINDS
    from chipcost.warehouse.db import connect

    for view in (ROOT / "warehouse" / "views").glob("*.sql"):
        text = view.read_text(encoding="utf-8")
        assert sum(f"'{k}'" in text for k in KINDS) < 3, f"{view.name}: use {{{{figure_kinds}}}}"
    con = connect(tmp_path / "w.duckdb")
    try:
        # the views, and the table macros they stand on (throughput_at: the choice rule)
        sql = con.execute(
            "SELECT string_agg(sql, ' ') FROM duckdb_views() WHERE NOT internal"
        ).fetchall()[0][0]
        sql += " ".join(
            str(definition)
            for (definition,) in con.execute(
                "SELECT macro_definition FROM duckdb_functions() "
                "WHERE function_type = 'table_macro' AND NOT internal"
            ).fetchall()
        )
    finally:
        con.close()
    assert "{{" not in sql
    assert "list_value(" + ", ".join(f"'{k}'" for k in KINDS) + ")" in sql
