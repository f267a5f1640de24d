"""Whether the model fits each offer's instance, and the ranking that puts those that fit first."""

from __future__ import annotations

import polars as pl

from chipcost.transform.cost import memory_needed_gb
from chipcost.warehouse.cost_per_token import GROUP

# Within a rank, the same order as the warehouse's (cheapest, then a stable tie-break).
ORDER = ("cost_per_million_tokens", "chip", "provider", "region", "zone", "instance_type")
ORDER += ("payment", "plan")


def with_fit(frame: pl.DataFrame, parameters: float | None, workload: str) -> pl.DataFrame:
    """The offers with memory_needed_gb, instance_memory_gb (chips x memory per chip), fits
    (None when either is unknown) and instances_needed (how many such instances hold it)."""
    needed = [
        None if parameters is None else memory_needed_gb(parameters, workload, precision)
        for precision in frame["precision"].to_list()
    ]
    frame = frame.with_columns(
        pl.Series("memory_needed_gb", needed, dtype=pl.Float64),
        (pl.col("chip_memory_gb") * pl.col("chip_count")).alias("instance_memory_gb"),
    )
    return frame.with_columns(
        (pl.col("memory_needed_gb") <= pl.col("instance_memory_gb")).alias("fits"),
        (pl.col("memory_needed_gb") / pl.col("instance_memory_gb")).ceil().cast(pl.Int64)
        .alias("instances_needed"),
    )  # fmt: skip


def _sorted(frame: pl.DataFrame) -> pl.DataFrame:
    """Offers that can hold the model (or may: unknown) first, each part cheapest first."""
    cannot = pl.col("fits").fill_null(True).not_().alias("_cannot")
    return frame.with_columns(cannot).sort(["_cannot", *ORDER]).drop("_cannot")


def choose(frame: pl.DataFrame, *, chips: list[str] | None, all_offers: bool) -> pl.DataFrame:
    """The ranking's offers: every one, or per chip, pricing model and term the cheapest that
    holds the model (the cheapest of all when none does); those that fit first."""
    if chips:
        frame = frame.filter(pl.col("chip").is_in(chips))
    frame = _sorted(frame)
    if not all_offers:
        frame = _sorted(frame.unique(subset=list(GROUP), keep="first", maintain_order=True))
    return frame


def baseline_costs(frame: pl.DataFrame, chip: str) -> dict[tuple[str, str], float]:
    """The baseline chip's cost per million tokens per (pricing_model, term): its cheapest offer
    that holds the model, or its cheapest when none does (the same choice as the ranking's)."""
    chosen = choose(frame, chips=[chip], all_offers=False)
    return {
        (row["pricing_model"], row["term"]): row["cost_per_million_tokens"]
        for row in chosen.iter_rows(named=True)
    }
