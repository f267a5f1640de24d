"""Training throughput calibrated on published training figures.

A published training figure reaches an MFU: its tokens/s per chip x 6 x active parameters over
the chip's dense peak at the figure's precision (FP8 where it states FP8 or states none on a chip
with an FP8 peak, as MLPerf's GPU runs are; BF16 otherwise). The derived training figure of a
chip and model uses the median MFU of the nearest figures: the chip's own for a model of the same
size class, then its family's (Hopper, Blackwell, CDNA4, TPU, Trainium) for that size, then the
chip's and the family's of any size. A chip with none keeps the flat assumption (derivation.csv).
Estimates and figures beyond the chip's peak calibrate nothing. docs/cost-per-token.md,
"Training throughput", gives the method and the figures it rests on.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from chipcost.core.figures import Assumption, Figure
from chipcost.transform.derived_source import PEAK
from chipcost.transform.precision import dense_peak, is_four_bit
from chipcost.transform.rows import number

# Models up to this many parameters train data-parallel on one node (MLPerf's Llama 3.1 8B
# fits 8 accelerators); above it they are sharded over many, and reach another MFU.
SIZE_LIMIT = 20e9
SIZES = {True: "up to 20B parameters", False: "above 20B parameters"}
# Kinds that measure something: an author's estimate calibrates nothing.
CALIBRATING_KINDS = ("measured", "benchmark", "independent", "vendor-claim")


@dataclass(frozen=True)
class Calibration:
    """The MFU a chip and model size trains at, and the figures it rests on."""

    mfu: float
    precision: str  # the dense peak the MFU is of: 'fp8' or 'bf16'
    scope: str  # 'TPU-v6e' (the chip's own figures) or 'the Hopper family'
    size: str  # SIZES' words, or 'of any size'
    figures: tuple[str, ...]  # the throughput ids, sorted


def _active(model: Mapping[str, object]) -> float:
    return number(model.get("active_parameters") or model["parameters"])


def _small(model: Mapping[str, object]) -> bool:
    return number(model["parameters"]) <= SIZE_LIMIT


def figure_mfu(
    figure: Figure, chip: Mapping[str, object], model: Mapping[str, object]
) -> tuple[str, float] | None:
    """(the peak's precision, the MFU) a published training figure reaches; None when the chip
    has no peak or the figure needs more than it (set aside by the choice rule too), and for a
    4-bit run (NVFP4): derived training figures are FP8 or BF16, and a 4-bit run's share of
    the FP8 peak would credit them with what only FP4 reaches."""
    if is_four_bit(figure.precision):
        return None
    peak = dense_peak(chip, figure.precision)
    if peak is None:
        return None
    mfu = figure.tokens_per_second_per_chip * 6 * _active(model) / (peak[1] * 1e12)
    return (peak[0], mfu) if 0 < mfu <= 1 else None


Key = tuple[str, bool | None, str]  # (chip or family, small model or None for any, precision)


def calibrations(
    figures: Iterable[Figure],
    chips: Mapping[str, Mapping[str, object]],
    models: Mapping[str, Mapping[str, object]],
) -> dict[Key, list[tuple[str, float]]]:
    """Every calibrating figure's (id, MFU) under each key it counts for: its chip and its
    family, its model's size class and any size, at the peak's precision."""
    found: dict[Key, list[tuple[str, float]]] = {}
    for figure in figures:
        chip, model = chips.get(figure.chip), models.get(figure.model)
        if figure.workload != "training" or figure.kind not in CALIBRATING_KINDS:
            continue
        if chip is None or model is None:
            continue
        reached = figure_mfu(figure, chip, model)
        if reached is None:
            continue
        for scope in (figure.chip, f"family:{chip.get('family')}"):
            for size in (_small(model), None):
                found.setdefault((scope, size, reached[0]), []).append(
                    (figure.throughput_id, reached[1])
                )
    return found


def calibration_for(
    chip: Mapping[str, object],
    model: Mapping[str, object],
    table: Mapping[Key, list[tuple[str, float]]],
) -> Calibration | None:
    """The nearest calibration for a chip and model: the model's size class before any size
    (8B and 70B train at different MFUs), the chip's own figures before its family's; of two
    precisions, the one with more figures (FP8 on a tie, the precision GPU runs publish)."""
    small = _small(model)
    family = f"family:{chip.get('family')}"
    for size in (small, None):
        for scope in (str(chip["chip"]), family):
            groups = [(p, table.get((scope, size, p), [])) for p in ("fp8", "bf16")]
            precision, found = max(groups, key=lambda g: (len(g[1]), g[0] == "fp8"))
            if found:
                where = f"the {chip.get('family')} family" if scope == family else scope
                return Calibration(
                    mfu=statistics.median(mfu for _, mfu in found),
                    precision=precision,
                    scope=where,
                    size=SIZES[small] if size is not None else "of any size",
                    figures=tuple(sorted(i for i, _ in found)),
                )
    return None


def calibrated(
    derived: Figure,
    chip: Mapping[str, object],
    model: Mapping[str, object],
    calibration: Calibration,
) -> Figure:
    """A derived training figure redone at a calibrated MFU; the id stays the same."""
    peak = dense_peak(chip, calibration.precision)
    assert peak is not None  # a calibration exists only where the chip has that peak
    params = _active(model)
    tps = peak[1] * 1e12 * calibration.mfu / (6 * params)
    count = len(calibration.figures)
    shown = ", ".join(calibration.figures[:4]) + (", ..." if count > 4 else "")
    spec = re.sub(r",?\s*https?://\S+", "", str(chip.get("spec_source") or "")).strip(" ,;")
    return replace(
        derived,
        precision=calibration.precision,
        tokens_per_second_per_chip=tps,
        mfu=calibration.mfu,
        source=(
            f"chipcost derivation calibrated on {count} published training figure(s) of "
            f"{calibration.scope}, models {calibration.size}: median MFU "
            f"{100 * calibration.mfu:.1f}% x dense {calibration.precision.upper()} peak "
            f"{peak[1]:g} TFLOPS / (6 x {params / 1e9:g}e9 FLOPs per token){PEAK}{spec}"
        ),
        notes=(
            f"Calibrated, not measured: the median MFU that {calibration.scope}'s published "
            f"training figures for models {calibration.size} reach ({shown}), at 6 x active "
            "parameters FLOPs per token (attention left out). Memory, interconnect and scale "
            "are as in those runs, not yours (docs/cost-per-token.md, Training throughput)."
        ),
        stated_as=f"{tps:,.0f} tokens/s per chip (computed)",
    )


def calibrate_training(
    derived: Iterable[Figure],
    references: Iterable[Figure],
    chips: Iterable[Mapping[str, object]],
    models: Iterable[Mapping[str, object]],
) -> list[Figure]:
    """The derived figures with each training figure at its chip's calibrated MFU where
    published figures give one; the others as they were (the flat assumption)."""
    by_chip = {str(c["chip"]): c for c in chips}
    by_model = {str(m["model"]): m for m in models}
    table = calibrations(references, by_chip, by_model)
    result = []
    for figure in derived:
        chip, model = by_chip.get(figure.chip), by_model.get(figure.model)
        if figure.workload != "training" or chip is None or model is None:
            result.append(figure)
            continue
        found = calibration_for(chip, model, table)
        result.append(figure if found is None else calibrated(figure, chip, model, found))
    return result


def held_out(
    figure: Figure,
    references: Iterable[Figure],
    chips: Mapping[str, Mapping[str, object]],
    models: Mapping[str, Mapping[str, object]],
    flat: Assumption,
) -> tuple[float, str] | None:
    """The derivation's tokens/s per chip for a published training figure, calibrated without
    that publication's figures of that model (out of sample), with how it was got; the flat
    assumption where nothing else is left. None where the chip has no peak."""
    chip, model = chips.get(figure.chip), models.get(figure.model)
    if chip is None or model is None:
        return None
    mine = (figure.source, figure.model)
    rest = [f for f in references if (f.source, f.model) != mine]
    found = calibration_for(chip, model, calibrations(rest, chips, models))
    mfu, precision = (flat.mfu, flat.precision) if found is None else (found.mfu, found.precision)
    peak = dense_peak(chip, precision)
    if peak is None:
        return None
    how = "flat, nothing else published" if found is None else f"{found.scope}, {found.size}"
    tps = peak[1] * 1e12 * mfu / (6 * _active(model))
    return tps, f"MFU {mfu:.2f} of the {peak[0].upper()} peak ({how})"
