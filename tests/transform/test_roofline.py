"""The inference roofline: memory bandwidth bounds decoding, compute the rest, memory the batch.

Expected values are worked by hand from the docstring's formula with the chips' datasheet
figures (core/data/chips.csv) and Llama 3 70B's config (80 layers, 8 KV heads of 128)."""

from __future__ import annotations

import pytest

from chipcost.core.errors import ChipcostError
from chipcost.transform.roofline import Chip, Serving, Shape, decode_point, kv_values_per_token

H100 = Chip(memory_gb=80, bandwidth_tbps=3.35, peak_tflops=1979)
H200 = Chip(memory_gb=141, bandwidth_tbps=4.8, peak_tflops=1979)
LLAMA_70B = Shape(70.6e9, 70.6e9, kv_values_per_token(80, 8, 128, "gqa"))
SERVING = Serving(
    bandwidth_efficiency=0.6,
    compute_efficiency=0.4,
    usable_memory=0.9,
    input_tokens=1000,
    output_tokens=1000,
)
SPEEDS = (5, 10, 15, 20, 25, 30, 40, 50, 60, 80, 100, 150, 200)


def test_kv_cache_values_per_token_follow_the_config():
    assert kv_values_per_token(80, 8, 128, "gqa") == 2 * 80 * 8 * 128 == 163_840
    assert kv_values_per_token(61, 1, 576, "mla") == 61 * 576  # one latent per layer
    assert kv_values_per_token(None, 8, 128, "gqa") == 0  # unknown: the cache is left out


def test_one_sequence_is_memory_bound_and_reads_the_weights_every_step():
    point = decode_point(LLAMA_70B, H100, "fp8", SERVING, batch=1)
    # 70.6 GB of FP8 weights: two H100s hold them in half their usable memory (2 x 36 GB).
    # Each step reads the weights and 1,500 tokens' cache (the prompt and half the answer).
    step_bytes = 70.6e9 + 163_840 * 1500
    assert point.chips == 2 and point.batch == 1 and point.bound == "memory"
    assert point.tokens_per_second_per_chip == pytest.approx(3.35e12 * 0.6 / step_bytes)
    assert point.tokens_per_second_per_user == pytest.approx(2 * 3.35e12 * 0.6 / step_bytes)


def test_bf16_weights_read_twice_the_bytes_of_fp8():
    fp8 = decode_point(LLAMA_70B, H200, "fp8", SERVING, batch=1)
    bf16 = decode_point(LLAMA_70B, H200, "bf16", SERVING, batch=1)
    per_chip = bf16.tokens_per_second_per_chip / fp8.tokens_per_second_per_chip
    assert per_chip == pytest.approx((70.6e9 + 163_840 * 1500) / (2 * 70.6e9 + 2 * 163_840 * 1500))


def test_h200_does_at_least_what_h100_does_and_more_where_memory_bounds_it():
    # The same peak FLOPS: where compute bounds both (large batches), the same; where the
    # H100's memory bounds it, the H200's 43% more bandwidth and 76% more memory tell.
    memory_bound = 0
    for speed in (None, *SPEEDS):
        h100 = decode_point(LLAMA_70B, H100, "fp8", SERVING, speed=speed)
        h200 = decode_point(LLAMA_70B, H200, "fp8", SERVING, speed=speed)
        if h100 is None:
            continue
        assert h200 is not None, speed
        assert h200.tokens_per_second_per_chip >= h100.tokens_per_second_per_chip, speed
        if h100.bound == "memory":
            memory_bound += 1
            assert h200.tokens_per_second_per_chip > h100.tokens_per_second_per_chip, speed
    assert memory_bound >= 2  # 150 and 200 tokens/s per user


def test_a_faster_user_costs_throughput_and_the_point_meets_its_speed():
    previous = decode_point(LLAMA_70B, H200, "fp8", SERVING).tokens_per_second_per_chip
    for speed in SPEEDS:
        point = decode_point(LLAMA_70B, H200, "fp8", SERVING, speed=speed)
        if point is None:
            break
        assert point.tokens_per_second_per_user >= speed
        assert point.tokens_per_second_per_chip <= previous * 1.000001
        previous = point.tokens_per_second_per_chip


def test_a_speed_the_memory_cannot_give_is_no_point():
    # Even 8 H100s read 70.6 GB at most 8 x 3.35 x 0.6 = 16 TB/s: about 228 steps a second.
    assert decode_point(LLAMA_70B, H100, "fp8", SERVING, speed=1000) is None


def test_a_batch_the_memory_cannot_hold_is_no_point():
    assert decode_point(LLAMA_70B, H100, "fp8", SERVING, batch=1_000_000) is None


def test_a_mixture_of_experts_computes_with_its_active_and_stores_its_total_parameters():
    moe = Shape(total_parameters=100e9, active_parameters=10e9, kv_values_per_token=0)
    dense = Shape(total_parameters=100e9, active_parameters=100e9, kv_values_per_token=0)
    fast, slow = (decode_point(s, H100, "fp8", SERVING) for s in (moe, dense))
    # No cache: the batch is unbounded by memory and compute bounds it, at 2 x active FLOPs
    # per token (doubled: each step also prefills as many prompt tokens, input = output).
    assert fast.bound == slow.bound == "compute"
    assert fast.tokens_per_second_per_chip == pytest.approx(1979e12 * 0.4 / (2 * 10e9 * 2))
    assert fast.tokens_per_second_per_chip == pytest.approx(10 * slow.tokens_per_second_per_chip)
    # 100 GB of weights need four H100s (two hold 72 GB in half their usable memory)
    assert fast.chips == slow.chips == 4


def test_a_precision_without_a_byte_size_is_refused():
    with pytest.raises(ChipcostError, match="precision 'fp6' has no byte size"):
        decode_point(LLAMA_70B, H100, "fp6", SERVING)


# Tensor parallelism's communication (the docstring): H100's NVLink at 900 GB/s (interconnect.csv)
H100_LINKED = Chip(memory_gb=80, bandwidth_tbps=3.35, peak_tflops=1979, interconnect_gbps=900)
LLAMA_70B_LAYERED = Shape(70.6e9, 70.6e9, kv_values_per_token(80, 8, 128, "gqa"), 80)
TALKING = Serving(0.6, 0.4, 0.9, 1000, 1000, allreduce_latency_us=10)


def test_a_unit_of_several_chips_pays_its_all_reduces_each_step():
    quiet = decode_point(LLAMA_70B, H100, "fp8", SERVING, batch=1)
    talking = decode_point(LLAMA_70B_LAYERED, H100_LINKED, "fp8", TALKING, batch=1)
    assert talking.chips == quiet.chips == 2
    # 2 all-reduces per layer: 160 x 10 us, plus 160 x (2 tokens x hidden x 2 bytes x 2(N-1)/N)
    # at half of 900 GB/s; hidden from 70.6e9 = 12 x 80 x hidden^2
    hidden = (70.6e9 / (12 * 80)) ** 0.5
    talk = 160 * 10e-6 + 160 * (2 * hidden * 2 * 1) / 450e9
    assert 1 / talking.tokens_per_second_per_user == pytest.approx(
        1 / quiet.tokens_per_second_per_user + talk
    )


def test_throughput_falls_with_the_per_user_speed_once_the_chips_talk():
    points = [
        decode_point(LLAMA_70B_LAYERED, H100_LINKED, "fp8", TALKING, speed=speed)
        for speed in (None, 25, 50, 100)
    ]
    tps = [p.tokens_per_second_per_chip for p in points if p is not None]
    assert len(tps) == 4 and tps == sorted(tps, reverse=True) and tps[-1] < 0.7 * tps[0]
    assert all(
        p.tokens_per_second_per_user >= s for p, s in zip(points[1:], (25, 50, 100), strict=True)
    )


def test_one_chip_never_talks():
    one = Shape(8.03e9, 8.03e9, kv_values_per_token(32, 8, 128, "gqa"), 32)
    quiet = decode_point(one, H100, "fp8", SERVING, batch=4)
    linked = decode_point(one, H100_LINKED, "fp8", TALKING, batch=4)
    assert linked.chips == 1 and linked == quiet
