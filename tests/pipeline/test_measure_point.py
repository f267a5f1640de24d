"""The point `measure --match CHIP` measures at, read from a real warehouse seeded with the
shipped catalogue: the chosen figure's shape, or (when it states none, as MLPerf's rows) the
shape given, else the nearest public curve's, an InferenceX curve first with its client."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipcost.core.catalog import canonical_chips
from chipcost.core.errors import ChipcostError
from chipcost.core.figures import COLUMNS, DEFAULT_SPEED
from chipcost.pipeline.endpoint import Endpoint
from chipcost.pipeline.measure import Setup
from chipcost.pipeline.measure_point import matched_point
from chipcost.transform.throughput_figures import figure_from_row
from chipcost.warehouse.db import connect
from chipcost.warehouse.insert import insert_rows
from tests.cli.test_cost_cli import _warehouse

# Rows in the shape of the InferenceX catalogue (source starting "InferenceX", 1k/1k, one row
# per concurrency of a sweep); the numbers are made up for the test, not InferenceX's.
SWEEP = {4: 60.0, 16: 35.0, 64: 12.0}


def inferencex_rows() -> list:
    return [
        figure_from_row(
            {
                "chip": "H100-SXM",
                "model": "llama-3-70b",
                "workload": "inference",
                "kind": "independent",
                "tokens_per_second": str(100 * c),
                "per": "instance",
                "chips": "8",
                "precision": "fp8",
                "operating_point": "latency-bound",
                "tokens_per_second_per_user": str(user),
                "input_tokens": "1024",
                "output_tokens": "1024",
                "concurrency": str(c),
                "system": "8 x H100-SXM (test)",
                "source": "InferenceX (test rows)",
                "source_date": "2026-11-01",
            },  # fmt: skip
            chips=canonical_chips(),
            origin="reference",
            throughput_id=f"inferencex-test-c{c}",
        )
        for c, user in SWEEP.items()
    ]


def with_inferencex(db: Path) -> Path:
    con = connect(db)
    try:
        insert_rows(
            con, "throughput", [*COLUMNS, "recorded_at"],
            [[*f.values(), None] for f in inferencex_rows()],
        )  # fmt: skip
    finally:
        con.close()
    return db


@pytest.fixture(scope="module")
def shipped(tmp_path_factory) -> Path:
    return _warehouse(tmp_path_factory.mktemp("shipped") / "w.duckdb")


@pytest.fixture(scope="module")
def with_curve(tmp_path_factory) -> Path:
    return with_inferencex(_warehouse(tmp_path_factory.mktemp("curve") / "w.duckdb"))


def _matched(db: Path, speed: str = DEFAULT_SPEED, given=None):
    con = connect(db, read_only=True)
    try:
        return matched_point(con, "H100-SXM", "llama-3-70b", speed, given)
    finally:
        con.close()


def test_without_a_shaped_figure_the_nearest_shaped_curve_is_taken(shipped):
    baseline = _matched(shipped)
    assert (baseline.input_tokens, baseline.output_tokens) == (5000, 500)  # NIM's curve
    assert "states no input and output tokens" in baseline.taken and "NIM" in baseline.taken
    assert baseline.client.range_ratio is None and baseline.prompts_per_user is None


def test_a_shape_given_stands_for_the_figures_own(shipped):
    baseline = _matched(shipped, given=(2000, 300))
    assert (baseline.input_tokens, baseline.output_tokens) == (2000, 300)
    assert "measured at the 2000/300 given" in baseline.taken


def test_a_shaped_figure_refuses_another_shape(shipped):
    with pytest.raises(ChipcostError, match="was measured at 5000/500"):
        _matched(shipped, speed="25", given=(2000, 300))


def test_an_inferencex_curve_comes_first_with_its_client(with_curve):
    baseline = _matched(with_curve)
    assert (baseline.input_tokens, baseline.output_tokens) == (1024, 1024)
    assert baseline.concurrencies == tuple(SWEEP)
    assert baseline.client.range_ratio == 0.8 and baseline.prompts_per_user == 10
    assert "InferenceX" in baseline.named
    setup = Setup(
        chip="Trainium2", model="llama-3-70b", chips=4, instance=None, precision="fp8",
        software="x", endpoint=Endpoint("http://h:1"), served_model=None, tokenizer="t",
        input_tokens=1024, output_tokens=1024, concurrencies=list(SWEEP), requests=None,
        seconds=60, request_timeout=60, baseline=baseline,
    )  # fmt: skip
    assert [setup.requests_at(c) for c in SWEEP] == [40, 160, 640]  # ten prompts a user
