"""At 80 columns each read command keeps its point (the columns it names last), wraps its notes
to the width and keeps every id whole; at 200 the same, wider. Run as users
run it (tests.cli_runner), on the sample's newest run."""

from __future__ import annotations

import json
import re

import pytest

from tests import warehouses
from tests.cli.test_read_commands import chipcost

WIDTHS = (80, 200)
COST = ("cost", "--model", "llama-3-70b", "--workload", "inference")


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    # the newest sample run replayed (the warehouse factory's copy)
    return str(warehouses.sample(tmp_path_factory.mktemp("eighty") / "w.duckdb", last=1))


def _shown(db: str, width: int, *args: str) -> list[str]:
    done = chipcost(*args, "--db", db, columns=width)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    too_wide = [line for line in lines if len(line) > width]
    assert not too_wide, too_wide[:3]  # tables and notes alike
    return lines


def _header(lines: list[str], first: str) -> str:
    """The table's header: its lines down to the rule, joined."""
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith(first))
    rule = next(i for i in range(start, len(lines)) if lines[i].startswith("───"))
    return " ".join(" ".join(lines[start:rule]).split())


@pytest.mark.parametrize("width", WIDTHS)
def test_cost_keeps_vs_the_baseline(db, width):
    # chips MLPerf measured beside H100-SXM at one point, so that verdicts are drawn
    lines = _shown(db, width, *COST, "--chip", "H200,MI300X,H100-SXM")
    header = _header(lines, "#")
    assert "vs H100-SXM" in header and "$/M tokens" in header, header
    assert any("% cheaper" in line or "% dearer" in line for line in lines)


@pytest.mark.parametrize("width", WIDTHS)
def test_prices_keeps_the_upfront_fee_and_interruption(db, width):
    lines = _shown(db, width, "prices", "--chip", "H100-SXM", "--region", "us-east-1")
    header = _header(lines, "where")
    assert "upfront $" in header and "interruption" in header, header
    # The 47-character label in the vocabulary's words (as the explorer says it), its plan
    # shortened; --wide gives each part its column, as codes, as in csv and json.
    assert "savings plan 3yr, ec2, partial upfront" in " ".join(" ".join(lines).split())
    assert any(line.startswith("note: pricing shortened") for line in lines)
    wide = chipcost("prices", "--chip", "H100-SXM", "--region", "us-east-1", "--wide",
                    "--db", db, columns=width)  # fmt: skip
    assert "partial_upfront" in wide.stdout and "pricing shortened" not in wide.stdout


@pytest.mark.parametrize("width", WIDTHS)
def test_throughput_ids_are_whole_at_the_start_of_their_rows(db, width):
    listed = chipcost("throughput", "list", "--format", "json", "--db", db)
    ids = [row["throughput_id"] for row in json.loads(listed.stdout)]
    lines = _shown(db, width, "throughput", "list", "--limit", str(len(ids)))
    rule = next(i for i, line in enumerate(lines) if line.startswith("───"))
    firsts = {line.split()[0] for line in lines[rule + 1 :] if line[:1].strip()}
    assert set(ids) <= firsts, sorted(set(ids) - firsts)[:3]


@pytest.mark.parametrize("width", WIDTHS)
def test_compare_says_how_fresh_once(db, width):
    lines = _shown(db, width, "compare", "B200", "H100-SXM", *COST[1:])
    text = "\n".join(lines)
    assert text.count("prices as of") == 1, text[-600:]


@pytest.mark.parametrize("width", (80, 100))
def test_compare_keeps_its_rows_whole_and_its_words_unbroken(db, width):
    """compare's table at 80 and 100 columns: a row per pricing model that starts with the
    pricing model, whole, and ends with the verdict, whole; what does not fit goes under the
    row, indented; no header word cut."""
    lines = _shown(db, width, "compare", "Trainium2", "H100-SXM", *COST[1:])
    rule = next(i for i, line in enumerate(lines) if line.startswith("───"))
    # the header's lines (a folded column's heading under them) end at the rule
    assert any("pricing" in line for line in lines[rule - 3 : rule])
    header = " ".join(" ".join(lines[1:rule]).split())
    for word in ("pricing", "model", "verdict", "must", "do"):
        assert word in header.split(), header
    rows = [line for line in lines[rule + 1 :] if line.startswith(("on demand", "spot"))]
    assert rows, lines
    for row in rows:
        verdict = row.rstrip().removesuffix(" (est. elsewhere)")  # a leaning's mark, whole
        assert verdict.endswith(("cannot say", "cheaper", "dearer", "as cheap")), row
    body = lines[
        rule + 1 : lines.index(
            next(x for x in lines if x.startswith(("evidence", "both", "neither")))
        )
    ]
    for line in body:
        # the pricing model in its words, as every table says it
        assert line.startswith(("on demand", "reserved", "savings plan", "capacity block",
                                "spot", "commitment", "  ")), line  # fmt: skip


@pytest.mark.parametrize(
    "command",
    [
        ("prices",),
        ("prices", "--by", "provider"),
        ("history", "--chip", "H100-SXM"),
        ("index",),
        ("sources",),
        ("sql", "select * from current_prices limit 3"),
    ],
)
def test_every_line_fits_80_columns(db, command):
    lines = _shown(db, 80, *command)
    assert lines


@pytest.mark.parametrize("width", (80, 120))
def test_prices_keeps_every_column_that_holds_a_value(db, width):
    """On 4084da5 `COLUMNS=80 prices --chip Trainium2` left out the interruption though its
    spot rows carry buckets, and the chip count though it mixes 64-chip UltraServers with 16-chip
    instances: what does not fit the row's line is now folded under it."""
    args = ("prices", "--chip", "Trainium2")
    rows = json.loads(chipcost(*args, "--format", "json", "--db", db).stdout)
    lines = _shown(db, width, *args)
    header = _header(lines, "where")
    # The chip count's header may wrap a word a line ("chip" over "count").
    for kept in ("count", "interruption", "$/instance-hr", "upfront $", "source", "instance"):
        assert kept in header, header
    assert not any(line.startswith("left out") for line in lines)
    text = "\n".join(lines)
    buckets = {r["interruption"] for r in rows if r["interruption"]}
    counts = {f"{r['chip_count']:g}" for r in rows}
    assert buckets and all(b in text for b in buckets)
    assert {"16", "64"} <= counts
    table = lines[next(i for i, x in enumerate(lines) if x.startswith("───")) + 1 :]
    assert all(any(c in line.split() for line in table) for c in counts), counts


def test_sources_keeps_the_provider_at_80_columns(db):
    lines = _shown(db, 80, "sources")
    assert "provider" in _header(lines, "source")
    assert any(line.split() == ["aws", "sample"] for line in lines) or any(
        line.split()[:2] == ["aws-bulk", "aws"] for line in lines
    )
    assert "--wide adds the descriptions" in " ".join(" ".join(lines).split())


@pytest.mark.parametrize("width", (80, 120, 200))
def test_cost_prints_only_the_footnotes_its_rows_point_to(db, width):
    lines = _shown(db, width, *COST, "--limit", "5")
    notes = [line.split("]")[0] + "]" for line in lines if re.match(r"\[\d+\] ", line)]
    rule = next(i for i, line in enumerate(lines) if line.startswith("───"))
    end = next(
        i for i, line in enumerate(lines) if i > rule and re.match(r"\d+ more rows|\[", line)
    )
    table = "\n".join(lines[rule + 1 : end])
    assert notes and all(note in table for note in notes), (notes, table)


def test_index_says_its_one_day_once_not_under_every_row(db):
    lines = _shown(db, 80, "index")
    assert "2026-11-21" in " ".join(lines[:2])  # in the title
    rule = next(i for i, line in enumerate(lines) if line.startswith("───"))
    assert not any(line.strip() == "2026-11-21" for line in lines[rule:])
