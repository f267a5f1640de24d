"""Training throughput calibrated on the published training figures: each chip at the MFU its
own figures reach (8B and 70B apart), its family's where it has none, the flat assumption
where nothing is published; held against the documents' own numbers."""

from __future__ import annotations

import statistics
from dataclasses import replace

import pytest

from chipcost.core.catalog import chip_rows
from chipcost.pipeline.seed import open_warehouse
from chipcost.transform.references import derivation_assumptions, model_rows, throughput_references
from chipcost.transform.training import (
    calibrate_training,
    calibration_for,
    calibrations,
    held_out,
)
from tests import warehouses

CHIPS = {str(c["chip"]): c for c in chip_rows()}
MODELS = {str(m["model"]): m for m in model_rows()}
LLAMA_8B, LLAMA_70B, LLAMA_405B = 8.03e9, 70.6e9, 405e9


def mfu(tokens_per_second_per_chip: float, parameters: float, peak_tflops: float) -> float:
    return tokens_per_second_per_chip * 6 * parameters / (peak_tflops * 1e12)


@pytest.fixture(scope="module")
def table():
    return calibrations(throughput_references(), CHIPS, MODELS)


def calibration(table, chip: str, model: str):
    return calibration_for(CHIPS[chip], MODELS[model], table)


def test_trainium1_trains_8b_and_70b_at_the_mfus_neurons_table_gives(table):
    # Neuron's Trn1 table: 47.95 and 7.94 sequences/s of 8,192 tokens on 32 x trn1.32xlarge
    # (512 chips), BF16; Trainium1's dense BF16 peak is 190 TFLOPS.
    small = calibration(table, "Trainium1", "llama-3-8b")
    large = calibration(table, "Trainium1", "llama-3-70b")
    assert small.mfu == pytest.approx(mfu(47.95 * 8192 / 512, LLAMA_8B, 190))  # 19.5%
    assert large.mfu == pytest.approx(mfu(7.94 * 8192 / 512, LLAMA_70B, 190))  # 28.3%
    assert (small.precision, large.precision, large.scope) == ("bf16", "bf16", "Trainium1")
    # Trainium2 publishes no training table: it trains at its family's (Trainium1's) MFU
    assert calibration(table, "Trainium2", "llama-3-70b").mfu == large.mfu
    assert calibration(table, "Trainium2", "llama-3-70b").scope == "the Trainium family"


def test_tpus_train_at_the_mfus_maxtexts_table_gives(table):
    # MaxText's table, tokens/s per chip at BF16: v6e 7,207 (Llama 3.1 8B); v5p 692 (Llama 2
    # 70B) and 2,909 (Mixtral 8x7B, 12.9B active) against 918 and 459 TFLOPS.
    v6e = calibration(table, "TPU-v6e", "llama-3-8b")
    assert v6e.mfu == pytest.approx(mfu(7207, LLAMA_8B, 918))
    v5p = calibration(table, "TPU-v5p", "llama-3-70b")
    assert v5p.mfu == pytest.approx(
        statistics.median([mfu(692, LLAMA_70B, 459), mfu(2909, 12.9e9, 459)])
    )
    # v5e has none of its own: the TPU family's large-model figures (v5p's and v6e's)
    assert calibration(table, "TPU-v5e", "llama-3-70b").scope == "the TPU family"


def test_gpus_train_at_the_fp8_mfu_of_their_mlperf_runs(table):
    # MLPerf Training v5.1, Llama 3.1 405B on 512 and 1,024 H200 (Nebius): about 43% of the
    # dense FP8 peak (1,979 TFLOPS); a Hopper chip's 70B derivation uses it.
    h200 = calibration(table, "H200", "llama-3.1-405b")
    assert h200.precision == "fp8" and len(h200.figures) == 2
    assert 0.40 < h200.mfu < 0.46
    # H100's own 70B runs (NeMo's performance summary, 64 GPUs, FP8): about 36% of the peak
    h100 = calibration(table, "H100-SXM", "llama-3-70b")
    assert h100.scope == "H100-SXM" and all(f.startswith("nemo-") for f in h100.figures)
    assert 0.33 < h100.mfu < 0.39
    # 8B on H100 trains at less: Cisco's MLPerf runs on 64 and 128 GPUs reach about 22%, NeMo's
    # on 8 GPUs (25.09, 25.11) about 37%; their median is below the 70B class's, the two
    # classes calibrated apart, not averaged
    small = calibration(table, "H100-SXM", "llama-3-8b")
    assert small.mfu < h100.mfu and set(small.figures).isdisjoint(h100.figures)
    assert len(small.figures) == 4


def test_estimates_and_figures_beyond_the_peak_calibrate_nothing():
    [figure] = [f for f in throughput_references() if f.throughput_id.startswith("maxtext-v5p-l")]
    estimate = replace(figure, kind="estimate")
    impossible = replace(figure, tokens_per_second_per_chip=figure.tokens_per_second_per_chip * 2)
    # an NVFP4 run's share of the FP8 peak would credit FP8 training with what FP4 reaches
    four_bit = replace(figure, precision="fp4")
    assert calibrations([estimate, impossible, four_bit], CHIPS, MODELS) == {}


def test_a_chip_without_published_figures_keeps_the_flat_assumption():
    flat = [r for r in derivation_assumptions() if r.workload == "training"][0]
    [figure] = [f for f in throughput_references() if f.throughput_id.startswith("maxtext-v5p-l")]
    derived = replace(figure, chip="MI300X", kind="derived", mfu=flat.mfu, origin="derived")
    # MI300X (CDNA3) and its family publish no training figure: the flat figure stays as it is
    [kept] = calibrate_training([derived], throughput_references(), CHIPS.values(), MODELS.values())
    assert kept is derived
    # the same figure on TPU-v5p (its own MaxText rows) is redone at the calibrated MFU
    [redone] = calibrate_training(
        [replace(derived, chip="TPU-v5p")], throughput_references(), CHIPS.values(), MODELS.values()
    )
    assert redone.mfu != flat.mfu and redone.source.startswith("chipcost derivation calibrated")


def test_a_check_leaves_its_own_document_out():
    flat = [r for r in derivation_assumptions() if r.workload == "training"][0]
    [figure] = [
        f
        for f in throughput_references()
        if f.throughput_id.startswith("neuron-trn1-llama-3.1-70b")
    ]
    tps, how = held_out(figure, throughput_references(), CHIPS, MODELS, flat)
    # without Neuron's 70B row, Trainium1 has only its 8B row: 19.5% of 190 TFLOPS for 70B
    assert tps == pytest.approx(190e12 * mfu(47.95 * 8192 / 512, LLAMA_8B, 190) / (6 * LLAMA_70B))
    assert how == "MFU 0.19 of the BF16 peak (Trainium1, of any size)"


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    connection = open_warehouse(warehouses.new(tmp_path_factory.mktemp("training") / "w.duckdb"))
    yield connection
    connection.close()


def test_the_warehouse_chooses_published_training_figures_and_calibrates_the_rest(con):
    chosen = con.execute(
        "SELECT chip, model, kind, throughput_id, mfu, source FROM throughput_ranked "
        "WHERE chosen AND workload = 'training'"
    ).fetchall()
    published = {chip for chip, _, kind, *_ in chosen if kind not in ("derived", "estimate")}
    assert {"H100-SXM", "H200", "B200", "GB200", "MI355X", "TPU-v6e", "Trainium1"} <= published
    by_key = {(chip, model): rest for chip, model, *rest in chosen}
    assert by_key["TPU-v6e", "llama-3-70b"][0] == "vendor-claim"
    # NeMo's performance summary publishes H100's Llama 3 70B pre-training (64 GPUs, FP8)
    kind, ident, *_ = by_key["H100-SXM", "llama-3-70b"]
    assert kind == "vendor-claim" and ident.startswith("nemo-")
    # H200 publishes 405B only: its 70B figure is derived, calibrated on its own two runs
    kind, ident, h200_mfu, source = by_key["H200", "llama-3-70b"]
    assert (kind, ident) == ("derived", "derived:H200:llama-3-70b:training")
    assert source.startswith("chipcost derivation calibrated on 2 published training figure(s)")
    assert h200_mfu == pytest.approx(
        calibration_for(
            CHIPS["H200"],
            MODELS["llama-3-70b"],
            calibrations(throughput_references(), CHIPS, MODELS),
        ).mfu
    )
    trainium2 = {m: by_key["Trainium2", m] for m in ("llama-3-8b", "llama-3-70b")}
    assert trainium2["llama-3-8b"][2] < trainium2["llama-3-70b"][2]  # 8B and 70B apart
