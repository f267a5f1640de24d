"""per_chip_hour: the one per-chip division of the warehouse, a macro of the file itself."""

from __future__ import annotations

import re

from chipcost.warehouse.db import connect
from chipcost.warehouse.load import load_run
from tests.helpers import day, record, run_of
from tests.paths import PRODUCT, ROOT

# A price (per hour, old, new) divided by a chip count, however guarded.
DIVISION = re.compile(r"price_per_hour\s*/\s*(?:\w+\()?[\w.]*chip_count")


def test_a_reader_of_the_file_divides_with_the_macro_the_writer_created(tmp_path):
    path = tmp_path / "w.duckdb"
    con = connect(path)
    try:
        load_run(con, run_of([record(chip_count=8.0, price_per_hour=55.04)], day(0)))
    finally:
        con.close()
    reader = connect(path, read_only=True)
    try:
        [(in_view, by_hand)] = reader.execute(
            "SELECT v.price_per_chip_hour, per_chip_hour(h.price_per_hour, h.chip_count) "
            "FROM per_chip_prices v, price_history h"
        ).fetchall()
        [(none_for_no_chips,)] = reader.execute("SELECT per_chip_hour(55.04, 0)").fetchall()
    finally:
        reader.close()
    assert in_view == by_hand == 55.04 / 8
    assert none_for_no_chips is None


def test_the_per_chip_view_keeps_every_column_of_current_prices(tmp_path):
    """per_chip_prices is current_prices per chip-hour: its currency too (the stated one alone,
    EUR beside a converted price, read as a price in euros) and the source's URL."""
    path = tmp_path / "w.duckdb"
    con = connect(path)
    try:
        load_run(con, run_of([record(chip_count=8.0, price_per_hour=55.04)], day(0)))
        current = {d[0] for d in con.execute("FROM current_prices LIMIT 0").description}
        per_chip = {d[0] for d in con.execute("FROM per_chip_prices LIMIT 0").description}
        [(currency, url)] = con.execute(
            "SELECT currency, source_url FROM per_chip_prices"
        ).fetchall()
    finally:
        con.close()
    assert current - per_chip == set()
    assert (currency, url) == ("USD", record().source_url)


def test_no_other_code_divides_a_price_by_its_chips():
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for package in PRODUCT
        for path in sorted((ROOT / package).rglob("*"))
        if path.suffix in (".py", ".sql") and path.name != "00_per_chip_hour.sql"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if DIVISION.search(line)
    ]
    assert found == [], "use per_chip_hour (warehouse/views/00_per_chip_hour.sql)"
