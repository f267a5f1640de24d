"""The articles' answers a line each, as the e-mail (text and HTML) and the report's list give
them: the pair first, then the question, both costs per million tokens where known, the
answer, and the anchor of its chart in the report."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import polars as pl

from chipcost.reports.labels import ESTIMATED, ESTIMATED_COST_NOTE
from chipcost.reports.versus_charts import PUBLISHED, charted, pair_anchor
from chipcost.transform.cost import cost_text
from chipcost.transform.rows import number
from chipcost.transform.verdict import SHARE_THERE

# Which offers an answer sets against each other: compare's pairing (chipcost.transform.comparison
# paired), said in the report and the explorer.
PAIRING = (
    "on demand (else the first pricing model both chips have, as the row says), each chip's "
    "cheapest offer that holds the model, wherever it is sold (the two may be on different "
    "providers)"
)
# Where a pair has no chart of its own (training, or no range to draw): the section, whose
# table has both figures.
SECTION_ANCHOR = "versus"


@dataclass(frozen=True)
class AnswerLine:
    pair: str  # 'Trainium2 against H100-SXM' (several pairs not answered for one reason: '; ')
    question: str  # 'llama-3-70b inference'
    costs: str  # 'Trainium2 $0.9312/M (derived), H100-SXM $0.7104/M'; '' where none is known
    said: str  # the answer's sentence, or 'not answered (the reason)'
    anchor: str | None  # its chart's id in the report (SECTION_ANCHOR without one); None: none
    charted: bool = False

    @property
    def head(self) -> str:
        return f"{self.pair}, {self.question}"

    @property
    def link(self) -> str:
        """What its anchor shows: its chart, or both figures where none is drawn."""
        return "chart" if self.charted else "both figures"


def answer_lines(answers: pl.DataFrame) -> list[AnswerLine]:
    """Each answered pair a line, in order; then, per model and workload, the pairs not
    answered grouped by their reason ('no current price for Trainium3 ...')."""
    lines: list[AnswerLine] = []
    unanswered: list[AnswerLine] = []
    for (model, workload), rows in answers.group_by("model", "workload", maintain_order=True):
        question = f"{model} {workload}"
        grouped: dict[str, list[str]] = {}
        for row in rows.iter_rows(named=True):
            if row["answer"] is None:
                pair, _, reason = str(row["why_not"] or "").partition(": ")
                grouped.setdefault(reason, []).append(pair)
                continue
            drawn = charted(row)
            lines.append(
                AnswerLine(
                    pair=f"{row['chip_a']} against {row['chip_b']}",
                    question=question,
                    costs=costs(row),
                    said=str(row["answer"]),
                    anchor=pair_anchor(row) if drawn else SECTION_ANCHOR,
                    charted=drawn,
                )
            )
        unanswered += [
            AnswerLine("; ".join(pairs), question, "", f"not answered ({reason})", None)
            for reason, pairs in grouped.items()
        ]
    return [*lines, *unanswered]


def costs(row: Mapping[str, object]) -> str:
    """Both costs per million tokens where known: A's (its figure's kind said when it is not
    a published one), B's only where B's figure is published (a measurement); each marked
    'est.' where its offer's price is an estimate, and with the discount its offer got, where
    one did."""
    said = []
    a, b = row.get("a_usd_per_million_tokens"), row.get("b_usd_per_million_tokens")
    if a is not None:
        kind = str(row.get("a_kind") or "")
        notes = ([] if kind in PUBLISHED else [kind or "kind not stated"]) + _discount(row, "a")
        note = f" ({'; '.join(notes)})" if notes else ""
        said.append(f"{row['chip_a']} {cost_text(number(a))}/M{_estimated(row, 'a')}{note}")
    if b is not None and row.get("b_kind") in PUBLISHED:
        note = "".join(f" ({d})" for d in _discount(row, "b"))
        said.append(f"{row['chip_b']} {cost_text(number(b))}/M{_estimated(row, 'b')}{note}")
    return ", ".join(said)


def _estimated(row: Mapping[str, object], side: str) -> str:
    """ESTIMATED (' est.') after a side's cost where its offer's price is an estimate, as
    `prices` and `cost` mark that price; else ''."""
    return ESTIMATED if row.get(f"{side}_estimate") else ""


def estimated_costs_note(rows: Sequence[Mapping[str, object]]) -> str:
    """' est. after a cost: ...' (ESTIMATED_COST_NOTE) where an answer's cost rests on an
    estimated price, else ''."""
    said = any(row.get("a_estimate") or row.get("b_estimate") for row in rows)
    return f" {ESTIMATED_COST_NOTE}" if said else ""


def _discount(row: Mapping[str, object], side: str) -> list[str]:
    """['your discount 60% EDP'] where the side's offer got one, as the cheapest prices say it."""
    found = row.get(f"{side}_discount")
    return [f"your discount {found}"] if found else []


def cost_where(row: Mapping[str, object], side: str) -> str | None:
    """'$0.7123 aws us-east-2, your discount 60% EDP': a side's cost per million tokens ('est.'
    after it where its price is an estimate), where it is bought, and the discount it got (the
    answers' tables); None where the pair has none."""
    cost = row.get(f"{side}_usd_per_million_tokens")
    if cost is None:
        return None
    said = f"{cost_text(number(cost))}{_estimated(row, side)} {row[f'{side}_where']}"
    return ", ".join([said, *_discount(row, side)])


def break_even_words(row: Mapping[str, object]) -> str:
    """'H100-SXM must do at least 212 tok/s per chip (14% of its own figure there)': whose
    break-even it is (A, or B where only A is measured), at least where it rests on a lower
    bound, and its share of that chip's own figure at the point (its derived estimate where
    it is not measured), as compare's answer words it; where that estimate is not at the
    point, its share of the estimate says so ('1899% of its derived estimate, at another
    point': break_even_share_of); '' where none."""
    needed, who = row.get("break_even_tokens_per_second_per_chip"), row.get("break_even_for")
    if needed is None or who is None:
        return ""
    least = " at least" if row.get("break_even_at_least") else ""
    share = row.get("break_even_share_pct")
    basis = row.get("break_even_share_of") or SHARE_THERE
    of = "" if share is None else f" ({number(share):.0f}% of {basis})"
    return f"{who} must do{least} {number(needed):,.0f} tok/s per chip{of}"


def discounts_said(rows: Sequence[Mapping[str, object]]) -> str:
    """' Costs after your discounts ...' where an answer's offer got one, else ''."""
    if not any(row.get("a_discount") or row.get("b_discount") for row in rows):
        return ""
    return (
        " Costs are after your discounts where a cost names one (CHIPCOST_DISCOUNTS, as "
        "`chipcost compare` takes them), in US dollars."
    )
