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
from chipcost.pipeline.measure_point import is_inferencex, matched_point
from chipcost.transform.throughput_figures import figure_from_row
from chipcost.warehouse.cost_per_token import Point, figures
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


def without_inferencex(db: Path, chip: str = "H100-SXM", model: str = "llama-3-70b") -> Path:
    """The catalogue's InferenceX figures of the chip and model taken out of the warehouse: the
    catalogue gains curves with each InferenceX run, and a test of which curve is taken, or of
    how one is read, holds to the curves it sets."""
    con = connect(db)
    try:
        con.execute(
            "DELETE FROM throughput WHERE chip = ? AND model = ? AND origin = 'reference' "
            "AND contains(lower(source), 'inferencex')",
            [chip, model],
        )
    finally:
        con.close()
    return db


def with_inferencex(db: Path, rows: list | None = None) -> Path:
    """`rows` (else inferencex_rows()) added in place of the catalogue's InferenceX figures of
    their chips and models."""
    rows = inferencex_rows() if rows is None else rows
    for chip, model in {(f.chip, f.model) for f in rows}:
        without_inferencex(db, chip, model)
    con = connect(db)
    try:
        insert_rows(
            con, "throughput", [*COLUMNS, "recorded_at"],
            [[*f.values(), None] for f in rows],
        )  # fmt: skip
    finally:
        con.close()
    return db


@pytest.fixture(scope="module")
def shipped(tmp_path_factory) -> Path:
    """The shipped catalogue, but H100-SXM's Llama 3 70B InferenceX curves (without_inferencex):
    its own figures and NIM's curve are what the tests of a figure's shape match."""
    return without_inferencex(_warehouse(tmp_path_factory.mktemp("shipped") / "w.duckdb"))


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory) -> Path:
    return _warehouse(tmp_path_factory.mktemp("catalogue") / "w.duckdb")


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
        rows = figures(con, model, "inference", Point(speed)).rows
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
                      "software", "chips", "system", "deployment")
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


def test_the_catalogues_inferencex_curves_are_rerun_with_their_client(catalogue):
    """The shipped InferenceX rows name it inside their source ("SemiAnalysis InferenceX ..."):
    every chip whose DeepSeek-R1 figure at 5 tokens/s per user is one of them is matched with
    InferenceX's client over that figure's curve."""
    con = connect(catalogue, read_only=True)
    try:
        rows = figures(con, "deepseek-r1", "inference", Point("5")).rows
    finally:
        con.close()
    chosen = [r for r in rows if r["chosen"] and is_inferencex(r["source"])]
    assert chosen and not [r for r in chosen if r["source"].startswith("InferenceX")]
    for row in chosen:
        baseline = _matched(catalogue, "5", chip=row["chip"], model="deepseek-r1")
        assert (baseline.input_tokens, baseline.output_tokens) == (
            row["input_tokens"], row["output_tokens"],
        )  # fmt: skip
        assert baseline.client.range_ratio == 0.8 and baseline.prompts_per_user == 10
        point = row["throughput_id"].rpartition("@")[0] or row["throughput_id"]
        assert baseline.concurrencies == _curve_sweep(catalogue, point), row["throughput_id"]
        assert "with InferenceX's client" in baseline.named


# An InferenceX curve of H200 serving DeepSeek-R1, in place of the catalogue's: at 50 tokens/s
# per user its figure is read between its two points.
H200_SWEEP = {2: 70.0, 4: 40.0}


def test_an_interpolated_figure_is_measured_as_the_curve_it_was_read_from(tmp_path):
    """At 50 tokens/s per user H200's figure is read between two points of one curve: its id
    (the faster point's, '@50' after it) has no row, its curve does."""
    rows = inferencex_rows(H200_SWEEP, chip="H200", model="deepseek-r1", shape=(64, 16))
    db = with_inferencex(_warehouse(tmp_path / "w.duckdb"), rows)
    chosen = _chosen(db, "H200", "deepseek-r1", "50")
    assert chosen["interpolated"] and chosen["throughput_id"] == "inferencex-test-c2@50"
    baseline = _matched(db, "50", chip="H200", model="deepseek-r1")
    assert (baseline.input_tokens, baseline.output_tokens) == (64, 16)
    assert baseline.concurrencies == tuple(H200_SWEEP)
    assert baseline.client.range_ratio == 0.8 and baseline.prompts_per_user == 10
    assert baseline.named.startswith("H200's inferencex-test-c2@50 (independent, ")


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
