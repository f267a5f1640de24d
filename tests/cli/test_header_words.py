"""At 80 columns no header word is cut: every read command's table, on the sample replayed
into a real warehouse, wraps its headers between words (a compound after its hyphen), never
inside one; the lines said above and below a table (the fields every row shares, history's
legend) keep a field with its value and go on indented, never at column 0."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chipcost.cli.fit import header_wrapped
from tests import warehouses
from tests.cli.test_read_commands import chipcost

READS = {
    "prices": ("prices", "--chip", "H100-SXM"),
    "prices --region": ("prices", "--chip", "H100-SXM", "--region", "us-east-1"),
    "prices --by provider": ("prices", "--by", "provider"),
    "prices --per month": ("prices", "--chip", "H100", "--by", "region", "--per", "month"),
    "history": ("history", "--chip", "H100-SXM", "--no-chart"),
    "index": ("index",),
    "cost": ("cost", "--model", "llama-3-70b", "--workload", "inference"),
    "compare": ("compare", "Trainium2", "H100-SXM", "--model", "llama-3-70b", "--workload",
                "inference"),
    "sources": ("sources",),
}  # fmt: skip
RULE = "───"


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    return warehouses.sample(tmp_path_factory.mktemp("eighty") / "w.duckdb", last=2)


def headers(text: str) -> list[str]:
    """A table's headers where nothing wraps: the line above its rule, split at two spaces."""
    lines = text.splitlines()
    rule = next(i for i, line in enumerate(lines) if line.startswith(RULE))
    return [h.strip() for h in re.split(r"\s{2,}", lines[rule - 1]) if h.strip()]


def cut_words(text: str, words: set[str]) -> list[tuple[str, str]]:
    """Header words shown in two pieces in the lines above the rule (each piece a whole token
    there), a break after a hyphen excepted."""
    lines = text.splitlines()
    rule = next(i for i, line in enumerate(lines) if line.startswith(RULE))
    tokens = {t for line in lines[max(rule - 8, 0) : rule] for t in line.split()}
    return [
        (word[:i], word[i:])
        for word in words
        for i in range(1, len(word))
        if word[i - 1] != "-" and word[:i] in tokens and word[i:] in tokens
    ]


@pytest.mark.parametrize("read", READS)
def test_no_header_word_is_cut_at_80_columns(db, read):
    args = (*READS[read], "--db", str(db))
    wide, narrow = chipcost(*args, columns=400), chipcost(*args, columns=80)
    assert wide.returncode == 0 and narrow.returncode == 0, wide.stderr + narrow.stderr
    words = {w for h in headers(wide.stdout) for w in h.split() if len(w) > 2}
    assert words, wide.stdout
    assert not cut_words(narrow.stdout, words), narrow.stdout
    assert max(len(line) for line in narrow.stdout.splitlines()) <= 80, narrow.stdout


def test_the_check_finds_a_cut_word():
    text = "day   capacit   commitm\n      y block   ent\n──────\n"
    assert sorted(cut_words(text, {"capacity", "commitment", "block"})) == [
        ("capacit", "y"),
        ("commitm", "ent"),
    ]
    assert cut_words("flex-\nstart\n──────\n", {"flex-start"}) == []


def test_a_header_wraps_between_words():
    shown = [[h[a:b] for a, b in header_wrapped(h, 8)] for h in ("capacity block", "flex-start")]
    assert shown == [["capacity", "block"], ["flex-", "start"]]
    # A word wider than the column is a line of its own, whole.
    head = "commitment is"
    assert [head[a:b] for a, b in header_wrapped(head, 6)] == ["commitment", "is"]


def test_what_every_row_shares_keeps_a_field_with_its_value(db):
    args = ("prices", "--chip", "H100-SXM", "--region", "us-east-1", "--db", str(db))
    lines = chipcost(*args, columns=80).stdout.splitlines()
    shared = lines[1 : next(i for i, line in enumerate(lines) if line.startswith(RULE)) - 2]
    assert any("chip count 8" in line for line in lines), lines[:4]
    assert all(line.startswith("  ") for line in shared[1:]), shared


def test_historys_legend_goes_on_indented(db):
    args = ("history", "--chip", "H100-SXM", "--no-chart", "--db", str(db))
    lines = chipcost(*args, columns=80).stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("  capacity block: $"))
    # the legend ends at the notes under it (est. = ...) or at the freshness line
    end = next(i for i, line in enumerate(lines) if line.startswith(("note:", "prices as")))
    legend = lines[start:end]
    assert len(legend) > 7, legend  # one a pricing model, some wrapped
    assert all(line.startswith("  ") for line in legend), legend
    assert all(line.startswith("    ") for line in legend if ": $" not in line), legend
