"""Like against like: two chips' throughput figures are set against each other only at one
operating point.

A point is the model, the request shape (input and output tokens; a benchmark's own dataset
where it states none), the per-user speed band asked for, the precision class and the scale.
Two figures are at one point when their shapes and precision classes are equal, both are at
the asked speed, and their scales (chips of the system, replica or training run) are within
SCALE_RATIO of each other where both publish one (docs/cost-per-token.md, "Like against
like"). Where the two chips have no published figures at one point, the answer is the
break-even at the measured side's point, with the other side derived there as context.
"""

from __future__ import annotations

from dataclasses import dataclass

from chipcost.pipeline.derivation_fit import band_around, catalogue, group_names, size_group

Row = dict[str, object]

# Figures of two systems are compared when one has at most this many times the other's chips:
# an 8-GPU server against a 16-GPU pair of them, not 8 GPUs against a 128-GPU training run,
# whose figure carries the cost of scaling out.
SCALE_RATIO = 4
# The precision classes a figure's stated precision falls into (the names outputs print).
PRECISION_CLASSES = {
    "fp4": "FP4", "nvfp4": "FP4", "mxfp4": "FP4", "int4": "FP4", "w4a16": "FP4",
    "fp8": "FP8", "mxfp8": "FP8", "fp8-e4m3": "FP8", "fp8-e5m2": "FP8", "w8a8": "FP8",
    "bf16": "BF16-FP16", "fp16": "BF16-FP16", "bfloat16": "BF16-FP16",
    "int8": "INT8",
}  # fmt: skip


def precision_class(precision: object) -> str | None:
    """'FP4', 'FP8', 'BF16-FP16', 'INT8', or None where the document states none."""
    text = str(precision or "").strip().lower()
    if not text:
        return None
    return PRECISION_CLASSES.get(text, PRECISION_CLASSES.get(text.split("-")[0], text.upper()))


def _int(value: object) -> int | None:
    return int(value) if isinstance(value, int | float) and value > 0 else None  # type: ignore[arg-type]


@dataclass(frozen=True)
class Point:
    """Where a figure was measured, as far as a comparison needs it."""

    workload: str
    shape: tuple[object, ...]  # (input, output tokens) or ('dataset', published model, source)
    precision: str | None  # class
    chips: int | None

    def words(self, scale: str | None = None) -> str:
        """'5,000 in / 500 out tokens, FP8, 2 chips' (the speed is said once, by the header);
        `scale` in place of the point's own chips ('8-16 chips')."""
        if self.workload == "training":
            shape = (
                f"sequence {self.shape[0]:,} tokens" if self.shape[0] else "sequence not published"
            )
            shape += f", {self.shape[1]}" if len(self.shape) > 1 else ""
        elif self.shape[0] == "dataset":
            shape = f"{self.shape[2]}'s own requests"
        else:
            shape = f"{self.shape[0]:,} in / {self.shape[1]:,} out tokens"  # type: ignore[str-format]
        precision = self.precision or "precision not published"
        if scale is None:
            scale = f"{self.chips} chips" if self.chips else "scale not published"
        if self.workload == "training" and scale != "scale not published":
            scale += " in the run"
        return f"{shape}, {precision}, {scale}"


def _benchmark(row: Row) -> str:
    """The publication family a dataset-shaped figure belongs to ('MLPerf Inference')."""
    source = str(row.get("source") or "")
    return source.split(" v", 1)[0].split(":", 1)[0].strip() or "its document"


def _method(row: Row) -> str:
    """How a training figure was measured: MLPerf's time to train (evaluation pauses, its own
    batch) or a steady-state step rate (NeMo, MaxText, Neuron, your own); never set against
    each other."""
    return "time-to-train" if _benchmark(row).startswith("MLPerf") else "steady-state"


def point_of(row: Row) -> Point:
    workload = str(row.get("workload") or "inference")
    if workload == "training":
        shape: tuple[object, ...] = (_int(row.get("sequence_length")), _method(row))
    elif row.get("input_tokens") and row.get("output_tokens"):
        shape = (_int(row["input_tokens"]), _int(row["output_tokens"]))
    else:
        model = row.get("published_model") or row.get("model")
        shape = ("dataset", model, _benchmark(row))
    return Point(workload, shape, precision_class(row.get("precision")), _int(row.get("chips")))


def differences(a: Point, b: Point) -> list[str]:
    """How two points differ, in words; empty when a comparison may be drawn between them."""
    said = []
    if a.workload == "training" and a.shape[1:] != b.shape[1:]:
        said.append("method (time to train against steady state)")
    elif a.shape != b.shape:
        said.append("request shape" if a.workload == "inference" else "sequence length")
    if a.precision is None or b.precision is None:
        said.append("precision (not published)")
    elif a.precision != b.precision:
        said.append("precision")
    # A benchmark's inference systems (MLPerf: 1 to 72 accelerators) run replicas of the model
    # side by side: the system's size is not the replica's, and per-chip throughput is
    # comparable across them. Elsewhere (a curve's tensor-parallel size, a training run) the
    # scale is the replica's or the run's.
    system_sizes = a.workload == "inference" and "dataset" in (a.shape[0], b.shape[0])
    if (
        not system_sizes
        and a.chips
        and b.chips
        and max(a.chips, b.chips) > SCALE_RATIO * min(a.chips, b.chips)
    ):
        said.append(f"scale (more than {SCALE_RATIO}x apart)")
    return said


@dataclass(frozen=True)
class Match:
    """Both chips' published figures at one point."""

    point: Point
    a: list[Row]
    b: list[Row]

    def words(self) -> str:
        """The point's words with every scale its figures were measured at ('8-16 chips')."""
        scales = sorted({int(r["chips"]) for r in [*self.a, *self.b] if r.get("chips")})  # type: ignore[call-overload]
        if len(scales) < 2:
            return self.point.words()
        return self.point.words(f"{scales[0]}-{scales[-1]} chips")

    def figure(self, side: str) -> Row:
        """The figure a side's answer rests on: its best throughput at the point (the
        frontier's best that meets the speed and the TTFT bound, as the choice rule takes)."""
        rows = self.a if side == "a" else self.b
        return max(rows, key=lambda r: float(r["tokens_per_second_per_chip"]))  # type: ignore[arg-type]

    def software(self) -> str:
        """'vLLM against TensorRT-LLM' where the two figures ran different serving software
        (a difference the answer says), else ''."""
        a, b = (str(self.figure(s).get("software") or "") for s in ("a", "b"))
        return f"{a or 'not published'} against {b or 'not published'}" if a != b else ""

    def tps(self, side: str) -> float:
        return float(self.figure(side)["tokens_per_second_per_chip"])  # type: ignore[arg-type]

    def spread(self, side: str) -> tuple[float, float]:
        rows = self.a if side == "a" else self.b
        values = [float(r["tokens_per_second_per_chip"]) for r in rows]  # type: ignore[arg-type]
        return min(values), max(values)


def published(rows: list[Row], chip: str) -> list[Row]:
    """A chip's usable published (or your own) figures at the asked speed, best first."""
    mine = [
        r for r in rows
        if r["chip"] == chip and r["usable"] and r["origin"] != "derived" and r["at_speed"]
    ]  # fmt: skip
    return sorted(mine, key=lambda r: int(r.get("choice_rank") or 0))  # type: ignore[call-overload]


def matched(a_rows: list[Row], b_rows: list[Row]) -> Match | None:
    """The point both chips are published at: B's best figure's point where A has one there,
    else B's next, ... Each side's figures there are those of one publication where one holds
    both chips (one source at one scale for both), else all those at that point."""
    for anchor in b_rows:
        point = point_of(anchor)
        mine = [r for r in a_rows if not differences(point_of(r), point)]
        if mine:
            theirs = [r for r in b_rows if not differences(point_of(r), point)]
            shared = {r.get("source") for r in mine} & {r.get("source") for r in theirs}
            if shared:
                source = next(r.get("source") for r in theirs if r.get("source") in shared)
                mine = [r for r in mine if r.get("source") == source]
                theirs = [r for r in theirs if r.get("source") == source]
            return Match(point, mine, theirs)
    return None


def why_unmatched(a_rows: list[Row], b_rows: list[Row]) -> str:
    """How the two chips' best published figures differ, where both have some at this speed
    ('precision: FP4 against FP8')."""
    if not a_rows or not b_rows:
        return ""
    a, b = point_of(a_rows[0]), point_of(b_rows[0])
    said = []
    for name in differences(a, b):
        if name.startswith("precision"):
            mine, theirs = a.precision or "not published", b.precision or "not published"
            said.append(f"precision: {mine} against {theirs}")
        elif name.startswith("scale"):
            said.append(f"scale: {a.chips} chips against {b.chips}")
        else:
            said.append(f"{name}: {_shape_words(a)} against {_shape_words(b)}")
    return "; ".join(said)


def _shape_words(point: Point) -> str:
    return point.words().split(", ")[0]


@dataclass(frozen=True)
class Estimate:
    """A chip's derived figure at another chip's point, and what its error is known to be."""

    value: float
    band: tuple[float, float] | None  # None: no out-of-sample check of its vendor family
    error: str  # 'error measured on 255 nvidia checks' or 'error unknown: ...'


def estimate_at(chip: str, anchor: Row, parameters: float | None, speed: str) -> Estimate | None:
    """`chip`'s derived tokens/s per chip at the anchor figure's point (its shape, precision
    and speed), or None where the derivation cannot say (no memory bandwidth, no shape)."""
    from chipcost.pipeline.derivation_error import derived_at

    found = derived_at(chip, anchor, speed)
    if found is None:
        return None
    raw, precision = found
    if anchor.get("workload") == "training":  # the assumed MFU: no fit, no measured band
        error = "error unknown: the training derivation (an assumed MFU) has no measured band"
        return Estimate(raw, None, error)
    fitted = catalogue()
    factor = fitted.factor(chip, parameters, None if speed == "max" else float(speed))
    value = raw * (factor.value if factor else 1.0)
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
        return Estimate(value, None, error)
    around, group, count = band
    return Estimate(value, around, f"error measured out of sample on {count} checks, {group}")
