"""The reads users wait for, timed on a warehouse: weekly drift, prices, cost per token
(`time_reads`, in process); and, as `python -m benchmarks.reads --db FILE`, each read command
as a whole process against its bare DuckDB query, without pandas and with it."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import duckdb

from chipcost.core.frames import frame_of
from chipcost.warehouse.db import connect
from chipcost.warehouse.prices import per_chip_prices

# The weekly report's window and the length of its sparklines.
WEEK = timedelta(days=7)
TREND = timedelta(weeks=8)
TARGET_SECONDS = 0.5


def _timed(query: Callable[[], object], repeat: int = 5) -> tuple[int, float, float]:
    """Rows, seconds of the first run, median seconds of `repeat` more."""
    begin = time.perf_counter()
    result = query()
    cold = time.perf_counter() - begin
    warm = []
    for _ in range(repeat):
        begin = time.perf_counter()
        query()
        warm.append(time.perf_counter() - begin)
    return len(result), cold, statistics.median(warm)


def _cost_query(con: duckdb.DuckDBPyConnection, path: Path) -> tuple[str, Callable[[], object]]:
    """`chipcost cost` for the model with the most throughput figures (its figures, then its
    offers priced by them, on a read-only connection of its own each time: a read ranks the
    figures once and keeps them for its later asks, warehouse/cost_per_token.py ranked_at,
    so a second read on the same connection would not rank them); else the raw view."""
    rows = con.execute(
        "SELECT model, workload FROM throughput GROUP BY ALL ORDER BY count(*) DESC LIMIT 1"
    ).fetchall()
    try:
        from chipcost.warehouse.cost_per_token import cost_rows, figures
    except ImportError:
        cost_rows = None
    if not rows or cost_rows is None:
        return "cost_per_token (whole view)", lambda: frame_of(con.sql("FROM cost_per_token"))
    model, workload = rows[0]

    def cost() -> list[dict[str, object]]:
        read = connect(path, read_only=True)
        try:
            figures(read, model, workload)
            return cost_rows(read, model, workload)
        finally:
            read.close()

    return f"chipcost cost --model {model} ({workload})", cost


def time_reads(path: Path, repeat: int = 5) -> list[tuple[str, int, float, float]]:
    """(label, rows, first run seconds, median warm seconds of `repeat` more) of each read,
    read-only.

    The week is the one before the newest run, as the weekly report reads it.
    """
    from chipcost.warehouse import changes

    con = connect(path, read_only=True)
    try:
        newest: datetime = con.execute("SELECT max(observed_at) FROM runs").fetchall()[0][0]
        end = newest + timedelta(hours=1)
        start = end - WEEK
        cost_label, cost = _cost_query(con, path)
        reads: list[tuple[str, Callable[[], object]]] = [
            (
                "weekly drift: change events (7 days)",
                lambda: changes.change_events(con, start, end),
            ),
            (
                "weekly drift: moves with 8-week sparklines",
                lambda: changes.price_moves(con, start, end, end - TREND),
            ),
            ("chipcost prices (every current price)", lambda: per_chip_prices(con)),
            (
                "chipcost prices --chip H100-SXM",
                lambda: per_chip_prices(con, chips=["H100-SXM"]),
            ),
            (cost_label, cost),
        ]
        return [(label, *_timed(query, repeat)) for label, query in reads]
    finally:
        con.close()


# A stand-in that hides an installed pandas from a process: importing it fails as a missing
# package does, so DuckDB, polars and great-tables take pandas to be absent.
_HIDDEN = 'raise ImportError("pandas hidden by benchmarks/reads.py")\n'


def pandas_settings(with_pandas: Path | None, scratch: Path) -> dict[str, dict[str, str] | None]:
    """The environment of a process without pandas and of one with it (None: not available):
    this interpreter's own where it has pandas or lacks it, a stand-in hiding it, or
    `with_pandas` (a folder of `pip install --target DIR pandas`) on PYTHONPATH."""
    import importlib.util
    import os

    path = os.environ.get("PYTHONPATH", "")

    def on_path(folder: Path) -> dict[str, str]:
        return {"PYTHONPATH": os.pathsep.join(p for p in (str(folder), path) if p)}

    if importlib.util.find_spec("pandas") is None:
        return {"without pandas": {}, "with pandas": on_path(with_pandas) if with_pandas else None}
    (scratch / "pandas").mkdir(parents=True, exist_ok=True)
    (scratch / "pandas" / "__init__.py").write_text(_HIDDEN, encoding="utf-8")
    return {"without pandas": on_path(scratch), "with pandas": {}}


def main() -> None:
    """Each read command as a new process against the same query in a bare DuckDB process,
    without pandas and with it, in turns; the medians and their ratio (target: 1.5x)."""
    import argparse
    import os
    import tempfile

    from benchmarks.cli import CASES, CHIPCOST, compiled, paired

    parser = argparse.ArgumentParser(description=main.__doc__.split("\n")[0])
    parser.add_argument("--db", type=Path, required=True, help="a warehouse with the sample")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--pandas", type=Path, help="where this interpreter has no pandas: a folder holding one "
        "(`python -m pip install --target DIR pandas`)"
    )  # fmt: skip
    parser.add_argument("--only", help="the reads whose label contains this")
    args = parser.parse_args()
    compiled()
    with tempfile.TemporaryDirectory() as scratch:
        settings = pandas_settings(args.pandas, Path(scratch))
        print(f"median of {args.repeat} whole processes each, in turns ({os.cpu_count()} CPUs)")
        print(f"  {'read':44s} {'pandas':8s} {'chipcost wall/cpu':>18s} {'bare wall/cpu':>14s}"
              f" {'ratio wall/cpu':>15s}")  # fmt: skip
        for label, (command, bare) in CASES.items():
            if bare is None or (args.only and args.only not in label):
                continue
            for name, env in settings.items():
                if env is None:
                    print(f"  {label:44s} {name}: pandas not found (pass --pandas DIR)")
                    continue
                m = paired([CHIPCOST, *command, "--db", str(args.db)], [*bare, str(args.db)],
                           args.repeat, env)  # fmt: skip
                print(
                    f"  {label:44s} {name.split()[0]:8s} {m['wall']:8.3f}/{m['cpu']:.3f}s "
                    f"{m['bare_wall']:6.3f}/{m['bare_cpu']:.3f}s "
                    f"{m['ratio_wall']:6.2f}/{m['ratio_cpu']:.2f}x"
                )


if __name__ == "__main__":
    main()
