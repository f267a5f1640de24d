"""docs/api.md's column tables name every column the frame has, and no other: each `| column |
meaning |` table under a function's heading, read against that function's frames on the
bundled sample replayed (with a currency and a discounts file too, for the columns only they
add). On c96d2408 `prices()` returned `interruption` and `spot_doubt` and `index()` `failing`
and `sample`, none of them in the page."""

from __future__ import annotations

import re
import warnings

import pytest

import chipcost
from tests import warehouses
from tests.paths import ROOT


def documented() -> dict[str, set[str]]:
    """Each function's columns as its section's column tables name them (the first cell)."""
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    tables: dict[str, set[str]] = {}
    for section in re.split(r"^## ", text, flags=re.M)[1:]:
        name = re.match(r"`(\w+)\(", section)
        for table in re.findall(r"^\| column \| meaning \|\n\| --- \| --- \|\n((?:\|.*\n)+)",
                                section, flags=re.M):  # fmt: skip
            assert name, section[:80]
            cells = [row.split(" | ")[0] for row in table.splitlines()]
            tables.setdefault(name[1], set()).update(
                c for cell in cells for c in re.findall(r"`(\w+)`", cell)
            )
    return tables


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> str:
    return str(warehouses.sample(tmp_path_factory.mktemp("columns") / "w.duckdb"))


def test_the_pages_column_tables_are_the_frames_columns(sample, tmp_path, monkeypatch):
    tables = documented()
    assert {"prices", "index", "sources"} <= set(tables)
    discounts = tmp_path / "discounts.toml"
    discounts.write_text('[[discount]]\nprovider = "aws"\npercent = 10\nlabel = "EDP"\n')
    frames: dict[str, list[list[str]]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a price left out for want of a rate: not the point
        for name in tables:
            read = getattr(chipcost, name)
            asked = [{"currency": "EUR"}] if name != "sources" else []
            frames[name] = [read(db=sample).columns, *(read(db=sample, **a).columns for a in asked)]
        monkeypatch.setenv("CHIPCOST_DISCOUNTS", str(discounts))
        frames["prices"].append(chipcost.prices(db=sample).columns)
    for name, columns in frames.items():
        for each in columns:
            assert set(each) <= tables[name], (name, sorted(set(each) - tables[name]))
        given = {c for each in columns for c in each}
        assert tables[name] <= given, (name, sorted(tables[name] - given))
