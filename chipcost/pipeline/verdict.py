"""What the evidence says about chip A against chip B: the break-even throughput and a verdict
worded from the kinds of the two figures.

The break-even is the tokens/s per chip A must reach for its cost per token to equal B's on
the same pricing model: A's price per chip-hour / (B's cost per million tokens x 3600 / 10^6).
As a share of B's figure it is A's price over B's. A measured figure is taken as it stands; a
derived one (calibrated or not) carries the band of its derivation's out-of-sample error
(chipcost.pipeline.derivation_fit). The verdict:

- cheaper / dearer: both figures published (or yours);
- likely cheaper / likely dearer: a derived figure on either side, and the break-even outside
  what the bands allow (or, for a derivation with no band, such as training's, at its figure);
- cannot say: the break-even inside them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from chipcost.pipeline.derivation_fit import (
    catalogue,
    figure_band,
    group_names,
    size_group,
)
from chipcost.transform.tokens import change_words

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
    the 90th and 10th percentile of its group's out-of-sample ratios predicted / published
    (widened to hold the figure itself where the group is biased); None when measured."""
    if not is_derived(row) or row.get("workload", "inference") != "inference":
        return None
    found = catalogue()
    names = group_names(
        size=size_group(parameters),
        precision=str(row.get("precision") or ""),
        vendor=found.vendors.get(str(row["chip"])),
        calibrated=figure_kind(row) == "calibrated",
    )
    low, high, _ = figure_band(found.bands, names)
    tps = float(row["tokens_per_second_per_chip"])  # type: ignore[arg-type]
    return tps / max(high, 1.0), tps / min(low, 1.0)


@dataclass(frozen=True)
class Verdict:
    """A against B on one pricing model, as the evidence allows."""

    word: str  # cheaper, dearer, as cheap, likely cheaper, likely dearer, cannot say
    break_even: float  # tokens/s per chip A must reach
    share: float  # break_even / B's figure
    a_range: tuple[float, float] | None  # A's derived range, None when measured
    b_range: tuple[float, float] | None

    def sentence(self, chip_a: str, chip_b: str, change: float) -> str:
        """'Trainium2 is likely dearer per token than H100-SXM (about 40% dearer)'."""
        if self.word == "cannot say":
            return (
                f"cannot say whether {chip_a} is cheaper per token than {chip_b} (the "
                f"break-even is inside the derived range; at the figures, {_change(change)})"
            )
        if self.word == "as cheap":
            return f"{chip_a} is as cheap per token as {chip_b}"
        if self.word.startswith("likely"):
            at = f"at the figures, {_change(change)}"
            return f"{chip_a} is {self.word} per token than {chip_b} ({at})"
        return f"{chip_a} is {_change(change)} per token than {chip_b}"


def _change(change: float) -> str:
    """'32% cheaper', '40% dearer', '3.4 times as dear' (no four-digit percentages)."""
    if change > 9:
        return f"{change + 1:.0f} times as dear"
    return change_words(change)


def verdict(a: Row, b: Row, parameters: float | None) -> Verdict:
    """The break-even and the verdict for A's offer and figure against B's."""
    ta = float(a["tokens_per_second_per_chip"])  # type: ignore[arg-type]
    tb = float(b["tokens_per_second_per_chip"])  # type: ignore[arg-type]
    cost_b = float(b["cost_per_million_tokens"])  # type: ignore[arg-type]
    break_even = float(a["price_per_chip_hour"]) / (cost_b * 3600 / 1e6)  # type: ignore[arg-type]
    share = break_even / tb
    a_range, b_range = figure_range(a, parameters), figure_range(b, parameters)
    low_a, high_a = a_range or (ta, ta)
    low_b, high_b = b_range or (tb, tb)
    if not is_derived(a) and not is_derived(b):
        word = _measured(ta, break_even)
    elif a_range is None and b_range is None:  # derived with no measured error (training)
        word = f"likely {_measured(ta, break_even)}".replace("likely as cheap", "cannot say")
    elif low_a / high_b > share:
        word = "likely cheaper"
    elif high_a / low_b < share:
        word = "likely dearer"
    else:
        word = "cannot say"
    return Verdict(word, break_even, share, a_range, b_range)


def _measured(ta: float, break_even: float) -> str:
    if break_even <= 0:  # A's offer costs nothing (a 100% discount): any figure is cheaper
        return "cheaper"
    if abs(ta / break_even - 1) < 0.005:
        return "as cheap"
    return "cheaper" if ta > break_even else "dearer"


def with_verdicts(
    rows: list[Row], offers: list[Row], baseline: str, parameters: float | None
) -> list[Row]:
    """The ranking's rows given, against the baseline offer their cost change was taken on,
    break_even_tokens_per_second_per_chip, its share of the baseline's figure, the verdict and
    each derived figure's range (throughput_range_low/high). Rows are completed in place."""
    base = {
        (r["pricing_model"], r["term"], r["provider"], r["cost_per_million_tokens"]): r
        for r in offers
        if r["chip"] == baseline
    }
    for row in rows:
        found = figure_range(row, parameters)
        row["throughput_range_low"], row["throughput_range_high"] = found or (None, None)
        row["throughput_figure_kind"] = figure_kind(row)
        key = (
            row["pricing_model"], row["term"], row.get("baseline_provider"),
            row.get("baseline_cost_per_million"),
        )  # fmt: skip
        b = base.get(key)
        # No break-even against a baseline that costs nothing (a 100% discount): its cost
        # change is empty too (transform/cost.py).
        if b is None or row["chip"] == baseline or not b["cost_per_million_tokens"]:
            row["break_even_tokens_per_second_per_chip"] = row["break_even_share"] = None
            row["verdict"] = None
            continue
        judged = verdict(row, b, parameters)
        row["break_even_tokens_per_second_per_chip"] = judged.break_even
        row["break_even_share"] = judged.share
        row["verdict"] = judged.word
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
