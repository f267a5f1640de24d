"""Price records as a polars frame in the warehouse's column order (validation and loading)."""

from __future__ import annotations

import json

import polars as pl

from chipcost.core.clean import CONTROL, FORMULA
from chipcost.core.record import RECORD_COLUMNS, PriceRecord
from chipcost.core.vocabulary import WHOLE_COUNTS

# The polars type of each kind of record column (core/record.py RECORD_COLUMNS).
_POLARS = {
    "timestamp": pl.Datetime("us", "UTC"),
    "text": pl.String(),
    "number": pl.Float64(),
    "json": pl.String(),  # extra, as JSON text
}
RECORD_SCHEMA: dict[str, pl.DataType] = {name: _POLARS[kind] for name, kind in RECORD_COLUMNS}


def records_frame(records: list[PriceRecord]) -> pl.DataFrame:
    """Records as a polars frame in the warehouse's column order (extra as JSON text)."""
    # Built column by column: asdict() per record cost ten times as much on a 50,000-offer day.
    columns = {
        name: [getattr(record, name) for record in records]
        for name in RECORD_SCHEMA
        if name != "extra"
    }
    columns["extra"] = [
        json.dumps(record.extra, sort_keys=True, default=str) if record.extra else ""
        for record in records
    ]
    return pl.DataFrame(columns, schema=RECORD_SCHEMA)


class ArrowStream:
    """A polars frame as DuckDB scans it, through the Arrow C stream interface (no pyarrow).

    DuckDB asks for a fresh stream each time it scans a registered object, so a view of it
    can be read more than once.
    """

    def __init__(self, frame: pl.DataFrame) -> None:
        self.frame = frame

    def __arrow_c_stream__(self, requested_schema: object = None) -> object:
        return self.frame.__arrow_c_stream__(requested_schema)


def frame_of(relation: object) -> pl.DataFrame:
    """A DuckDB relation's rows as a polars frame, through the Arrow C stream (no pyarrow)."""
    return pl.DataFrame(relation)


def spreadsheet_safe(frame: pl.DataFrame) -> pl.DataFrame:
    """Text cells that a spreadsheet would run as a formula get a leading ' (every CSV a frame
    becomes: the export, the explorer's, the report's)."""
    text = [c for c, t in frame.schema.items() if t == pl.String]
    counts = [c for c, t in frame.schema.items() if c in WHOLE_COUNTS and t.is_float()]
    return frame.with_columns(*(_defused(c) for c in text), *(_whole(c) for c in counts))


def _whole(column: str) -> pl.Expr:
    """A chip count as every csv writes it: 8 (a slice of a GPU as its fraction, 0.125)."""
    value = pl.col(column)
    whole = value.cast(pl.Int64, strict=False).cast(pl.String)
    return (
        pl.when(value == value.floor()).then(whole).otherwise(value.cast(pl.String)).alias(column)
    )


def _defused(column: str) -> pl.Expr:
    value = pl.col(column)
    # after any leading spaces or a ; or , too, and once control and invisible characters are
    # stripped: core/clean.py's one rule (FORMULA), as spreadsheet_text applies it to a row
    formula = value.str.contains(FORMULA) | value.str.replace_all(CONTROL, "").str.contains(FORMULA)
    return pl.when(formula).then(pl.lit("'") + value).otherwise(value).alias(column)


def money_named(frame: pl.DataFrame, currency: str) -> pl.DataFrame:
    """A ranking's costs named for the money they hold: in euros, usd_per_million_tokens (and
    baseline_..., a_..., b_...) is eur_per_million_tokens, so that a script reading a usd_
    field never gets euros. US dollars keep the names the view gives them."""
    code = currency.strip().lower()
    if code in ("", "usd"):
        return frame
    return frame.rename(
        {c: c.replace("usd_per_million", f"{code}_per_million") for c in frame.columns
         if "usd_per_million" in c}
    )  # fmt: skip
