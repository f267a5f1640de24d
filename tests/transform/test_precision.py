"""transform/precision.py: the one rule for a precision's class, weight size and peak."""

from __future__ import annotations

import pytest

from chipcost.transform.precision import dense_peak, is_four_bit, precision_class, weight_bytes

# H100-SXM's dense peaks as chips.csv gives them; a chip without an FP8 path (A100).
H100 = {"dense_fp8_tflops": 1979.0, "dense_bf16_tflops": 989.5, "dense_fp4_tflops": None}
A100 = {"dense_fp8_tflops": None, "dense_bf16_tflops": "312"}


@pytest.mark.parametrize(
    ("chip", "precision", "peak"),
    [
        (H100, "bf16", ("bf16", 989.5)),
        (H100, "fp16", ("bf16", 989.5)),
        (H100, "fp8", ("fp8", 1979.0)),
        (H100, "int8", ("fp8", 1979.0)),
        (H100, "fp4", ("fp8", 1979.0)),  # the FP4 peak is not the derivation's
        (H100, None, ("fp8", 1979.0)),
        (A100, "fp8", ("bf16", 312.0)),  # no FP8 peak: BF16's, from chips.csv's text
        ({"dense_fp8_tflops": 0, "dense_bf16_tflops": None}, "fp8", None),
    ],
)
def test_the_peak_a_precision_is_held_to(chip, precision, peak):
    assert dense_peak(chip, precision) == peak


@pytest.mark.parametrize(
    ("stated", "size", "named"),
    [
        ("fp4", 0.5, "FP4"),
        ("int4", 0.5, "FP4"),
        ("fp8", 1.0, "FP8"),
        ("FP8-E4M3", 1.0, "FP8"),  # a spelling a document gives
        ("int8", 1.0, "INT8"),
        ("bf16", 2.0, "BF16-FP16"),
        ("fp16", 2.0, "BF16-FP16"),
        (None, 2.0, None),  # not stated: counted at 16 bits, in no class
    ],
)
def test_a_precisions_weight_and_class(stated, size, named):
    assert weight_bytes(stated) == size
    assert precision_class(stated) == named
    assert is_four_bit(stated) == (named == "FP4")


def test_block_scaled_four_bit_spellings_are_four_bit():
    assert all(is_four_bit(name) for name in ("nvfp4", "MXFP4", "w4a16"))
