"""The counts docs/cli.md quotes from the bundled sample are the sample's: each is read from the
page and looked for in what the command it quotes says on the sample replayed (the page said
`259 known` instance types while the sample answered `385 known`)."""

from __future__ import annotations

import re

import pytest

from tests import warehouses
from tests.paths import ROOT

PAGE = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")


def _quoted(pattern: str) -> str:
    """The one count the page quotes where `pattern` (its count a group) matches."""
    (found,) = re.findall(pattern, " ".join(PAGE.split()))
    return found


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> str:
    return str(warehouses.sample(tmp_path_factory.mktemp("numbers") / "w.duckdb"))


@pytest.mark.parametrize(
    ("pattern", "args", "said"),
    [
        (r"unknown instance type 'zz9\.big' \(nearest: p5\.48xlarge, \.\.\.\); ([\d,]+) known",
         ["prices", "--instance", "zz9.big"], "(nearest: p5.48xlarge, ... {} known"),
        (r"`all ([\d,]+) offers: `prices --by offer`", ["prices"], "all {} offers: `prices"),
        (r"`([\d,]+) more rows \(--limit\)`", ["prices", "--format", "csv", "--limit", "2"],
         "{} more rows (--limit)"),
        (r"`(\d+) runs, newest first`", ["sources", "--runs"], "{} runs, newest first"),
    ],
    ids=["instance types", "offers", "more rows", "runs"],
)  # fmt: skip
def test_a_count_the_page_quotes_is_the_samples(run, sample, pattern, args, said):
    """`...` in `said` stands for what the page leaves out (the nearest after the first)."""
    count = _quoted(pattern)
    done = run(*args, "--db", sample, env={"COLUMNS": "400"})
    shown = " ".join((done.stdout + done.stderr).split())
    expected = re.escape(said.format(count)).replace(re.escape("..."), ".*?")
    if not re.search(expected, shown):
        anything = re.escape(said).replace(re.escape("..."), ".*?")
        now = re.search(anything.replace(re.escape("{}"), r"([\d,]+)"), shown)
        pytest.fail(
            f"docs/cli.md quotes {count} where `chipcost {' '.join(args)}` on the bundled sample "
            f"says {now[1] if now else 'nothing of the kind'}: change the page's number (a source "
            f"added or removed changes the sample's counts). It said: {shown[-600:]}"
        )


def test_the_readmes_compare_is_what_compare_prints_at_120_columns(run, sample):
    """The README's one sample output, line for line (its '...' what it leaves out): it had
    lost the '(est. elsewhere)' every verdict of the sample now carries."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```\n$ chipcost ", 1)[1].split("```", 1)[0].splitlines()
    args = block[0].split()
    done = run(*args, "--db", sample, env={"COLUMNS": "120"})
    printed = [line.rstrip() for line in done.stdout.splitlines()]
    quoted = [line.rstrip() for line in block[1:] if line != "..."]
    assert len(quoted) >= 5
    for line in quoted:
        assert line in printed, (
            f"README.md shows a line `chipcost {block[0]}` no longer prints: {line!r}"
        )
