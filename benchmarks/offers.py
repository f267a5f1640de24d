"""`chipcost report` and `chipcost cost` against the number of offers: peak memory and time.

# python -m benchmarks.offers                          # 1,000, 10,000 and 100,000 offers
# python -m benchmarks.offers --offers 1000 50000 --repeat 3
# python -m benchmarks.offers --uncut                  # beside it, the offers not cut first
# python -m benchmarks.offers --before                 # beside it, the report's answers uncut

For each count a new warehouse is built in a scratch folder: the shipped reference data
(chips, models, throughput figures) and two days of synthetic offers (benchmarks/synthetic.py:
AWS's pricing models, RunPod, Vast.ai and CoreWeave in their proportions, the chips that have
figures), loaded by the loader. Then each command runs as a new process and its peak resident
memory (the kernel's maxrss of that process alone) and wall seconds are printed, the lowest of
--repeat runs. With --uncut, the same commands run again with the cuts of the offers to the
cheapest of those alike turned off (the report's cost section: warehouse/snapshot.py
`_CHEAPEST_PRICE`; cost's ranking: transform/cost_fit.py `ALIKE`), the queries as they were
before the cuts (ca5631c), in the same minutes. With --before, the code as at c7aed6d: the
report's head-to-head answers rank every offer (reads/articles.py without
`Ask.cheapest_alike`) and the cuts run within the read limit, not warehouse/reader.py's
CUT_MEMORY (--uncut turns that off too). Figures in docs/performance.md.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import synthetic
from benchmarks.cli import CHIPCOST
from chipcost.pipeline.seed import open_warehouse
from chipcost.warehouse.load import load_run

COMMANDS = {
    "report": ["report", "--dry-run", "--out", "{out}", "--since", "2024-01-01",
               "--until", "2024-01-03"],
    "cost": ["cost", "--model", "llama-3-70b", "--workload", "inference"],
    # your prices: a discount file (DISCOUNTS), euros and a bound on interruptions, each of which
    # may change which offer is cheapest
    "cost yours": ["cost", "--model", "llama-3-70b", "--workload", "inference",
                   "--currency", "EUR", "--max-interruption", "10"],
}  # fmt: skip
DISCOUNTS = """\
[[discount]]
provider = "aws"
percent = 12
label = "benchmark"

[[discount]]
provider = "aws"
pricing_model = "spot"
percent = 20
label = "benchmark"

[[discount]]
provider = "runpod"
percent = 7
label = "benchmark"
"""
# Sets a module's attribute that exists, else stops: a renamed target would otherwise measure
# the code unpatched under the patched name.
_PUT = (
    "import sys\n"
    "def put(module, name, value):\n"
    "    if not hasattr(module, name):\n"
    "        sys.exit(f'benchmarks.offers: {module.__name__}.{name} is gone: update the patch')\n"
    "    setattr(module, name, value)\n"
)
_MAIN = "from chipcost.cli.entry import main; sys.argv[0] = 'chipcost'; sys.exit(main())"
# chipcost with every offer read into each ranking, as before the cuts (memory unbounded).
UNCUT = [
    sys.executable, "-c",
    _PUT + "from chipcost.warehouse import snapshot, reader; from chipcost.reads import cost\n"
    "put(snapshot, '_CHEAPEST_PRICE', 'TRUE'); put(cost, 'ALIKE', ())\n"
    "put(reader, 'CUT_MEMORY', '1000TB')\n" + _MAIN,
]  # fmt: skip
# chipcost as at c7aed6d: the head-to-head answers rank every offer, the cuts' memory unbounded.
BEFORE = [
    sys.executable, "-c",
    _PUT + "from chipcost.reads import articles; from chipcost.warehouse import reader\n"
    "put(articles, 'replace', lambda ask, **changes: ask)\n"
    "put(reader, 'CUT_MEMORY', '1000TB')\n" + _MAIN,
]  # fmt: skip


def build(path: Path, count: int) -> int:
    """A warehouse of about `count` offers seen on two days; the number of offers."""
    offers = synthetic.offers(count)
    con = open_warehouse(path)
    try:
        for day in (0, 1):
            load_run(con, synthetic.run_for(day, offers))
        # made-up facts for `cost yours`, labelled so: a euro rate for each day and the week
        # before, and an interruption bucket for each AWS spot offer's type and region
        first = synthetic.FIRST_DAY.date()
        con.execute(
            "INSERT INTO fx_rates SELECT CAST($first AS DATE) + CAST(d AS INTEGER), c, "
            "CASE c WHEN 'EUR' THEN 1 ELSE 1.08 + d / 1000 END, 'synthetic', now(), "
            "'synthetic' FROM range(-7, 2) t(d), (VALUES ('USD'), ('EUR')) v(c)",
            {"first": first},
        )
        con.execute(
            "INSERT INTO spot_interruptions SELECT region, instance_type, 'Linux', b[1], "
            "CAST(b[2] AS DOUBLE), NULL, 'synthetic', now(), 'synthetic' FROM ("
            "SELECT DISTINCT region, instance_type, "
            "[['<5%', '5'], ['5-10%', '10'], ['10-15%', '15'], ['>20%', '100']]"
            "[CAST(1 + hash(region || instance_type) % 4 AS BIGINT)] AS b FROM current_prices "
            "WHERE provider = 'aws' AND pricing_model = 'spot')"
        )
    finally:
        con.close()
    return len(offers)


def peak(args: list[str], discounts: str = "") -> tuple[float, float]:
    """Wall seconds and peak resident MB of one process (with CHIPCOST_DISCOUNTS)."""
    env = {**os.environ, "COLUMNS": "160", "CHIPCOST_DISCOUNTS": discounts}
    begin = time.perf_counter()
    process = subprocess.Popen(
        args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True
    )
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - begin
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode not in (0, 1):
        said = process.stderr.read()[-2000:] if process.stderr else ""
        raise SystemExit(f"{' '.join(args)} failed ({process.returncode}):\n{said}")
    return elapsed, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offers", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--uncut", action="store_true", help="also with the cut turned off")
    parser.add_argument(
        "--before", action="store_true", help="also with the head-to-head answers uncut"
    )
    args = parser.parse_args()
    executables = {
        "this": [CHIPCOST],
        **({"before": BEFORE} if args.before else {}),
        **({"uncut": UNCUT} if args.uncut else {}),
    }
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"peak resident memory and wall time, lowest of {args.repeat} (load {load})")
    with tempfile.TemporaryDirectory() as scratch:
        discounts = Path(scratch) / "discounts.toml"
        discounts.write_text(DISCOUNTS)
        for count in args.offers:
            db = Path(scratch) / f"w{count}.duckdb"
            # built in a process of its own: a command's maxrss counts what its parent held
            # when it was forked (Linux keeps maxrss across exec), 560 MB at 100,000 offers
            with multiprocessing.get_context("spawn").Pool(1) as pool:
                offers = pool.apply(build, (db, count))
            for name, command in COMMANDS.items():
                for label, chipcost in executables.items():
                    given = [a.format(out=Path(scratch) / "out") for a in command]
                    rules = str(discounts) if name == "cost yours" else ""
                    runs = [
                        peak([*chipcost, *given, "--db", str(db)], rules)
                        for _ in range(args.repeat)
                    ]
                    wall, mb = min(r[0] for r in runs), min(r[1] for r in runs)
                    print(
                        f"  {offers:>8,} offers  {name:10} {label:8} {mb:8.0f} MB {wall:7.2f} s",
                        flush=True,
                    )


if __name__ == "__main__":
    sys.exit(main())
