"""The reads that scan every offer to keep a few (the cuts of `cost`, of the report's cost per
token and of its head-to-head answers) hold DuckDB's memory to reader.CUT_MEMORY, spilling
beyond it, then return to the read limit; one that does not fit even so is run again within
the read limit. Real DuckDB warehouses, the read connections chipcost opens."""

from __future__ import annotations

import duckdb
import pytest

from chipcost.core.sql_limits import SqlLimits, size_in_bytes
from chipcost.warehouse import reader
from chipcost.warehouse.cost_per_token import Point, cost_rows
from chipcost.warehouse.reader import in_working_memory, open_reader, working_memory
from chipcost.warehouse.snapshot import cheapest_cost_per_token
from tests.helpers import day, record, run_of
from tests.warehouses import of_runs

CHIPS = (("H100-SXM", 8), ("H200", 8), ("A100-80GB", 8), ("L4", 4))
ALIKE = ("chip", "pricing_model", "term", "provider", "chip_count")


def _limit(con: duckdb.DuckDBPyConnection) -> int:
    (said,) = con.execute("SELECT current_setting('memory_limit')").fetchone()
    return size_in_bytes(said.replace(" ", ""))


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    offers = [
        record(
            chip=chip,
            chip_count=float(count),
            instance_type=f"{chip.lower()}.{count}x",
            region=f"region-{n}",
            price_per_hour=round(count * (1.5 + n / 100), 4),
            sku=f"{chip}-{n}",
        )  # fmt: skip
        for chip, count in CHIPS
        for n in range(40)
    ]
    return of_runs(tmp_path_factory.mktemp("memory") / "w.duckdb", [run_of(offers, day(0))])


def test_the_memory_is_lowered_within_the_block_and_returned_after(db):
    con = open_reader(db, limits=SqlLimits(memory="2GB"))
    try:
        before = _limit(con)
        with working_memory(con, "128MB") as lowered:
            within = _limit(con)
        assert lowered and within < 130 * 10**6 < before == _limit(con)
    finally:
        con.close()


def test_a_read_limit_below_the_bound_and_a_connection_no_read_opened_are_left_alone(db):
    con = open_reader(db, limits=SqlLimits(memory="64MB"))
    try:
        with working_memory(con, "128MB") as lowered:
            assert not lowered and _limit(con) < 70 * 10**6
    finally:
        con.close()
    plain = duckdb.connect()
    try:
        before = _limit(plain)
        with working_memory(plain, "128MB") as lowered:
            assert not lowered and _limit(plain) == before
    finally:
        plain.close()


def test_a_cut_that_does_not_fit_the_bound_is_read_again_within_the_read_limit(db):
    con = open_reader(db, limits=SqlLimits(memory="2GB"))
    limits: list[int] = []
    try:

        def read() -> int:
            limits.append(_limit(con))
            if len(limits) == 1:  # as DuckDB says when a read outgrows its memory
                raise duckdb.OutOfMemoryException("could not allocate block of size 256.0 KiB")
            return 1

        assert in_working_memory(con, read) == 1
        assert limits[0] <= size_in_bytes(reader.CUT_MEMORY) < limits[1] == _limit(con)
    finally:
        con.close()


def test_the_cuts_read_the_same_rows_in_bounded_memory_and_within_the_read_limit(db, monkeypatch):
    def reads() -> tuple[list, object]:
        con = open_reader(db, limits=SqlLimits(memory="2GB"))
        try:
            rows = cost_rows(
                con, "llama-3-70b", "inference", all_offers=True, cheapest_of=ALIKE,
                point=Point("max"),
            )  # fmt: skip
            return rows, cheapest_cost_per_token(con)
        finally:
            con.close()

    bounded = reads()
    monkeypatch.setattr(reader, "CUT_MEMORY", "4GB")  # above the read limit: not lowered
    unbounded = reads()
    assert bounded[0] and bounded[0] == unbounded[0]
    assert bounded[1] is not None and bounded[1].equals(unbounded[1])
    assert len(bounded[0]) < 40  # of 160 offers, the cheapest of each chip's
