"""A row's line is read first: on the whole replayed sample, at 80 to 150 columns, it holds the
price the table is read by, and a secondary column (the instance's price, the chip count, a
figure's range) is on it only where every essential column is too, never in the room one left.

On c96d2408 `COLUMNS=80 prices --chip H100-SXM` showed voltagepark's row (a zone that is a
36-character UUID) as `voltagepark global a3111bd4-...  15.9200`, the per-chip 1.9900 two
lines under it, beside runpod's 1.92 on its row's line."""

from __future__ import annotations

import json

import pytest

from chipcost.cli import fit
from chipcost.cli.commands import admin, compare, cost, history, prices, prices_glance, throughput
from tests import warehouses
from tests.cli.test_read_commands import chipcost

WIDTHS = (80, 90, 100, 120, 150)
ASKED = ("--model", "llama-3-70b", "--workload", "inference")
UUID_ZONE = "a3111bd4-550a-47d0-838a-0a52bff2ae3f"


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    # every sample run: voltagepark's UUID zone is among its offers
    return str(warehouses.sample(tmp_path_factory.mktemp("first") / "w.duckdb"))


def _first_lines(lines: list[str], starts: str) -> list[str]:
    """The lines of rows that start with `starts` (each row's own line, not one folded)."""
    rule = next(i for i, line in enumerate(lines) if line.startswith("───"))
    return [line for line in lines[rule + 1 :] if line.startswith(starts)]


@pytest.mark.parametrize("width", WIDTHS)
def test_a_row_with_a_uuid_zone_keeps_its_per_chip_price_on_its_line(db, width):
    args = ("prices", "--chip", "H100-SXM")
    rows = json.loads(chipcost(*args, "--format", "json", "--db", db).stdout)
    uuid_rows = [r for r in rows if r["zone"] == UUID_ZONE]
    assert uuid_rows  # the sample's case, else the test proves nothing
    done = chipcost(*args, "--db", db, columns=width)
    assert done.returncode == 0, done.stderr
    firsts = _first_lines(done.stdout.splitlines(), f"voltagepark global {UUID_ZONE}")
    assert len(firsts) == len(uuid_rows), done.stdout[:2000]
    per_chip = {f"{r['price_per_chip_hour']:,.4f}" for r in uuid_rows}
    per_instance = {f"{r['price_per_hour']:,.4f}" for r in uuid_rows} - per_chip
    for line in firsts:
        said = set(line.split())
        assert said & per_chip, line  # the price the table is ranked by, on the row's line
        assert not said & per_instance or said & per_chip, line


READS = [
    ("prices", "--chip", "H100-SXM"),
    ("prices", "--by", "offer"),
    ("prices",),
    ("prices", "--by", "provider"),
    ("history", "--chip", "H100-SXM"),
    ("cost", *ASKED),
    ("compare", "B200", "H100-SXM", *ASKED),
    ("sources",),
    ("throughput", "list"),
]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("args", READS, ids=" ".join)
def test_no_rows_line_gives_a_secondary_column_the_room_of_an_essential_one(
    db, args, width, monkeypatch
):
    tables: list[tuple[list[fit.Column], list[dict], fit.Fitted]] = []

    def spied(console, columns, rows, **kw):
        fitted = fit.fit_table(console, columns, rows, **kw)
        tables.append((list(columns), list(rows), fitted))
        return fitted

    for module in (admin, compare, cost, history, prices, prices_glance, throughput):
        monkeypatch.setattr(module, "fit_table", spied)
    done = chipcost(*args, "--db", db, columns=width)
    assert done.returncode == 0, done.stderr
    assert tables, done.stdout[:600]
    for columns, rows, fitted in tables:
        valued = {c.key for c in columns if any(_text(r[c.key]).strip() for r in rows)}
        on_line = set(fitted.first)
        for column in columns:
            if column.primary and column.key in valued:
                assert column.key in on_line, fitted.text()[:1500]
        folded = [c.header for c in columns if c.essential and c.key in valued - on_line]
        ahead = [
            c.header
            for c in columns
            if not (c.essential or c.primary or c.detail) and c.key in on_line
        ]
        assert not (folded and ahead), (folded, ahead, fitted.text()[:1500])
    if args[0] in ("prices", "cost"):  # the tables these commands rank by a price name it
        assert any(c.primary for columns, _, _ in tables for c in columns)


def _text(cell: fit.Cell) -> str:
    if isinstance(cell, str):
        return cell
    if isinstance(cell, fit.Styled):
        return cell.text
    return "".join(_text(piece) for piece in cell)
