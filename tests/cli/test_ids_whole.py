"""Tables fold, never cut: every read command, on the replayed sample at 60, 80 and 100
columns, prints every id, stamp and label of its rows whole on one line (the values taken from
the same command's --format json). A line is wider than the terminal only where one value
alone is wider than the line under a row's indent."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable

import pytest

from chipcost.core.vocabulary import PLAN_SHORT, pricing_words
from tests import warehouses
from tests.cli.test_read_commands import chipcost

WIDTHS = (60, 80, 100)
ASKED = ("--model", "llama-3-70b", "--workload", "inference")
Row = dict[str, object]


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    # every sample run: runs to list, days to chart
    return str(warehouses.sample(tmp_path_factory.mktemp("whole") / "w.duckdb"))


def _fields(*keys: str) -> Callable[[Row], Iterable[str]]:
    return lambda row: (str(row[k]) for k in keys if row.get(k))


def _labels(row: Row) -> Iterable[str]:
    """The row's pricing label, its plan in full or shortened ('std', 'ec2')."""
    model, term = row["pricing_model"], row["term"]
    payment, plan = row.get("payment"), row.get("plan")
    yield "|".join(
        {pricing_words(model, term, payment, p) for p in (plan, PLAN_SHORT.get(plan, plan))}
    )


def _minute(key: str) -> Callable[[Row], Iterable[str]]:
    """A stamp as tables print it: '2026-11-21 06:00'."""
    return lambda row: [str(row[key])[:16].replace("T", " ")] if row.get(key) else []


def _all(*reads: Callable[[Row], Iterable[str]]) -> Callable[[Row], Iterable[str]]:
    return lambda row: [value for read in reads for value in read(row)]


READS: dict[str, tuple[tuple[str, ...], Callable[[Row], Iterable[str]]]] = {
    "prices": (("prices", "--limit", "60"), _fields("chip", "instance_type", "source")),
    "prices one chip": (
        ("prices", "--chip", "Trainium2"),
        _all(_fields("instance_type", "source", "zone"), _labels),
    ),
    "prices --by chip": (("prices", "--by", "chip"), _fields("chip", "instance_type")),
    "history": (("history", "--chip", "Trainium2"), _fields("day")),
    "index": (("index",), _fields("chip")),
    "cost": (("cost", *ASKED, "--limit", "40"), _all(_fields("chip", "provider"), _labels)),
    "compare": (("compare", "Trainium2", "H100-SXM", *ASKED), _fields("verdict")),
    "sources": (("sources",), _all(_fields("source", "provider"), _minute("last_success_at"))),
    "sources --runs": (("sources", "--runs"), _fields("run_id", "archive_run")),
    "throughput list": (("throughput", "list", "--limit", "60"), _fields("throughput_id", "chip")),
}


def _whole(value: str, lines: list[str]) -> bool:
    """Whether one of `value`'s spellings ('a|b') stands on a line whole, between spaces or
    the line's ends."""
    return any(
        re.search(rf"(?<!\S){re.escape(spelling)}(?![^\s,;])", line)
        for spelling in value.split("|")
        for line in lines
    )


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("read", list(READS))
def test_every_id_stamp_and_label_is_whole(db, read, width):
    args, values_of = READS[read]
    answer = chipcost(*args, "--format", "json", "--db", db)
    assert answer.returncode == 0, answer.stderr
    values = {v for row in json.loads(answer.stdout) for v in values_of(row)}
    assert values, f"{read}: its json gave no ids to look for"
    shown = chipcost(*args, "--db", db, columns=width)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    cut = sorted(v for v in values if not _whole(v, lines))
    assert not cut, f"{read} at {width} columns cut {cut[:5]}:\n" + shown.stdout[:3000]
    longest = max(len(v) for v in values)
    too_wide = [line for line in lines if len(line) > max(width, longest + 2)]
    assert not too_wide, too_wide[:3]
