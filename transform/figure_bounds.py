"""The bounds every throughput figure is held to, whoever adds it.

`chipcost measure`, `throughput add`, `throughput import` and the catalogue's loader all make
their figures with chipcost.transform.throughput_figures.figure_from_row, which calls these;
`measure` also checks its chips with `whole_chips` before any load. Each refusal names the
CSV column first (`throughput add` names its option in its place). The chip's roofline is the
other bound, which needs the warehouse's chips and models: the share of the dense peak a
figure implies is computed once (warehouse/views/35_throughput_ranked.sql); a user's figure
above it is refused where it is stored (chipcost.warehouse.throughput_store), a reference's
set aside, kept but not used; `measure` checks its points against the physical roofline too
(chipcost.transform.measured).
"""

from __future__ import annotations

import math
from datetime import date

from chipcost.core.errors import ChipcostError, UsageError

# Below a hundredth of a token a second per chip no workload is served or trained: a unit
# slip, or a measurement divided by chips it did not run on.
MIN_TOKENS_PER_SECOND = 0.01
# Above a billion tokens a second per chip none is: the catalogue's most dense compute, GB300's
# 15 PFLOPS at FP4 (core/data/chips.csv), at 2 FLOPs per parameter per token would serve
# that many only for a model of 7.5 million parameters, a forty-fifth of BERT-Large (340
# million), the smallest model it holds.
MAX_TOKENS_PER_SECOND = 1e9
# The most chips one figure can stand for, by workload.
# Inference: one replica, the chips behind one endpoint. The largest single system sold is a
# rack-scale NVLink domain: 72 GPUs in a GB200 NVL72 (the largest inference scale in the
# catalogue), 576 in the NVL576 rack NVIDIA announced for Rubin Ultra (GTC, March 2025).
# Beyond one such system a replica is several (and a figure is per replica).
# Training: a run spans many systems; a TPU v5p pod is 8,960 chips rented as one (Google
# Cloud TPU v5p documentation, cloud.google.com/tpu/docs/v5p) and Llama 3 trained on 16,384
# H100s (The Llama 3 Herd of Models, July 2024, Table 4).
MAX_CHIPS = {"inference": 576, "training": 16_384}


def whole_chips(value: float, workload: str, column: str = "chips") -> int:
    """A chip count as stored: a whole number from 1 to the workload's MAX_CHIPS."""
    most = MAX_CHIPS.get(workload, max(MAX_CHIPS.values()))
    if not math.isfinite(value) or value != int(value):
        raise UsageError(
            f"{column} {value:g} is not a whole number of chips: a figure stands for whole "
            "chips (a model served on part of a chip is measured per chip)"
        )
    if not 1 <= value <= most:
        what = "behind one inference replica" if workload == "inference" else "in a training run"
        raise UsageError(
            f"{column} {value:g}: give 1 to {most:,} chips {what} (the largest system rented "
            "as one; docs/cost-per-token.md)"
        )
    return int(value)


def rate_in_bounds(tokens_per_second_per_chip: float, column: str = "tokens_per_second") -> float:
    """A per-chip rate that is finite, at least MIN_TOKENS_PER_SECOND and at most
    MAX_TOKENS_PER_SECOND."""
    if not math.isfinite(tokens_per_second_per_chip) or not (
        tokens_per_second_per_chip >= MIN_TOKENS_PER_SECOND
    ):
        raise ChipcostError(
            f"{column}: {tokens_per_second_per_chip:g} tokens/s per chip is below "
            f"{MIN_TOKENS_PER_SECOND:g}: no workload runs that slowly (a unit slip, or chips "
            "counted that did not serve it?)"
        )
    if tokens_per_second_per_chip > MAX_TOKENS_PER_SECOND:
        raise ChipcostError(
            f"{column}: {tokens_per_second_per_chip:g} tokens/s per chip is more than any chip "
            f"processes ({MAX_TOKENS_PER_SECOND:g} at most: GB300's 15 PFLOPS would serve that "
            "many only for a model of 7.5 million parameters); a unit slip?"
        )
    return tokens_per_second_per_chip


def real_date(text: str, column: str = "source_date") -> str:
    """YYYY, YYYY-MM or YYYY-MM-DD naming a month or day that exists, or 'undated'."""
    parts = text.split("-")
    try:
        if len(parts) == 3:
            date.fromisoformat(text)
        elif len(parts) == 2 and not 1 <= int(parts[1]) <= 12:
            raise ValueError(parts[1])
    except ValueError:
        raise ChipcostError(
            f"{column} {text!r} is not a day that exists: write YYYY-MM-DD, e.g. 2026-11-20"
        ) from None
    return text
