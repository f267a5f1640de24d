"""What `cost` and `compare` say about how far a row's cost per token can be taken at its word,
as `prices` says it of a price: a price of the GPU alone (its host billed beside it), a spot
price not below its offer's on-demand price (`(!)`), and a figure that is a lower bound at the
asked speed; in the table's notes and marks, and as fields in csv and json, the notes on
stderr. On the bundled sample's newest run (daytona's MI355X, priced without its host; TPU-v6e's
and Trainium1's figures read from curves faster than asked) and on Azure's real Retail Prices
recording (uksouth's `ND96isr H200 v5 Spot` at its on-demand rate: tests/cli/test_spot_doubt.py).
"""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from chipcost.extract.azure import PRICES_URL, SOURCE
from chipcost.pipeline.seed import open_warehouse
from chipcost.warehouse.load import load_run
from tests import warehouses
from tests.cli.test_cost_cli import chipcost
from tests.helpers import day, run_by_provider
from tests.sources import payloads_of

LLAMA = ("--model", "llama-3-70b", "--workload", "inference")
WIDE = {"COLUMNS": "250"}
ALONE = "daytona prices the GPU alone: the host's vCPUs, memory and disk are billed beside it"
DOUBT = "(!) = a spot price not below its offer's on-demand price"


def said(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> str:
    return str(warehouses.sample(tmp_path_factory.mktemp("caveats") / "w.duckdb", last=1))


@pytest.fixture(scope="module")
def azure(tmp_path_factory) -> str:
    """Azure's recording parsed and loaded as a run does: one H200 spot offer doubtful."""
    result = SOURCE.parse([payloads_of("azure", PRICES_URL)("recorded-items-gpu-price-index.json")])
    path = warehouses.new(tmp_path_factory.mktemp("doubt") / "w.duckdb")
    con = open_warehouse(path)
    try:
        load_run(con, run_by_provider({"azure": result.records}, day(0)))
    finally:
        con.close()
    return str(path)


def test_cost_says_a_price_of_the_gpu_alone(sample):
    asked = ("cost", *LLAMA, "--chip", "MI355X", "--db", sample)
    table = chipcost(*asked, env=WIDE)
    assert table.returncode == 0, table.stderr
    assert "daytona" in table.stdout and ALONE in said(table.stdout)
    answered = chipcost(*asked, "--format", "json")
    assert answered.returncode == 0, answered.stderr
    rows = json.loads(answered.stdout)
    assert {r["provider"] for r in rows if r["gpu_alone"]} == {"daytona"}
    assert all(r["gpu_alone"] is False for r in rows if r["provider"] != "daytona")
    assert ALONE in said(answered.stderr)  # the note, for people, beside the data


def test_compare_says_a_price_of_the_gpu_alone(sample):
    asked = ("compare", "MI355X", "H100-SXM", *LLAMA, "--db", sample)
    table = chipcost(*asked, env=WIDE)
    assert table.returncode == 0, table.stderr
    assert ALONE in said(table.stdout)
    answered = chipcost(*asked, "--format", "json")
    assert answered.returncode == 0, answered.stderr
    rows = json.loads(answered.stdout)
    assert [r["a_gpu_alone"] for r in rows] == [r["a_provider"] == "daytona" for r in rows]
    assert any(r["a_gpu_alone"] for r in rows)
    assert not any(r["b_gpu_alone"] for r in rows)
    # and the note on stderr beside the data, as beside cost's (it had only the freshness)
    assert ALONE in said(answered.stderr)
    assert "note: throughput at 5 or more tokens/s per user" in said(answered.stderr)


def test_cost_marks_a_doubtful_spot_price(azure):
    asked = ("cost", *LLAMA, "--chip", "H200", "--region", "uksouth", "--db", azure)
    table = chipcost(*asked, env=WIDE)
    assert table.returncode == 0, table.stderr
    assert "spot (!)" in table.stdout
    assert f"{DOUBT} (no discount: stale or mislabelled at the source; 1 offer): azure uksouth " \
        "Standard_ND96isr_H200_v5" in said(table.stdout)  # fmt: skip
    answered = chipcost(*asked, "--format", "json")
    assert answered.returncode == 0, answered.stderr
    [row] = json.loads(answered.stdout)
    assert (row["pricing_model"], row["region"]) == ("spot", "uksouth")
    assert "not below on demand" in row["spot_doubt"]
    assert row["price_per_chip_hour"] * 8 == pytest.approx(106.0)
    # every other offer of H200 is unmarked
    every = chipcost("cost", *LLAMA, "--chip", "H200", "--all-offers", "--db", azure, "--format",
                     "csv")  # fmt: skip
    assert every.returncode == 0, every.stderr
    marked = [r for r in csv.DictReader(io.StringIO(every.stdout)) if r["spot_doubt"]]
    assert [(r["region"], r["pricing_model"]) for r in marked] == [("uksouth", "spot")]


def test_compare_marks_a_doubtful_spot_price(azure):
    # uksouth's doubtful H200 spot against H100-SXM's spot in spaincentral
    asked = ("compare", "H200", "H100-SXM", *LLAMA, "--region", "uksouth,spaincentral")
    table = chipcost(*asked, "--db", azure, env=WIDE)
    assert table.returncode == 0, table.stderr
    assert "$13.2500 (!)" in table.stdout
    assert f"{DOUBT} (no discount: stale or mislabelled at the source; 1 offer): azure uksouth " \
        "Standard_ND96isr_H200_v5" in said(table.stdout)  # fmt: skip
    answered = chipcost(*asked, "--db", azure, "--format", "json")
    assert answered.returncode == 0, answered.stderr
    [row] = json.loads(answered.stdout)
    assert "not below on demand" in row["a_spot_doubt"]
    assert row["b_spot_doubt"] is None
    assert "azure uksouth Standard_ND96isr_H200_v5" in said(answered.stderr)


@pytest.mark.parametrize("format", ["csv", "json"])
def test_cost_notes_go_to_stderr_beside_csv_and_json(sample, format):
    asked = ("cost", *LLAMA, "--db", sample)
    table = chipcost(*asked, env=WIDE)
    data = chipcost(*asked, "--format", format, env=WIDE)
    assert data.returncode == 0, data.stderr
    notes = said(data.stderr)
    for note in (
        "a lower bound at the asked speed",
        "not ranked, no throughput for llama-3-70b inference:",
        "fits: whether one instance of the row's chips holds llama-3-70b",
        "$/M tokens = $/chip-hr / (tok/s per chip x 3600 / 10^6)",
        ALONE,
    ):
        assert note in notes and note in said(table.stdout), note
    assert "SAMPLE DATA" in notes
    assert "note" not in data.stdout[:200]  # the data alone on stdout
    # the rows whose figure is a lower bound say so, as the note names them
    if format == "csv":
        rows = list(csv.DictReader(io.StringIO(data.stdout)))
        bounded = {r["chip"] for r in rows if r["lower_bound"] == "true"}
        assert {r["lower_bound"] for r in rows} == {"true", "false"}
    else:
        rows = json.loads(data.stdout)
        bounded = {r["chip"] for r in rows if r["lower_bound"]}
        assert {r["lower_bound"] for r in rows} == {True, False}
    assert bounded
    [listed] = [n for n in notes.split(" note ") if "a lower bound at the asked speed" in n]
    named = listed.split(" shown): ")[1]
    assert {part.split(":")[0].strip() for part in named.split(";") if ":" in part} == bounded


# A doubtful spot price's note as csv and json say it: the rows carry spot_doubt, not (!).
DOUBTED = (
    "a spot price not below its offer's on-demand price (no discount: stale or mislabelled at "
    "the source; 1 offer): azure uksouth Standard_ND96isr_H200_v5"
)
DOUBTFUL = {
    "cost": ("cost", *LLAMA, "--chip", "H200", "--region", "uksouth"),
    "compare": ("compare", "H200", "H100-SXM", *LLAMA, "--region", "uksouth,spaincentral"),
    "prices --by chip": ("prices", "--by", "chip", "--chip", "H200", "--region", "uksouth"),
}


@pytest.mark.parametrize("asked", DOUBTFUL.values(), ids=DOUBTFUL)
def test_csv_says_a_doubtful_spot_price_without_the_tables_mark(azure, asked):
    """On b4f20479 cost's and compare's csv and json said '(!) = a spot price ...' on stderr,
    a mark their rows do not show (prices --by said it without); one wording for all three."""
    data = chipcost(*asked, "--db", azure, "--format", "csv", env=WIDE)
    assert data.returncode == 0, data.stderr
    assert "(!)" not in data.stdout and "(!)" not in data.stderr
    assert DOUBTED in said(data.stderr)
    [row] = [r for r in csv.DictReader(io.StringIO(data.stdout)) if "uksouth" in str(r)]
    assert any("not below on demand" in v for k, v in row.items() if k.endswith("spot_doubt"))


def test_cost_csv_says_its_estimates_without_the_tables_mark_nor_wide(sample):
    """On b4f20479 the note was 'est. = an estimate ... and 17 more (--wide shows each)': a
    mark the rows do not show and an option csv does not take; each row's estimate_basis
    names each."""
    data = chipcost("cost", *LLAMA, "--db", sample, "--format", "csv", env=WIDE)
    assert data.returncode == 0, data.stderr
    notes = said(data.stderr)
    assert "est. =" not in notes and "--wide" not in notes
    [estimates] = [n for n in notes.split(" note ") if "an estimate, no price the provider" in n]
    assert re.search(r"; and [\d,]+ more$", estimates), estimates
    rows = list(csv.DictReader(io.StringIO(data.stdout)))
    assert any(r["estimate_basis"] for r in rows)
    # the table keeps its mark's legend
    table = said(chipcost("cost", *LLAMA, "--db", sample, env=WIDE).stdout)
    assert "est. = an estimate, no price the provider publishes" in table


def _marks_in(rows: list[dict], legends: str) -> None:
    """Each leaning's legend among the notes names a mark some row's vs_baseline shows."""
    for mark in ("~:", "≤:", "≥:", "(est. elsewhere):"):
        if f" {mark} " in f" {legends} ":
            assert any(mark[:-1] in (r["vs_baseline"] or "") for r in rows), mark


def test_cost_csv_says_the_baseline_elsewhere_by_the_field_its_rows_carry(sample):
    """On 7a252c44 cost's csv and json said the table's note on stderr: a row against the
    baseline's cheapest elsewhere 'marked *', the break-even's chip 'where the cell names it',
    a share 'of est. elsewhere'; no row carries them, they carry baseline_same_provider false,
    break_even_for and break_even_share_of."""
    data = chipcost("cost", *LLAMA, "--db", sample, "--format", "csv", env=WIDE)
    assert data.returncode == 0, data.stderr
    notes = said(data.stderr)
    rows = list(csv.DictReader(io.StringIO(data.stdout)))
    for table_only in ("marked *", "where the cell names it", "'of est. elsewhere'"):
        assert table_only not in notes, table_only
    assert "against H100-SXM's cheapest elsewhere, baseline_same_provider false;" in notes
    assert "or H100-SXM where break_even_for names it" in notes
    assert "break_even_share_of names it, and where it is at another point)" in notes
    elsewhere = [r for r in rows if r["baseline_same_provider"] == "false"]
    assert elsewhere and not any(r["vs_baseline"].endswith("*") for r in rows)
    assert {r["break_even_for"] for r in rows} > {"H100-SXM"}
    assert any("at another point" in r["break_even_share_of"] for r in rows)
    _marks_in(rows, notes)
    # the table keeps its marks and their words
    table = said(chipcost("cost", *LLAMA, "--db", sample, env=WIDE).stdout)
    assert "against H100-SXM's cheapest elsewhere, marked *;" in table
    assert "or H100-SXM where the cell names it" in table
    assert "'of est. elsewhere': of its derived estimate at another point" in table


def test_cost_json_says_a_break_even_at_least_by_its_field_not_the_tables_mark(sample):
    """On 7a252c44 cost's json said '≥: at least, a figure being a lower bound' where only the
    table's break-even cells showed ≥ ('≥829 (78%)'): its rows carry break_even_at_least."""
    asked = ("cost", *LLAMA, "--chip", "B200", "--db", sample)
    data = chipcost(*asked, "--format", "json", env=WIDE)
    assert data.returncode == 0, data.stderr
    rows = json.loads(data.stdout)
    notes = said(data.stderr)
    assert any(r["break_even_at_least"] for r in rows)
    assert not any("≥" in (r["vs_baseline"] or "") for r in rows)
    assert "≥" not in notes
    assert "note break_even_at_least true: at least, a figure being a lower bound" in notes
    _marks_in(rows, notes)
    table = said(chipcost(*asked, env=WIDE).stdout)
    assert "≥: at least, a figure being a lower bound (faster than asked)" in table
    assert "break_even_at_least" not in table


def test_cost_says_modals_price_is_the_gpus_alone_and_gcps_vm_price_is_not(sample):
    """On 5ed854ca modal's H100 ranked beside gcp's A3 with gpu_alone false and no note: a
    price without the CPU cores and memory a function pays read as a whole instance's."""
    asked = ("cost", *LLAMA, "--chip", "H100-SXM", "--provider", "modal,gcp", "--db", sample)
    answered = chipcost(*asked, "--format", "json")
    assert answered.returncode == 0, answered.stderr
    rows = json.loads(answered.stdout)
    assert {r["provider"] for r in rows} == {"modal", "gcp"}
    assert [r["gpu_alone"] for r in rows] == [r["provider"] == "modal" for r in rows]
    alone = "modal prices the GPU alone: the host's vCPUs, memory and disk are billed beside it"
    assert alone in said(answered.stderr) and "gcp's" not in answered.stderr
