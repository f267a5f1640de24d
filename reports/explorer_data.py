"""The explorer's data, compact: each table as columns, text spelled once per distinct value,
numbers as stored; and the rows back from it, for programs and tests."""

from __future__ import annotations

import json
import math

import polars as pl

from chipcost.core.vocabulary import WHOLE_COUNTS

# Six significant digits drop float noise such as 0.22999999999999998 from a figure the page
# says beside the tables (a rate of exchange).
SIGNIFICANT = 6
# The tables' numbers are kept as stored (the shortest text that reads back the same float),
# as offers.csv and the command line's csv keep them: the page rounds what it shows once, as
# the command line rounds the stored value. A price cut to six digits was rounded twice
# (0.6902499242 became 0.69025, shown 0.6903 where `chipcost prices` says 0.6902); any other
# figure cut so disagreed with offers.csv and `prices`/`throughput list --format csv` (a
# slice's chip count 0.333333, a host's 2267.5 GB of RAM for 2267.50390625, a derived
# 73529.4 tokens/s for 73529.41176470589).


def significant(value: float | int | None) -> float | int | None:
    if isinstance(value, float) and math.isfinite(value):
        return float(f"{value:.{SIGNIFICANT}g}")
    return value


def columnar(frame: pl.DataFrame, phrases: dict[str, str] | None = None) -> dict[str, list | dict]:
    """{column: values}: a text column as {"dictionary": distinct values, "codes": an index
    into them per row (null for null)}, any other column as its values, as stored. A column
    named in `phrases` is cut at its separator first, each row's code a list of phrase indexes:
    throughput sources repeat their parts (the chip's datasheet, the model card) in new
    combinations, so whole texts are rarely alike and their parts often are."""
    table: dict[str, list | dict] = {}
    for name in frame.columns:
        values = frame[name].to_list()
        if frame[name].dtype != pl.String:
            table[name] = values
            if name in WHOLE_COUNTS:  # 8, not 8.0
                table[name] = [int(v) if isinstance(v, float) and v.is_integer() else v
                               for v in table[name]]  # fmt: skip
            continue
        separator = (phrases or {}).get(name)
        if separator:
            values = [None if v is None else v.split(separator) for v in values]
            words = {p for v in values if v is not None for p in v}
        else:
            words = {v for v in values if v is not None}
        dictionary = sorted(words)
        code = {v: i for i, v in enumerate(dictionary)}
        codes = [
            None if v is None else [code[p] for p in v] if separator else code[v] for v in values
        ]
        table[name] = {"dictionary": dictionary, "codes": codes}
        if separator:
            table[name]["separator"] = separator
    return table


def column_values(table: dict[str, list | dict], name: str) -> list:
    """One column of a `columnar` table, decoded."""
    column = table[name]
    if isinstance(column, list):
        return column
    words, separator = column["dictionary"], column.get("separator")
    if separator is not None:
        return [None if c is None else separator.join(words[i] for i in c) for c in column["codes"]]
    return [None if c is None else words[c] for c in column["codes"]]


def table_rows(table: dict[str, list | dict]) -> list[dict]:
    """The rows of a `columnar` table, one dict each."""
    columns = {name: column_values(table, name) for name in table}
    count = len(next(iter(columns.values()), []))
    return [{name: values[i] for name, values in columns.items()} for i in range(count)]


def offer_rows(data: dict) -> list[dict]:
    """The offers of an offers.json (as json.loads gives it), one dict per offer."""
    return table_rows(data["offers"])


def as_script(data: dict) -> str:
    """offers.js: the data as a script the page loads beside it (a page opened from disk may
    not fetch offers.json). JSON is JavaScript; in a file of its own no text can end a tag."""
    return f"window.chipcostData = {json.dumps(data, separators=(',', ':'))};\n"
