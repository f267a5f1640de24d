"""A warehouse with known price moves for the report tests (golden numbers in the comments).

Seven daily runs, 2026-11-01 .. 2026-11-07 at 06:00 UTC, three sources:

- aws-pricing-api (ok every day):
  A  H100-SXM p5.48xlarge us-east-1 on-demand, 8 chips: 80.0, day 3 -> 72.0, day 5 -> 74.0
     (net -7.5%; per chip-hour 10.00 -> 9.25; two changes)
  B  H100-SXM p5.48xlarge us-west-2 on-demand: 96.0, day 4 -> 100.8 (+5%; 12.00 -> 12.60)
  C  Trainium1 trn1.32xlarge us-east-1 reserved 1yr all upfront, 16 chips: 20.0 (1.25/chip)
  D  L4 g6.xlarge eu-west-1 on-demand, 1 chip: 0.80, withdrawn on day 6
  E  H100-SXM p5.48xlarge us-east-2 spot zone us-east-2a: 40.0 (5.00/chip) new on day 2
  one rejected row on day 1
- aws-bulk (ok every day): A at 80.0 (8.1% above the API's 74.0 at the end), B at 100.8
- aws-spot: skipped every day (no AWS credentials): never succeeded, so stale
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from chipcost.core.record import PriceRecord, Reject
from chipcost.core.runs import OK, SKIPPED, RunResult, SourceResult
from tests.helpers import day, record

H100 = {"instance_type": "p5.48xlarge", "chip": "H100-SXM", "chip_count": 8.0}


def offer(name: str, price: float, source: str = "aws-pricing-api") -> PriceRecord:
    shapes = {
        "A": {**H100, "region": "us-east-1"},
        "B": {**H100, "region": "us-west-2"},
        "C": {
            "instance_type": "trn1.32xlarge",
            "chip": "Trainium1",
            "chip_count": 16.0,
            "pricing_model": "reserved",
            "term": "1yr",
            "payment": "all_upfront",
            "plan": "standard",
        },
        "D": {"instance_type": "g6.xlarge", "chip": "L4", "chip_count": 1.0, "region": "eu-west-1"},
        "E": {**H100, "region": "us-east-2", "zone": "us-east-2a", "pricing_model": "spot"},
    }
    return record(price_per_hour=price, source=source, sku=f"SKU-{name}", **shapes[name])


def api_prices(n: int) -> list[PriceRecord]:
    a = 80.0 if n < 3 else (72.0 if n < 5 else 74.0)
    b = 96.0 if n < 4 else 100.8
    offers = [offer("A", a), offer("B", b), offer("C", 20.0)]
    if n < 6:
        offers.append(offer("D", 0.80))
    if n >= 2:
        offers.append(offer("E", 40.0))
    return offers


def source(name: str, records: list[PriceRecord], n: int, **extra) -> SourceResult:
    when = day(n)
    return SourceResult(
        source=name,
        provider="aws",
        status=extra.pop("status", OK),
        message=extra.pop("message", f"{len(records)} records"),
        records=[replace(r, observed_at=when) for r in records],
        seen_keys={r.offer_key() for r in records},
        observed_at=when,
        **extra,
    )


def run(n: int, sources: list[SourceResult], *, sample: bool = False) -> RunResult:
    when = day(n)
    stamp = when.strftime("%Y-%m-%dT%H%M%SZ")
    return RunResult(f"{stamp}-test", when, when, "replay", stamp, sample, sources)


def golden_runs(*, sample: bool = False) -> list[RunResult]:
    runs = []
    for n in range(7):
        rejects = [Reject("aws-pricing-api", "price is 0", {"sku": "X"})] if n == 1 else []
        runs.append(
            run(
                n,
                [
                    source("aws-pricing-api", api_prices(n), n, rejects=rejects),
                    source(
                        "aws-bulk", [offer("A", 80.0, "aws-bulk"), offer("B", 100.8, "aws-bulk")], n
                    ),
                    source("aws-spot", [], n, status=SKIPPED, message="no AWS credentials"),
                ],
                sample=sample,
            )
        )
    return runs


def build(path: Path, runs: list[RunResult] | None = None) -> Path:
    """The golden warehouse at `path` (a copy of the one made for this test process), or a new
    warehouse with `runs` loaded."""
    from tests import warehouses

    return warehouses.golden(path) if runs is None else warehouses.of_runs(path, runs)


def sample_marked(path: Path) -> Path:
    """The golden runs marked sample data, at `path` (a copy of the one made for this test
    run)."""
    from tests import warehouses

    return warehouses.made(
        "golden-sample", lambda made: warehouses.of_runs(made, golden_runs(sample=True)), path
    )
