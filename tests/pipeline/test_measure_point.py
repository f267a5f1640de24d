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
from chipcost.warehouse.cost_per_token import at_speed, figures
from chipcost.warehouse.db import connect
from chipcost.warehouse.insert import insert_rows
from tests.cli.test_cost_cli import _warehouse

# Rows in the shape of the InferenceX catalogue (its source as the catalogue words it, InferenceX
# named inside it; one row per concurrency of a sweep); the numbers are made up for the test,
# not InferenceX's.
SWEEP = {4: 60.0, 16: 35.0, 64: 12.0}
INFERENCEX_SOURCE = "SemiAnalysis InferenceX (formerly InferenceMAX), test rows"


def inferencex_rows(
    sweep: dict[int, float] = SWEEP,
    *,
    chip: str = "H100-SXM",
    model: str = "llama-3-70b",
    shape: tuple[int, int] = (1024, 1024),
    software: str = "vLLM (test)",
    date: str = "2026-11-01",
    tag: str = "test",
) -> list:
    """One curve: a row per concurrency of `sweep` (concurrency: tokens/s per user), 8 chips
    in FP8, each user's speed times the concurrency x 100 tokens/s for the instance."""
    return [
        figure_from_row(
            {
                "chip": chip,
                "model": model,
                "workload": "inference",
                "kind": "independent",
                "tokens_per_second": str(100 * c),
                "per": "instance",
                "chips": "8",
                "precision": "fp8",
                "operating_point": "latency-bound",
                "tokens_per_second_per_user": str(user),
                "input_tokens": str(shape[0]),
                "output_tokens": str(shape[1]),
                "concurrency": str(c),
                "system": f"8 x {chip} (test)",
                "software": software,
                "source": INFERENCEX_SOURCE,
                "source_date": date,
            },  # fmt: skip
            chips=canonical_chips(),
            origin="reference",
            throughput_id=f"inferencex-{tag}-c{c}",
        )
        for c, user in sweep.items()
    ]


def with_inferencex(db: Path, rows: list | None = None) -> Path:
    con = connect(db)
    try:
        insert_rows(
            con, "throughput", [*COLUMNS, "recorded_at"],
            [[*f.values(), None] for f in (inferencex_rows() if rows is None else rows)],
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


def _matched(
    db: Path, speed: str = DEFAULT_SPEED, given=None, chip="H100-SXM", model="llama-3-70b"
):
    con = connect(db, read_only=True)
    try:
        return matched_point(con, chip, model, speed, given)
    finally:
        con.close()


def _chosen(db: Path, chip: str, model: str, speed: str) -> dict:
    """The figure cost and compare use for the chip at the speed (throughput_ranked's)."""
    con = connect(db, read_only=True)
    try:
        with at_speed(con, speed):
            rows = figures(con, model, "inference").rows
    finally:
        con.close()
    [row] = [r for r in rows if r["chip"] == chip and r["chosen"]]
    return row


def _curve_sweep(db: Path, point: str) -> tuple[int, ...]:
    """The concurrencies of the rows published with `point`: its source, chip, model, shape,
    precision, software, chips and system."""
    con = connect(db, read_only=True)
    try:
        same = " AND ".join(
            f"c.{k} IS NOT DISTINCT FROM p.{k}"
            for k in ("source", "chip", "model", "input_tokens", "output_tokens", "precision",
                      "software", "chips", "system")
        )  # fmt: skip
        found = con.execute(
            f"SELECT DISTINCT c.concurrency FROM throughput p JOIN throughput c ON {same} "
            "WHERE p.throughput_id = ? ORDER BY 1",
            [point],
        ).fetchall()
    finally:
        con.close()
    return tuple(c for (c,) in found)


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


def test_the_catalogues_inferencex_curve_is_rerun_with_its_client(shipped):
    """The shipped InferenceX rows name it inside their source ("SemiAnalysis InferenceX ..."):
    H200's DeepSeek-R1 figure at 5 tokens/s per user is the top of its 1k/8k SGLang sweep."""
    chosen = _chosen(shipped, "H200", "deepseek-r1", "5")
    assert "InferenceX" in chosen["source"] and not chosen["source"].startswith("InferenceX")
    baseline = _matched(shipped, "5", chip="H200", model="deepseek-r1")
    assert (baseline.input_tokens, baseline.output_tokens) == (1024, 8192)
    assert baseline.client.range_ratio == 0.8 and baseline.prompts_per_user == 10
    assert baseline.concurrencies == _curve_sweep(shipped, chosen["throughput_id"])
    assert len(baseline.concurrencies) > 1 and "with InferenceX's client" in baseline.named


def test_an_interpolated_figure_is_measured_as_the_curve_it_was_read_from(shipped):
    """At 50 tokens/s per user H200's figure is read between two points of one curve: its id
    (the faster point's, '@50' after it) has no row, its curve does."""
    chosen = _chosen(shipped, "H200", "deepseek-r1", "50")
    point, at, speed = chosen["throughput_id"].rpartition("@")
    assert chosen["interpolated"] and at and speed == "50"
    baseline = _matched(shipped, "50", chip="H200", model="deepseek-r1")
    assert (baseline.input_tokens, baseline.output_tokens) == (
        chosen["input_tokens"], chosen["output_tokens"],
    )  # fmt: skip
    assert baseline.concurrencies == _curve_sweep(shipped, point)
    assert baseline.client.range_ratio == 0.8 and baseline.prompts_per_user == 10
    assert chosen["throughput_id"] in baseline.named


def test_the_sweep_is_one_curves_not_its_neighbours(tmp_path):
    """Another configuration of the same source, chip, model and shape (other serving
    software, an older run of it) is another curve: its concurrencies are not swept."""
    db = _warehouse(tmp_path / "w.duckdb")
    with_inferencex(db, [
        *inferencex_rows(),
        *inferencex_rows({8: 45.0, 32: 20.0}, software="TensorRT-LLM (test)", tag="trt"),
        *inferencex_rows({2: 70.0, 8: 48.0}, date="2026-10-01", tag="older"),
    ])  # fmt: skip
    assert _matched(db).concurrencies == tuple(SWEEP)


def test_a_curve_swept_from_one_stream_keeps_it(tmp_path):
    """A single stream answers no load question, but it is one run of the curve's sweep: the
    plan keeps it among the others."""
    db = with_inferencex(
        _warehouse(tmp_path / "w.duckdb"), inferencex_rows({1: 90.0, 4: 60.0, 16: 35.0})
    )
    assert _matched(db).concurrencies == (1, 4, 16)
