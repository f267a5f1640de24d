"""Filtering an EC2 region price list CSV: seconds and peak memory against file size.

    python benchmarks/bulk_filter.py                 # 30 MB and 300 MB files
    python benchmarks/bulk_filter.py --sizes 30 300 1000

Generates synthetic region CSVs in AWS's real format (the five metadata lines, the 2025
header, every value quoted; mostly non-accelerator rows, a few thousand accelerator rows of
which the on-demand/reserved Linux shared-tenancy ones are kept), then extracts the kept
rows three ways, each in a fresh process so that its peak RSS is its own:

- chipcost: extract/_aws_bulk_csv.filter_file (DuckDB's streaming CSV reader + WHERE);
- csv: the standard library's csv.DictReader, row by row (the approach gpuhunt takes);
- pandas: pandas.read_csv of the whole file, then boolean masks (SkyPilot's approach),
  when pandas is installed (pip install -c constraints.txt -e '.[bench]').

Prints seconds, MB/s, peak RSS and the ratios; figures are recorded in docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT))

MEGABYTE = 1 << 20
METHODS = ("chipcost", "csv", "pandas")
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
    from aws_bulk_payloads import HEADER_2025, csv_line, product_rows, variant

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
    from aws_bulk_payloads import DISCLAIMER, HEADER_2025, csv_line

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
    from chipcost.extract._aws_bulk_csv import filter_file, read_head
    from chipcost.extract._aws_bulk_parse import ec2_selection

    data = filter_file(path, ec2_selection(), read_head(path, "bench"), "bench")
    return data.count(b"\n") - 6


def _run_csv(path: Path) -> int:
    import csv

    from chipcost.extract._aws_bulk_parse import ec2_selection

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

    from chipcost.extract._aws_bulk_parse import ec2_selection

    selection = ec2_selection()
    frame = pd.read_csv(path, skiprows=5, dtype=str, keep_default_na=False)
    mask = frame["Instance Family"].isin(selection.scope_params[:2]) | frame[
        "Instance Type"
    ].str.split(".", n=1).str[0].isin(selection.scope_params[2:])
    for column, values in selection.match.items():
        if column in frame.columns:
            mask &= frame[column].isin(values)
    return int(mask.sum())


def measure(method: str, path: Path) -> dict[str, float]:
    """Run one method in this process: rows kept, seconds, peak RSS (imports not timed)."""
    run = {"chipcost": _run_chipcost, "csv": _run_csv, "pandas": _run_pandas}[method]
    import duckdb  # noqa: F401

    import chipcost.extract._aws_bulk_csv as _aws_bulk_csv  # noqa: F401
    import chipcost.extract._aws_bulk_parse as _aws_bulk_parse  # noqa: F401

    if method == "pandas":
        import pandas  # noqa: F401
    before_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    started = time.perf_counter()
    kept = run(path)
    seconds = time.perf_counter() - started
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "kept": kept,
        "seconds": seconds,
        "rss_before_mb": before_kb / 1024,
        "peak_rss_mb": peak_kb / 1024,
    }


def _in_subprocess(method: str, path: Path) -> dict[str, float] | None:
    done = subprocess.run(
        [sys.executable, __file__, "--measure", method, str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        print(f"  {method}: failed: {done.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
        return None
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[30, 300], help="file MB")
    parser.add_argument("--measure", nargs=2, metavar=("METHOD", "FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure[0], Path(args.measure[1]))))
        return
    methods = [m for m in METHODS if m != "pandas" or _has_pandas()]
    print(f"machine: {os.cpu_count()} CPUs, {_memory_gb():.0f} GB RAM; methods: {methods}")
    header = f"{'method':<9} {'file MB':>8} {'rows':>10} {'kept':>6} {'seconds':>8} "
    print(header + f"{'MB/s':>7} {'RSS before':>11} {'peak RSS MB':>12}")
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            path = Path(tmp) / f"region-{size}.csv"
            rows = generate(path, size)
            mb = path.stat().st_size / MEGABYTE
            results = {m: _in_subprocess(m, path) for m in methods}
            for method, r in results.items():
                if r:
                    speed = mb / r["seconds"]
                    print(
                        f"{method:<9} {mb:>8.0f} {rows:>10,} {r['kept']:>6.0f} "
                        f"{r['seconds']:>8.2f} {speed:>7.0f} {r['rss_before_mb']:>11.0f} "
                        f"{r['peak_rss_mb']:>12.0f}"
                    )
            _ratios(results)
            path.unlink()


def _ratios(results: dict[str, dict[str, float] | None]) -> None:
    ours = results.get("chipcost")
    for other in ("csv", "pandas"):
        theirs = results.get(other)
        if ours and theirs:
            print(
                f"  chipcost vs {other}: {theirs['seconds'] / ours['seconds']:.1f}x faster, "
                f"{theirs['peak_rss_mb'] / ours['peak_rss_mb']:.1f}x less peak memory"
            )


def _has_pandas() -> bool:
    try:
        import pandas  # noqa: F401
    except ImportError:
        print("pandas is not installed: its baseline is skipped", file=sys.stderr)
        return False
    return True


def _memory_gb() -> float:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / (1 << 30)


if __name__ == "__main__":
    main()
