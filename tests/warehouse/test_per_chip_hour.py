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
