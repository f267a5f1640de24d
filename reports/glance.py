"""What a busy reader sees first: the largest moves in four columns, the articles' answers
in a sentence each, the history charts of the chips that moved most."""

from __future__ import annotations

from html import escape

import polars as pl
from great_tables import GT

from chipcost.reports.answers import answer_lines
from chipcost.reports.labels import DOUBTED, ESTIMATED, prose, tenths_pct
from chipcost.reports.moves import place_of_alike, swing_words
from chipcost.reports.tables import (
    JUMP_COLUMNS,
    SMALL,
    coloured,
    marked_jumps,
    styled,
    swing_cell,
    table_html,
    whole,
)


def moves_table(rows: pl.DataFrame) -> str:
    """Three columns that fit a 390 px phone: the chip with where and the pricing under it,
    the %, and was → now (a price or range never broken; the new one under the old where the
    line is too narrow). Rows of moves.alike_moves."""
    frame = rows.select(
        pl.struct(
            "chip",
            pl.concat_str([place_of_alike(), pl.col("offer")], separator=" · ").alias("place"),
        ).alias("move"),
        "change_pct",
        pl.struct("was", "now", _swing(rows)).alias("prices"),
        *[c for c in JUMP_COLUMNS if c in rows.columns],
    )
    gt = GT(frame).cols_label(move="Chip, where, pricing", prices="Was → now", change_pct="%")
    gt = gt.fmt(_move_cell, columns="move").cols_align("left", columns="move")
    gt = gt.fmt(_prices_cell, columns="prices").cols_align("left", columns="prices")
    gt = gt.fmt(tenths_pct, columns="change_pct")
    gt = marked_jumps(gt, frame).cols_hide([c for c in JUMP_COLUMNS if c in frame.columns])
    # A % has no place to break; a jump's "×8.0 and back" may, between its words, to leave
    # the prices their room on a phone.
    gt = coloured(gt, ["change_pct"])
    return table_html(styled(gt))


def _swing(rows: pl.DataFrame) -> pl.Expr:
    """`swing`: what a price back where it began is said with (moves.swing_words), '' for any
    other move (great-tables casts the cell's struct to text first: no null in it)."""
    if "swing_range" not in rows.columns:
        return pl.lit("").alias("swing")
    return (
        pl.struct("back", "now", "swing_range")
        .map_elements(lambda r: swing_words(r) if r["back"] else "", return_dtype=pl.String)
        .alias("swing")
    )


ARROW = "\u00a0→"  # with the price before it


def _prices_cell(cell: dict) -> str:
    """'$1.0500 → $0.9400', each price (or range, '$0.4264–$1.0301') whole, the arrow with
    the old one: a line too narrow breaks between the two, never inside either (an estimate's
    'est.' and a doubtful spot price's '(!)' may go under its range: a phone has no room for
    both on one line). A price back where it began: 'back at $1.3900 (low $1.1900 on
    2026-11-28, ...)', breaking between words only (moves.swing_words)."""
    if cell.get("swing"):
        return swing_cell(cell["swing"])
    now, mark = cell["now"], ""
    for after in (DOUBTED, ESTIMATED):  # the marks after the price, the last first
        if now.endswith(after):
            now, mark = now.removesuffix(after), f" {after.strip()}{mark}"
    return f"{whole(cell['was'] + ARROW)} {whole(now)}{mark}"


def _move_cell(cell: dict) -> str:
    return f"<b>{escape(cell['chip'])}</b><br><span style='{SMALL}'>{escape(cell['place'])}</span>"


def verdicts(answers: pl.DataFrame, report: str | None = "") -> str:
    """Each answer a line that starts with its pair and question, then both costs per million
    tokens where known, the answer, and a link to its chart: `report` is the report's file the
    anchors are in ('' where the answers are in the report itself; None: no link, as in an
    e-mail, whose reader cannot follow a link into an attachment). The pairs not answered
    for one reason share a line."""
    items = []
    for line in answer_lines(answers):
        costs = f"{escape(line.costs)}; " if line.costs else ""
        link = ""
        if line.anchor is not None and report is not None:
            link = f" <a href='{escape(report)}#{line.anchor}'>{line.link}</a>"
        css = "" if line.anchor is not None else " class='meta'"
        items.append(
            f"<li{css}><b>{escape(line.pair)}</b>, {escape(line.question)}: {costs}"
            f"{prose(line.said)}{link}</li>"
        )
    return f"<ul class='verdicts'>{''.join(items)}</ul>"


def most_moved(history: pl.DataFrame, chips: list[str]) -> list[str]:
    """The chips ordered by their largest move of a list or commitment price over the
    history, then of spot (which moves daily, and would otherwise fill the first charts)."""
    spot = pl.col("pricing_model") == "spot"
    moved = (
        history.filter(pl.col("chip").is_in(chips))
        .group_by("chip", "pricing_model")
        .agg(move=pl.col("price_per_chip_hour").max() / pl.col("price_per_chip_hour").min())
        .group_by("chip")
        .agg(
            listed=pl.col("move").filter(~spot).max().fill_null(1.0),
            spot=pl.col("move").filter(spot).max().fill_null(1.0),
        )
        .sort(["listed", "spot", "chip"], descending=[True, True, False])
    )
    return moved["chip"].to_list()
