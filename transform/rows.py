"""The rows cost per token is answered with, as typed dicts: a figure of the throughput_ranked
view, and an offer of the cost ranking (a cost_per_token row and the columns the ranking adds).

They stay dicts: the warehouse returns them so, the ranking completes them in place, and their
keys, in order, are the columns of its CSV and JSON (polars takes them as records). A
TypedDict names each column's type without copying a row into another object.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import TypedDict, cast


class FigureRow(TypedDict, total=False):
    """A throughput figure as chipcost.warehouse.cost_per_token.figures reads throughput_ranked
    (warehouse/views/35_throughput_ranked.sql) at the asked speed."""

    chip: str
    model: str
    workload: str
    throughput_id: str
    chosen: bool
    choice_rank: int
    usable: bool
    origin: str
    tokens_per_second_per_chip: float
    kind: str
    set_aside_because: str | None
    source: str
    at_speed: bool
    input_tokens: int | None
    output_tokens: int | None
    precision: str | None
    chips: int | None
    sequence_length: int | None
    batch_size: int | None
    published_model: str | None
    scenario: str | None
    tokens_per_second_per_user: float | None
    operating_point: str | None
    source_date: str | None
    software: str | None
    system: str | None
    ttft_ms: float | None
    tpot_ms: float | None
    concurrency: int | None
    ttft_bound_ms: float | None
    single_stream: bool
    interpolated: bool
    source_url: str | None
    curve: list[str] | None
    deployment: str | None
    lower_bound: bool
    superseded: bool
    within_bounds: bool  # not a single stream, its first token within ttft_bound_ms


class CostRow(TypedDict, total=False):
    """One offer of the cost ranking: the columns of cost_per_token
    (warehouse/views/40_cost_per_token.sql) in the view's order, then those each step of the
    ranking adds, in the order it adds them."""

    chip: str
    model: str
    workload: str
    provider: str
    region: str
    zone: str
    instance_type: str
    pricing_model: str
    term: str
    payment: str
    plan: str
    price_per_chip_hour: float
    tokens_per_second_per_chip: float
    usd_per_million_tokens: float
    throughput_kind: str
    throughput_source: str
    batch_size: int | None
    precision: str | None
    price_source: str
    price_payload_ref: str | None
    throughput_id: str
    throughput_origin: str
    throughput_source_date: str | None
    implied_mfu: float | None
    chip_count: float | None
    price_per_hour: float
    price_sku: str | None
    price_valid_from: datetime
    throughput_operating_point: str | None
    throughput_scenario: str | None
    throughput_tokens_per_second_per_user: float | None
    throughput_asked_speed: str | None
    throughput_at_speed: bool | None
    throughput_input_tokens: int | None
    throughput_output_tokens: int | None
    throughput_chips: int | None
    # chipcost.warehouse.cost_per_token.cost_rows: one chip's memory and whether the price is
    # an estimate (no price the provider publishes), and what it rests on
    chip_memory_gb: float | None
    estimate: bool
    estimate_basis: str | None
    # whether the price is the bundled sample's (warehouse.prices SAMPLE)
    sample: bool
    # why a spot price is doubtful (not below its offer's on-demand price), else None
    spot_doubt: str | None
    # in another currency or after your discounts (chipcost.reads.your_prices: ADDED)
    list_price_per_chip_hour_usd: float | None
    discount: str | None
    currency: str
    usd_rate: float | None
    rate_day: date | None
    # whether the model fits (chipcost.transform.cost_fit.with_fit)
    memory_needed_gb: float | None
    instance_memory_gb: float | None
    fits: bool | None
    instances_needed: int | None
    # a spot offer's interruption bucket, where one is asked (chipcost.reads.cost)
    interruption: str
    # whether the price is the GPU's alone, its host billed beside it, and whether the figure
    # is a lower bound at the asked speed (chipcost.reads.cost.rank_cost)
    gpu_alone: bool
    lower_bound: bool
    # against the baseline (chipcost.transform.cost.with_costs)
    cost_for_tokens: float | None
    baseline_usd_per_million_tokens: float | None
    baseline_provider: str | None
    baseline_same_provider: bool | None
    cost_change_vs_baseline: float | None
    vs_baseline: str | None
    break_even_tokens: float | None
    break_even_days: float | None
    # what the evidence says (chipcost.transform.verdict.with_verdicts)
    throughput_range_low: float | None
    throughput_range_high: float | None
    throughput_figure_kind: str
    break_even_tokens_per_second_per_chip: float | None
    break_even_share: float | None
    break_even_share_of: str | None  # what the share is of (transform.verdict.share_of)
    break_even_for: str | None
    break_even_at_least: bool | None
    verdict: str | None
    verdict_point: str | None
    in_words: str | None
    vs_baseline_at_point: float | None
    # the costs per million tokens at the figures a verdict rests on, where it is drawn at
    # figures other than the offers' own (the point both chips are measured at)
    usd_per_million_tokens_at_point: float | None
    baseline_usd_per_million_tokens_at_point: float | None
    # the figures vs_baseline rests on where they are not the offers' own, in words
    vs_baseline_basis: str | None


def figure_rows(rows: list[dict[str, object]]) -> list[FigureRow]:
    """A query's rows of throughput_ranked, as FigureRow names them (DuckDB's rows carry no
    types of their own; tests/transform/test_rows.py holds the names to the view's)."""
    return cast(list[FigureRow], rows)


def cost_rows_of(rows: list[dict[str, object]]) -> list[CostRow]:
    """A query's rows of cost_per_token, as CostRow names them (as figure_rows)."""
    return cast(list[CostRow], rows)


def number(value: object) -> float:
    """A number a row holds (DuckDB's DOUBLE or BIGINT, polars' Float64, JSON's number) as a
    float, for rows whose columns are not declared (a price listing, a model's row, an answer
    read back from JSON); a TypeError for anything else, NULL included, as float() of it."""
    if isinstance(value, int | float):
        return float(value)
    raise TypeError(f"a number was expected, not {value!r}")
