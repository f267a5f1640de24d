"""Words and number formats the report shows instead of warehouse codes."""

from __future__ import annotations

import html
import re

import polars as pl

from chipcost.core.vocabulary import (
    DOUBT_MARK,
    MODEL_LABELS,
    doubt_note,
    gpu_alone_note,
    pricing_words,
)
from chipcost.warehouse.fx import Provisional

MINUS = "\u2212"  # a real minus sign: "−8%" reads better than "-8%" and matches great-tables
# After a price no public page gives (its `estimate` says what it rests on), as `chipcost
# prices` marks it (the explorer says "(estimate)"); ESTIMATE_NOTE says what the mark means
# wherever one is shown.
ESTIMATED = "\u00a0est."  # never alone at the start of a line
ESTIMATE_NOTE = (
    "est. after a price: an estimate, not a price the provider publishes (`chipcost prices` "
    "and the price explorer say what it rests on)."
)
# After a cost per million tokens whose offer's price is an estimate (the articles' answers,
# which show costs where `chipcost compare` shows the prices under them): the same mark.
ESTIMATED_COST_NOTE = (
    "est. after a cost: it rests on an estimated price, not one the provider publishes "
    "(`chipcost cost` and `chipcost prices` mark that price est. and say what it rests on)."
)
# After a doubtful spot price, not below its offer's on-demand price, as `chipcost prices`
# marks it (core.vocabulary DOUBT_MARK, doubt_note says what it means); never alone at the
# start of a line either.
DOUBTED = "\u00a0" + DOUBT_MARK.strip()


def offer_label() -> pl.Expr:
    """'on demand', 'reserved 1yr, standard, all upfront', 'spot', ... from the offer key, in
    the vocabulary's words (chipcost.core.vocabulary.pricing_words), as the CLI says them."""
    key = ("pricing_model", "term", "payment", "plan")
    return pl.struct(key).map_elements(
        lambda row: pricing_words(*(row[k] for k in key)), return_dtype=pl.String
    )


def where_label() -> pl.Expr:
    """'aws · us-east-1' (with the zone where prices differ per zone)."""
    zone = pl.when(pl.col("zone") != "").then(pl.col("zone"))
    return pl.concat_str(
        [pl.col("provider"), pl.col("region"), zone], separator=" · ", ignore_nulls=True
    )


def with_labels(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame with `offer` and `where` columns added."""
    return frame.with_columns(offer=offer_label(), where=where_label())


def signed_pct(value: float | None, *, tenths: bool = False) -> str:
    """−8%, +2.5%, 0%: one decimal, dropped when it is zero (kept with `tenths`: −8.0%, as the
    report's tables align them). A move that rounds to nothing is a move, not 0%: +<0.1%."""
    if value is None:
        return ""
    if value == 0:
        return "0.0%" if tenths else "0%"
    text = f"{abs(value):.1f}"
    text = text if tenths else text.removesuffix(".0")
    sign = MINUS if value < 0 else "+"
    return f"{sign}<0.1%" if float(text) == 0 else f"{sign}{text}%"


def tenths_pct(value: float | None) -> str:
    """A table's % cell, as HTML: signed_pct to a tenth (great-tables' fmt_percent said +0.0%
    of a move of $0.0001)."""
    return html.escape(signed_pct(value, tenths=True))


def money(value: float | None, decimals: int = 4) -> str:
    """$6.8800 (per chip-hour prices need four decimals to show a small move)."""
    return "" if value is None else f"${value:,.{decimals}f}"


def marked(price: str, estimate: str | None, doubt: str | None = None) -> str:
    """A price as shown, '$1.2900 est.' where it is an estimate (ESTIMATED), '$0.5600 (!)'
    where it is a doubtful spot price (DOUBTED)."""
    return f"{price}{ESTIMATED if estimate else ''}{DOUBTED if doubt else ''}"


def estimated_note(shown: pl.DataFrame) -> str:
    """ESTIMATE_NOTE, as a sentence to add, where a row `shown` is an estimate; else ''."""
    marks = "estimate" in shown.columns and shown["estimate"].is_not_null().any()
    return f" {ESTIMATE_NOTE}" if marks else ""


def marks_notes(shown: pl.DataFrame) -> list[str]:
    """What the marks of the prices `shown` mean, a sentence each, worded as `chipcost prices`
    words them: ESTIMATE_NOTE where a row is an estimate, which spot prices (!) marks
    doubtful and why (doubt_note), and which prices are the GPU's alone, the host billed
    beside them (gpu_alone_note); [] when no row is marked."""
    notes = [ESTIMATE_NOTE] if estimated_note(shown) else []
    if "spot_doubt" in shown.columns:
        doubted = shown.filter(pl.col("spot_doubt").is_not_null())
        if not doubted.is_empty():
            notes.append(f"{doubt_note(_offers(doubted))}.")
    if "gpu_alone" in shown.columns:
        alone = shown.filter(pl.col("gpu_alone"))
        if not alone.is_empty():
            notes.append(f"{gpu_alone_note(alone.select('source', 'instance_type').iter_rows())}.")
    return notes


def provisional_note(days: Provisional | None) -> str:
    """' The euro prices of 2026-11-21 are at the ECB rate of 2026-11-20, ...' where a
    section's euro prices are at an earlier day's rate, their own not loaded yet."""
    if days is None:
        return ""
    said = days.said()
    return f" {said[0].upper()}{said[1:]}."


def marks_note(shown: pl.DataFrame) -> str:
    """marks_notes as sentences to add (' est. after a price: ...'); '' when none is."""
    return "".join(f" {note}" for note in marks_notes(shown))


def _offers(rows: pl.DataFrame) -> list[dict]:
    """Rows as doubt_note names them, by provider, region and instance type: a row of moves
    that moved alike (reports/moves.py alike_moves) has no region, its `where` names them
    after its provider ('lium · global', 'gcp · us-central1, us-east5')."""
    if "region" not in rows.columns:
        after = pl.col("where").str.splitn(" · ", 2).struct.field("field_1")
        rows = rows.with_columns(region=after.fill_null(pl.col("where")))
    return rows.select("provider", "region", "instance_type", "spot_doubt").to_dicts()


def model_label(pricing_model: str, term: str) -> str:
    """'on demand', 'reserved 1yr', 'spot': the short form used in subjects and alerts."""
    label = MODEL_LABELS.get(pricing_model, pricing_model)
    return f"{label} {term}" if term not in ("none", "") else label


def jump_mark(factor: float, up: bool, net_pct: float | None) -> str:
    """'×8.0 and back' (or '÷8.0 and back, +2%'): a move out and back, not a 0% change."""
    mark = f"{'×' if up else '÷'}{factor:.1f} and back"
    net = signed_pct(net_pct)
    return mark if net in ("", "0%") else f"{mark}, {net}"


# In place of the % of a price that moved and ended where it began: its range is said beside it
# (reports/data.py swing_words), never a 0% that would read as a move.
BACK = "back"


def move_text(row: dict) -> str:
    """The move of a row of price_moves: its net %, its jump-and-back mark, or BACK."""
    if row.get("jump_back"):
        return jump_mark(row["jump_factor"], row["jump_up"], row["change_pct"])
    if row.get("back"):
        return BACK
    return signed_pct(row["change_pct"])


_NEEDS = re.compile(r"no, needs (?P<n>\d+) (?P<units>\w+)")


def holds_words(holds: str) -> str:
    """Whether an offer's instance holds the model, for a reader: 'no, needs 60 instances'
    (data._labelled) becomes 'too big for one instance: the model needs the memory of 60'."""
    found = _NEEDS.fullmatch(holds or "")
    if found:
        unit = found["units"].removesuffix("s")
        return (
            f"too big for one {unit}: the model needs the memory of {found['n']} {found['units']}"
        )
    if holds == "unknown":
        return "whether one instance holds the model is unknown (its memory is not listed)"
    return holds


_CODE = re.compile(r"`([^`]+)`")


def prose(text: str) -> str:
    """A sentence as HTML: escaped, a `command` in backticks set as code, never shown raw."""
    from html import escape

    return _CODE.sub(r"<code>\1</code>", escape(text))


def plain(text: str) -> str:
    """A sentence for plain text: a `command` in backticks quoted instead ("chipcost sources")."""
    return _CODE.sub(r'"\1"', text)
