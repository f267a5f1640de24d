"""A published training-cost table recomputed from its own throughput and price inputs.

"AWS Trainium3 vs NVIDIA H100: AI Training Cost and Performance in 2026" (Bits Lovers, no date
given) prices 300B training tokens with on-demand per-chip prices and a 15% overhead. Its
per-chip prices and savings column follow from its other figures; its cost columns do not
follow from its throughput table, and its throughput table does not fit its MFU table or the
chips' peaks. docs/cost-per-token.md shows the arithmetic; this file keeps it honest.
"""

from __future__ import annotations

import pytest

from chipcost.transform.references import model_rows, throughput_references
from chipcost.transform.tokens import (
    cost_to_train,
    derived_tokens_per_second,
    flops_per_token,
    implied_mfu,
    savings_fraction,
)

TOKENS = 300e9
OVERHEAD = 0.15
TRN3_PER_CHIP = 2.97  # trn3.48xlarge ~$47.50 / 16 chips, as the article rounds it
H100_PER_CHIP = 12.29  # p5.48xlarge ~$98.32 / 8 GPUs

# model -> the article's cost table: (Trainium3 cost, H100 cost, savings), and what its own
# throughput table and prices give instead (docs/cost-per-token.md).
ARTICLE_TABLE = {
    "llama-3-70b": ((164_000, 308_000, 0.47), (9_987, 43_947, 0.773)),
    "gpt-3-175b": ((295_000, 540_000, 0.45), (22_954, 105_160, 0.782)),
    "llama-3-8b": ((47_000, 79_000, 0.41), (2_904, 11_217, 0.741)),
    "bert-large": ((22_000, 29_000, 0.24), (1_355, 5_235, 0.741)),
}


def _reference(chip: str, model: str) -> float:
    """The article's own figure (the catalogue also holds MLPerf's for these chips)."""
    (figure,) = [
        f
        for f in throughput_references()
        if f.chip == chip
        and f.model == model
        and f.workload == "training"
        and f.throughput_id.startswith("bitslovers-")
    ]
    return figure.tokens_per_second_per_chip


def test_the_per_chip_prices_follow_from_the_instance_prices():
    assert round(47.50 / 16, 2) == TRN3_PER_CHIP
    assert round(98.32 / 8, 2) == H100_PER_CHIP


@pytest.mark.parametrize("model", ARTICLE_TABLE)
def test_the_savings_column_follows_from_the_cost_columns(model):
    (trn3, h100, printed), _ = ARTICLE_TABLE[model]
    assert round(savings_fraction(trn3, h100), 2) == printed


@pytest.mark.parametrize("model", ARTICLE_TABLE)
def test_the_cost_columns_do_not_follow_from_the_throughput_table(model):
    (printed_trn3, printed_h100, printed_savings), (trn3, h100, savings) = ARTICLE_TABLE[model]
    ours_trn3 = cost_to_train(TOKENS, _reference("Trainium3", model), TRN3_PER_CHIP, OVERHEAD)
    ours_h100 = cost_to_train(TOKENS, _reference("H100-SXM", model), H100_PER_CHIP, OVERHEAD)
    assert ours_trn3 == pytest.approx(trn3, abs=1)
    assert ours_h100 == pytest.approx(h100, abs=1)
    assert savings_fraction(ours_trn3, ours_h100) == pytest.approx(savings, abs=1e-3)
    # The article's costs are 13-16x (Trainium3) and 5-7x (H100) what its inputs give, and
    # not by one factor, so no single missing term (overhead, a unit) explains them.
    assert 12 < printed_trn3 / ours_trn3 < 17
    assert 5 < printed_h100 / ours_h100 < 7.1
    assert printed_savings < savings - 0.25


@pytest.mark.parametrize(
    ("chip", "peak_fp8", "model"),
    [
        ("Trainium3", 2517, "gpt-3-175b"),
        ("Trainium3", 2517, "llama-3-70b"),
        ("Trainium3", 2517, "llama-3-8b"),
        ("H100-SXM", 1979, "gpt-3-175b"),
        ("H100-SXM", 1979, "llama-3-70b"),
        ("H100-SXM", 1979, "llama-3-8b"),
    ],
)
def test_the_llm_throughput_figures_exceed_the_chips_fp8_peak(chip, peak_fp8, model):
    parameters = {m["model"]: m["parameters"] for m in model_rows()}[model]
    needed = implied_mfu(_reference(chip, model), flops_per_token(parameters, "training"), peak_fp8)
    assert needed > 1.8  # the article's own MFU table says 42-61%


@pytest.mark.parametrize(("chip", "peak_fp8"), [("Trainium3", 2517), ("H100-SXM", 1979)])
def test_only_bert_large_fits_under_the_peak(chip, peak_fp8):
    parameters = {m["model"]: m["parameters"] for m in model_rows()}["bert-large"]
    per_token = flops_per_token(parameters, "training")
    assert implied_mfu(_reference(chip, "bert-large"), per_token, peak_fp8) < 0.7


def test_the_stated_50_percent_mfu_does_not_give_the_costs_either():
    # With the article's own BF16 peaks (~1.26 PFLOPS, 990 TFLOPS), Llama 3 70B.
    parameters = {m["model"]: m["parameters"] for m in model_rows()}["llama-3-70b"]
    per_token = flops_per_token(parameters, "training")
    trn3 = cost_to_train(
        TOKENS, derived_tokens_per_second(1260, 0.5, per_token), TRN3_PER_CHIP, OVERHEAD
    )
    h100 = cost_to_train(
        TOKENS, derived_tokens_per_second(990, 0.5, per_token), H100_PER_CHIP, OVERHEAD
    )
    assert trn3 == pytest.approx(191_376, abs=1)
    assert h100 == pytest.approx(1_007_904, abs=1)
    assert savings_fraction(trn3, h100) == pytest.approx(0.81, abs=0.005)  # not 47%
