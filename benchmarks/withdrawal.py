"""The withdrawal step against the rows a source refused: its seconds at 1,000 to 50,000.

# python -m benchmarks.withdrawal                          # 1,000, 10,000 and 50,000 refused
# python -m benchmarks.withdrawal --baseline OLD.py        # and another history_steps.py's

A new file warehouse holds one source's 50,000 open offers (`--offers`: 25 regions, 4 zones,
500 types, each its sku). A run of that source lists none of them, the worst case, every open
offer a candidate, and refuses `--refused` rows in four shapes, as the parsers name what they
refuse: the whole key (a price the validator refused), the sku alone, the key but the zone,
the key but term, payment and plan; some name offers the warehouse holds, the others a region
or type it does not (a region the AWS spot feed renamed). The step
(warehouse/history_steps.py `_close_withdrawn`) runs in a transaction rolled back after; the
fastest of `--repeat` runs is printed with how many offers it withdrew. `--baseline` names a
history_steps.py of another commit (`git show COMMIT:warehouse/history_steps.py > OLD.py`)
whose step runs in turns with this one, on the same warehouse and run; both must withdraw the
same offers. Figures are in docs/performance.md.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from chipcost.core.record import Reject
from chipcost.core.runs import OK, RunResult, SourceResult
from chipcost.warehouse import history_steps
from chipcost.warehouse.db import connect

SOURCE = "aws-spot-feed"
REGIONS, ZONES, TYPES = 25, 4, 500
# Refused rows draw from more regions and types than the warehouse holds: a part of them
# names no open offer, as a renamed region's would.
NAMED_REGIONS, NAMED_TYPES = 40, 1_000
SEEN_BEFORE = datetime(2026, 11, 20, 6, tzinfo=UTC)
OBSERVED = datetime(2026, 11, 21, 6, tzinfo=UTC)
Step = Callable[[duckdb.DuckDBPyConnection, RunResult], int]


def warehouse(path: Path, offers: int) -> duckdb.DuckDBPyConnection:
    """A new warehouse holding `offers` open offers of SOURCE, last seen the day before."""
    con = connect(path)
    con.execute(
        f"""
        INSERT INTO price_history
        SELECT 'aws', '{SOURCE}', 'r' || (i // {ZONES * TYPES}) % {REGIONS},
               'z' || (i // {TYPES}) % {ZONES}, 't' || i % {TYPES}, 'spot', '', '', '',
               'H100-SXM', 8, 20.0, NULL, 'USD', 's' || i, 'https://example.com', ?, NULL,
               NULL, ?, 'r0', 'r0', 'p', NULL, NULL, NULL
        FROM range({offers}) t(i)
        """,
        [SEEN_BEFORE, SEEN_BEFORE],
    )
    return con


def refused_row(number: int) -> Reject:
    """The `number`th refused row: its shape is number % 4, its names spread over the rest."""
    spread = (number // 4) * 7_919 % (NAMED_REGIONS * ZONES * NAMED_TYPES)
    key = {
        "provider": "aws",
        "region": f"r{spread // (ZONES * NAMED_TYPES)}",
        "zone": f"z{spread // NAMED_TYPES % ZONES}",
        "instance_type": f"t{spread % NAMED_TYPES}",
        "pricing_model": "spot",
        "term": "",
        "payment": "",
        "plan": "",
    }
    shape = number % 4
    if shape == 1:
        return Reject(SOURCE, "price", None, f"s{spread}")
    if shape == 2:
        key.pop("zone")
    if shape == 3:
        for name in ("term", "payment", "plan"):
            key.pop(name)
    return Reject(SOURCE, "price", None, offer=key)


def run_refusing(refused: int) -> RunResult:
    source = SourceResult(
        source=SOURCE,
        provider="aws",
        status=OK,
        observed_at=OBSERVED,
        seen_keys=set(),
        rejects=[refused_row(n) for n in range(refused)],
    )
    return RunResult("bench", OBSERVED, OBSERVED, "replay", "", False, [source])


def timed(con: duckdb.DuckDBPyConnection, step: Step, run: RunResult) -> tuple[float, int]:
    """The step's seconds and the offers it withdrew, in a transaction rolled back after."""
    con.execute("BEGIN TRANSACTION")
    try:
        start = time.perf_counter()
        withdrawn = step(con, run)
        return time.perf_counter() - start, withdrawn
    finally:
        con.execute("ROLLBACK")


def step_of(path: Path) -> Step:
    """`_close_withdrawn` of a history_steps.py of another commit."""
    spec = importlib.util.spec_from_file_location("baseline_history_steps", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module._close_withdrawn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offers", type=int, default=REGIONS * ZONES * TYPES)
    parser.add_argument("--refused", type=int, nargs="+", default=[1_000, 10_000, 50_000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", type=Path, help="a history_steps.py to time in turns")
    args = parser.parse_args()
    steps: dict[str, Step] = {"this code": history_steps._close_withdrawn}
    if args.baseline:
        steps["baseline"] = step_of(args.baseline)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"withdrawal step, {args.offers:,} open offers of one source (load {load})")
    with tempfile.TemporaryDirectory() as folder:
        con = warehouse(Path(folder) / "w.duckdb", args.offers)
        for refused in args.refused:
            run = run_refusing(refused)
            best = dict.fromkeys(steps, float("inf"))
            withdrew: dict[str, int] = {}
            for _ in range(args.repeat):
                for name, step in steps.items():
                    seconds, withdrew[name] = timed(con, step, run)
                    best[name] = min(best[name], seconds)
            if len(set(withdrew.values())) > 1:
                raise SystemExit(f"the steps withdrew different offers: {withdrew}")
            times = "   ".join(f"{name} {seconds:7.3f} s" for name, seconds in best.items())
            print(f"  {refused:>7,} refused  {times}  ({withdrew['this code']:,} withdrawn)")
        con.close()


if __name__ == "__main__":
    main()
