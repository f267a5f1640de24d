"""Cost per token's evidence model: a figure as read at the asked speed, the operating point it
was measured at, two chips' figures matched at one point, a derived estimate, and the verdict.

Two chips' figures are set against each other only at one operating point: the model, the
request shape (input and output tokens; a benchmark's own dataset where it states none), the
per-user speed band asked for, the precision class of the checkpoint served and the scale
(docs/cost-per-token.md, "Like against like"). Where the two chips have no published figures
at one point, the answer is the break-even at the measured side's point, with the other side
derived there as context. These are made once per question and rendered alike by the table,
JSON, CSV, the report, the explorer and the e-mail.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from chipcost.core.figures import KIND_CLASSES
from chipcost.transform.change_words import ESTIMATE_ELSEWHERE, change_words, times_words
from chipcost.transform.precision import precision_class

# Figures of two systems are compared when one has at most this many times the other's chips:
# an 8-GPU server against a 16-GPU pair of them, not 8 GPUs against a 128-GPU training run,
# whose figure carries the cost of scaling out.
SCALE_RATIO = 4


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _whole(value: object) -> int | None:
    number = _number(value)
    return int(number) if number is not None and number > 0 else None


def _text(value: object) -> str | None:
    return None if value is None else str(value)


@dataclass(frozen=True)
class Reading:
    """One figure as the evidence reads it: a row of throughput_ranked at the asked speed."""

    throughput_id: str
    chip: str
    model: str
    workload: str
    kind: str
    origin: str
    tokens_per_second_per_chip: float
    source: str = ""
    source_date: str | None = None
    precision: str | None = None
    chips: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    sequence_length: int | None = None
    published_model: str | None = None
    software: str | None = None
    scenario: str | None = None
    operating_point: str | None = None
    tokens_per_second_per_user: float | None = None
    usable: bool = True
    at_speed: bool = True
    choice_rank: int = 0
    deployment: str | None = None  # core.figures.DEPLOYMENTS, None where not said
    lower_bound: bool = False  # a curve's point faster than asked: at least this at the speed
    superseded: bool = False  # its configuration's newer run is held

    @classmethod
    def of(cls, row: Mapping[str, object]) -> Reading:
        """The reading of a throughput_ranked row (its other columns left behind)."""
        return cls(
            throughput_id=str(row["throughput_id"]),
            chip=str(row["chip"]),
            model=str(row.get("model") or ""),
            workload=str(row.get("workload") or "inference"),
            kind=str(row.get("kind") or ""),
            origin=str(row.get("origin") or ""),
            tokens_per_second_per_chip=_number(row["tokens_per_second_per_chip"]) or 0.0,
            source=str(row.get("source") or ""),
            source_date=_text(row.get("source_date")),
            precision=_text(row.get("precision")),
            chips=_whole(row.get("chips")),
            input_tokens=_whole(row.get("input_tokens")),
            output_tokens=_whole(row.get("output_tokens")),
            sequence_length=_whole(row.get("sequence_length")),
            published_model=_text(row.get("published_model")),
            software=_text(row.get("software")),
            scenario=_text(row.get("scenario")),
            operating_point=_text(row.get("operating_point")),
            tokens_per_second_per_user=_number(row.get("tokens_per_second_per_user")),
            usable=bool(row.get("usable", True)),
            at_speed=bool(row.get("at_speed", True)),
            choice_rank=_whole(row.get("choice_rank")) or 0,
            deployment=_text(row.get("deployment")),
            lower_bound=bool(row.get("lower_bound")),
            superseded=bool(row.get("superseded")),
        )


@dataclass(frozen=True)
class Point:
    """Where a figure was measured, as far as a comparison needs it."""

    workload: str
    shape: tuple[object, ...]  # (input, output tokens), ('dataset', model, source), training's
    precision: str | None  # class
    chips: int | None
    deployment: str | None = None  # core.figures.DEPLOYMENTS; None where not said

    def words(self, scale: str | None = None) -> str:
        """'5,000 in / 500 out tokens, FP8, 2 chips' (the speed is said once, by the header);
        `scale` in place of the point's own chips ('8-16 chips')."""
        if self.workload == "training":
            length = self.shape[0]
            shape = "sequence not published"
            if isinstance(length, int):
                shape = f"sequence {length:,} tokens"
            shape += f", {self.shape[1]}" if len(self.shape) > 1 else ""
        elif self.shape[0] == "dataset":
            shape = f"{self.shape[2]}'s own requests"
        else:
            shape = f"{self.shape[0]:,} in / {self.shape[1]:,} out tokens"
        precision = self.precision or "precision not published"
        if scale is None:
            scale = (
                f"{self.chips} chip{'s' * (self.chips != 1)}"
                if self.chips
                else "scale not published"
            )
        if self.workload == "training" and scale != "scale not published":
            scale += " in the run"
        said = f"{shape}, {precision}, {scale}"
        if self.deployment and self.deployment != "single-node":
            said += f", {deployment_words(self.deployment)}"
        return said


def _benchmark(reading: Reading) -> str:
    """The publication family a dataset-shaped figure belongs to ('MLPerf Inference')."""
    return reading.source.split(" v", 1)[0].split(":", 1)[0].strip() or "its document"


def _method(reading: Reading) -> str:
    """How a training figure was measured: MLPerf's time to train (evaluation pauses, its own
    batch) or a steady-state step rate (NeMo, MaxText, Neuron, your own); never set against
    each other."""
    return "time-to-train" if _benchmark(reading).startswith("MLPerf") else "steady-state"


def point_of(reading: Reading) -> Point:
    if reading.workload == "training":
        shape: tuple[object, ...] = (reading.sequence_length, _method(reading))
    elif reading.input_tokens and reading.output_tokens:
        shape = (reading.input_tokens, reading.output_tokens)
    else:
        model = reading.published_model or reading.model
        shape = ("dataset", model, _benchmark(reading))
    return Point(
        reading.workload, shape, precision_class(reading.precision), reading.chips,
        reading.deployment,
    )  # fmt: skip


def deployment_words(deployment: str) -> str:
    """'disaggregated prefill/decode, MTP': a deployment class as the answer says it."""
    layout, _, spec = deployment.partition("+")
    words = "disaggregated prefill/decode" if layout == "disaggregated" else "single node"
    return words + (", MTP speculative decoding" if spec else "")


def _deployment_class(point: Point) -> str:
    """A point's deployment for comparing: a figure that does not say is a single node
    without speculative decoding (what MLPerf's closed division, NIM's and the vendors'
    tables run)."""
    return point.deployment or "single-node"


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
    if a.workload == "inference" and _deployment_class(a) != _deployment_class(b):
        said.append("deployment")
    system_sizes = a.workload == "inference" and "dataset" in (a.shape[0], b.shape[0])
    # Curves that state their deployment (InferenceX's) are per-GPU figures of replicas of
    # any parallelism within one deployment class: a chip's frontier is drawn across them.
    curves = a.workload == "inference" and bool(a.deployment and b.deployment)
    if (
        not system_sizes
        and not curves
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
    a: tuple[Reading, ...]
    b: tuple[Reading, ...]

    def side(self, side: str) -> tuple[Reading, ...]:
        return self.a if side == "a" else self.b

    def words(self) -> str:
        """The point's words with every scale its figures were measured at ('8-16 chips')."""
        scales = sorted({r.chips for r in (*self.a, *self.b) if r.chips})
        if len(scales) < 2:
            return self.point.words()
        return self.point.words(f"{scales[0]}-{scales[-1]} chips")

    def figure(self, side: str) -> Reading:
        """The figure a side's answer rests on: its first at the point by the choice rule
        (throughput_ranked's choice_rank, whose order `published` keeps)."""
        return min(self.side(side), key=lambda r: r.choice_rank)

    def spread(self, side: str) -> tuple[float, float]:
        values = [r.tokens_per_second_per_chip for r in self.side(side)]
        return min(values), max(values)

    def software(self) -> str:
        """'vLLM against TensorRT-LLM' where the two figures ran different serving software
        (a difference the answer says), else ''."""
        a, b = (self.figure(s).software or "" for s in ("a", "b"))
        return f"{a or 'not published'} against {b or 'not published'}" if a != b else ""

    def same_software(self) -> tuple[str, Reading, Reading] | None:
        """Where the figures a verdict rests on ran different serving software: the best
        pair of one software at the point (each side's best figure of it, the software with
        the most throughput on the slower side first), or None where none is shared. The
        verdict stays on each chip's frontier; this pair is said beside it."""
        families = {software_family(self.figure(s).software) for s in ("a", "b")}
        if not self.software() or (len(families) == 1 and "" not in families):
            return None  # the same software (both unstated, or versions aside)
        pairs = []
        for name in {software_family(r.software) for r in self.a} - {""}:
            mine = [r for r in self.a if software_family(r.software) == name]
            theirs = [r for r in self.b if software_family(r.software) == name]
            if mine and theirs:
                fa = min(mine, key=lambda r: r.choice_rank)
                fb = min(theirs, key=lambda r: r.choice_rank)
                slower = min(fa.tokens_per_second_per_chip, fb.tokens_per_second_per_chip)
                pairs.append((-slower, name, fa, fb))
        if not pairs:
            return None
        _, name, fa, fb = min(pairs, key=lambda p: (p[0], p[1]))
        return name, fa, fb


def software_family(software: str | None) -> str:
    """'vllm' of 'vllm, image not stated' or 'vLLM 0.10.1': the serving software's name
    without its version or image, lower case, for pairing like with like."""
    text = (software or "").split(",", 1)[0].strip().lower()
    return text.split()[0] if text else ""


def published(readings: list[Reading], chip: str) -> list[Reading]:
    """A chip's usable published (or your own) figures at the asked speed, best first (none
    of a configuration a newer run of it supersedes)."""
    mine = [
        r for r in readings
        if r.chip == chip and r.usable and r.origin != "derived" and r.at_speed
        and not r.superseded
    ]  # fmt: skip
    return sorted(mine, key=lambda r: r.choice_rank)


# Which shared point a verdict is drawn at when the chips share several, best first by each
# of these in turn; none depends on which chip was named first.
# 1. both figures exact at the asked speed before a lower bound (a curve's faster point);
# 2. a fixed request shape before a benchmark's own dataset: a shape anyone can rerun
#    (`chipcost measure --match` replays it), where a dataset point has none;
# 3. the kinds of figure there (your own, then published, then an author's estimate);
# 4. the precision class, the one serving the most bytes per weight first (BF16, FP8, FP4):
#    the answer at the precision both chips serve with the least loss;
# 5. then the point's own order (shape, deployment, scale), so a tie is broken the same way
#    whichever chip is named first.
PRECISION_ORDER = ("BF16-FP16", "FP8", "INT8", "FP4")


def _kind_class(reading: Reading) -> int:
    return KIND_CLASSES.get(reading.kind, len(KIND_CLASSES))


def point_order(point: Point) -> tuple[object, ...]:
    shape = tuple((0, v) if isinstance(v, int) else (1, str(v)) for v in point.shape)
    precision = (
        PRECISION_ORDER.index(point.precision)
        if point.precision in PRECISION_ORDER
        else len(PRECISION_ORDER) + (point.precision is None)
    )
    return (
        precision, str(point.precision), point.shape[0] == "dataset", shape,
        _deployment_class(point), point.chips or 0, point.workload,
    )  # fmt: skip


def _preference(point: Point, mine: list[Reading], theirs: list[Reading]) -> tuple:
    best = [min(side, key=lambda r: r.choice_rank) for side in (mine, theirs)]
    bounds = sum(r.lower_bound for r in best)
    kinds = sorted(_kind_class(r) for r in best)
    order = point_order(point)
    return (bounds, point.shape[0] == "dataset", kinds[1], kinds[0], *order)


def publication(reading: Reading) -> tuple[bool, str, str]:
    """The document a figure was published in (one MLPerf round, one InferenceX run, one NeMo
    release), newest last: its date (undated first) and its source."""
    date = reading.source_date or "undated"
    return date != "undated", date, reading.source


def one_publication(
    mine: list[Reading], theirs: list[Reading]
) -> tuple[list[Reading], list[Reading]]:
    """Both sides' figures at a point, of one publication where both have figures in one:
    only those are set against each other (the newest such, where several are), not one
    chip's MLPerf v6.0 result against the other's v5.1. Where no publication holds both,
    every figure of each."""
    shared = {publication(r) for r in mine} & {publication(r) for r in theirs}
    if not shared:
        return mine, theirs
    newest = max(shared)
    return (
        [r for r in mine if publication(r) == newest],
        [r for r in theirs if publication(r) == newest],
    )


def matched(a_readings: list[Reading], b_readings: list[Reading]) -> Match | None:
    """The point both chips are published at, chosen the same whichever chip is A: of every
    point either chip has a figure at where the other has one too, the first by the
    preference above. Each side's figures there are its figures at that point, of one
    publication where both have figures in one (one_publication); the answer rests on each
    side's best there (its frontier, Match.figure)."""
    found: list[tuple[tuple, Point, list[Reading], list[Reading]]] = []
    # Each figure's point worked out once, and each pair of points compared once: a chip has
    # hundreds of figures at a few dozen points.
    a_points = [(point_of(r), r) for r in a_readings]
    b_points = [(point_of(r), r) for r in b_readings]
    points = {p for p, _ in (*a_points, *b_points)}
    for point in points:
        alike = {p for p in points if not differences(p, point)}
        mine, theirs = one_publication(
            [r for p, r in a_points if p in alike], [r for p, r in b_points if p in alike]
        )
        if mine and theirs:
            found.append((_preference(point, mine, theirs), point, mine, theirs))
    if not found:
        return None
    _, point, mine, theirs = min(found, key=lambda f: f[0])
    return Match(point, tuple(mine), tuple(theirs))


def why_unmatched(a_readings: list[Reading], b_readings: list[Reading]) -> str:
    """How the two chips' best published figures differ, where both have some at this speed
    ('precision: FP4 against FP8')."""
    if not a_readings or not b_readings:
        return ""
    a, b = point_of(a_readings[0]), point_of(b_readings[0])
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
    # how it differs from the point it is set at ('at BF16-FP16, not the point's FP8': a
    # chip's derived training figure); '' where it is derived at that point
    unlike: str = ""

    def words(self, needed: float, *, least: bool = False) -> str:
        """'991-4,245 (all above the break-even) (error measured ...)'; where the break-even
        is only a lower bound (`least`), a band above it is not said to clear it."""
        unlike = f" {self.unlike}" if self.unlike else ""
        if self.band is None:
            return f"{self.value:,.0f}{unlike} ({self.error})"
        low, high = self.band
        side = " (all above the break-even)" if low > needed and not least else ""
        side = " (all below the break-even)" if high < needed else side
        return f"{low:,.0f}-{high:,.0f}{unlike}{side} ({self.error})"


def unlike_words(precision: str | None, point: Point) -> str:
    """'at BF16-FP16, not the point's FP8' where a figure's precision class is not its point's,
    else ''."""
    mine = precision_class(precision)
    if mine is None or point.precision is None or mine == point.precision:
        return ""
    return f"at {mine}, not the point's {point.precision}"


@dataclass(frozen=True)
class Verdict:
    """A against B on one pricing model, as the evidence allows."""

    word: str  # cheaper, dearer, as cheap (both measured at one point), or cannot say
    break_even: float  # tokens/s per chip `needs` must reach
    # break_even / the figure of the chip that must reach it: its own at the point (measured
    # there, else its derived estimate there, else its figure at the asked speed)
    share: float
    change: float | None = None  # A's cost per token / B's - 1 where a verdict is drawn
    point: str = ""  # the point both are measured at, or the anchor's
    needs: str = "a"  # whose break-even: 'a', or 'b' where only A is measured
    anchor: str = ""  # 'a' or 'b': the measured side whose point anchors; '' matched/neither
    estimate: Estimate | None = None  # the unmeasured side's derived figure at the anchor
    differ: str = ""  # why no point is shared
    workload: str = "inference"  # what closes it: `chipcost measure`, or a training run
    best: float | None = None  # the change over the figures at the point, best and worst
    worst: float | None = None
    a_figure: Reading | None = None  # the figures a verdict rests on
    b_figure: Reading | None = None
    a_spread: tuple[float, float] | None = None  # each side's lowest and highest figure there
    b_spread: tuple[float, float] | None = None
    # 'a', 'b' or 'ab': whose figure is a lower bound (a curve's point faster than asked)
    bound: str = ""
    bound_change: float | None = None  # the change at the bounds, where they decide nothing

    @property
    def matched(self) -> bool:
        return self.word in ("cheaper", "dearer", "as cheap")

    @property
    def break_even_least(self) -> bool:
        """Whether the break-even is only a lower bound: the figure it is taken from (the
        side that need not reach it) is one, so that side costs at most what it is set at
        and the other must do at least the break-even."""
        return ("b" if self.needs == "a" else "a") in self.bound

    def needed_by(self, chip_a: str, chip_b: str) -> str:
        """The chip that must reach the break-even: A, or B where only A is measured."""
        return chip_b if self.needs == "b" else chip_a

    def break_even_words(self) -> str:
        """'4,423', or '≥4,423' where the break-even is a lower bound."""
        return f"{'≥' if self.break_even_least else ''}{self.break_even:,.0f}"

    def change_words(self) -> str:
        """'32% cheaper', '40% dearer', '3.4 times as dear' where a verdict is drawn, else
        'cannot say': the one way every output words the change."""
        if not self.matched:
            return self.word
        return change_words(self.change or 0.0, least=bool(self.bound))

    def leaning(self) -> str:
        """Which way a 'cannot say' leans on the figures chipcost holds: '~3.0x dearer' where
        the unmeasured side's derived estimate stands against the measured one (est.),
        '≤40% dearer' where a side's figure is a lower bound that decides nothing, '~≥5.3x
        dearer' or '~≤13% cheaper' where the estimate is set against a measured figure that is
        a lower bound (at least, or at most, that); '' where nothing leans, or a verdict is
        drawn."""
        if self.matched:
            return ""
        if self.bound and self.bound_change is not None:
            # a lower bound undecided only ever says "at most": A could be cheaper, or dearer
            return f"≤{times_words(self.bound_change)}"
        if self.estimate is None or not self.anchor or self.estimate.value <= 0:
            return ""
        # the estimate against the break-even: A's cost / B's = needed / estimate (A needs)
        ratio = self.break_even / self.estimate.value
        change = ratio - 1 if self.needs == "a" else 1 / ratio - 1
        words = times_words(change)
        # an estimate that is not at the measured side's point says so (Estimate.unlike)
        elsewhere = f" {ESTIMATE_ELSEWHERE}" if self.estimate.unlike else ""
        if not self.break_even_least:
            return f"~{words}{elsewhere}"
        # The measured side does at least its figure: B's lowers B's cost (A leans dearer
        # still), A's lowers A's. A leaning that way is a least, the other way a most.
        dearer = self.needs == "a"
        if words == "as cheap":  # too small to have a side
            return f"~as cheap or {'dearer' if dearer else 'cheaper'}{elsewhere}"
        return f"~{'≥' if (change > 0) == dearer else '≤'}{words}{elsewhere}"

    def cell_words(self) -> str:
        """The answer in a table cell: the change where a verdict is drawn ('32% cheaper'),
        else 'cannot say' and which way the evidence leans ('cannot say, ~3.6x dearer')."""
        lean = self.leaning()
        return f"{self.word}, {lean}" if lean else self.change_words()

    def sentence(self, chip_a: str, chip_b: str, where: str = "") -> str:
        """The answer as the evidence allows it to be worded; `where`: what a change drawn is
        drawn at, said after the chips (' at the figures both are measured at (...)')."""
        names = {"a": chip_a, "b": chip_b}
        if self.word == "as cheap":
            return f"{chip_a} is as cheap per token as {chip_b}{where}"
        if self.matched:
            said = f"{chip_a} is {self.change_words()} per token than {chip_b}{where}"
            return said + self._bound_words(names)
        if self.bound and not self.anchor:
            needs, other = names[self.needs], names["b" if self.needs == "a" else "a"]
            return (
                f"cannot say: at this speed {self._bound_words(names)[2:]}, and "
                f"{needs} must do {'at least ' * self.break_even_least}"
                f"{self.break_even:,.0f} tok/s per chip to cost as little per token as {other} "
                f"({self.point}); measure "
                f"{' and '.join(names[s] for s in self.bound)} at the speed (`chipcost measure`)"
            )
        if not self.anchor:
            why = f" ({self.differ})" if self.differ else ""
            return (
                f"cannot say{why}: {chip_a} must do {self.break_even:,.0f} tok/s per chip to "
                f"cost as little per token as {chip_b} at its derived figure's point "
                f"({self.point or 'not stated'}); {self._measure_both()}"
            )
        needs, anchor = names[self.needs], names[self.anchor]
        least = self.break_even_least
        said = (
            f"cannot say: {needs} must do {'at least ' * least}{self.break_even:,.0f} tok/s "
            f"per chip at {anchor}'s point ({self.point}) to match {anchor}'s measured cost "
            f"per token{self._bound_words(names)}"
        )
        elsewhere = ""
        if self.estimate is not None:
            there = self.estimate.words(self.break_even, least=least)
            # an estimate at another point is no estimate "there": it says where it is
            said += f"; {needs}'s derived estimate {'' if self.estimate.unlike else 'there '}"
            said += there
            if self.estimate.unlike:
                elsewhere = " (which way it leans rests on that estimate, at another point)"
        how = "`chipcost throughput add`" if self.workload == "training" else "`chipcost measure`"
        if self.differ:
            return said + (
                f"; the published figures differ ({self.differ}): {how} {needs} at that point"
                f"{elsewhere}"
            )
        return said + f"; no {needs} measurement at that point: {how} it{elsewhere}"

    def _bound_words(self, names: dict[str, str]) -> str:
        """'; B200's figure is a lower bound (its curve's slowest point, 68 tok/s per user,
        is faster than asked)' where a side's figure is one."""
        said = []
        for side in self.bound:
            figure = self.a_figure if side == "a" else self.b_figure
            user = figure.tokens_per_second_per_user if figure else None
            speed = f", {user:,.0f} tok/s per user," if user else ""
            said.append(
                f"{names[side]}'s figure is a lower bound (its curve's slowest point{speed} is "
                "faster than asked)"
            )
        return "; " + "; ".join(said) if said else ""

    def _measure_both(self) -> str:
        if self.workload == "training":
            return "record a training run of each (`chipcost throughput add`)"
        return "measure both (`chipcost measure`)"
