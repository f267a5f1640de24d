"""`index`'s notes under its table name the providers behind its marks as the index's query
gives them (warehouse/price_index.py MARK_PROVIDERS: `doubtful_providers`,
`gpu_alone_providers`), not read back out of the printed constituents ('lium 0.5600'), as
they were on 710db2b4; the lists name what the printed columns name, and no output writes
them (csv and json: tests/cli/test_index_marks.py). The bundled sample replayed: lium's
RTX-5090 spot offer is doubtful, daytona's and modal's prices are the GPU's alone."""

from __future__ import annotations

from datetime import date

import polars as pl
import pytest

import chipcost
from chipcost.cli.commands.price_index import mark_notes
from chipcost.reads.price_index import IndexAsk, find_index
from chipcost.warehouse.db import connect
from chipcost.warehouse.price_index import MARK_COLUMNS, MARK_PROVIDERS
from tests import warehouses


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    return str(warehouses.sample(tmp_path_factory.mktemp("index_providers") / "s.duckdb"))


@pytest.fixture(scope="module")
def frame(db) -> pl.DataFrame:
    """The index's rows of the sample's last day, on demand and spot, as `index` reads them."""
    with connect(db, read_only=True) as con:
        return find_index(con, IndexAsk(buckets=["on_demand", "spot"], since=date(2026, 11, 21)))


def test_the_lists_name_the_providers_the_printed_marks_name(frame):
    for printed, listed in zip(MARK_COLUMNS, MARK_PROVIDERS, strict=True):
        for said, providers in frame.select(printed, listed).iter_rows():
            named = [part.rsplit(" ", 1)[0] for part in said.split("; ")] if said else None
            assert (providers or None) == named, (printed, said, providers)
    (rtx,) = frame.filter(chip="RTX-5090", pricing_model="spot").iter_rows(named=True)
    assert (rtx["doubtful_providers"], rtx["gpu_alone_providers"]) == (["lium"], ["daytona"])
    (b200,) = frame.filter(chip="B200", pricing_model="on_demand").iter_rows(named=True)
    assert b200["gpu_alone_providers"] == ["modal", "daytona"]  # by price, as `gpu_alone`


def test_the_notes_name_the_providers_the_query_gives_not_its_printed_text(frame):
    said = mark_notes(frame)
    assert any(note.endswith("`doubtful`): lium (RTX-5090 spot)") for note in said), said
    alone = next(note for note in said if note.startswith("(GPU alone) = "))
    assert "daytona (" in alone and "modal (" in alone
    # The printed constituents are not read back: renamed, the notes are the same.
    renamed = frame.with_columns(pl.col(MARK_COLUMNS).str.replace_all(r"[^; ]+ ", "someone "))
    assert mark_notes(renamed) == said


def test_python_gets_the_columns_the_command_line_writes(db):
    got = chipcost.index(db=db, pricing_model="spot", since="2026-11-21")
    assert got.columns[-3:] == ["sample", *MARK_COLUMNS]
    assert not set(MARK_PROVIDERS) & set(got.columns)
