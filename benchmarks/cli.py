"""Whole-process timing of read commands, next to the same query in a bare `python -c`.

    .venv/bin/python -m benchmarks.cli --db data/chipcost.duckdb [--repeat 5]

Each command runs `--repeat` times as a new process (interpreter start and imports
included); the median is printed next to the median of a bare `python -c "import duckdb;
..."` reading the same view, and their ratio. The warehouse should hold the sample replay
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


def median_seconds(args: list[str], repeat: int) -> float:
    seconds = []
    env = {**os.environ, "COLUMNS": "160"}
    for _ in range(repeat):
        begin = time.perf_counter()
        done = subprocess.run(args, capture_output=True, text=True, env=env, check=False)
        seconds.append(time.perf_counter() - begin)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr[-2000:]}")
    return statistics.median(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", type=Path, required=True, help="a warehouse with the sample")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"median of {args.repeat} whole processes ({os.cpu_count()} CPUs)")
    print(f"  {'command':48s} {'chipcost':>9s} {'bare duckdb':>12s} {'ratio':>6s}")
    for label, (command, bare) in CASES.items():
        extra = [] if command == ["--help"] else ["--db", str(args.db)]
        ours = median_seconds([CHIPCOST, *command, *extra], args.repeat)
        if bare is None:
            print(f"  {label:48s} {ours:8.3f}s {'':>12s} {'':>6s}")
            continue
        theirs = median_seconds([*bare, str(args.db)], args.repeat)
        print(f"  {label:48s} {ours:8.3f}s {theirs:11.3f}s {ours / theirs:5.2f}x")


if __name__ == "__main__":
    main()
