"""Whole-process timing of `--help` and the read commands, next to the same query in a bare
`python -c`.

    .venv/bin/python -m benchmarks.cli --db data/chipcost.duckdb [--repeat 5]

Each command runs `--repeat` times as a new process (interpreter start and imports
included), in turns with a bare `python -c "import duckdb; ..."` reading the same view; the
medians of both are printed (wall and CPU, user+sys, seconds), and the median of the ratio of
each pair of runs' wall times and CPU times. Targets: `--help` under 0.2 s, each read within
1.5x of its bare query. The warehouse should hold the sample replay
(`chipcost collect --replay sample/archive`).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
import tomllib
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
    "chipcost prices --help": (["prices", "--help"], None),
    "prices --chip H100-SXM --region us-east-1": (
        ["prices", "--chip", "H100-SXM", "--region", "us-east-1"],
        _bare(
            "SELECT * FROM per_chip_prices WHERE chip = 'H100-SXM' AND region = 'us-east-1' "
            "ORDER BY price_per_chip_hour"
        ),
    ),
    "history --chip H100-SXM --no-chart": (
        ["history", "--chip", "H100-SXM", "--no-chart"],
        _bare(
            "SELECT CAST(valid_from AS DATE) AS day, pricing_model, "
            "min(price_per_hour / chip_count) FROM price_history WHERE chip = 'H100-SXM' "
            "GROUP BY ALL ORDER BY ALL"
        ),
    ),
    "index": (
        ["index"],
        _bare(
            "SELECT chip, median(p) FROM (SELECT chip, provider, min(price_per_chip_hour) AS p "
            "FROM per_chip_prices WHERE pricing_model = 'on_demand' GROUP BY ALL) GROUP BY chip"
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


def compiled() -> None:
    """chipcost's bytecode written before timing, as an install writes it: a development
    install (`pip install -e`) compiles only its dependencies, so with PYTHONDONTWRITEBYTECODE
    set every timed process would compile chipcost's modules again, which the bare process,
    reading DuckDB's compiled modules, never does."""
    import compileall

    root = Path(__file__).resolve().parents[1]
    with (root / "pyproject.toml").open("rb") as handle:
        folders = tomllib.load(handle)["tool"]["setuptools"]["package-dir"].values()
    for folder in folders:  # chipcost.X is the folder X
        compileall.compile_dir(root / folder, quiet=1)


def seconds(args: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user+sys) of one process (`env` added to this one's)."""
    env = {**os.environ, "COLUMNS": "160", **(env or {})}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    begin = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True, env=env, check=False)
    elapsed = time.perf_counter() - begin
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def paired(
    ours: list[str], bare: list[str], repeat: int, env: dict[str, str] | None = None
) -> dict[str, float]:
    """Medians of the command, of the bare query, and of their ratio run by run, wall and CPU.

    The two run in turns (which goes first alternates), so a busy moment of a shared machine
    slows both; the ratio of each pair is steadier than the ratio of two medians.
    """
    runs = []
    for n in range(repeat):
        if n % 2:
            b, a = seconds(bare, env), seconds(ours, env)
        else:
            a, b = seconds(ours, env), seconds(bare, env)
        runs.append((a, b))
    med = statistics.median
    return {
        "wall": med(a[0] for a, _ in runs),
        "cpu": med(a[1] for a, _ in runs),
        "bare_wall": med(b[0] for _, b in runs),
        "bare_cpu": med(b[1] for _, b in runs),
        "ratio_wall": med(a[0] / b[0] for a, b in runs),
        "ratio_cpu": med(a[1] / b[1] for a, b in runs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", type=Path, required=True, help="a warehouse with the sample")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    compiled()
    print(f"median of {args.repeat} whole processes each, in turns ({os.cpu_count()} CPUs)")
    print(f"  {'command':40s} {'chipcost wall/cpu':>18s} {'bare wall/cpu':>14s} {'ratio':>11s}")
    for label, (command, bare) in CASES.items():
        extra = [] if "--help" in command else ["--db", str(args.db)]
        if bare is None:
            times = [seconds([CHIPCOST, *command, *extra]) for _ in range(args.repeat)]
            wall = statistics.median(t[0] for t in times)
            cpu = statistics.median(t[1] for t in times)
            print(f"  {label:40s} {wall:8.3f}/{cpu:.3f}s")
            continue
        m = paired([CHIPCOST, *command, *extra], [*bare, str(args.db)], args.repeat)
        print(
            f"  {label:40s} {m['wall']:8.3f}/{m['cpu']:.3f}s {m['bare_wall']:6.3f}/"
            f"{m['bare_cpu']:.3f}s {m['ratio_wall']:4.2f}/{m['ratio_cpu']:.2f}x"
        )


if __name__ == "__main__":
    main()
