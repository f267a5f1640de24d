"""How far chipcost's derivation lands from the figures it holds: each catalogue figure beside
what the derivation gives for the same chip, model, precision and point.

A figure is checked where the derivation can say something about it: a chip with a dense peak
(and, for inference, memory bandwidth and size), a model with a shape, and a stated operating
point. Inference is derived at the figure's own point: its batch where it states one, else its
tokens/s per user for a latency-bound figure, else maximum throughput; with its own prompt and
answer lengths where it states them (else roofline.csv's). Training is calibrated out of sample:
on every published training figure but those of the checked figure's document and model
(transform/training.py), else the assumed MFU (derivation.csv). docs/cost-per-token.md, "The
derivation's error", reports the summary and a test keeps it from growing.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping
from dataclasses import dataclass

from chipcost.core.catalog import chip_rows
from chipcost.core.figures import Figure
from chipcost.transform import roofline, training
from chipcost.transform.evidence import Reading
from chipcost.transform.precision import WEIGHT_BYTES, dense_peak, is_four_bit
from chipcost.transform.references import (
    derivation_assumptions,
    model_rows,
    roofline_settings,
    throughput_references,
    with_interconnect,
)
from chipcost.transform.rows import number
from chipcost.transform.tokens import derived_tokens_per_second, flops_per_token


@dataclass(frozen=True)
class Check:
    """One catalogue figure and the derivation's figure for the same point."""

    throughput_id: str
    chip: str
    model: str
    workload: str
    kind: str
    precision: str
    measured: float
    derived: float
    point: str
    source: str = ""  # the document the figure comes from (held out together)
    speed: float = 0.0  # the figure's tokens/s per user; 0 at maximum throughput or unstated

    @property
    def ratio(self) -> float:
        """Derived over published: above 1 the derivation promises more than was measured."""
        return self.derived / self.measured


@dataclass(frozen=True)
class Summary:
    """The error over a group of checks."""

    workload: str
    group: str
    count: int
    median_ratio: float
    median_factor: float  # the median of max(ratio, 1/ratio): how far off, either way
    worst_factor: float
    worst_id: str


def _number(text: str | None) -> float | None:
    try:
        value = float(text or "")
    except ValueError:
        return None
    return value if value > 0 else None


def _impossible(figure: Figure, chip: dict[str, str], model: dict) -> bool:
    """A figure needing more than the chip's highest dense peak (the view's `usable`)."""
    peaks = [_number(chip.get(f"dense_{p}_tflops")) for p in ("fp8", "bf16")]
    highest = max((p for p in peaks if p), default=None)
    if highest is None:
        return False
    per_token = flops_per_token(float(model["active_parameters"]), figure.workload)
    return figure.tokens_per_second_per_chip * per_token > highest * 1e12


# Figures the derivation is neither fitted on nor checked against: InferenceX's sweeps of
# mixture-of-experts models (DeepSeek-R1, gpt-oss), and any of its runs served as
# disaggregated prefill and decode pools or with speculative decoding (MTP), which the
# one-replica roofline (transform/roofline.py) does not model: pooled with the dense models'
# figures they would set every chip's fitted efficiency (their worst point 24x off). They
# answer as measured figures at their own points. Its dense models on one node (Llama 3.3
# 70B, tensor parallel on 1-8 GPUs) are what the roofline models: fitted and checked.
NOT_FITTED_SOURCES = ("SemiAnalysis InferenceX",)


def _not_modelled(figure: Figure, model: Mapping[str, object]) -> bool:
    """An InferenceX point the roofline does not model (above)."""
    if not str(figure.source).startswith(NOT_FITTED_SOURCES):
        return False
    moe = float(model.get("active_parameters") or 0) < float(model.get("parameters") or 0)
    return moe or (figure.deployment or "single-node") != "single-node"


def checks(figures: tuple[Figure, ...] | None = None, workload: str | None = None) -> list[Check]:
    """Every figure of the catalogue (or `figures`) the derivation can be held to; of one
    `workload` only, where given (the inference fit needs no training derivation)."""
    chips = {row["chip"]: row for row in with_interconnect(chip_rows())}
    models = {str(m["model"]): m for m in model_rows()}
    rules = {rule.workload: rule for rule in derivation_assumptions()}
    settings = roofline_settings()
    found = []
    catalogue = throughput_references() if figures is None else figures
    for figure in catalogue:
        if workload is not None and figure.workload != workload:
            continue
        chip, model = chips.get(figure.chip), models.get(figure.model)
        if chip is None or model is None or figure.operating_point in (None, "unstated"):
            continue
        if figure.kind == "derived" or chip.get("family") in rules[figure.workload].not_on:
            continue
        if _not_modelled(figure, model):
            continue
        if _impossible(figure, chip, model):
            continue  # set aside by the choice rule too: nothing to hold the derivation to
        derived = (
            training.held_out(figure, catalogue, chips, models, rules["training"])
            if figure.workload == "training"
            else _inference(figure, chip, model, rules["inference"], settings)
        )
        if derived is not None:
            found.append(
                Check(
                    figure.throughput_id,
                    figure.chip,
                    figure.model,
                    figure.workload,
                    figure.kind,
                    figure.precision or "",
                    figure.tokens_per_second_per_chip,
                    *derived,
                    figure.source,
                    figure.tokens_per_second_per_user or 0.0,
                )
            )
    return found


def _inference(
    figure: Figure, chip: dict, model: dict, rule, settings: roofline.Settings
) -> tuple[float, str] | None:
    precision = figure.precision or rule.precision
    peak = dense_peak(chip, precision)
    memory, bandwidth = _number(chip.get("memory_gb")), _number(chip.get("memory_bandwidth_tbps"))
    if peak is None or memory is None or bandwidth is None or model.get("attention") == "none":
        return None
    if precision not in WEIGHT_BYTES:
        return None
    shape = roofline.Shape(
        float(model["parameters"]),
        float(model["active_parameters"]),
        roofline.kv_values_per_token(
            model.get("layers"),
            model.get("kv_heads"),
            model.get("head_dim"),
            model.get("attention"),
        ),
        int(model.get("layers") or 0),
    )
    serving = settings.serving(rule.mfu, figure.input_tokens, figure.output_tokens)
    spec = roofline.Chip(memory, bandwidth, peak[1], chip.get("interconnect_gbps"))
    if figure.batch_size:
        point = roofline.decode_point(shape, spec, precision, serving, batch=figure.batch_size)
        where = f"batch {figure.batch_size}"
    elif figure.operating_point == "latency-bound" and figure.tokens_per_second_per_user:
        speed = figure.tokens_per_second_per_user
        point = roofline.decode_point(shape, spec, precision, serving, speed=speed)
        where = f"{speed:g} tokens/s per user"
    elif figure.operating_point == "max-throughput":
        point = roofline.decode_point(shape, spec, precision, serving)
        where = "maximum throughput"
    else:
        return None
    if point is None:
        return None
    return (
        point.tokens_per_second_per_chip,
        f"{where} (derived: batch {point.batch} on {point.chips})",
    )


def _summary(workload: str, group: str, found: list[Check]) -> Summary:
    factors = [max(c.ratio, 1 / c.ratio) for c in found]
    worst = max(range(len(found)), key=factors.__getitem__)
    return Summary(
        workload,
        group,
        len(found),
        statistics.median(c.ratio for c in found),
        statistics.median(factors),
        factors[worst],
        found[worst].throughput_id,
    )


def summaries(found: list[Check] | None = None) -> list[Summary]:
    """Per workload: every check, then inference split by whether the figure's precision is
    one the derivation has a peak for (FP8/BF16) or FP4 (held to the FP8 peak)."""
    found = checks() if found is None else found
    groups: list[tuple[str, str, list[Check]]] = []
    for workload in ("inference", "training"):
        mine = [c for c in found if c.workload == workload]
        groups.append((workload, "all", mine))
        if workload == "inference":
            fp4 = [c for c in mine if is_four_bit(c.precision)]
            fp8_bf16 = [c for c in mine if not is_four_bit(c.precision)]
            groups += [(workload, "FP8/BF16 figures", fp8_bf16), (workload, "FP4 figures", fp4)]
    return [_summary(w, g, c) for w, g, c in groups if c]


def markdown(rows: list[Summary]) -> str:
    """The table docs/cost-per-token.md carries."""
    lines = [
        "| workload | figures | checked | median derived/published | median factor off | "
        "worst factor off | worst figure |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row.workload} | {row.group} | {row.count} | {row.median_ratio:.2f} | "
            f"{row.median_factor:.2f} | {row.worst_factor:.2f} | `{row.worst_id}` |"
        )
    return "\n".join(lines)


def log_spread(found: list[Check]) -> float:
    """The geometric standard deviation of the ratios: how much they scatter."""
    logs = [math.log(c.ratio) for c in found]
    return math.exp(statistics.pstdev(logs)) if len(logs) > 1 else 1.0


def derived_at(chip_name: str, anchor: Reading, speed: str) -> tuple[float, str] | None:
    """The derivation's tokens/s per chip for `chip_name` at another figure's point (its
    model, request shape and precision; inference at the asked speed, training at the assumed
    MFU), before any fit, and the precision it was derived at; None where it cannot say."""
    chips = {row["chip"]: row for row in with_interconnect(chip_rows())}
    models = {str(m["model"]): m for m in model_rows()}
    rules = {rule.workload: rule for rule in derivation_assumptions()}
    chip, model = chips.get(chip_name), models.get(anchor.model)
    workload = anchor.workload or "inference"
    rule = rules.get(workload)
    if chip is None or model is None or rule is None or chip.get("family") in rule.not_on:
        return None
    precision = (anchor.precision or rule.precision).lower()
    if precision not in WEIGHT_BYTES:
        precision = rule.precision
    if workload == "training":
        peak = dense_peak(chip, precision)
        if peak is None:
            return None
        per_token = flops_per_token(number(model["active_parameters"]), "training")
        return derived_tokens_per_second(peak[1], rule.mfu, per_token), peak[0]
    at = None if speed == "max" else float(speed)
    figure = Figure(
        chip=chip_name, model=str(model["model"]), workload="inference", batch_size=None,
        precision=precision, sequence_length=None, tokens_per_second_per_chip=1.0, mfu=None,
        kind="derived", source="", notes=None, throughput_id="", origin="derived",
        source_date="undated", stated_as="",
        operating_point="max-throughput" if at is None else "latency-bound",
        tokens_per_second_per_user=at,
        input_tokens=anchor.input_tokens,
        output_tokens=anchor.output_tokens,
    )  # fmt: skip
    found = _inference(figure, chip, model, rule, roofline_settings())
    return (found[0], precision) if found else None
