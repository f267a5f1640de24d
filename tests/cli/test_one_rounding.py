"""One number, one rounding, one mark: a price is rounded by one rule wherever it shows (the
command line's tables and the explorer's JavaScript: the stored value to the nearest, a tie to
the even digit, as Python's format does), an estimate carries `est.` in every view, a price per
month has one number of decimals, and json names its units: a `currency` on every row, shares
in percent (`_pct`)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests import warehouses
from tests.cli.test_read_commands import chipcost

ROOT = Path(__file__).resolve().parents[2]
EXPLORER = ROOT / "reports" / "assets" / "explorer.js"
# Prices whose shortest decimal and stored binary value round apart (5.37275 is stored as
# 5.3727499...), exact ties (0.125, 2.5), and plain ones.
NUMBERS = (5.37275, 2.675, 1.00005, 0.125, 0.375, 2.5, 3.5, 1234567.5, 941.7, 0.0001, 12.0,
           -5.37275, 1.03125, 73.49999, 0.0)  # fmt: skip


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    return warehouses.sample(tmp_path_factory.mktemp("rounding") / "w.duckdb", last=2)


def _explorer_format() -> str:
    """The explorer's own number format (its `fixed` and `format`), as it stands in the page."""
    script = EXPLORER.read_text(encoding="utf-8")
    found = re.search(r"\n  function fixed\(.*?\n  }\n  function format\(.*?\n  }\n", script, re.S)
    assert found, "explorer.js formats numbers with function fixed and function format"
    return found[0]


def test_the_explorer_rounds_as_the_command_line_does():
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node here to run the explorer's JavaScript")
    cases = [(v, d) for v in NUMBERS for d in (0, 2, 4)]
    program = _explorer_format() + f"console.log(JSON.stringify({json.dumps(cases)}.map("
    program += "([v, d]) => format(v, d, d))));"
    done = subprocess.run(
        [node, "-e", program], capture_output=True, text=True, timeout=60, check=True
    )
    shown = json.loads(done.stdout)
    expected = [f"{v:,.{d}f}" for v, d in cases]
    assert shown == expected
    assert "5.3727" in shown and "0.12" in shown  # the stored value's rounding, a tie to even


def test_trainium2_us_east_2_is_one_number_in_every_view(db, tmp_path):
    from chipcost.reports.site import write_site

    shown = chipcost("prices", "--chip", "Trainium2", "--region", "us-east-2", "--db", str(db))
    assert shown.returncode == 0, shown.stderr
    json_rows = json.loads(
        chipcost(
            "prices", "--chip", "Trainium2", "--region", "us-east-2", "--format", "json",
            "--db", str(db),
        ).stdout
    )  # fmt: skip
    stored = {r["price_per_chip_hour"] for r in json_rows if r["pricing_model"] == "on_demand"}
    assert stored == {5.37275}, stored
    assert "5.3727" in shown.stdout and "5.3728" not in shown.stdout
    write_site(db, tmp_path)
    offers = json.loads((tmp_path / "offers.json").read_text(encoding="utf-8"))["offers"]
    assert 5.37275 in offers["price_per_chip_hour"]  # the explorer formats the stored value


def _glance_cells(text: str) -> list[str]:
    rule = text.splitlines().index(next(line for line in text.splitlines() if "───" in line))
    return text.splitlines()[rule + 1 :]


def test_an_estimate_is_marked_in_every_view_and_a_month_has_one_format(db):
    args = ("prices", "--chip", "H100-SXM", "--provider", "hyperbolic", "--db", str(db))
    listed = chipcost(*args, "--per", "month", columns=200)
    glance = chipcost(*args, "--per", "month", "--by", "provider", columns=200)
    assert listed.returncode == 0 and glance.returncode == 0, listed.stderr + glance.stderr
    # Hyperbolic's prices here rest on SkyPilot's catalog: estimates in both views.
    assert "941.70 est." in listed.stdout, listed.stdout
    assert "941.70 est." in "\n".join(_glance_cells(glance.stdout)), glance.stdout
    assert "941.7000" not in listed.stdout + glance.stdout
    assert "est. = an estimate" in glance.stdout
    hourly = chipcost(*args, "--by", "provider", columns=200)
    assert "1.2900 est." in hourly.stdout, hourly.stdout
    rows = json.loads(chipcost(*args, "--by", "provider", "--format", "json").stdout)
    assert rows[0]["estimated"] == "on_demand", rows[0]


@pytest.mark.parametrize(
    "args",
    [
        ("prices", "--chip", "H100-SXM"),
        ("prices", "--chip", "H100-SXM", "--by", "provider"),
        ("history", "--chip", "H100-SXM"),
        ("index",),
        ("cost", "--model", "llama-3-70b", "--workload", "inference"),
    ],
    ids=" ".join,
)
@pytest.mark.parametrize("currency", [None, "EUR"])
def test_every_json_row_names_its_currency(db, args, currency):
    asked = (*args, "--format", "json", "--db", str(db))
    done = chipcost(*asked, *(("--currency", currency) if currency else ()))
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert rows and {r.get("currency") for r in rows} == {currency or "USD"}, rows[0]


def test_json_shares_are_percent_named_so(db):
    cost = ("cost", "--model", "llama-3-70b", "--workload", "inference", "--format", "json")
    rows = json.loads(chipcost(*cost, "--db", str(db)).stdout)
    keys = {k for row in rows for k in row}
    assert "break_even_share" not in keys
    shares = [r["break_even_share_pct"] for r in rows if r.get("break_even_share_pct")]
    assert shares and all(s > 2 for s in shares), shares  # 174.8, not 1.748
