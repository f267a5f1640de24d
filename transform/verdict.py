"""What the evidence says about chip A against chip B: a verdict only where both are measured
at one point, else the break-even there and what would decide it.

Two chips' figures are set against each other only at one operating point (request shape,
speed, precision class, scale: chipcost.transform.evidence, where the answer's typed objects
are):

- cheaper / dearer / as cheap: both chips have published figures (or yours) at one point;
  the change is taken at those figures, the best of each side's figures there;
- cannot say: otherwise. A derived figure never draws a verdict word: the answer is the
  break-even, the tokens/s per chip the unmeasured chip must reach at the measured one's
  point, with its derived estimate there as context (its band where checks of its own vendor
  family measured one, and whether the band lies wholly on one side of the break-even), and
  the way to close it is a measurement (`chipcost measure`).

The break-even is the tokens/s per chip at which the two offers cost the same per token:
for A against B's figure tb, A's price per chip-hour x tb / B's.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from chipcost.transform.change_words import AS_CHEAP, change_words
from chipcost.transform.cost import cost_text
from chipcost.transform.derivation_fit import (
    band_around,
    catalogue,
    group_names,
    size_group,
)
from chipcost.transform.estimate import estimate_at
from chipcost.transform.evidence import (
    Estimate,
    Match,
    Reading,
    Verdict,
    differences,
    matched,
    point_of,
    point_order,
    publication,
    published,
    why_unmatched,
)
from chipcost.transform.rows import CostRow, FigureRow
from chipcost.transform.tokens import cost_per_million_tokens

if TYPE_CHECKING:
    import polars as pl

K = TypeVar("K")
V = TypeVar("V")


def is_derived(row: Mapping[str, object]) -> bool:
    return str(row.get("throughput_kind") or row.get("kind")) == "derived"


def figure_kind(row: Mapping[str, object]) -> str:
    """'benchmark', 'derived' or 'calibrated' (a derived figure fitted on the chip's own)."""
    scenario = str(row.get("throughput_scenario") or row.get("scenario") or "")
    if is_derived(row) and scenario.startswith("calibrated"):
        return "calibrated"
    return str(row.get("throughput_kind") or row.get("kind") or "")


def figure_range(row: Mapping[str, object], parameters: float | None) -> tuple[float, float] | None:
    """(low, high) tokens/s per chip a derived inference figure stands for: the figure over
    the 90th and 10th percentile of its group's out-of-sample ratios predicted / published,
    read only from checks of its own vendor family; None when measured, or when its vendor
    family has too few checks for a band (its error is unknown)."""
    if not is_derived(row) or row.get("workload", "inference") != "inference":
        return None
    tps = row["tokens_per_second_per_chip"]
    if not isinstance(tps, int | float):  # a figure always has one (throughput_ranked)
        return None
    found = catalogue()
    names = group_names(
        size=size_group(parameters),
        precision=str(row.get("precision") or ""),
        vendor=found.vendors.get(str(row["chip"])),
        calibrated=figure_kind(row) == "calibrated",
    )
    band = band_around(float(tps), found.bands, names)
    return band[0] if band else None


@dataclass
class _Found:
    """What an Evidence has worked out, by what it was asked."""

    readings: list[Reading] | None = None
    by_id: dict[str, Reading] | None = None
    published: dict[str, list[Reading]] = field(default_factory=dict)
    matched: dict[tuple[str, str], Match | None] = field(default_factory=dict)
    why: dict[tuple[str, str], str] = field(default_factory=dict)
    estimates: dict[tuple[str, str], Estimate | None] = field(default_factory=dict)


def _once(found: dict[K, V], key: K, work: Callable[[], V]) -> V:
    if key not in found:
        found[key] = work()
    return found[key]


@dataclass(frozen=True)
class Evidence:
    """Every figure of one model and workload at the asked speed (throughput_ranked rows),
    read once for a whole ranking or comparison. What the figures say of a chip, or of two
    chips at one point, is worked out once: a ranking judges thousands of offers of a few
    chips."""

    rows: list[FigureRow]
    parameters: float | None
    speed: str
    _found: _Found = field(default_factory=_Found, compare=False, repr=False)

    def readings(self) -> list[Reading]:
        if self._found.readings is None:
            self._found.readings = [Reading.of(r) for r in self.rows]
        return self._found.readings

    def published(self, chip: str) -> list[Reading]:
        return _once(self._found.published, chip, lambda: published(self.readings(), chip))

    def matched(self, chip_a: str, chip_b: str) -> Match | None:
        """Both chips' published figures at one point (chipcost.transform.evidence.matched)."""
        return _once(
            self._found.matched,
            (chip_a, chip_b),
            lambda: matched(self.published(chip_a), self.published(chip_b)),
        )

    def why_unmatched(self, chip_a: str, chip_b: str) -> str:
        return _once(
            self._found.why,
            (chip_a, chip_b),
            lambda: why_unmatched(self.published(chip_a), self.published(chip_b)),
        )

    def reading(self, throughput_id: object) -> Reading | None:
        """The reading of a figure by its id, None where none is held."""
        if self._found.by_id is None:
            self._found.by_id = {r.throughput_id: r for r in self.readings()}
        return self._found.by_id.get(str(throughput_id))

    def estimate_at(self, chip: str, anchor: Reading) -> Estimate | None:
        """`chip`'s derived figure at the point of `anchor`."""
        return _once(
            self._found.estimates,
            (chip, anchor.throughput_id),
            lambda: estimate_at(chip, anchor, self.parameters, self.speed, self.readings()),
        )


def _price(row: CostRow) -> float:
    return row["price_per_chip_hour"]


def judge(a: CostRow, b: CostRow, evidence: Evidence) -> Verdict:
    """A's offer against B's, from both chips' figures at the asked speed."""
    chip_a, chip_b = str(a["chip"]), str(b["chip"])
    if _price(a) <= 0:  # A costs nothing (a 100% discount): cheaper at any throughput
        return Verdict("cheaper", 0.0, 0.0, change=-1.0, point="at any throughput")
    mine, theirs = evidence.published(chip_a), evidence.published(chip_b)
    match = evidence.matched(chip_a, chip_b)
    if match is not None:
        return at_match(_price(a), _price(b), match)
    pa, pb = _price(a), _price(b)
    differ = evidence.why_unmatched(chip_a, chip_b)
    workload = str(a.get("workload") or "inference")
    if theirs or mine:  # one side measured (or both, at no shared point): its best anchors
        anchor = _anchor(mine, theirs, chip_a, chip_b)
        fixed = (theirs if anchor == "b" else mine)[0]
        other = chip_a if anchor == "b" else chip_b
        found = evidence.estimate_at(other, fixed)
        t_fixed = fixed.tokens_per_second_per_chip
        # the unmeasured side must reach: its price x the measured side's figure / that price
        needed = pa * t_fixed / pb if anchor == "b" else pb * t_fixed / pa
        # of its own figure there: its derived estimate at the measured side's point, else
        # its figure at the asked speed
        own = found.value if found and found.value > 0 else None
        own = own or (a if anchor == "b" else b)["tokens_per_second_per_chip"]
        # A derived figure never draws a verdict word: where its whole band lies on one side
        # of the break-even, the sentence says so, as context for the measurement to make.
        # The measured figure is the one the break-even rests on; where it is a lower bound
        # (a curve's point faster than asked), the break-even is one too.
        return Verdict(
            "cannot say", needed, needed / own, point=point_of(fixed).words(),
            needs="a" if anchor == "b" else "b", anchor=anchor, estimate=found, differ=differ,
            workload=workload, bound=anchor if fixed.lower_bound else "",
            a_figure=fixed if anchor == "a" else None, b_figure=fixed if anchor == "b" else None,
        )  # fmt: skip
    tb = b["tokens_per_second_per_chip"]
    needed = pa * tb / pb
    theirs_derived = [r for r in evidence.readings() if r.throughput_id == b.get("throughput_id")]
    point = point_of(theirs_derived[0]).words() if theirs_derived else ""
    share = needed / a["tokens_per_second_per_chip"]  # of A's own figure, derived as B's
    return Verdict("cannot say", needed, share, differ=differ, point=point, workload=workload)


def at_match(price_a: float, price_b: float, match: Match) -> Verdict:
    """The verdict where both chips are measured at one point: the change at each side's
    figure there by the choice rule, the break-even, and the range over every figure of each
    there. A side whose figure is a lower bound (its curve's slowest point is faster than
    asked) does at least that much at the speed: the verdict stands only where the bound
    decides it ("at least 25% cheaper"), else it cannot say."""
    fa, fb = match.figure("a"), match.figure("b")
    ta, tb = fa.tokens_per_second_per_chip, fb.tokens_per_second_per_chip
    break_even = price_a * tb / price_b
    best = worst = None
    spread_a, spread_b = match.spread("a"), match.spread("b")
    if len(match.a) + len(match.b) > 2:
        (low_a, high_a), (low_b, high_b) = spread_a, spread_b
        best = (price_a / high_a) / (price_b / low_b) - 1
        worst = (price_a / low_a) / (price_b / high_b) - 1
    software = match.software()
    change = (price_a / ta) / (price_b / tb) - 1
    word = "cheaper" if ta > break_even else "dearer"
    if abs(math.log(ta / break_even)) < AS_CHEAP:  # the same band either way round
        word = "as cheap"
    point = match.words() + (f"; software {software}" if software else "")
    same = match.same_software()
    if same is not None:
        name, sa, sb = same
        ca, cb = sa.tokens_per_second_per_chip, sb.tokens_per_second_per_chip
        point += (
            f"; with {name} on both, {ca:,.0f} against {cb:,.0f} tok/s per chip: "
            f"{_pair_words(price_a, price_b, sa, sb)}"
        )
    bound = "".join(side for side, f in (("a", fa), ("b", fb)) if f.lower_bound)
    # A's bound can only lower A's cost, B's only B's: each decides one way.
    decided = (
        not bound or (bound == "a" and word == "cheaper") or (bound == "b" and word == "dearer")
    )
    if not decided:
        # The break-even is asked of the chip whose figure is a lower bound, at the other's
        # figure (of two lower bounds, the looser: bounded), whichever chip is named first.
        needs = bounded(fa, fb) if bound == "ab" else bound
        if needs == "b":
            break_even = price_b * ta / price_a
        return Verdict(
            "cannot say", break_even, break_even / (ta if needs == "a" else tb), point=point,
            needs=needs, a_figure=fa, b_figure=fb, a_spread=spread_a, b_spread=spread_b,
            bound=bound, bound_change=change,
        )  # fmt: skip
    return Verdict(
        word, break_even, break_even / ta, change=change, point=point,
        best=best, worst=worst, a_figure=fa, b_figure=fb,
        a_spread=spread_a, b_spread=spread_b, bound=bound,
    )  # fmt: skip


def bounded(fa: Reading, fb: Reading) -> str:
    """Of two figures that are both lower bounds at the asked speed, the side whose bound is
    the looser, 'a' or 'b': the one read furthest above the asked speed (its curve's slowest
    point the fastest per user), then the chip first by name; what the answer asks to reach
    the break-even, the same whichever chip is named first."""
    keys = {
        side: (-(figure.tokens_per_second_per_user or 0.0), figure.chip)
        for side, figure in (("a", fa), ("b", fb))
    }
    return min(keys, key=lambda side: keys[side])


def _pair_words(price_a: float, price_b: float, fa: Reading, fb: Reading) -> str:
    """A pair's change in words as a verdict would say it: 'at least 28% dearer' where a
    lower bound decides it, 'no verdict (a lower bound)' where it cannot."""
    ta, tb = fa.tokens_per_second_per_chip, fb.tokens_per_second_per_chip
    words = _change_at(price_a, price_b, ta, tb)
    bound = "".join(side for side, f in (("a", fa), ("b", fb)) if f.lower_bound)
    if not bound:
        return words
    if (bound == "a" and words.endswith("cheaper")) or (bound == "b" and "dear" in words):
        return f"at least {words}"
    return "no verdict (a figure faster than asked, a lower bound)"


def _change_at(price_a: float, price_b: float, ta: float, tb: float) -> str:
    """'12% cheaper': A's cost per token against B's at two figures, in the verdict's words."""
    return change_words((price_a / ta) / (price_b / tb) - 1)


def _anchor(mine: list[Reading], theirs: list[Reading], chip_a: str, chip_b: str) -> str:
    """Whose measured point anchors the break-even where no point is shared: the measured
    side; where both are measured (at different points), the same chip whichever is named
    first: the one whose best point comes first in the point preference, else by name."""
    if not mine or not theirs:
        return "b" if theirs else "a"
    keys = {
        side: (point_order(point_of(found[0])), chip)
        for side, found, chip in (("a", mine, chip_a), ("b", theirs, chip_b))
    }
    return min(keys, key=lambda side: keys[side])


# What a break-even's share is of (Verdict.share), as every output words it: the figure of
# the chip that must reach it at the point (measured, or its derived estimate there), else
# its derived estimate at another point (Estimate.unlike), else its own figure elsewhere.
SHARE_THERE = "its own figure there"
SHARE_ESTIMATE_ELSEWHERE = "its derived estimate, at another point"
SHARE_OWN_ELSEWHERE = "its own figure, at another point"


def share_of(judged: Verdict) -> str:
    """What `judged.share` is a share of (SHARE_THERE and the others above)."""
    if not judged.anchor:  # both measured there, or neither (A's own, derived as B's)
        return SHARE_THERE
    found = judged.estimate
    if found is None or found.value <= 0:  # the offer's own figure at the asked speed
        return SHARE_OWN_ELSEWHERE
    return SHARE_ESTIMATE_ELSEWHERE if found.unlike else SHARE_THERE


def cost_at(row: CostRow, tps: float) -> float:
    """The cost per million tokens of an offer at `tps` tokens/s per chip."""
    return cost_per_million_tokens(row["price_per_chip_hour"], tps)


def costs_at_point(judged: Verdict, a: CostRow, b: CostRow) -> tuple[float, float] | None:
    """A's and B's cost per million tokens at the figures of the point both are measured at
    (a verdict's, or bounds that decide none), None where no point is shared: what every
    read sets side by side with the answer, the offers' own costs being each chip's figure's."""
    fa, fb = judged.a_figure, judged.b_figure
    if fa is None or fb is None:
        return None
    return cost_at(a, fa.tokens_per_second_per_chip), cost_at(b, fb.tokens_per_second_per_chip)


def figures_said(judged: Verdict) -> tuple[float, float] | None:
    """A's and B's tokens/s per chip the verdict's words rest on: each side's figure at the
    point both are measured at (a verdict, or bounds that decide none); where only one is
    measured and the words lean (Verdict.leaning), the other's derived estimate at its point
    against its figure; None where the words rest on no figures of both (no verdict, no
    leaning)."""
    fa, fb = judged.a_figure, judged.b_figure
    if fa is not None and fb is not None:
        return fa.tokens_per_second_per_chip, fb.tokens_per_second_per_chip
    found, fixed = judged.estimate, fa or fb
    if not judged.anchor or found is None or fixed is None or not judged.leaning():
        return None
    measured = fixed.tokens_per_second_per_chip
    return (measured, found.value) if judged.anchor == "a" else (found.value, measured)


def said_elsewhere(judged: Verdict, a: CostRow, b: CostRow) -> tuple[float, float] | None:
    """A's and B's cost per million tokens at the figures the verdict's words rest on
    (figures_said), where either is not that offer's own figure at the asked speed (its cost
    per token as every read gives it); None where the words rest on the offers' own."""
    found = figures_said(judged)
    if found is None:
        return None
    own = (a["tokens_per_second_per_chip"], b["tokens_per_second_per_chip"])
    if all(math.isclose(t, mine, rel_tol=1e-9) for t, mine in zip(found, own, strict=True)):
        return None
    return cost_at(a, found[0]), cost_at(b, found[1])


def vs_words(judged: Verdict, a: CostRow, b: CostRow) -> str:
    """The verdict in a cell, as compare's table words it (Verdict.cell_words), and, where it
    rests on figures other than the offers' own, both costs per million tokens there: '48%
    dearer at $0.1387 vs $0.0938/M' on a row whose own cost is $0.1355 (its chip's figure at
    the asked speed is of another MLPerf round than the one both chips are measured in)."""
    words = judged.cell_words()
    costs = said_elsewhere(judged, a, b)
    if costs is None:
        return words
    currency = str(a.get("currency") or "USD")
    mine, theirs = (cost_text(cost, currency) for cost in costs)
    return f"{words} at {mine} vs {theirs}/M"


def row_sentence(judged: Verdict, a: CostRow, b: CostRow) -> str:
    """The verdict's sentence for a ranking's row, whose change is its own cost over the
    baseline's: where the verdict is drawn at other figures than the offers' own (the point
    both chips are measured at), which, with both costs there and at their own: 'GB200 is 4%
    dearer per token than H100-SXM at the figures both are measured at ($0.6545 vs $0.6300/M;
    at their own, $0.5644 vs $0.6300)', on a row 10% cheaper by its own."""
    chip_a, chip_b = str(a["chip"]), str(b["chip"])
    costs = said_elsewhere(judged, a, b)
    if costs is None or not judged.matched:  # a cannot say states no change: its point is said
        return judged.sentence(chip_a, chip_b)
    currency = str(a.get("currency") or "USD")
    at, own = (
        " vs ".join(cost_text(cost, currency) for cost in pair)
        for pair in (costs, (a["usd_per_million_tokens"], b["usd_per_million_tokens"]))
    )
    return judged.sentence(
        chip_a, chip_b, f" at the figures both are measured at ({at}/M; at their own, {own})"
    )


def basis_words(judged: Verdict, a: CostRow, b: CostRow, evidence: Evidence) -> str:
    """The figures a verdict's words rest on, where they are not the offers' own, and how
    each differs from its offer's own: 'MI300X against H100-SXM at MLPerf Inference's own
    requests, FP8, 8-32 chips: MI300X mlperf-v5.1-..., 3,108 tok/s per chip, not its own 3,183
    (MLPerf Inference v6.0 ...: one publication holds both chips' figures at the point);
    H100-SXM mlperf-v5.1-..., 3,821 tok/s per chip, its own'."""
    chips, rows = {"a": str(a["chip"]), "b": str(b["chip"])}, {"a": a, "b": b}
    point = judged.point.split("; ")[0]  # the software each ran is compare's to say
    said = []
    for side in "ab":
        figure = judged.a_figure if side == "a" else judged.b_figure
        if figure is not None:
            tps = figure.tokens_per_second_per_chip
            text = f"{chips[side]} {figure.throughput_id}, {tps:,.0f} tok/s per chip"
        elif judged.estimate is not None:  # the unmeasured side of a leaning: its estimate
            tps, unlike = judged.estimate.value, judged.estimate.unlike
            # at the point, or where it says it is
            text = f"{chips[side]}'s derived estimate{' there' * (not unlike)}, "
            text += f"{tps:,.0f} tok/s per chip" + (f" {unlike}" if unlike else "")
        else:  # said_elsewhere gives no basis without one
            continue
        said.append(text + _own_words(tps, figure, rows[side], evidence))
    if judged.a_figure is not None and judged.b_figure is not None:
        head = f"{chips['a']} against {chips['b']} at {point}"
    else:
        head = f"{chips['a']} against {chips['b']} at {chips[judged.anchor]}'s point ({point})"
    return f"{head}: {'; '.join(said)}"


def _own_words(tps: float, figure: Reading | None, row: CostRow, evidence: Evidence) -> str:
    """', its own' where `tps` is the offer's own figure at the asked speed; else ', not its
    own 3,183' and why: its own is at another point, or of another publication (one holds both
    chips' figures at a point, where one does)."""
    mine = row["tokens_per_second_per_chip"]
    if math.isclose(tps, mine, rel_tol=1e-9):
        return ", its own"
    said = f", not its own {mine:,.0f}"
    own = evidence.reading(row.get("throughput_id"))
    if own is None:
        return said
    if figure is None or differences(point_of(own), point_of(figure)):
        return f"{said} at {point_of(own).words()}"
    if publication(own) != publication(figure):
        return (
            f"{said} ({own.source}: one publication holds both chips' figures at the point, "
            "where one does)"
        )
    return f"{said} ({own.throughput_id})"


def table_words(judged: Verdict, a: CostRow, b: CostRow) -> str:
    """The verdict in compare's table, whose $/M columns give both costs at the point both
    chips are measured at where they are (costs_at_point), else the offers' own: the words,
    with both costs they rest on where the columns do not give them (a leaning on an
    estimate that is not the offer's own figure)."""
    return judged.cell_words() if costs_at_point(judged, a, b) else vs_words(judged, a, b)


# What with_verdicts adds to a row with no baseline to judge it against.
_NOT_SAID: CostRow = {
    "usd_per_million_tokens_at_point": None, "baseline_usd_per_million_tokens_at_point": None,
    "break_even_tokens_per_second_per_chip": None, "break_even_share": None,
    "break_even_share_of": None,
    "break_even_for": None, "break_even_at_least": None, "verdict": None, "verdict_point": None,
    "in_words": None, "vs_baseline_at_point": None, "vs_baseline_basis": None,
}  # fmt: skip


def with_verdicts(
    rows: list[CostRow], offers: list[CostRow], baseline: str, evidence: Evidence
) -> list[CostRow]:
    """The ranking's rows given, against the baseline offer their cost change was taken on,
    break_even_tokens_per_second_per_chip, its share of the figure of the chip that must reach it
    (break_even_for: its own there, Verdict.share), the verdict and
    each derived figure's range (throughput_range_low/high). Rows are completed in place."""
    base: dict[tuple[str, str, str | None, float | None], CostRow] = {
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
            row.update(_NOT_SAID)
            continue
        judged = judge(row, b, evidence)
        # An offer's cost per million tokens is its chip's figure's at the asked speed, the
        # same against any baseline and in every read; a verdict drawn at other figures (the
        # point both chips are measured at) carries its own costs there.
        at_point = costs_at_point(judged, row, b) or (None, None)
        row["usd_per_million_tokens_at_point"] = at_point[0]
        row["baseline_usd_per_million_tokens_at_point"] = at_point[1]
        row["break_even_tokens_per_second_per_chip"] = judged.break_even
        row["break_even_share"] = judged.share
        row["break_even_share_of"] = share_of(judged) if judged.share is not None else None
        row["break_even_for"] = judged.needed_by(row["chip"], baseline)
        row["break_even_at_least"] = judged.break_even_least
        row["verdict"] = judged.word
        row["verdict_point"] = judged.point
        row["in_words"] = row_sentence(judged, row, b)
        # The verdict's change at the figures it rests on; the row's own change (its cost per
        # token / the baseline's, with_costs) stays beside it where a verdict is drawn, and no
        # percentage at all is given where the evidence cannot say.
        row["vs_baseline_at_point"] = judged.change
        if not judged.matched:
            row["cost_change_vs_baseline"] = None
        # as compare's table says it, with both costs where they are not the offers' own,
        # and the figures they are at
        row["vs_baseline"] = vs_words(judged, row, b)
        row["vs_baseline_basis"] = (
            basis_words(judged, row, b, evidence) if said_elsewhere(judged, row, b) else None
        )
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
