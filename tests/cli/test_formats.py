"""The shared csv/json writer: every kind of value DuckDB hands back becomes text or JSON."""

from __future__ import annotations

import csv
import io
import json
import math
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from uuid import UUID

import pytest

from chipcost.cli.formats import OutputFormat, json_value, text_value, write_rows
from chipcost.core.durations import iso_duration, iso_timedelta

ROW = (
    datetime(2026, 11, 21, 6, 0, tzinfo=UTC),
    date(2026, 11, 21),
    time(12, 30),
    timedelta(days=1, hours=2, minutes=30),
    b"\x00\xffab",
    [1, [2, 3]],
    {"a": 1, "b": [1.5, None]},
    Decimal("1.50"),
    170141183460469231731687303715884105727,
    UUID("12345678-1234-5678-1234-567812345678"),
    float("nan"),
    True,
    None,
)
COLUMNS = ["ts", "d", "t", "iv", "blob", "list", "struct", "dec", "huge", "uuid", "nan", "b", "n"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (timedelta(0), "PT0S"),
        (timedelta(days=1, hours=2, minutes=30), "P1DT2H30M"),
        (timedelta(seconds=5400), "PT1H30M"),
        (timedelta(days=-5), "-P5D"),
        (timedelta(seconds=1.5), "PT1.5S"),
        (timedelta(days=400), "P400D"),
    ],
)
def test_iso_timedelta(value, expected):
    assert iso_timedelta(value) == expected


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        ((14, 3, (4 * 3600 + 1.5) * 1e6), "P1Y2M3DT4H1.5S"),
        ((1, -1, 0), "P1M-1D"),
        ((0, 0, -5400e6), "-PT1H30M"),
        ((0, -2, 3 * 3600e6), "P-2DT3H"),
        ((-14, 0, 0), "-P1Y2M"),
    ],
)
def test_iso_duration_of_interval_parts(parts, expected):
    months, days, micros = parts
    assert iso_duration(months, days, int(micros)) == expected


def test_json_is_an_array_of_objects_with_every_kind_converted():
    stream = io.StringIO()
    write_rows(OutputFormat.json, COLUMNS, [ROW], stream)
    (record,) = json.loads(stream.getvalue())
    assert record == {
        "ts": "2026-11-21T06:00:00+00:00",
        "d": "2026-11-21",
        "t": "12:30:00",
        "iv": "P1DT2H30M",
        "blob": "AP9hYg==",
        "list": [1, [2, 3]],
        "struct": {"a": 1, "b": [1.5, None]},
        "dec": 1.5,
        "huge": 170141183460469231731687303715884105727,
        "uuid": "12345678-1234-5678-1234-567812345678",
        "nan": None,
        "b": True,
        "n": None,
    }


def test_csv_has_a_header_and_nested_values_as_json_text():
    stream = io.StringIO()
    write_rows(OutputFormat.csv, COLUMNS, [ROW], stream)
    header, row = list(csv.reader(io.StringIO(stream.getvalue())))
    assert header == COLUMNS
    assert row[COLUMNS.index("struct")] == '{"a": 1, "b": [1.5, null]}'
    assert row[COLUMNS.index("blob")] == "AP9hYg=="
    assert row[COLUMNS.index("iv")] == "P1DT2H30M"
    assert row[COLUMNS.index("n")] == ""
    assert row[COLUMNS.index("b")] == "true"


def test_duplicate_columns_stay_apart_and_empty_results_are_valid():
    stream = io.StringIO()
    write_rows(OutputFormat.json, ["a", "a"], [(1, 2)], stream)
    assert json.loads(stream.getvalue()) == [{"a": 1, "a_2": 2}]
    stream = io.StringIO()
    write_rows(OutputFormat.json, ["a"], [], stream)
    assert json.loads(stream.getvalue()) == []


def test_text_value_of_floats():
    assert text_value(6.88) == "6.88"
    assert text_value(math.inf) == "inf"
    assert json_value(-math.inf) is None
