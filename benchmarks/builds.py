"""Whole-process timing of the two builds: `chipcost report --dry-run` and `chipcost site`.

    .venv/bin/python -m benchmarks.builds --db FILE [--repeat 5] [--baseline CHIPCOST] [--warmup 1]

Each build runs `--repeat` times as a new process (interpreter start and imports included),
after `--warmup` runs that are not counted (1: it writes the bytecode of a new checkout;
0 where that is written already); the medians of wall and CPU (user+sys) seconds are
printed. With `--baseline`, the `chipcost` executable of another checkout (its own venv:
`git worktree add DIR REV && DIR/scripts/setup.sh`) runs in turns with this one, which goes
first alternating, so that a busy moment of a shared machine slows both; the median of the
ratio of each pair is printed too. FILE should hold the sample replay (`chipcost collect
--replay sample/archive --db FILE`); the report is of the sample's week (its default period
ends on the newest run's day). Target: each under 3 s wall.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from benchmarks.cli import CHIPCOST, seconds

BUILDS = {
    "report --dry-run": ["report", "--dry-run", "--out"],
    "site --out DIR": ["site", "--out"],
}


def _args(chipcost: str, build: list[str], db: Path, out: Path) -> list[str]:
    return [chipcost, *build, str(out), "--db", str(db)]


def _median(runs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def _load() -> str:
    """The load average over 1, 5 and 15 minutes (Linux), else '-'."""
    found = Path("/proc/loadavg")
    return " ".join(found.read_text().split()[:3]) if found.exists() else "-"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--db", type=Path, required=True, help="a warehouse with the sample")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--baseline", help="another checkout's chipcost executable")
    parser.add_argument("--warmup", type=int, default=1, help="runs of each build not counted")
    args = parser.parse_args()
    # Bytecode is written and read as a user's Python does, whatever this shell says.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    print(
        f"median of {args.repeat} whole processes each ({os.cpu_count()} CPUs, Python "
        f"{sys.version.split()[0]}, load {_load()})"
    )
    print(f"  {'build':20s} {'wall/cpu':>16s} {'baseline wall/cpu':>20s} {'ratio wall/cpu':>15s}")
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch)
        for label, build in BUILDS.items():
            ours = _args(CHIPCOST, build, args.db, out / "new")
            theirs = _args(args.baseline, build, args.db, out / "old") if args.baseline else None
            for _ in range(args.warmup):  # bytecode written, files created: not counted
                seconds(ours)
                if theirs:
                    seconds(theirs)
            runs, base = [], []
            for n in range(args.repeat):
                if theirs and n % 2:
                    base.append(seconds(theirs))
                    runs.append(seconds(ours))
                else:
                    runs.append(seconds(ours))
                    if theirs:
                        base.append(seconds(theirs))
            wall, cpu = _median(runs)
            line = f"  {label:20s} {wall:7.2f}/{cpu:.2f} s"
            if theirs:
                b_wall, b_cpu = _median(base)
                ratio_wall = statistics.median(a[0] / b[0] for a, b in zip(runs, base, strict=True))
                ratio_cpu = statistics.median(a[1] / b[1] for a, b in zip(runs, base, strict=True))
                line += f" {b_wall:11.2f}/{b_cpu:.2f} s {ratio_wall:9.2f}/{ratio_cpu:.2f}x"
            print(line, flush=True)
    print(f"load at the end: {_load()}")


if __name__ == "__main__":
    main()
