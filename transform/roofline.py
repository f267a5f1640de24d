"""Inference throughput from a roofline: memory bandwidth bounds decoding, compute bounds the rest.

A serving unit of `chips` chips holds the weights (total parameters x bytes per weight) and a
KV cache per sequence (2 x layers x KV heads x head dimension values per token, for the whole
context). Each decoding step reads the weights once and every sequence's cache, and computes
2 x active parameters FLOPs per sequence plus the prefill of the prompts that join the batch
meanwhile (a sequence lives `output` steps and brings `input` prompt tokens, so each step
carries input/output prompt tokens per sequence). So, for a batch of B sequences:

    step time = max( (weights + B x cache per sequence) / (chips x bandwidth x efficiency),
                     B x 2 x active x (1 + input/output) / (chips x peak x efficiency) )
                + communication
    tokens/s per user = 1 / step time;   tokens/s per chip = B / (chips x step time)

Communication is tensor parallelism's: on a unit of N > 1 chips every layer all-reduces its
activations twice per step (B x (1 + input/output) tokens x hidden size x 2 bytes), a ring
moving 2(N-1)/N of them through each chip at half its stated (bidirectional) interconnect
bandwidth, each all-reduce also paying a fixed latency (roofline.csv). It does not overlap
the step's other work, so the faster each user is served, the larger the share of the step it
takes: the throughput per chip falls with the per-user speed, as measured curves do. A chip
with no interconnect figure (core/data/interconnect.csv) is derived without it.

The batch is the largest the memory holds (the whole context reserved per sequence) and, at an
asked speed, the largest whose step time still gives that speed. The serving unit is a power of
two from the fewest chips that hold the weights in half their usable memory up to 8 (or that
fewest, when more than 8): the one giving the most tokens/s per chip, the smaller on a tie
(within 1%).
Attention FLOPs, sliding-window attention and scheduling are left out: the figure is an
upper-bound style estimate, fitted to the measurements (chipcost.transform.derivation_fit),
whose error docs/cost-per-token.md states.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

from chipcost.core.errors import ChipcostError
from chipcost.transform.precision import WEIGHT_BYTES

# The KV cache is kept in FP8 where the weights are 8 bits or fewer (as the FP8 and FP4
# submissions to MLPerf do), else in 16 bits (bytes per weight: transform/precision.py).
MAX_UNIT = 8  # one 8-chip instance; a model that needs more is served on what holds it
# Without a KV-cache shape memory sets no batch limit; the compute roof does, long before this.
NO_CACHE_BATCH = 1_000_000


@dataclass(frozen=True)
class Shape:
    """What the roofline needs of a model; kv_values_per_token 0 when unknown (KV left out)."""

    total_parameters: float
    active_parameters: float
    kv_values_per_token: float
    layers: int = 0  # 0: unknown, no communication derived

    @property
    def hidden(self) -> float:
        """The hidden size, from active parameters ~ 12 x layers x hidden^2 (a dense
        transformer's attention and MLP weights); models.csv does not carry it."""
        return math.sqrt(self.active_parameters / (12 * self.layers)) if self.layers else 0.0


@dataclass(frozen=True)
class Chip:
    """What the roofline needs of a chip at one precision."""

    memory_gb: float
    bandwidth_tbps: float
    peak_tflops: float
    interconnect_gbps: float | None = None  # bidirectional, per chip; None: not modelled


@dataclass(frozen=True)
class Serving:
    """The derivation's constants (core/data/roofline.csv)."""

    bandwidth_efficiency: float
    compute_efficiency: float
    usable_memory: float
    input_tokens: int
    output_tokens: int
    allreduce_latency_us: float = 0.0


@dataclass(frozen=True)
class Settings:
    """The inference derivation's settings besides its compute efficiency (roofline.csv)."""

    bandwidth_efficiency: float
    usable_memory: float
    input_tokens: int
    output_tokens: int
    speeds: tuple[float, ...]  # tokens/s per user a figure is derived at, besides maximum
    allreduce_latency_us: float = 0.0

    def serving(
        self,
        compute_efficiency: float,
        input_tokens: int | None = None,
        output_tokens: int | None = None,
    ) -> Serving:
        """The constants of one derivation; a figure's own prompt and answer lengths win."""
        return Serving(
            self.bandwidth_efficiency,
            compute_efficiency,
            self.usable_memory,
            input_tokens or self.input_tokens,
            output_tokens or self.output_tokens,
            self.allreduce_latency_us,
        )


@dataclass(frozen=True)
class Point:
    """One derived operating point."""

    tokens_per_second_per_chip: float
    tokens_per_second_per_user: float
    batch: int
    chips: int
    bound: str  # memory or compute


def kv_values_per_token(
    layers: int | None, kv_heads: int | None, head_dim: int | None, attention: str | None
) -> float:
    """Values one token leaves in the KV cache: 2 (key and value) x layers x KV heads x head
    dimension; for multi-head latent attention (DeepSeek), one latent of `head_dim` per layer."""
    if not layers or not kv_heads or not head_dim:
        return 0.0
    per_layer = kv_heads * head_dim * (1 if attention == "mla" else 2)
    return float(layers * per_layer)


def _bytes(precision: str) -> tuple[float, float]:
    weight = WEIGHT_BYTES.get(precision)
    if weight is None:
        raise ChipcostError(
            f"precision {precision!r} has no byte size: use one of {', '.join(WEIGHT_BYTES)}"
        )
    return weight, (1.0 if weight <= 1 else 2.0)


def _unit_sizes(weights: float, usable: float) -> list[int]:
    fewest = 1
    while weights > fewest * usable / 2:
        fewest *= 2
    sizes, size = [], fewest
    while size <= max(fewest, MAX_UNIT):
        sizes.append(size)
        size *= 2
    return sizes


class _Unit(NamedTuple):
    """A serving unit of `n` chips: its roofs, and what a step costs per sequence.

    A named tuple, not a frozen dataclass: a new warehouse's seed makes some 16,000 of them,
    and a frozen dataclass's __init__ cost a fifth of the seed.
    """

    n: int
    usable: float  # bytes for weights and cache
    bandwidth: float  # bytes/s
    compute: float  # FLOP/s
    fixed: float  # seconds of communication latency per step
    per_sequence: float  # seconds of communication per sequence per step

    @classmethod
    def of(cls, n: int, chip: Chip, shape: Shape, serving: Serving) -> _Unit:
        fixed = per_sequence = 0.0
        if n > 1 and chip.interconnect_gbps and shape.layers:
            all_reduces = 2 * shape.layers
            tokens = 1 + serving.input_tokens / serving.output_tokens
            moved = tokens * shape.hidden * 2 * 2 * (n - 1) / n  # BF16 activations, a ring
            per_sequence = all_reduces * moved / (chip.interconnect_gbps * 1e9 / 2)
            fixed = all_reduces * serving.allreduce_latency_us * 1e-6
        return cls(
            n,
            n * chip.memory_gb * 1e9 * serving.usable_memory,
            n * chip.bandwidth_tbps * 1e12 * serving.bandwidth_efficiency,
            n * chip.peak_tflops * 1e12 * serving.compute_efficiency,
            fixed,
            per_sequence,
        )


def _largest_batch(
    unit: _Unit, weights: float, reserved: float, read: float, flops: float, speed: float | None
) -> int:
    """The largest batch the unit holds (`reserved` bytes per sequence) that, at an asked
    speed, still steps fast enough (`read` bytes and `flops` per sequence per step)."""
    limits = [(unit.usable - weights) / reserved if reserved else NO_CACHE_BATCH]
    if speed is not None:
        spare = 1 / speed - unit.fixed
        memory_spare = spare - weights / unit.bandwidth
        per_sequence = read / unit.bandwidth + unit.per_sequence
        limits.append(memory_spare / per_sequence if per_sequence else math.inf)
        limits.append(spare / (flops / unit.compute + unit.per_sequence))
    largest = min(limits)
    return int(largest) if largest >= 1 else 0


def _step(unit: _Unit, weights: float, read: float, flops: float, batch: int) -> tuple[float, str]:
    """Seconds per decoding step of `batch` sequences on the unit, and what bounds it."""
    memory = (weights + batch * read) / unit.bandwidth
    compute = batch * flops / unit.compute
    talk = unit.fixed + batch * unit.per_sequence
    return (memory + talk, "memory") if memory >= compute else (compute + talk, "compute")


def decode_point(
    shape: Shape,
    chip: Chip,
    precision: str,
    serving: Serving,
    *,
    speed: float | None = None,
    batch: int | None = None,
) -> Point | None:
    """The best tokens/s per chip at `speed` tokens/s per user (None: maximum throughput), or
    at a fixed `batch`; None when no serving unit reaches the speed or holds the model."""
    weight_bytes, kv_bytes = _bytes(precision)
    weights = shape.total_parameters * weight_bytes
    per_token = shape.kv_values_per_token * kv_bytes
    reserved = per_token * (serving.input_tokens + serving.output_tokens)
    read = per_token * (serving.input_tokens + serving.output_tokens / 2)  # an average step
    flops = 2 * shape.active_parameters * (1 + serving.input_tokens / serving.output_tokens)
    usable_per_chip = chip.memory_gb * 1e9 * serving.usable_memory
    best: Point | None = None
    for n in _unit_sizes(weights, usable_per_chip):
        unit = _Unit.of(n, chip, shape, serving)
        if batch is None:
            size = _largest_batch(unit, weights, reserved, read, flops, speed)
        elif weights + batch * reserved <= unit.usable:
            size = batch
        else:
            continue
        if size < 1:
            continue
        seconds, bound = _step(unit, weights, read, flops, size)
        point = Point(size / (n * seconds), 1 / seconds, size, n, bound)
        # a bigger unit must pay: equal throughput on more chips is no better
        if (
            best is None
            or point.tokens_per_second_per_chip > 1.01 * best.tokens_per_second_per_chip
        ):
            best = point
    return best
