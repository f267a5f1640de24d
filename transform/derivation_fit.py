"""The inference derivation fitted to the measurements, and its error measured out of sample.

The roofline (transform/roofline.py) gives a figure from a datasheet; the catalogue's figures
say how far real serving lands from it. Two constants are fitted on them, as factors on the
roofline's tokens/s per chip (the geometric mean of published / derived over the checks of
chipcost.transform.derivation_error):

- per model-size group (up to 15B parameters, above): MLPerf's 8B task summarises long inputs
  into short outputs and its 70B task answers at length, so the two sizes are off in opposite
  directions and each gets its own factor, never one averaged over both;
- per chip, its efficiency against its size group's factor, where the chip has figures: a
  chip's derived figure is then **calibrated** on its own measurements, at their points.

The error is measured out of sample: each publication's checks are predicted with the factors
fitted on every other publication, and the ratios predicted / published are summarised per
group (workload, model size, precision, vendor family, calibrated or not). A derived figure
carries the band of its groups: [figure / 90th percentile ratio, figure / 10th percentile],
read only from checks of its own vendor family (vendor_band); none where it has too few.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cache

from chipcost.transform.derivation_error import Check
from chipcost.transform.precision import is_four_bit
from chipcost.transform.rows import number

SMALL_MODEL = 15e9  # parameters: the 8B class below, the 70B class above
# parameters: the 405B and 671B (mixture-of-experts) class above, whose published runs are long
# prompts on 8 to 72 chips the roofline overrates several times: kept apart so the 70B class's
# line and band are fitted on 70B-class figures only
LARGE_MODEL = 100e9
MIN_BAND_CHECKS = 5  # a group with fewer checks gives no band of its own


def size_group(parameters: float | None) -> str:
    """'up to 15B', '15B to 100B' or 'above 100B' parameters (unknown counts as the middle)."""
    if parameters is not None and parameters <= SMALL_MODEL:
        return "up to 15B"
    if parameters is not None and parameters > LARGE_MODEL:
        return "above 100B"
    return "15B to 100B"


def precision_group(precision: str | None) -> str:
    return "FP4" if is_four_bit(precision) else "FP8/BF16"


@dataclass(frozen=True)
class Factor:
    """What a derived figure is multiplied by, and what it was fitted on."""

    value: float
    count: int  # figures fitted on
    chip: str | None  # the chip whose own figures calibrate it; None: its size group's

    def label(self, size: str) -> str:
        """'calibrated on 3 Trainium2 figures (x0.21)' or 'fitted on 120 figures ...'."""
        if self.chip:
            return f"calibrated on {self.count} {self.chip} figure(s) (x{self.value:.2f})"
        return f"fitted on {self.count} figures of models {size} parameters (x{self.value:.2f})"


@dataclass(frozen=True)
class Line:
    """log(published / derived) = intercept + slope x per-user speed, over `count` checks;
    the speed is held within the checks' own (`top`): never extrapolated past them."""

    intercept: float
    slope: float
    count: int
    top: float

    def at(self, speed: float | None) -> float:
        return self.intercept + self.slope * min(speed or 0.0, self.top)


def _line(points: list[tuple[float, float]]) -> Line:
    """Least squares of log ratio on speed; a slope only downwards (serving faster never
    raises a chip's throughput), none when every check is at one speed."""
    xs, ys = [x for x, _ in points], [y for _, y in points]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    spread = sum((x - mean_x) ** 2 for x in xs)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / spread if spread else 0.0
    slope = min(slope, 0.0)
    return Line(mean_y - slope * mean_x, slope, len(points), max(xs))


def same_regime(measured_at: float, asked: float | None) -> bool:
    """Whether a chip's figure at `measured_at` tokens/s per user (0: maximum throughput or a
    fixed batch) may calibrate its derivation at `asked` (None: maximum throughput): load
    points calibrate load questions, and a latency-bound point only speeds within 2x of its
    own (one batch-1 point never calibrates serving at a batch of hundreds)."""
    if not asked:
        return measured_at == 0
    return measured_at > 0 and asked / 2 <= measured_at <= asked * 2


@dataclass(frozen=True)
class Fit:
    """Size-group lines and per-chip efficiencies fitted on a set of checks."""

    groups: Mapping[str, Line]  # size -> its line
    # chip -> [(per-user speed, 0 at load; log efficiency against its line)]
    chips: Mapping[str, list[tuple[float, float]]]

    def factor(self, chip: str, size: str, speed: float | None = None) -> Factor | None:
        """The factor at a per-user speed (None: maximum throughput); the chip's own figures
        calibrate it only where they are of the same regime (same_regime)."""
        group = self.groups.get(size)
        if group is None:
            return None
        own = [r for s, r in self.chips.get(chip, []) if same_regime(s, speed)]
        if not own:
            return Factor(math.exp(group.at(speed)), group.count, None)
        return Factor(math.exp(group.at(speed) + sum(own) / len(own)), len(own), chip)


def _log_ratio(check: Check) -> float:
    return math.log(check.measured / check.derived)


def fit(found: list[Check], sizes: Mapping[str, str]) -> Fit:
    """The lines and efficiencies fitted on `found` (inference checks); `sizes`: model ->
    size group. A check's speed is its tokens/s per user, 0 at maximum throughput."""
    by_size: dict[str, list[tuple[float, float]]] = {}
    for check in found:
        by_size.setdefault(sizes[check.model], []).append((check.speed, _log_ratio(check)))
    groups = {size: _line(points) for size, points in by_size.items()}
    by_chip: dict[str, list[tuple[float, float]]] = {}
    for check in found:
        line = groups[sizes[check.model]]
        residual = _log_ratio(check) - line.at(check.speed)
        by_chip.setdefault(check.chip, []).append((check.speed, residual))
    return Fit(groups, by_chip)


def publication(check: Check) -> str:
    """The document a check comes from (one MLPerf round and benchmark, one vendor table)."""
    return check.source or check.throughput_id


@dataclass(frozen=True)
class Held:
    """One check predicted by the factors fitted on the other publications."""

    check: Check
    predicted: float
    calibrated: bool

    @property
    def ratio(self) -> float:
        return self.predicted / self.check.measured


def held_out(found: list[Check], sizes: Mapping[str, str]) -> list[Held]:
    """Every inference check predicted without its own publication."""
    mine = [c for c in found if c.workload == "inference"]
    held = []
    for name in sorted({publication(c) for c in mine}):
        others = fit([c for c in mine if publication(c) != name], sizes)
        for check in (c for c in mine if publication(c) == name):
            factor = others.factor(check.chip, sizes[check.model], check.speed)
            if factor is not None:
                predicted = check.derived * factor.value
                held.append(Held(check, predicted, factor.chip is not None))
    return held


@dataclass(frozen=True)
class Band:
    """The out-of-sample error of one group: predicted / published ratios."""

    group: str
    count: int
    median: float
    low: float  # 10th percentile ratio
    high: float  # 90th percentile ratio
    worst: float  # the largest factor off, either way
    worst_id: str


def _band(group: str, held: list[Held]) -> Band:
    ratios = sorted(h.ratio for h in held)
    deciles = statistics.quantiles(ratios, n=10, method="inclusive") if len(ratios) > 1 else []
    low, high = (deciles[0], deciles[-1]) if deciles else (ratios[0], ratios[0])
    factors = [max(h.ratio, 1 / h.ratio) for h in held]
    worst = max(range(len(held)), key=factors.__getitem__)
    return Band(
        group, len(held), statistics.median(ratios), low, high, factors[worst],
        held[worst].check.throughput_id,
    )  # fmt: skip


def group_names(
    *, size: str, precision: str | None, vendor: str | None, calibrated: bool
) -> list[str]:
    """The groups a figure belongs to, as the bands name them: each dimension alone (the
    table docs/cost-per-token.md publishes), then the cells a figure's band is read from,
    most specific last."""
    fitted = "calibrated" if calibrated else "not calibrated"
    return [
        "inference: all",
        f"model size: {size}",
        f"precision: {precision_group(precision)}",
        f"vendor: {vendor or 'unknown'}",
        f"fit: {fitted}",
        f"cell: {size}, {fitted}",
        f"cell: {size}, {fitted}, {precision_group(precision)}",
        f"cell: {size}, {fitted}, {precision_group(precision)}, {vendor or 'unknown'}",
    ]


def bands(held: list[Held], sizes: Mapping[str, str], vendors: Mapping[str, str]) -> list[Band]:
    """The error per group (every group with at least one check), in a stable order."""
    members: dict[str, list[Held]] = {}
    for h in held:
        names = group_names(
            size=sizes[h.check.model],
            precision=h.check.precision,
            vendor=vendors.get(h.check.chip),
            calibrated=h.calibrated,
        )
        for name in names:
            members.setdefault(name, []).append(h)
    return [_band(name, members[name]) for name in sorted(members)]


def vendor_band(
    found: Mapping[str, Band], names: list[str]
) -> tuple[float, float, str, int] | None:
    """(lowest ratio, highest ratio, the group read, its checks) for a figure in groups
    `names`, only from checks of its own vendor family: its most specific cell where that
    holds MIN_BAND_CHECKS checks, else its vendor's group; None where its vendor has fewer
    (a band borrowed from other vendors' chips says nothing about this one's)."""
    vendor = next(n for n in names if n.startswith("vendor: "))
    for name in (names[-1], vendor):
        band = found.get(name)
        if band is not None and band.count >= MIN_BAND_CHECKS:
            return band.low, band.high, band.group.removeprefix("cell: "), band.count
    return None


def band_around(
    value: float, found: Mapping[str, Band], names: list[str]
) -> tuple[tuple[float, float], str, int] | None:
    """The tokens/s a derived `value` stands for, (value / 90th percentile ratio, value / 10th,
    widened to hold the value itself where the group is biased), with the group read and its
    checks; None where its vendor family has too few checks (vendor_band)."""
    band = vendor_band(found, names)
    if band is None:
        return None
    low, high, group, count = band
    return (value / max(high, 1.0), value / min(low, 1.0)), group, count


def markdown(rows: list[Band]) -> str:
    """The table docs/cost-per-token.md carries: each dimension's groups (the cells a band is
    read from are in `cells_markdown`)."""
    lines = [
        "| group | checked | median predicted/published | 10th-90th percentile | "
        "worst factor off | worst figure |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for row in (r for r in rows if not r.group.startswith("cell: ")):
        lines.append(
            f"| {row.group} | {row.count} | {row.median:.2f} | {row.low:.2f}-{row.high:.2f} | "
            f"{row.worst:.2f} | `{row.worst_id}` |"
        )
    return "\n".join(lines)


@dataclass(frozen=True)
class Catalogue:
    """The fit on every catalogue figure, and the out-of-sample error per group."""

    fit: Fit
    bands: dict[str, Band]
    sizes: dict[str, str]  # model -> size group
    vendors: dict[str, str]  # chip -> vendor

    def factor(self, chip: str, parameters: float | None, speed: float | None) -> Factor | None:
        return self.fit.factor(chip, size_group(parameters), speed)


@cache
def catalogue() -> Catalogue:
    """Fitted once per process from the files in core/data (the seed and the reads)."""
    from chipcost.core.catalog import chip_rows
    from chipcost.transform.derivation_error import checks
    from chipcost.transform.references import model_rows

    sizes = {str(m["model"]): size_group(number(m["parameters"])) for m in model_rows()}
    vendors = {row["chip"]: row["vendor"] for row in chip_rows()}
    found = checks(workload="inference")
    rows = bands(held_out(found, sizes), sizes, vendors)
    return Catalogue(fit(found, sizes), {b.group: b for b in rows}, sizes, vendors)


def cells_markdown(rows: list[Band]) -> str:
    """The cells a derived figure's band is read from (MIN_BAND_CHECKS checks or more)."""
    kept = [r for r in rows if r.group.startswith("cell: ") and r.count >= MIN_BAND_CHECKS]
    return markdown([replace(r, group=r.group.removeprefix("cell: ")) for r in kept])
