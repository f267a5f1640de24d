"""Filtering an EC2 region price list CSV: seconds and peak memory against file size."""

# python -m benchmarks.bulk_filter                      # 30 MB and 300 MB files
# python -m benchmarks.bulk_filter --sizes 30 300 2000 --methods chipcost gpuhunt
#
# Writes synthetic region CSVs in AWS's real format (the five metadata lines, the 2025
# header, every value quoted; mostly non-accelerator rows, a few thousand accelerator rows
# of which the on-demand/reserved Linux shared-tenancy ones are kept), then reads each file
# with every method, each in a fresh process so that its peak RSS is its own:
#
# - chipcost: extract/_aws_bulk_csv.filter_file (a byte scan for the selection's marks,
#   then csv parses only the lines that hold one);
# - gpuhunt: gpuhunt 0.1.34's own AWS parse, AWSProvider(cache_path=FILE).get(), offline
#   (its calls to AWS's APIs stubbed); it skips lines lacking its quoted filter values and
#   csv-parses the rest. Its filter differs (on-demand Linux rows of every instance type),
#   so it keeps other rows: compare the time and memory, not the counts;
# - csv: a plain standard-library baseline, csv.DictReader over every row, same filter;
# - pandas: pandas.read_csv of the whole file, then boolean masks (SkyPilot's approach).
#
# gpuhunt and pandas come with pip install -c constraints.txt -e '.[bench]' (a method whose
# package is missing is skipped). Each method runs --repeat times (default 3), alternating
# with the others, and its fastest run is shown: on a shared machine other work only ever
# slows a run down. Prints seconds (the parse; imports not timed), MB/s, RSS
# after the imports, peak RSS, and the whole process's seconds from start to exit; the last
# line compares chipcost with gpuhunt on the last size. Figures are in docs/performance.md.

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

MEGABYTE = 1 << 20
METHODS = ("chipcost", "gpuhunt", "csv", "pandas")
# What each method imports before its timer starts (and the package it needs).
IMPORTS = {
    "chipcost": ("chipcost.extract.aws._bulk_csv", "chipcost.extract.aws._bulk_parse"),
    # unittest.mock stubs gpuhunt's calls to AWS: loaded before its timer, and only by its
    # process (with asyncio it is ~70 ms of imports the other methods have no use for).
    "gpuhunt": ("gpuhunt.providers.aws", "unittest.mock"),
    "csv": ("csv", "chipcost.extract.aws._bulk_parse"),
    "pandas": ("pandas", "chipcost.extract.aws._bulk_parse"),
}
# Accelerator types and the variants (other OS, tenancy, capacity) that the filter drops.
ACCELERATORS = (
    "p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge",
    "p6-b200.48xlarge", "g5.xlarge", "g5.48xlarge", "g6.xlarge", "g6.48xlarge", "g6e.xlarge",
    "g6e.48xlarge", "trn1.2xlarge", "trn1.32xlarge", "trn1n.32xlarge", "trn2.48xlarge",
    "inf1.xlarge", "inf1.24xlarge", "inf2.xlarge", "inf2.48xlarge",
)  # fmt: skip
VARIANTS = (
    {"Operating_System": "Windows", "operation": "RunInstances:0002"},
    {"Operating_System": "RHEL", "operation": "RunInstances:0010"},
    {"Operating_System": "SUSE", "operation": "RunInstances:000g"},
    {"Tenancy": "Dedicated"},
    {"Tenancy": "Host"},
    {"CapacityStatus": "UnusedCapacityReservation"},
    {"CapacityStatus": "AllocatedCapacityReservation"},
    {"Pre Installed S/W": "SQL Web"},
    {"Pre Installed S/W": "SQL Std"},
)
FILLER_TYPES = ("m5.large", "c6i.xlarge", "r7g.2xlarge", "t3.medium", "m7i.4xlarge")


def _template_lines() -> tuple[list[str], list[str]]:
    """(accelerator lines, filler lines) as AWS would write them, one product's worth each."""
    from tests.aws_bulk_csv import HEADER_2025, csv_line, product_rows, variant

    accelerators, fillers = [], []
    for kind in ACCELERATORS:
        rows = product_rows(kind, "us-east-1")
        groups = [rows] + [variant(rows, 1.3, **v) for v in VARIANTS]
        accelerators += [csv_line([r.get(c) for c in HEADER_2025]) for g in groups for r in g]
    base = product_rows("g5.xlarge", "us-east-1")
    for kind in FILLER_TYPES:
        changes = {"Instance Type": kind, "Instance Family": "General purpose", "GPU": ""}
        for v in ({}, *VARIANTS):
            rows = variant(base, 0.09, **changes, **v, usageType=f"BoxUsage:{kind}")
            fillers += [csv_line([r.get(c) for c in HEADER_2025]) for r in rows]
    return accelerators, fillers


def generate(path: Path, megabytes: int) -> int:
    """A region CSV of about `megabytes` MB; returns its row count."""
    from tests.aws_bulk_csv import DISCLAIMER, HEADER_2025, csv_line

    accelerators, fillers = _template_lines()
    head = [
        ["FormatVersion", "v1.0"],
        ["Disclaimer", DISCLAIMER],
        ["Publication Date", "2025-12-01T19:06:23Z"],
        ["Version", "20251201190623"],
        ["OfferCode", "AmazonEC2"],
        HEADER_2025,
    ]
    target, rows, n = megabytes * MEGABYTE, 0, 0
    with path.open("w", encoding="utf-8") as out:
        out.write("".join(csv_line(line) + "\n" for line in head))
        out.write("".join(line + "\n" for line in accelerators))
        rows += len(accelerators)
        while out.tell() < target:
            n += 1
            # A new SKU per copy, so the file holds distinct products as AWS's does.
            chunk = [line.replace('"', f'"{n:06d}', 1) for line in fillers]
            out.write("".join(line + "\n" for line in chunk))
            rows += len(chunk)
    return rows


def _run_chipcost(path: Path) -> int:
    from chipcost.extract.aws._bulk_csv import filter_file, read_head
    from chipcost.extract.aws._bulk_parse import ec2_selection

    data = filter_file(path, ec2_selection(), read_head(path, "bench"), "bench")
    return data.count(b"\n") - 6


def _run_gpuhunt(path: Path) -> int:
    from unittest import mock

    from gpuhunt.providers import aws

    # Offline, so that only the parse of the local file is timed: no region list, GPU details
    # or spot prices from AWS's APIs. cache_path is the region CSV itself, as gpuhunt keeps
    # its download (five metadata lines, then the header).
    with ExitStack() as stack:
        stack.enter_context(mock.patch.object(aws, "_get_ec2_api_regions", return_value=set()))
        provider = aws.AWSProvider
        stack.enter_context(mock.patch.object(provider, "_fill_gpu_details", return_value=None))
        spot = mock.patch.object(provider, "_with_spot_offers", side_effect=lambda offers: offers)
        stack.enter_context(spot)
        return len(provider(cache_path=str(path)).get())


def _run_csv(path: Path) -> int:
    import csv

    from chipcost.extract.aws._bulk_parse import ec2_selection

    selection, kept = ec2_selection(), []
    with path.open(encoding="utf-8", newline="") as handle:
        for _ in range(5):
            handle.readline()
        for row in csv.DictReader(handle):
            if selection.keeps(row):
                kept.append(row)
    return len(kept)


def _run_pandas(path: Path) -> int:
    import pandas as pd

    from chipcost.extract.aws._bulk_parse import ec2_selection

    selection = ec2_selection()
    frame = pd.read_csv(path, skiprows=5, dtype=str, keep_default_na=False)
    kind = frame["Instance Type"].str.split(".", n=1)
    mask = frame["Instance Family"].isin(selection.scope_params[:2]) | (
        kind.str[0].isin(selection.scope_params[2:]) & (kind.str.len() == 2)
    )
    for column, values in selection.match.items():
        if column in frame.columns:
            mask &= frame[column].isin(values)
    return int(mask.sum())


RUNS: dict[str, Callable[[Path], int]] = {
    "chipcost": _run_chipcost,
    "gpuhunt": _run_gpuhunt,
    "csv": _run_csv,
    "pandas": _run_pandas,
}


def measure(method: str, path: Path) -> dict[str, float]:
    """Run one method in this process: rows kept, seconds, peak RSS (imports not timed)."""
    for module in IMPORTS[method]:
        importlib.import_module(module)
    before = _peak_rss_mb()
    started = time.perf_counter()
    kept = RUNS[method](path)
    seconds = time.perf_counter() - started
    return {
        "kept": kept,
        "seconds": seconds,
        "rss_before_mb": before,
        "peak_rss_mb": _peak_rss_mb(),
    }


def _peak_rss_mb() -> float:
    """This process's peak RSS (Linux's VmHWM).

    Not getrusage's ru_maxrss: Linux carries that over exec from the parent, so a process
    started by a large parent reports the parent's size until it outgrows it.
    """
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024  # kB
    raise RuntimeError("no VmHWM in /proc/self/status: this benchmark measures memory on Linux")


def _in_subprocess(method: str, path: Path) -> dict[str, float] | None:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, __file__, "--measure", method, str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        print(f"  {method}: failed: {done.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
        return None
    return json.loads(done.stdout) | {"process_seconds": time.perf_counter() - started}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[30, 300], help="file MB")
    parser.add_argument("--methods", nargs="+", choices=METHODS, default=list(METHODS))
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs of each method, alternating; the fastest is shown (default 3)",
    )
    parser.add_argument("--measure", nargs=2, metavar=("METHOD", "FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure[0], Path(args.measure[1]))))
        return
    methods = [m for m in args.methods if _installed(m)]
    print(
        f"machine: {os.cpu_count()} CPUs, {_memory_gb():.0f} GB RAM; methods: {methods}; "
        f"fastest of {args.repeat} alternating runs each"
    )
    print(
        f"{'method':<9} {'file MB':>8} {'rows':>10} {'kept':>6} {'seconds':>8} {'MB/s':>7} "
        f"{'RSS before':>11} {'peak RSS MB':>12} {'process s':>10}"
    )
    last: dict[str, dict[str, float] | None] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            path = Path(tmp) / f"region-{size}.csv"
            rows = generate(path, size)
            runs: dict[str, list[dict[str, float] | None]] = {m: [] for m in methods}
            for _ in range(max(args.repeat, 1)):
                for method in methods:
                    runs[method].append(_in_subprocess(method, path))
            last = {m: _fastest(found) for m, found in runs.items()}
            _print_results(last, path.stat().st_size / MEGABYTE, rows)
            path.unlink()
    _summary(last)


def _fastest(runs: list[dict[str, float] | None]) -> dict[str, float] | None:
    """The fastest of a method's runs (a shared machine only ever slows a run down), with
    the highest peak RSS of them all; None if any run failed."""
    if not runs or any(r is None for r in runs):
        return None
    fastest = dict(min(runs, key=lambda r: r["seconds"]))
    fastest["process_seconds"] = min(r["process_seconds"] for r in runs)
    fastest["peak_rss_mb"] = max(r["peak_rss_mb"] for r in runs)
    return fastest


def _print_results(results: dict[str, dict[str, float] | None], mb: float, rows: int) -> None:
    for method, r in results.items():
        if r:
            print(
                f"{method:<9} {mb:>8.0f} {rows:>10,} {r['kept']:>6.0f} {r['seconds']:>8.2f} "
                f"{mb / r['seconds']:>7.0f} {r['rss_before_mb']:>11.0f} "
                f"{r['peak_rss_mb']:>12.0f} {r['process_seconds']:>10.2f}"
            )
    ours = results.get("chipcost")
    for other in ("csv", "pandas"):
        theirs = results.get(other)
        if ours and theirs:
            print(f"  {_versus(other, ours, theirs)}")


def _summary(results: dict[str, dict[str, float] | None]) -> None:
    """The comparison with gpuhunt on the last size, as the last line."""
    ours, theirs = results.get("chipcost"), results.get("gpuhunt")
    if not (ours and theirs):
        return
    whole = theirs["process_seconds"] / ours["process_seconds"]
    print(
        f"  whole processes (start to exit, imports included): chipcost "
        f"{ours['process_seconds']:.2f} s, gpuhunt {theirs['process_seconds']:.2f} s: "
        f"{whole:.1f}x"
    )
    print(_versus("gpuhunt", ours, theirs))


def _versus(other: str, ours: dict[str, float], theirs: dict[str, float]) -> str:
    return (
        f"chipcost vs {other}: {theirs['seconds'] / ours['seconds']:.1f}x faster, "
        f"peak RSS {ours['peak_rss_mb']:.0f} MB vs {theirs['peak_rss_mb']:.0f} MB"
    )


def _installed(method: str) -> bool:
    package = IMPORTS[method][0].split(".")[0]
    try:
        importlib.import_module(package)
    except ImportError:
        print(f"{package} is not installed: the {method} baseline is skipped", file=sys.stderr)
        return False
    return True


def _memory_gb() -> float:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / (1 << 30)


if __name__ == "__main__":
    main()
