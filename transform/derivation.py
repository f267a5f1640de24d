"""chipcost's own throughput figures, derived from the chips' specifications and the models'
sizes: training at an assumed MFU, inference from the roofline at maximum throughput and at each
speed a chip reaches, calibrated where measurements fit it, and held to what the chip does at
full load (capped_at_load). The published and measured figures are throughput_figures.py's."""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from functools import cache

from chipcost.core.figures import Assumption, Figure, named_speeds
from chipcost.transform import roofline
from chipcost.transform.derived_source import CHIP, MODEL, PARAMETERS, PEAK
from chipcost.transform.precision import dense_peak
from chipcost.transform.roofline import Settings
from chipcost.transform.rows import number
from chipcost.transform.tokens import derived_tokens_per_second, flops_per_token


def _without_url(text: object) -> str:
    """A citation without its trailing URL (the chips and models tables keep the URL)."""
    return _cited(str(text or ""))


@cache  # a few dozen citations, each asked for once per figure derived from it
def _cited(text: str) -> str:
    return re.sub(r",?\s*https?://\S+", "", text).strip(" ,;")


# (factor, what it was fitted on) for a chip, a model and a per-user speed (None: maximum
# throughput): the roofline fitted to the measurements (chipcost.transform.derivation_fit);
# None leaves it as derived.
Calibrate = Callable[[str, Mapping[str, object], float | None], tuple[float, str] | None]


def derived_figures(
    chips: Iterable[Mapping[str, object]],
    models: Iterable[Mapping[str, object]],
    assumptions: Iterable[Assumption],
    settings: Settings,
    calibrate: Calibrate | None = None,
) -> list[Figure]:
    """`derived` figures for every chip with a dense peak, every model and every workload:
    training at the assumed MFU; inference from the roofline at maximum throughput and at
    each of the settings' speeds the chip reaches (an encoder: at its compute roof only),
    times the factor `calibrate` gives for the chip and model."""
    figures = []
    models = list(models)
    for chip in chips:
        for model in models:
            for rule in assumptions:
                peak = dense_peak(chip, rule.precision)
                if peak is None or chip.get("family") in rule.not_on:
                    continue
                if rule.workload == "inference" and model.get("attention") != "none":
                    figures += _decoded(chip, model, rule, *peak, settings, calibrate)
                else:
                    figures.append(_derived(chip, model, rule, *peak))
    return figures


def _active(model: Mapping[str, object]) -> float:
    return number(model.get("active_parameters") or model["parameters"])


def _derived(
    chip: Mapping[str, object],
    model: Mapping[str, object],
    rule: Assumption,
    prec: str,
    peak: float,
) -> Figure:
    params = _active(model)
    per_token = flops_per_token(params, rule.workload)
    tps = derived_tokens_per_second(peak, rule.mfu, per_token)
    factor = int(per_token / params)
    spec = _without_url(chip.get("spec_source"))
    return Figure(
        chip=str(chip["chip"]),
        model=str(model["model"]),
        workload=rule.workload,
        batch_size=None,
        precision=prec,
        sequence_length=None,
        tokens_per_second_per_chip=tps,
        mfu=rule.mfu,
        kind="derived",
        source=(
            f"chipcost derivation: dense {prec.upper()} peak {peak:g} TFLOPS x MFU {rule.mfu:.2f} "
            f"/ ({factor} x {params / 1e9:g}e9 FLOPs per token){PEAK}{spec} "
            f"({chip.get('spec_date')}){PARAMETERS}{_without_url(model.get('source'))} "
            f"({model.get('source_date') or 'undated'})"
        ),
        notes=rule.why,
        throughput_id=f"derived:{chip['chip']}:{model['model']}:{rule.workload}",
        origin="derived",
        source_date=str(chip.get("spec_date") or "undated"),
        stated_as=f"{tps:,.0f} tokens/s per chip (computed)",
    )


def _count(value: object) -> int | None:
    """A model's layers, KV heads or head dimension (None where the models table has none)."""
    return int(value) if isinstance(value, int | float) else None


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and value > 0 else None


def _decoded(
    chip: Mapping[str, object],
    model: Mapping[str, object],
    rule: Assumption,
    prec: str,
    peak: float,
    settings: Settings,
    calibrate: Calibrate | None = None,
) -> list[Figure]:
    """Inference figures from the roofline: maximum throughput (always kept: `--speed max`
    asks for it), then each speed of the settings the chip reaches that costs throughput."""
    memory, bandwidth = _number(chip.get("memory_gb")), _number(chip.get("memory_bandwidth_tbps"))
    if memory is None or bandwidth is None:
        return []
    layers, attention = _count(model.get("layers")), model.get("attention")
    kv = roofline.kv_values_per_token(
        layers,
        _count(model.get("kv_heads")),
        _count(model.get("head_dim")),
        None if attention is None else str(attention),
    )
    shape = roofline.Shape(number(model["parameters"]), _active(model), kv, layers or 0)
    spec = roofline.Chip(memory, bandwidth, peak, _number(chip.get("interconnect_gbps")))
    serving = settings.serving(rule.mfu)
    points: list[tuple[float | None, roofline.Point, tuple[float, str] | None]] = []
    speeds = sorted({*settings.speeds, *named_speeds(str(model["model"]))})
    for speed in (None, *speeds):
        point = roofline.decode_point(shape, spec, prec, serving, speed=speed)
        if point is None:
            break  # a faster speed is out of reach too
        fitted = calibrate(str(chip["chip"]), model, speed) if calibrate else None
        points.append((speed, point, fitted))
    # A point is dropped when a faster one gives (within 0.5%) as many tokens/s per chip: the
    # faster point answers every speed the slower one does, as cheaply. The maximum-throughput
    # point is always kept (`--speed max` asks for it).
    tps = [p.tokens_per_second_per_chip * (f[0] if f else 1.0) for _, p, f in points]
    kept = [
        found
        for n, found in enumerate(points)
        if found[0] is None or n + 1 == len(points) or tps[n + 1] < 0.995 * tps[n]
    ]
    return [
        _decoded_figure(chip, model, rule, prec, peak, serving, point, speed, fitted)
        for speed, point, fitted in kept
    ]


def _decoded_figure(
    chip: Mapping[str, object],
    model: Mapping[str, object],
    rule: Assumption,
    prec: str,
    peak: float,
    serving: roofline.Serving,
    point: roofline.Point,
    speed: float | None,
    fitted: tuple[float, str] | None = None,
) -> Figure:
    name = "maximum throughput" if speed is None else f"{speed:g} tokens/s per user or more"
    unit = f"{point.chips} x {chip['chip']}"
    factor, fitted_on = fitted or (1.0, "")
    tps = point.tokens_per_second_per_chip * factor
    how = f"{'calibrated' if fitted_on.startswith('calibrated') else 'derived'}: {name}"
    fit_note = f" Roofline x{factor:.2f}, {fitted_on}." if fitted else ""
    kv_note = "" if model.get("layers") else " The model states no layers or KV heads: no KV cache."
    return Figure(
        chip=str(chip["chip"]),
        model=str(model["model"]),
        workload="inference",
        batch_size=point.batch,
        precision=prec,
        sequence_length=serving.input_tokens + serving.output_tokens,
        tokens_per_second_per_chip=tps,
        mfu=None,
        kind="derived",
        source=(
            f"chipcost roofline: {unit}, batch {point.batch}, {prec.upper()} weights; "
            f"memory roof {100 * serving.bandwidth_efficiency:.0f}% of "
            f"{chip.get('memory_bandwidth_tbps')} TB/s, compute roof {100 * rule.mfu:.0f}% of "
            f"{peak:g} TFLOPS {prec.upper()}, {chip.get('memory_gb')} GB; "
            f"{CHIP.removeprefix('; ')}{_without_url(chip.get('spec_source'))} "
            f"({chip.get('spec_date')}){MODEL}{_without_url(model.get('source'))} "
            f"({model.get('source_date') or 'undated'})"
        ),
        notes=(
            f"{point.bound.capitalize()}-bound at batch {point.batch} on {unit}, "
            f"ISL/OSL {serving.input_tokens}/{serving.output_tokens} (core/data/roofline.csv). "
            f"{rule.why}{kv_note}{fit_note}"
        ),
        throughput_id=(
            f"derived:{chip['chip']}:{model['model']}:inference:"
            + ("max" if speed is None else f"{speed:g}")
        ),
        origin="derived",
        source_date=str(chip.get("spec_date") or "undated"),
        stated_as=(
            f"{tps:,.0f} tokens/s per chip at "
            f"{point.tokens_per_second_per_user:,.1f} tokens/s per user (computed"
            + (f", {fitted_on}" if fitted else "")
            + ")"
        ),
        operating_point="max-throughput" if speed is None else "latency-bound",
        scenario=how,
        # the point a ladder figure answers (its factor was fitted there; the roofline's own
        # per-user speed is in stated_as); the maximum-throughput figure answers `max` only
        tokens_per_second_per_user=speed,
        tpot_ms=None if speed is None else 1000 / speed,
        input_tokens=serving.input_tokens,
        output_tokens=serving.output_tokens,
        concurrency=point.batch,
        system=f"serving unit of {unit}",
        chips=point.chips,
    )


def capped_at_load(derived: list[Figure], published: Iterable[Figure]) -> list[Figure]:
    """The derived figures with every latency-bound one held to what the chip does at full
    load: its derived maximum-throughput figure, and the median of its published
    maximum-throughput figures for the model where there are any. A per-user speed bound
    never gives more tokens/s per chip than maximum throughput; a capped figure says so."""
    ceilings: dict[tuple[str, str], float] = {}
    for f in derived:
        if f.workload == "inference" and f.operating_point == "max-throughput":
            ceilings[(f.chip, f.model)] = f.tokens_per_second_per_chip
    measured: dict[tuple[str, str], list[float]] = {}
    for f in published:
        if f.workload == "inference" and f.operating_point == "max-throughput":
            measured.setdefault((f.chip, f.model), []).append(f.tokens_per_second_per_chip)
    capped = []
    for f in derived:
        key = (f.chip, f.model)
        bounds = [
            (ceilings.get(key), "its derived maximum throughput"),
            (
                statistics.median(measured[key]) if key in measured else None,
                f"the median of its {len(measured.get(key, []))} published maximum-throughput "
                "figures",
            ),
        ]
        cap, which = min(((b, w) for b, w in bounds if b), default=(None, ""))
        if (
            f.operating_point != "latency-bound"
            or cap is None
            or f.tokens_per_second_per_chip <= cap
        ):
            capped.append(f)
            continue
        said = (
            f" Capped at {cap:,.0f} tokens/s per chip, {which} (the lower of that and its "
            "derived one): a per-user speed bound never gives more."
        )
        # The roofline's batch is of the uncapped point: a capped figure has none of its own
        # (995 tokens/s per chip at 10 per user would need a batch of 199 on 2 chips, not 350).
        source = re.sub(
            r", batch \d+,",
            f", capped at {cap:,.0f} tokens/s per chip ({which}),",
            f.source,
            count=1,
        )
        capped.append(
            replace(
                f,
                tokens_per_second_per_chip=cap,
                batch_size=None,
                concurrency=None,
                source=source,
                notes=(f.notes or "") + said,
                stated_as=f"{cap:,.0f} tokens/s per chip (capped at maximum throughput)",
            )
        )
    return capped
