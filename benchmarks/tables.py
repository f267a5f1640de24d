"""CPU time to lay out and print the `prices` table of a warehouse (its first 200 rows): the
one table writer (chipcost.cli.fit lays out, chipcost.cli.consoles prints) against rich's
Table of the same cells and columns. Then `chipcost throughput list` (every figure, 4,740
lines at 80 columns, most rows folded onto a second line) as a whole process, against another
install's (`--baseline`: its `chipcost` program).

    python -m benchmarks.tables --db FILE [--baseline OTHER/.venv/bin/chipcost]

Each at 80 and at 120 columns (`--widths`).
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from chipcost.cli import fit
from chipcost.cli.commands import prices as shown
from chipcost.cli.consoles import Screen, print_fitted
from chipcost.core.asks import PRICES
from chipcost.core.settings import load_settings
from chipcost.reads.price_ask import PriceAsk
from chipcost.reads.prices import find_price_rows
from chipcost.reads.your_prices import for_read
from chipcost.warehouse.reader import read_connection


def _cells(db: Path) -> tuple[list[fit.Column], list[dict]]:
    settings = load_settings(db=db)
    con = read_connection(settings)
    try:
        ask = PriceAsk.of(PRICES.given({}))
        mine = for_read(con, "USD", False)
        rows = find_price_rows(con, ask, stale_days=settings.stale_days, mine=mine).rows[:200]
    finally:
        con.close()
    same = shown.constants(rows)
    return shown._columns(rows, same), shown._shown(rows, same, "hour")


def _writer(columns: list[fit.Column], cells: list[dict], width: int) -> None:
    screen = Screen(io.StringIO(), width)
    print_fitted(screen, fit.fit_table(screen, columns, cells, keep_order=shown.keep_order()))


def _rich(columns: list[fit.Column], cells: list[dict], width: int) -> None:
    console = Console(file=io.StringIO(), width=width, emoji=False)
    fitted = fit.fit_table(console, columns, cells, keep_order=shown.keep_order())
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    kept = [c for c in columns if c.header not in fitted.dropped]
    for column in kept:
        table.add_column(column.header, justify="right" if column.numeric else "left")
    for cell in cells:
        table.add_row(*(Text.assemble(*fit._spans(cell[c.key])) for c in kept))
    console.print(table)


def _cpu(draw: Callable[[], None], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        begin = time.process_time()
        draw()
        times.append(time.process_time() - begin)
    return statistics.median(times)


def _listing(program: str, db: Path, width: int) -> float:
    """CPU seconds of one `chipcost throughput list` process at `width` columns."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        [program, "--db", str(db), "throughput", "list"],
        env={**os.environ, "COLUMNS": str(width)},
        stdout=subprocess.DEVNULL,
        check=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--baseline", help="another install's chipcost program")
    parser.add_argument("--widths", type=int, nargs="+", default=[80, 120], help="columns")
    args = parser.parse_args()
    columns, cells = _cells(args.db)
    for width in args.widths:
        for name, draw in (("writer", _writer), ("rich Table", _rich)):
            seconds = _cpu(lambda d=draw, w=width: d(columns, cells, w), args.repeat)
            print(f"{name:10}  {width} columns  {1000 * seconds:6.1f} ms CPU (median)")
    programs = {"chipcost": str(Path(sys.executable).with_name("chipcost"))}
    if args.baseline:
        programs["baseline"] = args.baseline
    for width in args.widths:
        seconds = {name: [] for name in programs}
        for _ in range(args.repeat):  # alternated, so both see the machine's same minutes
            for name, program in programs.items():
                seconds[name].append(_listing(program, args.db, width))
        for name, taken in seconds.items():
            median = statistics.median(taken)
            print(f"throughput list  {name:8}  {width} columns  {median:6.2f} s CPU (median)")


if __name__ == "__main__":
    main()
