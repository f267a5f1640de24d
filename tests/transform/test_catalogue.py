"""The throughput catalogue (core/data/throughput/): every file loads, figures carry their
operating point, per-system figures become per-chip, a published model stands for another only
by the stated rule, and bad rows are refused naming the file and line."""

from __future__ import annotations

from collections import defaultdict

import pytest

from chipcost.core.catalog import canonical_chips
from chipcost.core.errors import ChipcostError
from chipcost.transform.precision import WEIGHT_BYTES
from chipcost.transform.references import (
    model_equivalents,
    model_rows,
    throughput_files,
    throughput_references,
)
from chipcost.transform.throughput_figures import figures_from_rows

GOOD = {
    "id": "x-1",
    "chip": "H100-SXM",
    "model": "llama-2-70b",
    "workload": "inference",
    "kind": "benchmark",
    "tokens_per_second": "24524.9",
    "per": "system",
    "chips": "8",
    "operating_point": "max-throughput",
    "scenario": "Offline",
    "source": "MLPerf Inference v4.1",
    "source_date": "2024-08-28",
}


def load(*rows: dict) -> list:
    return figures_from_rows(
        rows,
        chips=canonical_chips(),
        origin="reference",
        where="core/data/throughput/test.csv",
        equivalents=model_equivalents(),
        models=[str(m["model"]) for m in model_rows()],
    )


def test_a_per_system_figure_becomes_per_chip_and_stands_for_its_model_by_the_rule():
    [figure] = load(GOOD)
    assert figure.tokens_per_second_per_chip == pytest.approx(24524.9 / 8)
    assert (figure.model, figure.published_model) == ("llama-3-70b", "llama-2-70b")
    assert figure.notes.startswith("Published for llama-2-70b; stands for llama-3-70b (")
    assert figure.stated_as == "24,524.9 tokens/s per instance of 8 chips"
    assert (figure.operating_point, figure.scenario) == ("max-throughput", "Offline")


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"operating_point": ""}, "operating_point is empty"),
        ({"operating_point": "fast"}, "operating_point 'fast' is not one of"),
        ({"operating_point": "unstated"}, "'unstated' is for an author's estimate only"),
        ({"operating_point": "training"}, "does not fit a inference figure"),
        ({"chips": ""}, "needs the instance's chip count"),
        ({"model": "my-13b"}, "model 'my-13b' has no config in core/data/models.csv"),
        ({"chip": "H100"}, "chip 'H100' is not a canonical chip"),
        ({"kind": "rumour"}, "kind 'rumour' is not one of"),
    ],
)
def test_a_bad_row_is_refused_naming_the_file_line_and_what_to_give(change, said):
    with pytest.raises(ChipcostError) as error:
        load({**GOOD, "id": "x-ok"}, {**GOOD, **change})
    assert "core/data/throughput/test.csv has bad rows (nothing was loaded)" in str(error.value)
    assert any(d.startswith("line 3: ") and said in d for d in error.value.details), (
        error.value.details
    )


def test_every_shipped_file_loads_with_unique_ids_and_an_operating_point():
    figures = throughput_references()
    assert len(throughput_files()) >= 3
    assert len({f.throughput_id for f in figures}) == len(figures)
    assert all(f.operating_point for f in figures)
    assert all(f.source and f.source_date and f.stated_as for f in figures)


def test_measured_figures_cover_the_chips_the_question_is_about():
    figures = [f for f in throughput_references() if f.kind in ("benchmark", "vendor-claim")]
    inference_70b = {f.chip for f in figures if f.model == "llama-3-70b"}
    assert {"H100-SXM", "H200", "B200", "GB200", "MI300X"} <= inference_70b
    assert {"H100-SXM", "H200"} <= {f.chip for f in figures if f.model == "llama-3-8b"}


def test_h200_is_above_h100_at_every_70b_point_both_have():
    """The same publication, scenario, sequence lengths and serving configuration (framework,
    GPUs and parallel layout: a curve publication such as InferenceX sweeps several per chip):
    H200 ahead of H100-SXM per chip."""
    points: dict[tuple, dict[str, float]] = defaultdict(dict)
    for f in throughput_references():
        if f.model == "llama-3-70b" and f.chip in ("H100-SXM", "H200"):
            layout = (f.software or "").split(",")[0], (f.system or "").replace(f.chip, "")
            key = (f.source.split(",")[0], f.scenario, f.input_tokens, f.output_tokens, *layout)
            points[key][f.chip] = f.tokens_per_second_per_chip
    shared = {k: v for k, v in points.items() if len(v) == 2}
    assert len(shared) >= 10
    assert all(v["H200"] > v["H100-SXM"] for v in shared.values()), shared


# The precisions a figure may be stored at (transform/precision.py; docs/cost-per-token.md,
# "The throughput catalogue"): block-scaled 4-bit formats (NVFP4, MXFP4) are fp4; the
# document's own words are kept in precision_stated.
PRECISION_CLASSES = set(WEIGHT_BYTES)


def test_every_figure_states_a_known_precision_class_or_none():
    stated = {f.throughput_id: f.precision for f in throughput_references() if f.precision}
    assert set(stated.values()) <= PRECISION_CLASSES, {
        i: p for i, p in stated.items() if p not in PRECISION_CLASSES
    }
    # every training figure of MLPerf, NeMo, MaxText and Neuron that states one is classed
    training = [f for f in throughput_references() if f.workload == "training" and f.precision]
    assert len(training) >= 50
