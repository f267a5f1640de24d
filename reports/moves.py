"""Price moves as the report and the e-mail say them: glitches out and back told from real
moves (with_jumps), offers that moved alike grouped into one line (alike_moves), and a price
back where it began said with its range (swing_words)."""

from __future__ import annotations

import polars as pl

from chipcost.pipeline.jumps import JUMP_FACTOR
from chipcost.reports.labels import DOUBTED, ESTIMATED, money


def with_jumps(moves: pl.DataFrame) -> pl.DataFrame:
    """Moves marked `jump_back` when the price went more than JUMP_FACTOR out and came back
    (a net move under JUMP_FACTOR), with `jump_factor` and `jump_up`; and `back` when it moved
    and ended where it began (a net 0%, no glitch: said with its range, never as a 0% move).
    Real net moves come first, largest first; then the moves back where they began, largest
    swing first; the jump-and-back glitches last, ranked by their jump rather than by a net
    change near 0%: a x8-and-back data glitch never leads the report or its subject."""
    old, new = pl.col("old_price_per_hour"), pl.col("new_price_per_hour")
    up, down = pl.col("high_price_per_hour") / old, old / pl.col("low_price_per_hour")
    net = pl.max_horizontal(new / old, old / new)
    frame = moves.with_columns(jump_up=up >= down, jump_factor=pl.max_horizontal(up, down))
    frame = frame.with_columns(
        jump_back=(pl.col("jump_factor") > JUMP_FACTOR) & (net < JUMP_FACTOR)
    )
    # On the prices themselves: change_pct is rounded, and a move of a thousandth of a
    # percent is a move (from $3.7821 to $3.7819), not a price back where it began.
    frame = frame.with_columns(back=~pl.col("jump_back") & (new == old))
    if "change_pct" in frame.columns:  # rounded to 0.00 by the view: the prices say how much
        hidden = (pl.col("change_pct") == 0) & (new != old)
        exact = 100 * (new - old) / old
        frame = frame.with_columns(
            change_pct=pl.when(hidden).then(exact).otherwise(pl.col("change_pct"))
        )
    size = (
        pl.when(pl.col("jump_back") | pl.col("back"))
        .then(100 * (pl.col("jump_factor") - 1))
        .otherwise(pl.col("change_pct").abs())
    )
    return frame.sort(
        [pl.col("jump_back"), pl.col("back"), size],
        descending=[False, False, True],
        maintain_order=True,
    )


# What makes two moves alike for the e-mail: the same chip, provider, pricing and prices.
# Offers move alike when one provider's price of a chip, under one pricing, changed by the
# same percentage as shown (to a tenth, and the same way): a repricing of every size of an
# instance family is one move to read, whatever each size's price per chip.
# A jump out and back is alike by its factor and direction as shown; a real move has neither.
# A move back where it began is alike by its low and high (% from where it began, to a tenth)
# and their days.
# Estimated prices are alike only with estimates, doubtful spot prices with doubtful ones: a
# row's mark is true of each of its prices.
_ALIKE = ["chip", "provider", "source", "pricing_model", "offer", "jump_back", "back"]
_OLD = pl.col("old_price_per_hour")
_SHOWN = {
    "shown_pct": pl.col("change_pct").round(1),
    # and its way: +0.001% and −0.02% are both 0.0 to a tenth, one up and one down
    "shown_way": pl.col("change_pct").sign(),
    "shown_jump": pl.when(pl.col("jump_back")).then(pl.col("jump_factor").round(1)),
    "shown_up": pl.when(pl.col("jump_back")).then(pl.col("jump_up")),
    "shown_low": pl.when(pl.col("back")).then(
        (100 * (pl.col("low_price_per_hour") / _OLD - 1)).round(1)
    ),
    "shown_high": pl.when(pl.col("back")).then(
        (100 * (pl.col("high_price_per_hour") / _OLD - 1)).round(1)
    ),
    "shown_low_at": pl.when(pl.col("back")).then(pl.col("low_at").dt.date()),
    "shown_high_at": pl.when(pl.col("back")).then(pl.col("high_at").dt.date()),
    "shown_estimate": pl.col("estimate").is_not_null(),
    "shown_doubt": pl.col("spot_doubt").is_not_null(),
}
_NEEDS = {
    "shown_jump": "jump_back",
    "shown_up": "jump_back",
    "shown_low": "back",
    "shown_high": "back",
    "shown_low_at": "back",
    "shown_high_at": "back",
    "shown_estimate": "estimate",
    "shown_doubt": "spot_doubt",
}


def alike_moves(moves: pl.DataFrame) -> pl.DataFrame:
    """Moves (in their order) with the offers that moved alike on one row: one provider's
    price of a chip changing by the same percentage in several regions and instance sizes is
    one move to read. `where` and `instance_type` then name them all, or count them; `offers`
    is how many offers the row stands for; `was`, `now` and `change` say the prices as
    shown, a range ('$0.3661–$0.6851') where the offers' prices differ (moves_said)."""
    shown = {k: v for k, v in _SHOWN.items() if _NEEDS.get(k, "change_pct") in moves.columns}
    alike = [c for c in _ALIKE if c in moves.columns] + list(shown)
    listed = {*alike, "where", "region", "instance_type"}
    places, regions = pl.col("where"), pl.col("region")
    one_place = places.list.len() == 1
    priced = {
        "old": "old_price",
        "new": "new_price",
        "change": "change",
        "low": "low_price",
        "high": "high_price",
    }
    spans = {
        f"{short}_{end}": getattr(pl.col(f"{column}_per_chip_hour"), end)()
        for short, column in priced.items()
        if f"{column}_per_chip_hour" in moves.columns
        for end in ("min", "max")
    }
    grouped = (
        moves.with_columns(**shown)
        .group_by(alike, maintain_order=True)
        .agg(
            pl.len().alias("offers"),
            places.unique(maintain_order=True),
            regions.unique(maintain_order=True),
            pl.col("instance_type").unique(maintain_order=True),
            # The rest (the daily trend, when it changed) as the row's first offer has them.
            *[pl.col(c).first() for c in moves.columns if c not in listed],
            **spans,
        )
        .with_columns(
            where=pl.when(one_place)
            .then(places.list.first())
            .otherwise(pl.concat_str(pl.col("provider"), pl.lit(" · "), _some(regions, "regions"))),
            instance_type=_some(pl.col("instance_type"), "instance types"),
        )
        .drop("region", *shown)
    )
    return moves_said(grouped)


def shown_moves(moved: pl.DataFrame, limit: int) -> pl.DataFrame:
    """The first `limit` rows of alike_moves, and after them every jump out and back the
    limit would hide: the headline counts each glitch, so each is named where moves are."""
    if "jump_back" not in moved.columns or moved.height <= limit:
        return moved.head(limit)
    return pl.concat([moved.head(limit), moved.slice(limit).filter(pl.col("jump_back"))])


def moves_said(rows: pl.DataFrame) -> pl.DataFrame:
    """`rows` (of alike_moves, before its words) with `was`, `now` and `change`: each price as
    money, or the range of the offers' prices where they differ as shown; `now` marked
    ESTIMATED where it is an estimate, DOUBTED where it is a doubtful spot price (each mark
    said once, after the price a move is to).
    A move back where it began has `swing_range` too (swing_words says it), None for any
    other."""
    said = {}
    words = (
        ("old", "was", ""),
        ("new", "now", ""),
        ("change", "change", "+"),
        ("low", "low_said", ""),
        ("high", "high_said", ""),
    )
    for column, name, sign in words:
        low, high = f"{column}_min", f"{column}_max"
        if low in rows.columns:
            said[name] = pl.struct(low, high).map_elements(
                lambda r, low=low, high=high, sign=sign: _span(r[low], r[high], sign),
                return_dtype=pl.String,
            )
    rows = rows.with_columns(**said)
    if "now" in said and "estimate" in rows.columns:
        rows = rows.with_columns(
            now=pl.when(pl.col("estimate").is_not_null())
            .then(pl.col("now") + pl.lit(ESTIMATED))
            .otherwise(pl.col("now"))
        )
    if "now" in said and "spot_doubt" in rows.columns:
        rows = rows.with_columns(
            now=pl.when(pl.col("spot_doubt").is_not_null())
            .then(pl.col("now") + pl.lit(DOUBTED))
            .otherwise(pl.col("now"))
        )
    if set(_SWING).issubset(rows.columns):
        rows = rows.with_columns(
            swing_range=pl.struct(_SWING).map_elements(_swing_range, return_dtype=pl.String)
        )
    drop = [c for c in rows.columns if c.endswith(("_min", "_max")) or c.endswith("_said")]
    return rows.drop(drop)


# What a move back where it began is said with (_swing_range).
_SWING = (
    "back",
    "old_price_per_hour",
    "low_price_per_hour",
    "high_price_per_hour",
    "low_at",
    "high_at",
    "low_said",
    "high_said",
)


def _swing_range(row: dict) -> str | None:
    """'low $1.1900 on 2026-11-28, high $1.4900 on 2026-11-25': how far a price back where it
    began went, each extreme the period reached beyond where it began, with the day it first
    got there; None for a move that is not back."""
    if not row.get("back"):
        return None
    old = row["old_price_per_hour"]
    parts = []
    for side, price, at in (
        ("low", "low_price_per_hour", "low_at"),
        ("high", "high_price_per_hour", "high_at"),
    ):
        beyond = row[price] < old if side == "low" else row[price] > old
        if beyond:
            parts.append(f"{side} {row[f'{side}_said']} on {row[at]:%Y-%m-%d}")
    return ", ".join(parts)


def swing_words(row: dict, marked: bool = True) -> str:
    """'back at $1.3900 (low $1.1900 on 2026-11-28, high $1.4900 on 2026-11-25)': a move back
    where it began (a row of alike_moves), its price then (`marked`: with its est. and (!)
    marks, as the lists show it; a subject has none) and how far it went on the way."""
    now = row["now"] if marked else row["now"].removesuffix(DOUBTED).removesuffix(ESTIMATED)
    extent = f" ({row['swing_range']})" if row.get("swing_range") else ""
    return f"back at {now}{extent}"


def _span(low: float | None, high: float | None, sign: str = "") -> str:
    """'$0.4277', '$0.3661–$0.6851', '+$0.0100' (`sign`: a change's), '−$0.0634–−$0.1027'."""

    def said(value: float | None) -> str:
        if value is None:
            return ""
        if not sign:
            return money(value)
        return f"{'+' if value >= 0 else '−'}{money(abs(value))}"

    if sign and low is not None and high is not None:  # the smaller change first
        low, high = sorted((low, high), key=abs)
    first, last = said(low), said(high)
    return first if first == last else f"{first}–{last}"


def _some(names: pl.Expr, noun: str) -> pl.Expr:
    """A list column as 'a', 'a, b, c' (sorted) or '5 instance types'."""
    return (
        pl.when(names.list.len() <= 3)
        .then(names.list.sort().list.join(", "))
        .otherwise(pl.format("{} " + noun, names.list.len()))
    )


def place_of_alike() -> pl.Expr:
    """Where a row of alike_moves is: 'gcp · us-central1, us-east5 · 4 instance types (8
    offers)'."""
    offers = pl.when(pl.col("offers") > 1).then(pl.format(" ({} offers)", pl.col("offers")))
    return pl.concat_str(
        pl.col("where"), pl.lit(" · "), pl.col("instance_type"), offers.otherwise(pl.lit(""))
    )
