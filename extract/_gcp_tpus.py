"""Cloud TPU shapes as Google rents them: the slices of core/data/gcp_tpu_slices.csv.

Google prices TPUs per chip-hour; a slice of n chips costs n chip-hours an hour. A chip with
slices listed is priced as those slices (a 70B model is held by a v6e-8, not by one chip); a
TPU chip without (v3, v4) stays one chip. A "Pod" SKU prices no chip-hour and is not read.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache
from importlib import resources

SLICE_TABLE = "gcp_tpu_slices.csv"


@dataclass(frozen=True)
class Shape:
    """What one TPU offer rents: its name, chips, and Google's names for its shape."""

    name: str
    chips: int
    accelerator_type: str
    topology: str = ""


@cache
def slices() -> dict[str, tuple[Shape, ...]]:
    """Canonical chip -> its slices (core/data/gcp_tpu_slices.csv), smallest first."""
    path = resources.files("chipcost.core").joinpath("data", SLICE_TABLE)
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(line for line in handle if not line.startswith("#")))
    found: dict[str, list[Shape]] = {}
    for row in rows:
        found.setdefault(row["chip"], []).append(
            Shape(row["instance_type"], int(row["chips"]), row["accelerator_type"], row["topology"])
        )
    return {chip: tuple(sorted(shapes, key=_size)) for chip, shapes in found.items()}


def _size(shape: Shape) -> int:
    return shape.chips


def shapes(chip: str, accelerator_type: str) -> tuple[Shape, ...]:
    """The offers one per-chip TPU price makes: the chip's slices, or one chip where none is
    listed ('tpu-v4')."""
    if chip in slices():
        return slices()[chip]
    return (Shape(f"tpu-{accelerator_type}", 1, accelerator_type),)
