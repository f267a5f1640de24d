"""A chip's derived estimate at another chip's point (the evidence model itself is in
chipcost.transform.evidence): the derivation at the anchor's shape, precision and speed, fitted
and calibrated, with the error band its vendor family's out-of-sample checks measure."""

from __future__ import annotations

from collections.abc import Sequence

from chipcost.transform.derivation_fit import band_around, catalogue, group_names, size_group
from chipcost.transform.derived_source import derived_parts
from chipcost.transform.evidence import (
    Estimate,
    Point,
    Reading,
    differences,
    point_of,
    unlike_words,
)
from chipcost.transform.precision import precision_class


def estimate_at(
    chip: str,
    anchor: Reading,
    parameters: float | None,
    speed: str,
    readings: Sequence[Reading] = (),
) -> Estimate | None:
    """`chip`'s derived tokens/s per chip at the anchor figure's point (its shape, precision
    and speed), or None where the derivation cannot say (no memory bandwidth, no shape).
    Training's is the chip's own derived figure among `readings`, the one `cost` ranks it by."""
    from chipcost.transform.derivation_error import derived_at

    if anchor.workload == "training":
        return training_estimate(chip, readings, anchor)
    found = derived_at(chip, anchor, speed)
    if found is None:
        return None
    raw, precision = found
    fitted = catalogue()
    factor = fitted.factor(chip, parameters, None if speed == "max" else float(speed))
    value = raw * (factor.value if factor else 1.0)
    # a per-user speed bound never gives more than full load does; nor does the anchor's
    # precision where the chip has no peak of its own at it. A ceiling of figures at other
    # points (its stored derived maximum, its published ones) makes the estimate theirs: it
    # says where they are, as training's says its precision.
    unlike = _derived_where(anchor, precision)
    ceiling = min(_ceilings(chip, anchor, parameters, readings, speed), key=lambda c: c[0])
    if ceiling[0] < value:
        value, unlike = ceiling[0], ceiling[1] or unlike
        precision = ceiling[2] or precision  # its band is of the figure it is
    vendor = fitted.vendors.get(chip)
    names = group_names(
        size=size_group(parameters),
        precision=precision,
        vendor=vendor,
        calibrated=bool(factor and factor.chip),
    )
    band = band_around(value, fitted.bands, names)
    if band is None:
        error = f"error unknown: no out-of-sample check of {vendor or 'its vendor'}'s chips"
        return Estimate(value, None, error, unlike)
    around, group, count = band
    error = f"error measured out of sample on {count} checks, {group}"
    return Estimate(value, around, error, unlike)


def _ceilings(
    chip: str, anchor: Reading, parameters: float | None, readings: Sequence[Reading], speed: str
) -> list[tuple[float, str, str | None]]:
    """What `chip` does for the anchor's model at full load, the cap of any figure under a
    speed bound, as the stored derived figures are capped (derivation.capped_at_load):
    its derived maximum throughput at the anchor's shape and its stored one, and the median of
    its published maximum-throughput figures; each with where it is, where that is not the
    anchor's point ('' where it is), and the precision of a stored derived one."""
    from statistics import median

    from chipcost.transform.derivation_error import derived_at

    found: list[tuple[float, str, str | None]] = []
    at_max = None if speed == "max" else derived_at(chip, anchor, "max")  # else the value is it
    if at_max is not None:
        factor = catalogue().factor(chip, parameters, None)
        found.append((at_max[0] * (factor.value if factor else 1.0), "", None))
    at_load = [
        r for r in readings
        if r.chip == chip and r.model == anchor.model and r.operating_point == "max-throughput"
    ]  # fmt: skip
    published = [r.tokens_per_second_per_chip for r in at_load if r.origin != "derived"]
    if published:
        found.append(
            (median(published), "at the median of its published maximum-throughput figures, "
             "not this point", None)
        )  # fmt: skip
    # its stored derived maximum too, at its own precision: a chip with no peak at the
    # anchor's (TPU v6e has no FP8) is derived above what it does at full load otherwise
    point = point_of(anchor)
    found += [
        (r.tokens_per_second_per_chip, _elsewhere(point_of(r), point), r.precision)
        for r in at_load
        if r.origin == "derived"
    ]
    return found or [(float("inf"), "", None)]


def _derived_where(anchor: Reading, precision: str) -> str:
    """Where an inference estimate is derived, where that is not the anchor's point: at the
    anchor's precision class ('at FP8, not the point's FP4' where the chip has no peak at it),
    and at the derivation's own request shape where the anchor's has none (a benchmark's own
    requests: 'at 1,000 in / 1,000 out tokens, FP8 (the derivation's request shape), not this
    point'); '' where it is at the point."""
    from chipcost.transform.references import roofline_settings

    point = point_of(anchor)
    if anchor.input_tokens and anchor.output_tokens:
        return unlike_words(precision, point)
    settings = roofline_settings()
    shape = f"{settings.input_tokens:,} in / {settings.output_tokens:,} out tokens"
    said = precision_class(precision) or precision.upper()
    return f"at {shape}, {said} (the derivation's request shape), not this point"


def _elsewhere(mine: Point, point: Point) -> str:
    """'at 1,000 in / 1,000 out tokens, FP8 (its derived maximum throughput), not this point'
    where a stored derived figure is not at `point` (its request shape or precision), else ''."""
    if not any(d.startswith(("request shape", "precision")) for d in differences(mine, point)):
        return ""
    shape, precision = mine.words().split(", ")[:2]
    return f"at {shape}, {precision} (its derived maximum throughput), not this point"


def training_estimate(chip: str, readings: Sequence[Reading], anchor: Reading) -> Estimate | None:
    """`chip`'s derived training figure (calibrated on published training runs, else the assumed
    MFU) as an estimate, saying how it was got and the precision it is at where the anchor's
    point is at another; training's error has no band (its checks out of sample are in
    docs/cost-per-token.md)."""
    for reading in readings:
        if reading.chip == chip and reading.kind == "derived":
            method = derived_parts(reading.source)[0]
            method = method.removeprefix("chipcost derivation").lstrip(": ")
            return Estimate(
                reading.tokens_per_second_per_chip, None, f"error unknown: {method}",
                unlike_words(reading.precision, point_of(anchor)),
            )  # fmt: skip
    return None
