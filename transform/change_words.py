"""A cost change in words, the one way every output says it (cost, compare, the report, the
e-mail, the explorer): a verdict's change ('32% cheaper', '3 times as dear', 'as cheap') and,
where the evidence draws none, which way it leans ('~3.6x dearer', '≤40% cheaper'); pure."""

from __future__ import annotations

import math
from collections.abc import Iterable

VERDICTS = ("cheaper", "dearer", "as cheap", "cannot say")
# Two costs per token within half a percent of each other are as cheap (a log band, so that
# naming the chips the other way round keeps it).
AS_CHEAP = math.log(1.005)
# Beyond this change (1,000% dearer) a change is said as a ratio: no four-digit percentages.
TIMES = 9.0


def change_words(change: float, *, least: bool = False) -> str:
    """'32% cheaper', '40% dearer', '3.4 times as dear', 'as cheap' (within half a percent,
    AS_CHEAP), 'at least ...' where `least` (a lower bound decides it): A's cost / B's - 1 in
    words, the one way every output words a change (cost, compare, the report, the e-mail)."""
    if change <= -1:  # free against a price: no ratio, every percent
        return f"{'at least ' if least else ''}100% cheaper"
    if abs(math.log(1 + change)) < AS_CHEAP:
        return "as cheap"
    if change > TIMES:
        said = f"{change + 1:.0f} times as dear"
    else:  # outside the band, so never '0%'
        said = f"{max(1, round(abs(change) * 100))}% {'cheaper' if change < 0 else 'dearer'}"
    return f"at least {said}" if least else said


# The mark before a figure that is a lower bound, or a break-even resting on one: measured
# faster than asked, the chip does at least that much at the speed asked.
AT_LEAST = "≥"
# What a figure being a lower bound is, where the note says no more of it.
LOWER_BOUND = "a figure being a lower bound (faster than asked)"


def at_least_note(bound: str = LOWER_BOUND, mark: str = AT_LEAST) -> str:
    """What the ≥ mark says in a table's note, the one way every output says it: '≥: at least,
    a figure being a lower bound (faster than asked)', or of `bound` as the note words it
    (`chipcost throughput list`: at which speed); `mark`: what stands for ≥ where it is not
    shown (csv and json's break_even_at_least)."""
    return f"{mark}: at least, {bound}"


# What a leaning's mark means, as a table's note says it (Verdict.leaning), and a break-even's
# (Verdict.break_even_words: '≥4,423').
LEANING_MARKS = {
    "~": "~: which way the derived estimate (est.) leans, no verdict",
    "≤": f"≤: at most, {LOWER_BOUND}, no verdict",
    AT_LEAST: at_least_note(),
}


# What a leaning on a derived estimate that is not at the measured chip's point says ('~31x
# dearer (est. elsewhere)'): the estimate's own words say where it is (Estimate.unlike).
ESTIMATE_ELSEWHERE = "(est. elsewhere)"
ELSEWHERE_NOTE = (
    f"{ESTIMATE_ELSEWHERE}: the estimate it leans on is not at the measured chip's point (the "
    "evidence says where it is), no verdict"
)


def leaning_notes(cells: Iterable[str]) -> list[str]:
    """The notes of the marks these cells show: a leaning's ('cannot say, ~3.6x dearer',
    'cannot say, ~≥5.3x dearer'), or a break-even's ('≥4,423', 'H100-SXM ≥4,156'), and an
    estimate's not at the point ('(est. elsewhere)')."""
    shown: set[str] = set()
    elsewhere = False
    for cell in filter(None, cells):
        said = cell.partition(", ")[2] if ", " in cell else cell.rpartition(" ")[2]
        shown.update(said[:2])
        elsewhere = elsewhere or ESTIMATE_ELSEWHERE in cell
    notes = [said for mark, said in LEANING_MARKS.items() if mark in shown]
    return notes + [ELSEWHERE_NOTE] * elsewhere


def times_words(change: float) -> str:
    """A leaning's size, never a verdict: '3.0x dearer', '2.5x cheaper' beyond double or half,
    else as change_words says it."""
    if change >= 1:
        return f"{change + 1:.{(change + 1) < 10:d}f}x dearer"
    if change <= -0.5:
        return f"{1 / (1 + change):.{1 / (1 + change) < 10:d}f}x cheaper"
    return change_words(change)
