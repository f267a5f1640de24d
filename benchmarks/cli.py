"""Whole-process timing of read commands, next to the same query in a bare `python -c`.

    .venv/bin/python -m benchmarks.cli --db data/chipcost.duckdb [--repeat 5]

Each command runs `--repeat` times as a new process (interpreter start and imports
included), in turns with a bare `python -c "import duckdb; ..."` reading the same view; the
medians of both are printed, and the median of the ratio of each pair of runs. The warehouse
should hold the sample replay
(`chipcost collect --replay sample/archive`).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

CHIPCOST = str(Path(sys.executable).with_name("chipcost"))


def _bare(query: str) -> list[str]:
    code = (
        "import sys, duckdb; con = duckdb.connect(sys.argv[1], read_only=True); "
        f"print(con.sql({query!r}).fetchall())"
    )
    return [sys.executable, "-c", code]


# label -> (chipcost arguments, the bare DuckDB equivalent or None)
CASES: dict[str, tuple[list[str], list[str] | None]] = {
    "chipcost --help": (["--help"], None),
    "prices --chip H100-SXM --region us-east-1": (
        ["prices", "--chip", "H100-SXM", "--region", "us-east-1"],
        _bare(
            "SELECT * FROM per_chip_prices WHERE chip = 'H100-SXM' AND region = 'us-east-1' "
            "ORDER BY price_per_chip_hour"
        ),
    ),
    'sql "select count(*) from price_history"': (
        ["sql", "select count(*) from price_history"],
        _bare("select count(*) from price_history"),
    ),
    "cost --model llama-3-70b --workload training": (
        ["cost", "--model", "llama-3-70b", "--workload", "training"],
        _bare(
            "SELECT * FROM cost_per_token WHERE model = 'llama-3-70b' AND workload = 'training' "
            "ORDER BY 1"
        ),
    ),
}


def seconds(args: list[str]) -> float:
    env = {**os.environ, "COLUMNS": "160"}
    begin = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, env=env, check=False)
    elapsed = time.perf_counter() - begin
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return elapsed


def paired(ours: list[str], bare: list[str], repeat: int) -> tuple[float, float, float]:
    """Medians of the command, of the bare query, and of their ratio run by run.

    The two run in turns (which goes first alternates), so a busy moment of a shared machine
    slows both; the ratio of each pair is steadier than the ratio of two medians.
    """
    mine, theirs, ratios = [], [], []
    for n in range(repeat):
        if n % 2:
            b, a = seconds(bare), seconds(ours)
        else:
            a, b = seconds(ours), seconds(bare)
        mine.append(a)
        theirs.append(b)
        ratios.append(a / b)
    return statistics.median(mine), statistics.median(theirs), statistics.median(ratios)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", type=Path, required=True, help="a warehouse with the sample")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"median of {args.repeat} whole processes each, in turns ({os.cpu_count()} CPUs)")
    print(f"  {'command':48s} {'chipcost':>9s} {'bare duckdb':>12s} {'ratio':>6s}")
    for label, (command, bare) in CASES.items():
        extra = [] if command == ["--help"] else ["--db", str(args.db)]
        if bare is None:
            ours = statistics.median(
                seconds([CHIPCOST, *command, *extra]) for _ in range(args.repeat)
            )
            print(f"  {label:48s} {ours:8.3f}s {'':>12s} {'':>6s}")
            continue
        ours, theirs, ratio = paired(
            [CHIPCOST, *command, *extra], [*bare, str(args.db)], args.repeat
        )
        print(f"  {label:48s} {ours:8.3f}s {theirs:11.3f}s {ratio:5.2f}x")


if __name__ == "__main__":
    main()
