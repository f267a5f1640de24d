"""`chipcost cost` and `chipcost throughput` as a user runs them (tests.cli_runner), real DuckDB."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from chipcost.transform.tokens import (
    break_even_days,
    break_even_tokens,
    cost_per_million_tokens,
    cost_to_train,
    human_count,
)
from chipcost.warehouse.db import connect
from tests import warehouses
from tests.cli_runner import Ran
from tests.cli_runner import chipcost as run_chipcost
from tests.helpers import day, record, run_by_provider, run_of

# H100's 70B training figure is published: NeMo Megatron-Bridge's performance summary, 26.04.01
# container, Llama 3 70B pre-training on 64 H100 at FP8, 1,664 tokens/s per GPU. Derived for
# 70B at calibrated MFUs (transform/training.py): H200 at its own, the median of MLPerf Training
# v5.1's two H200 Llama 3.1 405B results (180,054 tokens/s on 512 GPUs, 353,748 on 1,024; the
# same FP8 peak, so 405/70.6 times the 405B rate); Trainium2 at its family's, Neuron's
# Trainium1 Llama 3.1 70B table (7.94 sequences/s of 8,192 tokens on 512 chips, BF16) scaled
# from Trainium1's 190 to Trainium2's 667 BF16 TFLOPS.
H100_TRAINING = 1664.0
H200_TRAINING = (180_054.0 / 512 + 353_748.0 / 1024) / 2 * 405 / 70.6
TRN2_TRAINING = 7.94 * 8192 / 512 * 667 / 190
# A ranked row: its rank, then its chip.
ROW = re.compile(r"^ *\d+ {2,}(\S+) {2,}", re.MULTILINE)


def chipcost(*args: str, env: dict[str, str] | None = None) -> Ran:
    return run_chipcost(*args, env={**os.environ, **(env or {})})


def offers() -> list:
    return [
        record(),  # H100-SXM on demand, $55.04 / 8 = $6.88 per chip-hour
        record(
            pricing_model="reserved", term="1yr", payment="all_upfront", plan="standard",
            price_per_hour=33.0, upfront=289_080.0,
        ),
        record(instance_type="p5e.48xlarge", chip="H200", price_per_hour=60.0, sku="S2"),
        record(instance_type="trn2.48xlarge", chip="Trainium2", chip_count=16.0,
               price_per_hour=35.76, sku="S3"),
        record(instance_type="g5.xlarge", chip="A10G", chip_count=1.0, price_per_hour=1.006,
               sku="S4"),
        # a priced chip with no throughput: chips.csv has only its memory, no dense peak
        record(instance_type="g4ad.xlarge", chip="Radeon-Pro-V520", chip_count=1.0,
               price_per_hour=0.379, sku="S5"),
    ]  # fmt: skip


def _warehouse(path: Path) -> Path:
    """`offers()` loaded on day 0, in a warehouse of the test's own (a copy of one made once)."""
    return warehouses.made(
        __name__, lambda made: warehouses.of_runs(made, [run_of(offers(), day(0))]), path
    )


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    return _warehouse(tmp_path_factory.mktemp("cost") / "w.duckdb")


@pytest.fixture
def fresh_db(tmp_path) -> Path:
    return _warehouse(tmp_path / "w.duckdb")


def test_training_ranking_cheapest_first_with_provenance(db):
    result = chipcost(
        "cost", "--model", "Llama 3 70B", "--workload", "training", "--tokens", "300B",
        "--db", str(db),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    out = result.stdout
    chips = ROW.findall(out)
    # Training is ranked by cost alone (Trainium2, at the MFU Trainium1's published 70B run
    # reaches, is the dearest per token here; H200, derived at its 405B runs' MFU, trains 70B
    # faster per chip than H100's published NeMo figure, and on demand costs less per token
    # than H100 on demand); only Trainium2 (16 x 103.08 GB: AWS's 96 GiB) holds the 1,130 GB of
    # training state in one instance. A10G, derived from its datasheet's 70 dense BF16 TFLOPS at
    # the flat MFU (no Ampere training figure is published), is the dearest.
    assert chips == ["H100-SXM", "H200", "H100-SXM", "Trainium2", "A10G"]
    assert "derived:A10G:llama-3-70b:training" in out and "dense BF16 peak 70 TFLOPS" in out
    assert "yes 1,130/1,649 GB" in out and "NO 1,130/640 GB (2 inst.)" in out
    h100 = cost_to_train(300e9, H100_TRAINING, 6.88, 0.15)
    assert f"${h100:,.0f}" in out
    trn2 = cost_per_million_tokens(35.76 / 16, TRN2_TRAINING)
    assert f"${trn2:,.4f}" in out
    assert "calibrated on 1 published training figure(s) of the Trainium family" in out
    assert "set aside bitslovers-h100-llama-3-70b" in out and "574%" in out
    assert "not ranked, no throughput for llama-3-70b training: Radeon-Pro-V520" in out
    assert "1 + 15% overhead" in out and "SAMPLE DATA" not in out


def test_a_derived_figures_chip_sources_are_quoted_only_when_asked(db):
    asked = ("cost", "--model", "llama-3-70b", "--workload", "training", "--db", str(db))
    short, wide = chipcost(*asked), chipcost(*asked, "--wide")
    assert short.returncode == 0 and wide.returncode == 0, short.stderr + wide.stderr
    # Trainium2's spec source, quoted in the source of its derived figure (chips.csv)
    datasheet = "AWS Neuron documentation, Trainium2 Architecture"
    said = " ".join(short.stdout.split())
    # one line a derived figure: how it was derived, its peak; where the peak comes from, once
    assert "median MFU" in said and datasheet not in said
    assert "derived figures' chip specs (peak, memory, bandwidth): --wide quotes each" in said
    assert datasheet in " ".join(wide.stdout.split()) and "--wide quotes" not in wide.stdout


@pytest.mark.parametrize(
    ("filters", "ranked_rows"),
    # A table's whole pricing label as the filter: the query names its term and plan too.
    [((), 5), (("--pricing-model", "reserved 1yr, standard"), 1)],
)
def test_the_sql_view_answers_the_same_numbers(db, filters, ranked_rows):
    ranked = chipcost(
        "cost", "--model", "llama-3-70b", "--workload", "training", "--tokens", "300e9",
        *filters, "--db", str(db),
    )  # fmt: skip
    notes = ranked.stdout.replace("\n  ", " ")  # a note's further lines, indented, joined
    (query,) = re.findall(r'cheapest by SQL [^:]*: chipcost sql "(.+)"', notes)
    result = chipcost("sql", query, "--db", str(db), "--format", "csv")
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert len(rows) == len(ROW.findall(ranked.stdout)) == ranked_rows
    for row in rows:
        assert f"${float(row['usd_per_million_tokens']):,.4f}" in ranked.stdout
        assert f"${float(row['usd_for_tokens']):,.0f}" in ranked.stdout


def test_a_family_becomes_its_members_with_a_price_and_a_figure(db):
    # H100 is H100-SXM, H100-PCIe and H100-NVL: only H100-SXM has both here.
    result = chipcost(
        "cost", "--model", "llama-3-70b", "--workload", "training", "--chip", "H100",
        "--db", str(db),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert set(ROW.findall(result.stdout)) == {"H100-SXM"}
    # Trainium1-3: only Trainium2 is priced; Gaudi: none is.
    both = chipcost(
        "cost", "--model", "llama-3-70b", "--workload", "training", "--chip", "Trainium,H200",
        "--db", str(db),
    )  # fmt: skip
    assert both.returncode == 0, both.stderr
    assert set(ROW.findall(both.stdout)) == {"Trainium2", "H200"}
    none = chipcost(
        "cost", "--model", "llama-3-70b", "--workload", "training", "--chip", "Gaudi",
        "--db", str(db),
    )  # fmt: skip
    assert none.returncode == 1
    assert "no Gaudi chip (" in none.stderr and "has a current price and a throughput" in (
        none.stderr
    )


def test_inference_uses_the_mlperf_h200_figure(db):
    """MLPerf Inference's newest round (v5.1) beats v4.1 and the article's independent batch-8
    figure (1,500 tokens/s) it once used: at the default speed, the best of its H200 Server
    results (the best throughput that meets the speed)."""
    from tests.cli.test_speed_compare import _best, _mlperf

    result = chipcost(
        "cost", "--model", "llama-3-70b", "--workload", "inference", "--chip", "H200",
        "--db", str(db),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    best = _best(_mlperf("H200", "Server"))
    assert f"${cost_per_million_tokens(7.5, best):,.4f}" in result.stdout
    assert "benchmark [1]" in result.stdout
    assert re.search(r"mlperf-v5\.1-\S+-llama2-70b-server", result.stdout)


def test_break_even_against_the_baseline(db):
    """H200 and H100-SXM are both measured at MLPerf's Server point: H200 ($60 / 8 an hour)
    costs a little less a token there than H100 ($6.88), so the move pays back, at the costs
    the verdict rests on, the same in the table and in JSON. Trainium2's figure is derived:
    the evidence cannot say which costs less, so it has no break-even either."""
    asked = (
        "cost", "--model", "llama-3-70b", "--workload", "inference", "--pricing-model",
        "on_demand", "--migration-cost", "36000", "--daily-tokens", "1B", "--baseline",
        "H100-SXM", "--chip", "H200,H100-SXM,Trainium2", "--db", str(db),
    )  # fmt: skip
    shown, answered = chipcost(*asked, env={"COLUMNS": "250"}), chipcost(*asked, "--format", "json")
    assert shown.returncode == 0 and answered.returncode == 0, shown.stderr + answered.stderr
    rows = {row["chip"]: row for row in json.loads(answered.stdout)}
    h200, trn2 = rows["H200"], rows["Trainium2"]
    assert h200["verdict"] == "cheaper", h200
    saving = h200["baseline_usd_per_million_tokens"] - h200["usd_per_million_tokens"]
    tokens = break_even_tokens(36_000, saving)
    assert h200["break_even_tokens"] == pytest.approx(tokens)
    assert h200["break_even_days"] == pytest.approx(break_even_days(tokens, 1e9))
    line = _ranked_line(shown.stdout, "H200")
    assert f"{human_count(tokens)} / {break_even_days(tokens, 1e9):,.0f} d" in line
    assert trn2["verdict"] == "cannot say"
    assert trn2["break_even_tokens"] is None and trn2["break_even_days"] is None
    line = _ranked_line(shown.stdout, "Trainium2")
    assert line.count("cannot say") == 2, line  # the verdict and the break-even
    assert "none where it cannot say" in " ".join(shown.stdout.split())


def _ranked_line(text: str, chip: str) -> str:
    return next(line for line in text.splitlines() if (m := ROW.match(line)) and m[1] == chip)


def test_the_columns_asked_for_are_kept_on_a_narrow_screen(db):
    done = chipcost(
        "cost", "--model", "llama-3-70b", "--workload", "training", "--tokens", "300B",
        "--migration-cost", "36000", "--db", str(db), env={"COLUMNS": "90"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    header = _header(done.stdout)
    # Headers wrap a word a line on a narrow screen: each asked-for column's words are there.
    assert {"break-even", "300B", "H100-SXM"} <= set(header.split()), header
    # No column is left out: what does not fit the row's line is folded under it.
    assert "left out to fit" not in done.stdout


def _header(text: str) -> str:
    """The ranking's header: its lines down to the rule, joined (a wrapped header's words
    interleave)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("#"))
    rule = next(i for i in range(start, len(lines)) if lines[i].startswith("───"))
    return " ".join(" ".join(lines[start:rule]).split())


# What the warehouse cannot answer, though each value is one the option takes (a region no
# current price is in is not one: --region takes the regions with prices, and names them).
ANSWERLESS = (
    "no current price for Trainium3",
    "no throughput for Radeon-Pro-V520",
    "the baseline Trainium3 has no current price",
)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--model", "my-model"], "no parameter count to derive one from"),
        (["--model", "llama-3-70"], "did you mean llama-3-70b"),
        (["--chip", "Trainium3"], "no current price for Trainium3"),
        (["--chip", "Radeon-Pro-V520"], "no throughput for Radeon-Pro-V520"),
        (["--chip", "H10"], "unknown chip 'H10' (did you mean "),  # H100 among them: test_names
        (["--tokens", "0"], "--tokens must be a positive number"),
        (["--tokens", "lots"], "--tokens 'lots' is not a number"),
        (["--workload", "serving"], "use training or inference"),
        (["--daily-tokens", "1e9"], "give --migration-cost too"),
        (["--migration-cost", "abc"], "write e.g. 250000, 250K or 2.5e5 (USD)"),
        (["--baseline", "Trainium3"], "the baseline Trainium3 has no current price"),
        (["--overhead", "-0.1"], "--overhead -0.1: give a fraction"),
        (["--region", "mars-1"], "no current price is in region 'mars-1'"),
        (["--pricing-model", "ondemand"], "pricing model 'ondemand' (did you mean on_demand"),
        (["--region", "us-east-9"], "(did you mean us-east-1"),
    ],
)
def test_bad_input_is_explained_without_a_traceback(db, args, message):
    base = {"--model": "llama-3-70b", "--workload": "training"}
    pairs = dict(zip(args[::2], args[1::2], strict=True))
    argv = [x for k, v in {**base, **pairs}.items() for x in (k, v)]
    result = chipcost("cost", *argv, "--db", str(db))
    # A value the option does not take is a usage error (2); a question without an answer 1.
    assert result.returncode == (1 if message in ANSWERLESS else 2), result.stdout
    assert message in result.stderr and "Traceback" not in result.stderr
    assert "nan" not in (result.stdout + result.stderr).lower().split()


def test_a_warehouse_with_no_prices_yet_says_to_collect(tmp_path):
    empty = warehouses.new(tmp_path / "empty.duckdb")
    result = chipcost(
        "cost", "--model", "llama-3-70b", "--workload", "inference", "--db", str(empty)
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "no priced chip with a throughput yet; run `chipcost collect`" in result.stderr
    assert "widen" not in result.stderr


@pytest.mark.parametrize("limit", ["-1", "0", "99999999999999999999"])
def test_a_limit_out_of_range_is_refused(db, limit):
    result = chipcost(
        "cost", "--model", "llama-3-70b", "--workload", "training", "--limit", limit,
        "--db", str(db),
    )  # fmt: skip
    assert result.returncode == 2
    assert "Invalid value for '--limit'" in result.stderr and "Traceback" not in result.stderr


def test_inference_rows_that_cannot_hold_the_model_come_last(fresh_db):
    # A10G's dense peak (70 BF16 TFLOPS) bounds Llama-3-70B at about 495 tokens/s per chip:
    # 5,000 is refused, naming the peak.
    refused = chipcost(
        "throughput", "add", "--chip", "A10G", "--model", "llama-3-70b", "--workload",
        "inference", "--tokens-per-second", "5000", "--precision", "bf16", "--db", str(fresh_db),
    )  # fmt: skip
    assert refused.returncode == 2 and "dense peak (70 TFLOPS)" in refused.stderr
    # A measured figure near that peak on one A10G (24 GB) is cheaper per token than
    # Trainium2's, but Llama-3-70B at BF16 needs 141 GB of weights, so the A10G row is ranked
    # after every chip that can hold them, however cheap.
    added = chipcost(
        "throughput", "add", "--chip", "A10G", "--model", "llama-3-70b", "--workload",
        "inference", "--tokens-per-second", "480", "--precision", "bf16", "--db", str(fresh_db),
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    result = chipcost(
        "cost", "--model", "llama-3-70b", "--workload", "inference", "--format", "json",
        "--db", str(fresh_db),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    fits = [row["fits"] for row in rows]
    assert fits == sorted(fits, reverse=True) and fits[-1] is False
    dearest_fitting = max(row["usd_per_million_tokens"] for row in rows if row["fits"])
    assert rows[-1]["usd_per_million_tokens"] < dearest_fitting
    a10g = next(row for row in rows if row["chip"] == "A10G")
    assert (a10g["memory_needed_gb"], a10g["instance_memory_gb"]) == (141.2, 24.0)
    assert [row["rank"] for row in rows] == list(range(1, len(rows) + 1))


def test_a_measurement_changes_the_ranking(fresh_db):
    added = chipcost(
        "throughput", "add", "--chip", "H100 SXM5", "--model", "llama-3-70b", "--workload",
        "training", "--tokens-per-second", "9600", "--figure-per", "instance", "--chip-count", "8",
        "--citation", "our run", "--db", str(fresh_db),
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert "recorded user-1" in added.stdout and "1,200 tokens/s per chip" in added.stdout
    result = chipcost("cost", "--model", "llama-3-70b", "--workload", "training",
                      "--chip", "H100-SXM", "--db", str(fresh_db))  # fmt: skip
    assert f"${cost_per_million_tokens(6.88, 1200):,.4f}" in result.stdout
    assert "measured [1]" in result.stdout and "user-1: measured" in result.stdout
    listed = chipcost("throughput", "list", "--origin", "user", "--db", str(fresh_db))
    assert "user-1" in listed.stdout and "chosen" in listed.stdout
    # the id as copied (spaces around) or typed in capitals is the id
    removed = chipcost("throughput", "remove", " USER-1 ", "--db", str(fresh_db))
    assert removed.returncode == 0 and "removed user-1" in removed.stdout, removed.stderr
    gone = chipcost("throughput", "list", "--origin", "user", "--db", str(fresh_db))
    assert "user-1" not in gone.stdout


def test_a_measurement_of_a_model_chipcost_did_not_know_is_noted(fresh_db, tmp_path):
    add = ["throughput", "add", "--chip", "H100-SXM", "--workload", "inference"]
    # a few letters from a known model: a typo, refused (add recorded it under its own name,
    # which no `cost --model llama-3-70b` reads, on 8f824434), in add and in import alike
    typo = chipcost(*add, "--model", "lama-3-70b", "--tokens-per-second", "900",
                    "--db", str(fresh_db))  # fmt: skip
    assert typo.returncode == 2, typo.stderr
    said = " ".join(typo.stderr.split())
    assert "model 'lama-3-70b' is none chipcost knows (did you mean llama-3-70b" in said
    assert "nothing recorded" in said and "--new-model" in said
    given = tmp_path / "mine.csv"
    given.write_text("chip,model,workload,tokens_per_second\nH100-SXM,lama-3-70b,inference,900\n")
    imported = chipcost("throughput", "import", str(given), "--db", str(fresh_db))
    assert imported.returncode == 2 and "--new-model" in imported.stderr, imported.stderr
    listed = chipcost("throughput", "list", "--origin", "user", "--db", str(fresh_db))
    assert listed.returncode == 1  # none recorded
    # meant: recorded, and noted with the closest model chipcost knew
    meant = chipcost(*add, "--model", "lama-3-70b", "--tokens-per-second", "900",
                     "--new-model", "--db", str(fresh_db))  # fmt: skip
    assert meant.returncode == 0, meant.stderr
    assert (
        "note: lama-3-70b is a model chipcost had no figure or size of (did you mean "
        "llama-3-70b" in meant.stderr
    )
    known = chipcost(*add, "--model", "llama-3-70b", "--tokens-per-second", "900",
                     "--db", str(fresh_db))  # fmt: skip
    assert known.returncode == 0 and "note:" not in known.stderr


def test_the_throughput_list_fits_and_cites_each_source_once_under_it(db):
    # A derivation's source is a paragraph: in a cell it wrapped one word a line (2,669
    # lines for 74 figures at 120 columns).
    listed = chipcost(
        "throughput", "list", "--chip", "H100-SXM", "--derived", "--limit", "1000", "--db",
        str(db), env={"COLUMNS": "100"},
    )  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[1].split()[:2] == ["id", "chip"]
    # The header's next lines head the columns folded under each row (an id is whole, up to
    # 71 characters: what does not fit beside it goes under it); then the rule.
    rule = next(i for i, x in enumerate(lines) if x.startswith("───"))
    folded = " ".join(lines[2:rule]).split()
    assert 3 <= rule <= 4 and {"point", "status", "source"} <= set(folded)
    end = next(i for i, x in enumerate(lines) if x.startswith("set aside") or x.startswith("[1]"))
    table = lines[rule + 1 : end]
    con = connect(db, read_only=True)
    try:
        figures = con.execute("SELECT count(*) FROM throughput WHERE chip = 'H100-SXM'").fetchone()
    finally:
        con.close()
    # two or three lines a figure (the folded columns under it), four where a long model
    # name or the point (shape, speed, scale) wraps too
    assert figures[0] <= len(table) <= 4 * figures[0] and all(len(line) <= 100 for line in table)
    assert any(x.startswith("set aside: bitslovers-h100-llama-3-70b: needs 574%") for x in lines)
    cited = [x for x in lines if re.match(r"\[\d+\] ", x)]
    assert cited[0].startswith("[1] ") and len(cited) == len({x.split("]")[0] for x in cited})
    calibrated = re.compile(r"chipcost derivation calibrated on \d+ published training")
    assert any(calibrated.search(x) for x in cited)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tokens-per-second", "0"], "--tokens-per-second must be a positive number"),
        (["--tokens-per-second", "900", "--batch-size", "0"], "--batch-size must be a positive"),
        (["--tokens-per-second", "900", "--sequence-length", "0"], "--sequence-length must be"),
        (["--tokens-per-second", "900", "--measured-on", "2099-01-01"], "is in the future"),
        (["--tokens-per-second", "900", "--measured-on", "yesterday"], "--measured-on 'yesterday'"),
        (["--tokens-per-second", "-5"], "must be a positive number"),
        (["--tokens-per-second", "9600", "--chip-count", "8"], "say --figure-per instance"),
        (["--tokens-per-second", "9600", "--figure-per", "instance"], "--chip-count N"),
        (["--tokens-per-second", "9600"], "needs 205% of its dense peak"),
        # A precision without a peak of its own is checked against the chip's highest one.
        (["--tokens-per-second", "9600", "--precision", "int8"], "needs 205% of its dense peak"),
        # ... and one no class holds is none (on e435575 fp3 was recorded)
        (["--tokens-per-second", "900", "--precision", "fp3"], "precision 'fp3' is none chipcost"),
        (["--tokens-per-second", "9600", "--precision", "fp4"], "pass --allow-above-peak"),
    ],
)
def test_bad_measurements_are_refused(fresh_db, args, message):
    base = ["--chip", "H100-SXM", "--model", "llama-3-70b", "--workload", "training"]
    result = chipcost("throughput", "add", *base, *args, "--db", str(fresh_db))
    # A value the option does not take is a usage error (2), a figure above the chip's peak
    # too: the refusal names the options that record it (--allow-above-peak, --figure-per).
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_import_is_all_or_nothing(fresh_db, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text(
        "chip,model,workload,tokens_per_second,per,chips\n"
        "H100 SXM5,llama-3-70b,inference,12000,instance,8\n"
        "H200,llama-3-70b,inference,0,chip,\n"
        "H200,llama-3-70b,serving,10,chip,\n"
    )
    result = chipcost("throughput", "import", str(bad), "--db", str(fresh_db))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    # One bad row a line, under the message.
    assert result.stderr.splitlines()[1:] == [
        "  line 3: tokens_per_second must be a positive number (got 0.0)",
        "  line 4: workload 'serving' is neither training nor inference",
    ]
    good = tmp_path / "good.csv"
    good.write_text(
        bad.read_text().replace(",0,chip,", ",1700,chip,").replace("serving", "training")
    )
    result = chipcost("throughput", "import", str(good), "--db", str(fresh_db))
    assert result.returncode == 0, result.stderr
    assert "recorded 3 measurement(s)" in result.stdout
    typo = tmp_path / "typo.csv"
    typo.write_text("chip,model,workload,tokens_per_sec\nH200,llama-3-70b,inference,1\n")
    result = chipcost("throughput", "import", str(typo), "--db", str(fresh_db))
    assert "unknown column(s) tokens_per_sec" in result.stderr


def test_cost_does_not_start_prefect(db):
    code = (
        "import sys\n"
        f"sys.argv = ['chipcost', 'cost', '--model', 'llama-3-70b', '--workload', 'training',"
        f" '--db', {str(db)!r}]\n"
        "import chipcost.cli.entry\n"
        "try:\n    chipcost.cli.entry.main()\nexcept SystemExit:\n    pass\n"
        "print('PREFECT LOADED' if 'prefect' in sys.modules else 'PREFECT NOT LOADED')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert "PREFECT NOT LOADED" in result.stdout, result.stdout + result.stderr


def test_every_priced_chip_with_a_throughput_is_ranked_from_the_sample(tmp_path):
    path = warehouses.sample(tmp_path / "w.duckdb", last=1)  # the newest sample run replayed
    con = connect(path, read_only=True)
    try:
        expected = con.execute(
            "SELECT DISTINCT chip, pricing_model, term FROM cost_per_token "
            "WHERE model = 'llama-3-70b' AND workload = 'training'"
        ).fetchall()
        priced = {r[0] for r in con.execute("SELECT DISTINCT chip FROM per_chip_prices").fetchall()}
        covered = {
            r[0]
            for r in con.execute(
                "SELECT chip FROM throughput_ranked WHERE chosen AND model = 'llama-3-70b' "
                "AND workload = 'training'"
            ).fetchall()
        }
    finally:
        con.close()
    result = chipcost(
        "cost", "--model", "llama-3-70b", "--workload", "training", "--tokens", "300e9",
        "--limit", "1000", "--db", str(path),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    ranked = ROW.findall(result.stdout)
    assert len(ranked) == len(expected) > 0
    assert set(ranked) == priced & covered
    assert "SAMPLE DATA" in result.stdout
    for chip in priced - covered:
        assert chip in result.stdout  # named in the "not ranked" note, never silently dropped


def test_an_older_measurement_is_recorded_but_not_said_to_be_used(fresh_db):
    base = ["throughput", "add", "--chip", "H100-SXM", "--model", "llama-3-70b"]
    base += ["--workload", "inference", "--db", str(fresh_db)]
    newer = chipcost(*base, "--tokens-per-second", "1500", "--measured-on", "2026-11-20")
    assert "It is now the figure `chipcost cost` uses" in newer.stdout, newer.stderr
    older = chipcost(*base, "--tokens-per-second", "900", "--measured-on", "2026-10-01")
    assert older.returncode == 0, older.stderr
    assert "It is now the figure" not in older.stdout
    assert "Another figure stays the one `chipcost cost` uses" in older.stdout


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--origin", "bogus", "unknown origin 'bogus'; known: reference, user, derived"),
        ("--workload", "serving", "unknown workload 'serving'; known: training, inference"),
    ],
)
def test_throughput_list_names_the_values_it_takes(fresh_db, option, value, message):
    result = chipcost("throughput", "list", option, value, "--db", str(fresh_db))
    assert result.returncode == 2 and message in result.stderr, result.stderr


def _two_clouds(path: Path) -> Path:
    """aws (H100, H200), lambda (H100, H200) and verda (H200 only) in one run."""
    by_provider = {
        "aws": offers()[:1] + [offers()[2]],
        "lambda": [
            record(provider="lambda", source="lambda", region="global", instance_type="8x H100",
                   price_per_hour=20.0, sku="L1"),
            record(provider="lambda", source="lambda", region="global", instance_type="8x H200",
                   chip="H200", price_per_hour=28.0, sku="L2"),
        ],
        "verda": [
            record(provider="verda", source="verda", region="global", instance_type="8x H200",
                   chip="H200", price_per_hour=16.0, sku="V1"),
        ],
    }  # fmt: skip
    return warehouses.of_runs(path, [run_by_provider(by_provider, day(0))])


def test_the_baseline_is_taken_on_the_rows_own_provider_with_one_sign(tmp_path):
    db = _two_clouds(tmp_path / "w.duckdb")
    args = ("--model", "llama-3-70b", "--workload", "inference", "--db", str(db))
    result = chipcost("cost", *args, "--all-offers", "--format", "json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    h100 = {r["provider"]: r for r in rows if r["chip"] == "H100-SXM"}
    h200 = {r["provider"]: r for r in rows if r["chip"] == "H200"}
    for provider in ("aws", "lambda"):  # both offer H100: compared there
        row = h200[provider]
        assert (row["baseline_provider"], row["baseline_same_provider"]) == (provider, True)
        base = h100[provider]["usd_per_million_tokens"]
        assert row["baseline_usd_per_million_tokens"] == pytest.approx(base)
    # verda has no H100: its H200 is compared with the cheapest H100 elsewhere (lambda's)
    verda = h200["verda"]
    assert (verda["baseline_provider"], verda["baseline_same_provider"]) == ("lambda", False)
    for row in rows:
        change = row["usd_per_million_tokens"] / row["baseline_usd_per_million_tokens"] - 1
        assert row["change_vs_baseline_pct"] == pytest.approx(100 * change)
        word = "cheaper" if change < -0.005 else "dearer" if change > 0.005 else "as cheap"
        assert word in row["vs_baseline"]
    # the baseline's own offers change by nothing: 0, never "-0.0"
    assert "-0.0" not in result.stdout
    assert "-0.0" not in chipcost("cost", *args, "--all-offers", "--format", "csv").stdout
    table = chipcost("cost", *args, "--all-offers", env={"COLUMNS": "220"})
    assert table.returncode == 0, table.stderr
    line = next(x for x in table.stdout.splitlines() if "verda" in x)
    assert re.search(r"\d+% (cheaper|dearer)\*", line), line
    assert "marked *" in " ".join(table.stdout.split())


def test_training_ranks_by_cost_with_the_instances_needed_and_max_instances_drops(tmp_path):
    cheap_h100 = record(price_per_hour=8.0)  # $1 per H100-hour: cheaper per token than Trn2
    trn2 = offers()[3]
    db = warehouses.of_records(tmp_path / "w.duckdb", [cheap_h100, trn2])
    args = ("cost", "--model", "llama-3-70b", "--workload", "training", "--format", "json")
    result = chipcost(*args, "--db", str(db))
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    # 8 x 80 GB cannot hold 1,130 GB of training state, yet H100 ranks first: it is cheaper
    assert [r["chip"] for r in rows] == ["H100-SXM", "Trainium2"]
    assert (rows[0]["fits"], rows[0]["instances_needed"]) == (False, 2)
    assert rows[0]["usd_per_million_tokens"] < rows[1]["usd_per_million_tokens"]
    one = json.loads(chipcost(*args, "--max-instances", "1", "--db", str(db)).stdout)
    assert [r["chip"] for r in one] == ["Trainium2"]
    table = chipcost(*args[:-2], "--max-instances", "1", "--db", str(db), env={"COLUMNS": "200"})
    assert "offers needing more than 1 instance(s) left out" in " ".join(table.stdout.split())
    # inference keeps serving on one instance first: DeepSeek-V3's 671 GB of FP8 weights do
    # not fit 8 x 80 GB, so the cheaper H100 follows the Trainium2 that holds them
    inference = chipcost(
        "cost", "--model", "deepseek-v3", "--workload", "inference", "--format", "json",
        "--db", str(db),
    )  # fmt: skip
    assert inference.returncode == 0, inference.stderr
    served = json.loads(inference.stdout)
    assert [(r["chip"], r["fits"]) for r in served] == [("Trainium2", True), ("H100-SXM", False)]
    assert served[1]["usd_per_million_tokens"] < served[0]["usd_per_million_tokens"]


@pytest.mark.parametrize("width", [80, 95, 110, 130])
def test_vs_is_kept_at_any_width_and_where_to_buy_first_beside_it(db, width):
    """On 368c4bd `cost` at 80 columns dropped where (provider, region) before anything; then
    `vs`, the point of the command, went first: it is kept at any width now."""
    args = ("cost", "--model", "llama-3-70b", "--workload", "inference", "--db", str(db))
    result = chipcost(*args, env={"COLUMNS": str(width)})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    header = _header(result.stdout)
    assert "H100-SXM" in header.split(), header
    table = lines[next(i for i, line in enumerate(lines) if line.startswith("───")) :]
    assert max(len(line) for line in table[: len(table) // 2]) <= width
    # Where to buy is the first optional column kept, before $/chip-hr, tok/s and the figure.
    if "tok/s/chip" in header or "$/chip-hr" in header:
        # kept, on the row's line or folded under it (where its two words may wrap apart)
        assert "where" in header and "us-east-1" in result.stdout, header


@pytest.mark.parametrize(
    ("model", "example"),
    [("acme-chat-70b", "--parameters 70e9`"), ("acme-chat-1.5t", "--parameters 1.5e12`"),
     ("acme-chat", "--parameters N` (N: its parameter count)")],
)  # fmt: skip
def test_an_unknown_model_s_hint_gives_its_own_size_or_none(db, model, example):
    asked = chipcost("cost", "--model", model, "--workload", "inference", "--db", str(db))
    assert asked.returncode == 2, asked.stderr
    said = " ".join(asked.stderr.split())
    assert f"no throughput for model '{model}'" in said, said
    assert f"chipcost throughput model {model} {example}" in said, said
    assert "13e9" not in said


def test_a_model_named_as_inferencex_names_it_is_answered_with_its_equivalent(db):
    """llama-3.3-70b (InferenceX's, NIM's and TensorRT-LLM's name) is Llama 3 70B's
    architecture: cost and compare answer it with llama-3-70b's figures and say so
    (core/data/model_equivalents.csv); on 2b517ec it was "no throughput for model"."""
    import chipcost.api as api

    def asked(command: str, model: str, *more: str) -> Ran:
        pair = ("Trainium2", "H100-SXM") if command == "compare" else ()
        result = chipcost(
            command, *pair, "--model", model, "--workload", "inference", *more, "--db", str(db)
        )
        assert result.returncode == 0, result.stderr
        return result

    note = (
        "llama-3.3-70b is answered with the figures of llama-3-70b, the model it stands for "
        "(core/data/model_equivalents.csv says why)"
    )
    for command in ("cost", "compare"):
        same = asked(command, "llama-3-70b", "--format", "json").stdout
        assert asked(command, "Llama 3.3 70B", "--format", "json").stdout == same
        said = " ".join(asked(command, "llama-3.3-70b", "--wide").stdout.split())
        assert note in said, said
        assert note.split(":")[0] not in " ".join(asked(command, "llama-3-70b").stdout.split())
    frame = api.cost(model="llama-3.3-70b", workload="inference", db=str(db))
    assert frame.equals(api.cost(model="llama-3-70b", workload="inference", db=str(db)))
    # MLPerf's benchmark name, as every MLPerf evidence line prints it, is its model's
    same = asked("cost", "llama-3-70b", "--format", "json").stdout
    for benchmark in ("llama2-70b-99", "llama2-70b-99.9", "llama2-70b-interactive-99"):
        assert asked("cost", benchmark, "--format", "json").stdout == same, benchmark


def test_a_model_that_stands_for_another_takes_measurements_not_a_size(fresh_db):
    added = chipcost(
        "throughput", "add", "--chip", "H200", "--model", "llama-3.3-70b", "--workload",
        "inference", "--tokens-per-second", "900", "--speed", "30", "--db", str(fresh_db),
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert "H200 llama-3-70b (given as llama-3.3-70b) inference" in added.stdout
    listed = chipcost(
        "throughput", "list", "--model", "llama-3.3-70b", "--origin", "user", "--format",
        "json", "--db", str(fresh_db),
    )  # fmt: skip
    (row,) = json.loads(listed.stdout)
    assert (row["model"], row["published_model"]) == ("llama-3-70b", "llama-3.3-70b")
    assert row["notes"].startswith("Published for llama-3.3-70b; stands for llama-3-70b (")
    sized = chipcost(
        "throughput", "model", "llama-3.3-70b", "--parameters", "70B", "--db", str(fresh_db)
    )
    assert sized.returncode == 1 and "Traceback" not in sized.stderr
    said = " ".join(sized.stderr.split())
    assert "llama-3.3-70b is answered with the figures of llama-3-70b, a reference model" in said


def test_a_hugging_face_id_is_read_as_the_model_it_holds(db, fresh_db, tmp_path):
    """What a server serves ('meta-llama/Llama-3.3-70B-Instruct') names a model: reads answer
    with its figures and say how they read the id; where a figure is recorded under chipcost's
    name, the id is refused with that name (on 2b517ec: "no throughput for model
    'meta-llama-llama-3.3-70b-instruct'", and `throughput add` recorded a model of that name)."""
    asked = ("cost", "--workload", "inference", "--format", "json", "--db", str(db))
    same = chipcost(*asked, "--model", "llama-3-70b")
    read = chipcost(*asked, "--model", "meta-llama/Llama-3.3-70B-Instruct")
    assert read.returncode == 0, read.stderr
    assert read.stdout == same.stdout
    amd = "amd/Llama-3.3-70B-Instruct-FP8-KV"
    table = chipcost("cost", "--workload", "inference", "--model", amd, "--wide", "--db", str(db))
    said = " ".join(table.stdout.split())
    assert (
        "amd/Llama-3.3-70B-Instruct-FP8-KV is a Hugging Face id of llama-3.3-70b (FP8 not asked "
        "of the figures: --precision fp8 asks it), answered with "
        "the figures of llama-3-70b, the model it stands for" in said
    ), said
    added = chipcost(
        "throughput", "add", "--chip", "H200", "--model", "nvidia/Llama-3.3-70B-Instruct-FP8",
        "--workload", "inference", "--tokens-per-second", "900", "--db", str(fresh_db),
    )  # fmt: skip
    assert added.returncode == 2 and "Traceback" not in added.stderr
    assert (
        "--model 'nvidia/Llama-3.3-70B-Instruct-FP8' is a Hugging Face id: give chipcost's "
        "name for it, llama-3.3-70b"
    ) in " ".join(added.stderr.split())
    sheet = tmp_path / "m.csv"
    sheet.write_text(
        "chip,model,workload,tokens_per_second\nH200,llama-3-70b,inference,900\n"
        "H200,google/gemma-3-27b-it,inference,900\n",
        encoding="utf-8",
    )
    imported = chipcost("throughput", "import", str(sheet), "--db", str(fresh_db))
    assert imported.returncode == 1
    assert "line 3: model 'google/gemma-3-27b-it' is a Hugging Face id: give chipcost's name " \
        "for it, gemma-3-27b" in " ".join(imported.stderr.split())  # fmt: skip
    listed = chipcost("throughput", "list", "--origin", "user", "--format", "json",
                      "--db", str(fresh_db))  # fmt: skip
    assert json.loads(listed.stdout) == []
    # the listing finds the figures of the model an id holds
    found = chipcost("throughput", "list", "--model", "meta-llama/Llama-3.3-70B-Instruct",
                     "--format", "json", "--db", str(db))  # fmt: skip
    assert {r["model"] for r in json.loads(found.stdout)} == {"llama-3-70b"}


def test_the_ranking_shows_its_top_and_says_how_many_more(tmp_path):
    """`cost` on the sample ranks about 200 offers: the table shows the cheapest 25 and says how
    many more there are (on 2b517ec it printed 200 of them, 721 lines at 100 columns); csv and
    json keep every row, --limit shows more."""
    db = str(warehouses.sample(tmp_path / "w.duckdb", last=2))
    asked = ("cost", "--model", "llama-3-70b", "--workload", "inference", "--db", db)
    every = json.loads(chipcost(*asked, "--format", "json").stdout)
    table = chipcost(*asked, env={"COLUMNS": "200"})
    assert table.returncode == 0, table.stderr
    ranks = [int(m) for m in re.findall(r"^ *(\d+) {2,}\S", table.stdout, re.MULTILINE)]
    assert ranks == list(range(1, 26))
    assert f"{len(every) - 25} more rows: narrow with --chip/--region or --limit" in table.stdout
    # offers of GPUs chipcost cannot name are said as such, not as a chip called 'unknown'
    notes = " ".join(table.stdout.split())
    assert "not ranked, offers whose GPU names no chip chipcost knows" in notes
    unranked = re.search(r"not ranked, no throughput for llama-3-70b inference: ([^(]*)", notes)
    assert unranked and "unknown" not in unranked[1], notes
    more = chipcost(*asked, "--limit", "30", env={"COLUMNS": "200"})
    assert re.findall(r"^ *(\d+) {2,}\S", more.stdout, re.MULTILINE)[-1] == "30"


@pytest.mark.parametrize("name", ["?", "/*", "--"])
def test_a_model_of_punctuation_alone_is_refused_not_read_as_a_blank_name(db, tmp_path, name):
    """normalise_model keeps letters, digits and dots: '?' was the model '' (cost said "no
    throughput for model ''" and advised `throughput add --model  ...`; add recorded it)."""
    for args in (
        ("cost", "--workload", "inference", "--model", name),
        ("compare", "H100-SXM", "H200", "--workload", "inference", "--model", name),
    ):
        done = chipcost(*args, "--db", str(db))
        assert done.returncode == 2 and "names no model" in done.stderr, done.stderr
        assert "--model  " not in done.stderr
    mine = warehouses.new(tmp_path / "w.duckdb")
    added = run_chipcost("throughput", "add", "--chip", "H100-SXM", "--model", name,
                         "--workload", "inference", "--tokens-per-second", "900",
                         "--db", str(mine))  # fmt: skip
    assert added.returncode == 2 and "recorded" not in added.stdout, added.stderr
    assert "names no model" in added.stderr or "Hugging Face id" in added.stderr  # '/*'


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--tokens", "1e308"), "--tokens 1e308: more tokens than any workload"),
        (("--migration-cost", "1e300", "--daily-tokens", "1B"), "--migration-cost 1e300: more"),
        (("--migration-cost", "36000", "--daily-tokens", "2e18"), "--daily-tokens 2e18: more"),
    ],
)
def test_a_quantity_past_any_workload_is_refused_not_printed_in_300_digits(db, args, said):
    done = chipcost("cost", "--workload", "inference", "--model", "llama-3-70b", *args,
                    "--db", str(db))  # fmt: skip
    assert done.returncode == 2 and said in " ".join(done.stderr.split()), done.stderr
    assert not re.search(r"\d{40}", done.stdout + done.stderr)
