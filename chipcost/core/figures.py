"""Throughput figures: one row of the `throughput` table, and a derivation rule."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

WORKLOADS = ("training", "inference")
# The choice rule, best first: your own measurement, then an independent benchmark, then
# what a vendor claims, then an author's estimate, and last chipcost's own derivation.
KINDS = ("measured", "independent", "vendor-claim", "estimate", "derived")
ORIGINS = ("reference", "derived", "user")


@dataclass(frozen=True)
class Figure:
    """One row of the `throughput` table (columns in table order after schema 5)."""

    chip: str
    model: str
    workload: str
    batch_size: int | None
    precision: str | None
    sequence_length: int | None
    tokens_per_second_per_chip: float
    mfu: float | None
    kind: str
    source: str
    notes: str | None
    throughput_id: str
    origin: str
    source_date: str
    stated_as: str

    def values(self) -> list:
        return list(asdict(self).values())


COLUMNS = tuple(f.name for f in fields(Figure))


@dataclass(frozen=True)
class Assumption:
    """How chipcost derives a workload's throughput where no figure exists (derivation.csv)."""

    workload: str
    mfu: float
    precision: str  # the peak used: fp8 falls back to bf16 on chips without FP8
    why: str
    not_on: frozenset[str] = frozenset()  # chip families that cannot run the workload at all
