"""The derivation's error against the catalogue: published in docs/cost-per-token.md, and kept
from growing. Raising a ceiling here is a decision to publish a worse derivation: say why in
the commit and update the docs' table (scripts/throughput/derivation_error.py prints it)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from chipcost.transform.derivation_error import checks, summaries

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cost-per-token.md"
SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "throughput" / "derivation_error.py"

# (workload, group): (at least this many figures checked, median factor, worst factor)
# MLPerf Inference v5.1's Llama 3.1 405B, DeepSeek-R1 and Mixtral results (and MI355X's open one)
# joined the catalogue: the roofline promises 405B up to 19 times what was measured (long
# prompts against its 1,000/1,000 tokens, no communication between 8 to 72 chips).
CEILINGS = {
    # Ironwood's Qwen3-32B figures (tpu-recipes, FP8 on one chip): the roofline promises 1.6 to
    # 2.3 times what Google measured, which moves both medians past 1.8 and 1.55
    # InferenceX's Llama 3.3 70B single-node curves joined the check (661 points at
    # concurrency 4-64, where the bare roofline, serving the largest batch the memory holds,
    # promises about twice what was measured): all 1.78 -> 1.94, FP8/BF16 1.57 -> 1.68, FP4
    # 2.03 -> 2.41, its worst 10.8 -> 11.6 (MI355X FP4 at concurrency 32)
    ("inference", "all"): (1100, 2.0, 15.0),
    ("inference", "FP8/BF16 figures"): (650, 1.72, 15.0),
    # MLPerf Inference v6.0's 405B Interactive results on B300 (FP4): the roofline promises
    # 10.8 times what was measured there (11.6 before B300's NVLink was in interconnect.csv),
    # against 10.7 at worst on v5.1's B200
    ("inference", "FP4 figures"): (450, 2.45, 11.7),
    # 49 published training figures (MLPerf Training v5.1, MaxText, Neuron) and two article
    # estimates, each against the MFU calibrated without its own document's figures of its
    # model; worst: MLPerf's Llama 3.1 8B on 512 GB200, where scale costs three quarters
    ("training", "all"): (50, 1.4, 4.3),
}


@pytest.fixture(scope="module")
def found():
    return checks()


def test_the_error_does_not_grow(found):
    rows = {(s.workload, s.group): s for s in summaries(found)}
    assert set(rows) == set(CEILINGS)
    for key, (count, median, worst) in CEILINGS.items():
        row = rows[key]
        assert row.count >= count, key  # fewer checks would hide error, not remove it
        assert row.median_factor <= median, (key, row)
        assert row.worst_factor <= worst, (key, row)
        if key[0] == "training":
            # the derivation neither promises nor withholds systematically (within a third).
            # Not so the bare inference roofline: FP4 figures are held to the FP8 peak, and
            # InferenceX's curves (most of the inference checks) run at concurrency 4-64,
            # below the batch the memory holds that the roofline serves, so it promises 1.6
            # times the median there; the fitted derivation's line in the per-user speed and
            # each chip's efficiency take that out (tests/transform/test_derivation_fit.py)
            assert 0.75 <= row.median_ratio <= 1.34, (key, row)


def test_every_check_is_of_a_published_figure_at_its_own_point(found):
    assert found
    for check in found:
        assert check.kind != "derived"
        assert check.measured > 0 and check.derived > 0, check
        if check.workload == "inference":
            assert "(derived: batch" in check.point, check
        else:
            assert check.point.startswith("MFU "), check


def test_the_one_request_trainium2_figure_is_checked_at_batch_one(found):
    (check,) = [c for c in found if c.throughput_id == "neuron-trn2-llama-3.3-70b-bf16-batch-1"]
    # Neuron's tutorial measured 36.56 tokens/s per user on 16 chips: 2.285 per chip
    assert check.measured == pytest.approx(36.56 / 16)
    assert "batch 1 on" in check.point


def test_the_docs_tables_are_what_the_script_writes():
    """Every table of the page's marked blocks, regenerated: the page must be current."""
    spec = importlib.util.spec_from_file_location("derivation_error_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    text = DOCS.read_text(encoding="utf-8")
    assert module.rewritten(text) == text, (
        "docs/cost-per-token.md's derivation tables are stale: run "
        ".venv/bin/python scripts/throughput/derivation_error.py --write"
    )


def test_the_page_has_a_row_for_every_vendor_family():
    spec = importlib.util.spec_from_file_location("derivation_error_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    table = module.families_markdown()
    for family in ("NVIDIA", "AMD", "AWS (Trainium, Inferentia)", "Google TPU", "Intel (Gaudi)"):
        assert f"| {family} |" in table, family
    # a family without a figure is said to have none, not left out
    for row in table.splitlines()[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert (cells[2] == "0") == (cells[4] == "no checks"), row
