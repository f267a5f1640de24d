"""What the evidence says about chip A against chip B: a verdict only where both are measured
at one point, else the break-even there and what would decide it.

Two chips' figures are set against each other only at one operating point (request shape,
speed, precision class, scale: chipcost.pipeline.matching):

- cheaper / dearer / as cheap: both chips have published figures (or yours) at one point;
  the change is taken at those figures, the middle one of each side's figures there;
- cannot say: otherwise. A derived figure never draws a verdict word: the answer is the
  break-even, the tokens/s per chip the unmeasured chip must reach at the measured one's
  point, with its derived estimate there as context (its band where checks of its own vendor
  family measured one, and whether the band lies wholly on one side of the break-even), and
  the way to close it is a measurement (`chipcost measure`).

The break-even is the tokens/s per chip at which the two offers cost the same per token:
for A against B's figure tb, A's price per chip-hour x tb / B's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from chipcost.pipeline.derivation_fit import (
    band_around,
    catalogue,
    group_names,
    size_group,
)
from chipcost.pipeline.matching import (
    Estimate,
    Match,
    estimate_at,
    matched,
    point_of,
    published,
    why_unmatched,
)
from chipcost.transform.tokens import change_words, cost_per_million_tokens

if TYPE_CHECKING:
    import polars as pl

Row = dict[str, object]


def is_derived(row: Row) -> bool:
    return str(row.get("throughput_kind") or row.get("kind")) == "derived"


def figure_kind(row: Row) -> str:
    """'benchmark', 'derived' or 'calibrated' (a derived figure fitted on the chip's own)."""
    scenario = str(row.get("throughput_scenario") or row.get("scenario") or "")
    if is_derived(row) and scenario.startswith("calibrated"):
        return "calibrated"
    return str(row.get("throughput_kind") or row.get("kind") or "")


def figure_range(row: Row, parameters: float | None) -> tuple[float, float] | None:
    """(low, high) tokens/s per chip a derived inference figure stands for: the figure over
    the 90th and 10th percentile of its group's out-of-sample ratios predicted / published,
    read only from checks of its own vendor family; None when measured, or when its vendor
    family has too few checks for a band (its error is unknown)."""
    if not is_derived(row) or row.get("workload", "inference") != "inference":
        return None
    found = catalogue()
    names = group_names(
        size=size_group(parameters),
        precision=str(row.get("precision") or ""),
        vendor=found.vendors.get(str(row["chip"])),
        calibrated=figure_kind(row) == "calibrated",
    )
    tps = float(row["tokens_per_second_per_chip"])  # type: ignore[arg-type]
    band = band_around(tps, found.bands, names)
    return band[0] if band else None


@dataclass(frozen=True)
class Evidence:
    """Every figure of one model and workload at the asked speed (throughput_ranked rows),
    read once for a whole ranking or comparison. What the figures say of a chip, or of two
    chips at one point, is worked out once: a ranking judges thousands of offers of a few
    chips."""

    rows: list[Row]
    parameters: float | None
    speed: str
    _found: dict[tuple, object] = field(default_factory=dict, compare=False, repr=False)

    def _once(self, key: tuple, work):  # type: ignore[no-untyped-def]
        if key not in self._found:
            self._found[key] = work()
        return self._found[key]

    def published(self, chip: str) -> list[Row]:
        return self._once(("published", chip), lambda: published(self.rows, chip))

    def matched(self, chip_a: str, chip_b: str) -> Match | None:
        """Both chips' published figures at one point (chipcost.pipeline.matching.matched)."""
        return self._once(
            ("matched", chip_a, chip_b),
            lambda: matched(self.published(chip_a), self.published(chip_b)),
        )

    def why_unmatched(self, chip_a: str, chip_b: str) -> str:
        return self._once(
            ("why", chip_a, chip_b),
            lambda: why_unmatched(self.published(chip_a), self.published(chip_b)),
        )

    def estimate_at(self, chip: str, anchor: Row) -> Estimate | None:
        """`chip`'s derived figure at the point of `anchor`, one of these rows (held as long
        as they are)."""
        return self._once(
            ("estimate", chip, id(anchor)),
            lambda: estimate_at(chip, anchor, self.parameters, self.speed),
        )


@dataclass(frozen=True)
class Verdict:
    """A against B on one pricing model, as the evidence allows."""

    word: str  # cheaper, dearer, as cheap (both measured at one point), or cannot say
    break_even: float  # tokens/s per chip `needs` must reach
    share: float  # break_even / the figure it is set against
    change: float | None = None  # A's cost per token / B's - 1 where a verdict is drawn
    point: str = ""  # the point both are measured at, or the anchor's
    needs: str = "a"  # whose break-even: 'a', or 'b' where only A is measured
    anchor: str = ""  # 'a' or 'b': the measured side whose point anchors; '' matched/neither
    estimate: Estimate | None = None  # the unmeasured side's derived figure at the anchor
    differ: str = ""  # why no point is shared
    workload: str = "inference"  # what closes it: `chipcost measure`, or a training run
    best: float | None = None  # the change over the figures at the point, best and worst
    worst: float | None = None
    a_figure: Row | None = None  # the figures a verdict rests on (throughput_ranked rows)
    b_figure: Row | None = None

    @property
    def matched(self) -> bool:
        return self.word in ("cheaper", "dearer", "as cheap")

    def sentence(self, chip_a: str, chip_b: str) -> str:
        """The answer as the evidence allows it to be worded."""
        names = {"a": chip_a, "b": chip_b}
        if self.word == "as cheap":
            return f"{chip_a} is as cheap per token as {chip_b}"
        if self.matched:
            return f"{chip_a} is {_change(self.change or 0.0)} per token than {chip_b}"
        if not self.anchor:
            why = f" ({self.differ})" if self.differ else ""
            return (
                f"cannot say{why}: {chip_a} must do {self.break_even:,.0f} tok/s per chip to "
                f"cost as little per token as {chip_b} at its derived figure's point "
                f"({self.point or 'not stated'}); {self._measure_both()}"
            )
        needs, anchor = names[self.needs], names[self.anchor]
        said = (
            f"cannot say: {needs} must do {self.break_even:,.0f} tok/s per chip at "
            f"{anchor}'s point ({self.point}) to match {anchor}'s measured cost per token"
        )
        if self.estimate is not None:
            said += (
                f"; {needs}'s derived estimate there {_estimate(self.estimate, self.break_even)}"
            )
        how = "`chipcost throughput add`" if self.workload == "training" else "`chipcost measure`"
        if self.differ:
            return said + (
                f"; the published figures differ ({self.differ}): {how} {needs} at that point"
            )
        return said + f"; no {needs} measurement at that point: {how} it"

    def _measure_both(self) -> str:
        if self.workload == "training":
            return "record a training run of each (`chipcost throughput add`)"
        return "measure both (`chipcost measure`)"


def _estimate(found: Estimate, needed: float) -> str:
    if found.band is None:
        return f"{found.value:,.0f} ({found.error})"
    low, high = found.band
    side = " (all above the break-even)" if low > needed else ""
    side = " (all below the break-even)" if high < needed else side
    return f"{low:,.0f}-{high:,.0f}{side} ({found.error})"


def _change(change: float) -> str:
    """'32% cheaper', '40% dearer', '3.4 times as dear' (no four-digit percentages)."""
    if change > 9:
        return f"{change + 1:.0f} times as dear"
    return change_words(change)


def _price(row: Row) -> float:
    return float(row["price_per_chip_hour"])  # type: ignore[arg-type]


def _measured(ta: float, break_even: float) -> str:
    if abs(ta / break_even - 1) < 0.005:
        return "as cheap"
    return "cheaper" if ta > break_even else "dearer"


def _at_match(a: Row, b: Row, match: Match) -> Verdict:
    ta, tb = match.tps("a"), match.tps("b")
    pa, pb = _price(a), _price(b)
    break_even = pa * tb / pb
    best = worst = None
    if len(match.a) + len(match.b) > 2:
        (low_a, high_a), (low_b, high_b) = match.spread("a"), match.spread("b")
        best, worst = (pa / high_a) / (pb / low_b) - 1, (pa / low_a) / (pb / high_b) - 1
    return Verdict(
        _measured(ta, break_even), break_even, break_even / tb,
        change=(pa / ta) / (pb / tb) - 1,
        point=match.words() + (f"; software {software}" if (software := match.software()) else ""),
        best=best, worst=worst, a_figure=match.figure("a"), b_figure=match.figure("b"),
    )  # fmt: skip


def judge(a: Row, b: Row, evidence: Evidence) -> Verdict:
    """A's offer against B's, from both chips' figures at the asked speed."""
    chip_a, chip_b = str(a["chip"]), str(b["chip"])
    if _price(a) <= 0:  # A costs nothing (a 100% discount): cheaper at any throughput
        return Verdict("cheaper", 0.0, 0.0, change=-1.0, point="at any throughput")
    mine, theirs = evidence.published(chip_a), evidence.published(chip_b)
    match = evidence.matched(chip_a, chip_b)
    if match is not None:
        return _at_match(a, b, match)
    pa, pb = _price(a), _price(b)
    differ = evidence.why_unmatched(chip_a, chip_b)
    workload = str(a.get("workload") or "inference")
    if theirs or mine:  # one side measured: its best figure's point anchors
        anchor = "b" if theirs else "a"
        fixed = (theirs or mine)[0]
        other = chip_a if anchor == "b" else chip_b
        found = evidence.estimate_at(other, fixed)
        t_fixed = float(fixed["tokens_per_second_per_chip"])  # type: ignore[arg-type]
        # the unmeasured side must reach: its price x the measured side's figure / that price
        needed = pa * t_fixed / pb if anchor == "b" else pb * t_fixed / pa
        # A derived figure never draws a verdict word: where its whole band lies on one side
        # of the break-even, the sentence says so, as context for the measurement to make.
        return Verdict(
            "cannot say", needed, needed / t_fixed, point=point_of(fixed).words(),
            needs="a" if anchor == "b" else "b", anchor=anchor, estimate=found, differ=differ,
            workload=workload,
        )  # fmt: skip
    tb = float(b["tokens_per_second_per_chip"])  # type: ignore[arg-type]
    needed = pa * tb / pb
    theirs_derived = [r for r in evidence.rows if r["throughput_id"] == b.get("throughput_id")]
    point = point_of(theirs_derived[0]).words() if theirs_derived else ""
    return Verdict("cannot say", needed, needed / tb, differ=differ, point=point, workload=workload)


def cost_at(row: Row, tps: float) -> float:
    """The cost per million tokens of an offer at `tps` tokens/s per chip."""
    return cost_per_million_tokens(float(row["price_per_chip_hour"]), tps)  # type: ignore[arg-type]


# A figure's fields (throughput_ranked) as an offer row of the ranking names them.
_FIGURE_FIELDS = {
    "throughput_id": "throughput_id", "kind": "throughput_kind", "source": "throughput_source",
    "source_date": "throughput_source_date",
    "precision": "precision", "chips": "throughput_chips",
    "operating_point": "throughput_operating_point", "scenario": "throughput_scenario",
    "tokens_per_second_per_user": "throughput_tokens_per_second_per_user",
    "input_tokens": "throughput_input_tokens", "output_tokens": "throughput_output_tokens",
}  # fmt: skip


def at_figure(row: Row, figure: Row | None) -> Row:
    """The offer with the figure the answer rests on (where it is not the ranking's chosen
    one), and its cost per token there."""
    if figure is None or figure["throughput_id"] == row.get("throughput_id"):
        return row
    tps = float(figure["tokens_per_second_per_chip"])  # type: ignore[arg-type]
    moved = {name: figure.get(field) for field, name in _FIGURE_FIELDS.items()}
    return {
        **row, **moved, "tokens_per_second_per_chip": tps,
        "usd_per_million_tokens": cost_at(row, tps),
        "throughput_figure_kind": figure.get("kind"), "throughput_at_speed": True,
        "throughput_range_low": None, "throughput_range_high": None,
    }  # fmt: skip


# What with_verdicts adds to each row besides the break-even (None where no baseline).
_SAID = ("break_even_for", "verdict", "verdict_point", "in_words", "vs_baseline_at_point")


def with_verdicts(
    rows: list[Row], offers: list[Row], baseline: str, evidence: Evidence
) -> list[Row]:
    """The ranking's rows given, against the baseline offer their cost change was taken on,
    break_even_tokens_per_second_per_chip, its share of the baseline's figure, the verdict and
    each derived figure's range (throughput_range_low/high). Rows are completed in place."""
    base = {
        (r["pricing_model"], r["term"], r["provider"], r["usd_per_million_tokens"]): r
        for r in offers
        if r["chip"] == baseline
    }
    for row in rows:
        found = figure_range(row, evidence.parameters)
        row["throughput_range_low"], row["throughput_range_high"] = found or (None, None)
        row["throughput_figure_kind"] = figure_kind(row)
        key = (
            row["pricing_model"], row["term"], row.get("baseline_provider"),
            row.get("baseline_usd_per_million_tokens"),
        )  # fmt: skip
        b = base.get(key)
        # No break-even against a baseline that costs nothing (a 100% discount): its cost
        # change is empty too (transform/cost.py).
        if b is None or row["chip"] == baseline or not b["usd_per_million_tokens"]:
            for name in ("break_even_tokens_per_second_per_chip", "break_even_share", *_SAID):
                row[name] = None
            continue
        judged = judge(row, b, evidence)
        if judged.matched and judged.b_figure is not None:
            # A verdict's row is costed at the figures it rests on, as compare costs it: one
            # cost per million tokens for an offer in every read.
            before = float(row["tokens_per_second_per_chip"])  # type: ignore[arg-type]
            row.update(at_figure(row, judged.a_figure))
            if row.get("cost_for_tokens"):  # the cost of N tokens scales as 1 / tokens/s
                after = float(row["tokens_per_second_per_chip"])  # type: ignore[arg-type]
                row["cost_for_tokens"] = float(row["cost_for_tokens"]) * before / after  # type: ignore[arg-type]
            b_tps = float(judged.b_figure["tokens_per_second_per_chip"])  # type: ignore[arg-type]
            row["baseline_usd_per_million_tokens"] = cost_at(b, b_tps)
        row["break_even_tokens_per_second_per_chip"] = judged.break_even
        row["break_even_share"] = judged.share
        row["break_even_for"] = row["chip"] if judged.needs == "a" else baseline
        row["verdict"] = judged.word
        row["verdict_point"] = judged.point
        row["in_words"] = judged.sentence(str(row["chip"]), baseline)
        # One answer in every field: the change at the figures the verdict rests on where one
        # is drawn, and no percentage at all where the evidence cannot say.
        row["vs_baseline_at_point"] = judged.change
        row["cost_change_vs_baseline"] = judged.change
        row["vs_baseline"] = _change(judged.change) if judged.matched else judged.word
    return rows


def listing_with_ranges(frame: pl.DataFrame) -> pl.DataFrame:
    """`throughput list`'s frame (throughput_ranked's columns) with figure_kind and, for each
    derived inference figure, range_low and range_high (tokens/s per chip)."""
    import polars as pl

    kinds, lows, highs = [], [], []
    for row in frame.iter_rows(named=True):
        found = figure_range(row, row.get("parameters"))
        kinds.append(figure_kind(row))
        lows.append(found[0] if found else None)
        highs.append(found[1] if found else None)
    return frame.with_columns(
        pl.Series("figure_kind", kinds, dtype=pl.String),
        pl.Series("range_low", lows, dtype=pl.Float64),
        pl.Series("range_high", highs, dtype=pl.Float64),
    )
