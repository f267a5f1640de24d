"""A figure's precision: its class, the bytes a weight takes at it, and the peak it is held to.

A throughput figure is stored at one of the precisions of WEIGHT_BYTES (lower case; None where
its document states none). Every rule that depends on the precision reads it from here: how
figures are grouped for comparison, what a model's weights weigh, which dense peak of the chip
the derivation uses.
"""

from __future__ import annotations

from collections.abc import Mapping

# Bytes per weight at each precision a figure is stored at.
WEIGHT_BYTES = {"fp4": 0.5, "int4": 0.5, "fp8": 1.0, "int8": 1.0, "bf16": 2.0, "fp16": 2.0}
# A model served at a precision stated otherwise (or not at all) is counted at 16 bits.
DEFAULT_WEIGHT_BYTES = 2.0
# The precision classes a figure's stated precision falls into (the names outputs print),
# with the other spellings documents give.
PRECISION_CLASSES = {
    "fp4": "FP4", "nvfp4": "FP4", "mxfp4": "FP4", "int4": "FP4", "w4a16": "FP4",
    "fp8": "FP8", "mxfp8": "FP8", "fp8-e4m3": "FP8", "fp8-e5m2": "FP8", "w8a8": "FP8",
    "bf16": "BF16-FP16", "fp16": "BF16-FP16", "bfloat16": "BF16-FP16",
    "int8": "INT8",
}  # fmt: skip
# The 16-bit precisions: the derivation holds them to the BF16 peak, every other to FP8's.
SIXTEEN_BITS = ("bf16", "fp16")


def precision_class(precision: object) -> str | None:
    """'FP4', 'FP8', 'BF16-FP16', 'INT8', or None where the document states none."""
    text = str(precision or "").strip().lower()
    if not text:
        return None
    return PRECISION_CLASSES.get(text, PRECISION_CLASSES.get(text.split("-")[0], text.upper()))


PRECISION_EXAMPLES = "fp8, bf16 (or fp16), fp4 or int8"


def precision_asked(value: object, option: str) -> str | None:
    """The precision class asked for (`--precision fp8` -> 'FP8'), or None where none is asked
    (every precision answers)."""
    from chipcost.core.errors import UsageError

    if value is None:
        return None
    text = str(value).strip().lower() if isinstance(value, str) else ""
    if text.upper() in set(PRECISION_CLASSES.values()):
        return text.upper()
    if text not in PRECISION_CLASSES:
        raise UsageError(f"{option} {value!r}: give {PRECISION_EXAMPLES}")
    return PRECISION_CLASSES[text]


def spellings(klass: str) -> list[str]:
    """Every spelling of a precision class a figure may be stored at ('FP8' -> 'fp8',
    'mxfp8', ...): what the warehouse's view matches a figure's precision against."""
    return sorted(name for name, of in PRECISION_CLASSES.items() if of == klass)


def is_four_bit(precision: object) -> bool:
    """A 4-bit figure (FP4, INT4): held to the FP8 peak, so its errors are told apart."""
    return precision_class(precision) == "FP4"


def weight_bytes(precision: str | None) -> float:
    """Bytes a weight takes at `precision` as a figure states it ('fp8', 'FP8-E4M3', ...)."""
    key = (precision or "").strip().lower()
    for name, size in WEIGHT_BYTES.items():
        if key.startswith(name):
            return size
    return DEFAULT_WEIGHT_BYTES


def _tflops(value: object) -> float | None:
    """A peak from the chips table (a number in the warehouse, text in chips.csv)."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if number > 0 else None


def dense_peak(chip: Mapping[str, object], precision: str | None) -> tuple[str, float] | None:
    """(the peak's precision, dense TFLOPS) the derivation holds a figure at `precision` to:
    BF16 for 16 bits; FP8 for 8 bits or fewer or none stated (the chips table's FP4 peak is
    not used: an FP4 figure is held to FP8's), BF16 on a chip with no FP8 peak; None where
    the chip has neither."""
    order = ("bf16",) if precision in SIXTEEN_BITS else ("fp8", "bf16")
    for name in order:
        value = _tflops(chip.get(f"dense_{name}_tflops"))
        if value is not None:
            return name, value
    return None
