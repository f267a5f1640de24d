"""InferenceX in the catalogue: every point read back from the archived run artifacts
(chipcost/data/throughput/inferencex/), in the catalogue and in a seeded warehouse, and every
archived point either imported or left out for a stated reason."""

from __future__ import annotations

import importlib.util
import json
import re
import sys

import pytest

from chipcost.core.catalog import chip_rows
from chipcost.transform.measured import physical_roof
from chipcost.transform.references import model_rows, throughput_references
from tests.paths import ROOT

ARCHIVE = ROOT / "chipcost" / "data" / "throughput" / "inferencex"
# The artifact's hw (runner) -> canonical chip; its model prefix -> chipcost's model.
CHIPS = {"h100": "H100-SXM", "h200": "H200", "b200": "B200", "gb200": "GB200",
         "mi300x": "MI300X", "mi325x": "MI325X", "mi355x": "MI355X"}  # fmt: skip
MODELS = {"dsr1": "deepseek-r1", "gptoss": "gpt-oss-120b"}
_RUN = re.compile(r"official CI run (\d+),")


def _script():
    path = ROOT / "scripts" / "throughput" / "inferencex.py"
    spec = importlib.util.spec_from_file_location("inferencex", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["inferencex"] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _artifacts() -> dict[str, list[dict]]:
    """run -> its points, read straight from the archived agg_bmk.json files."""
    return {
        folder.name.removeprefix("run_"): json.loads((folder / "agg_bmk.json").read_text())
        for folder in sorted(ARCHIVE.glob("run_*"))
    }


def _gpus(point: dict) -> int:
    if point.get("disagg"):
        return point["num_prefill_gpu"] + point["num_decode_gpu"]
    return point["tp"]


def _candidates(figure, points: list[dict]) -> list[dict]:
    """The run's points at the figure's chip, model, shape, concurrency, precision, framework
    and GPU count: what identifies a point, not its measured values."""
    return [
        p
        for p in points
        if CHIPS.get(re.split(r"[-_]", p["hw"])[0]) == figure.chip
        and MODELS.get(p["infmax_model_prefix"]) == figure.model
        and (p["isl"], p["osl"], p["conc"])
        == (figure.input_tokens, figure.output_tokens, figure.concurrency)
        and p["precision"] == figure.precision
        and figure.software.startswith(f"{p['framework']}, image {p['image']}")
        and figure.system.startswith(f"{_gpus(p)} x {figure.chip}")
    ]


def _same(figure, point: dict) -> bool:
    """The figure states the point's published values (six significant digits kept)."""
    pairs = (
        (figure.tokens_per_second_per_chip, point["output_tput_per_gpu"]),
        (figure.tokens_per_second_per_user, point["median_intvty"]),
        (figure.ttft_ms, point["median_ttft"] * 1000),  # the artifact gives seconds
        (figure.tpot_ms, point["median_tpot"] * 1000),
    )
    return all(mine == pytest.approx(theirs, rel=1e-5) for mine, theirs in pairs) and (
        f"tput_per_gpu (input and output tokens) {point['tput_per_gpu']!r}" in figure.stated_as
    )


def _matched(figures) -> dict[str, tuple[str, int]]:
    """throughput_id -> (run, index of its point in the artifact); each figure exactly one."""
    artifacts, found = _artifacts(), {}
    for figure in figures:
        run = _RUN.search(figure.source)[1]
        points = artifacts[run]
        same = [p for p in _candidates(figure, points) if _same(figure, p)]
        assert len(same) == 1, (figure.throughput_id, len(same))
        found[figure.throughput_id] = (run, points.index(same[0]))
    return found


@pytest.fixture(scope="module")
def catalogue():
    return [f for f in throughput_references() if f.throughput_id.startswith("inferencex-")]


def test_every_catalogue_point_is_a_published_point_of_its_run(catalogue):
    matched = _matched(catalogue)
    assert len(set(matched.values())) == len(catalogue) >= 400  # no point imported twice
    assert {f.model for f in catalogue} == {"deepseek-r1", "gpt-oss-120b"}
    chips = {f.chip for f in catalogue}
    assert {"H100-SXM", "H200", "B200", "GB200", "MI300X", "MI325X", "MI355X"} == chips
    assert {f.kind for f in catalogue} == {"independent"}
    assert {f.operating_point for f in catalogue} == {"latency-bound"}


def test_every_archived_point_is_imported_or_left_out_for_a_true_reason(catalogue):
    imported = set(_matched(catalogue).values())
    script = _script()
    found = script.points()
    reasons = script.excluded_because(found)
    artifacts = _artifacts()
    newest_kept = {
        (f.chip, f.model, f.precision, f.input_tokens, f.output_tokens, f.software.split(",")[0],
         _RUN.search(f.source)[1])
        for f in catalogue
    }  # fmt: skip
    for index, (run, point) in enumerate(found):
        where = (run.run, artifacts[run.run].index(point))
        if where in imported:
            assert index not in reasons, where
            continue
        newer = re.fullmatch(r"run (\d+) is newer for the same series", reasons[index])
        assert newer and int(newer[1]) > int(run.run), (where, reasons[index])
        chip = CHIPS[re.split(r"[-_]", point["hw"])[0]]
        key = (chip, MODELS[point["infmax_model_prefix"]], point["precision"], point["isl"],
               point["osl"], point["framework"], newer[1])  # fmt: skip
        assert key in newest_kept, (where, key)
    assert len(imported) + len(reasons) == sum(len(p) for p in artifacts.values())


def test_every_archived_file_is_named_in_the_readme_with_its_origin_and_date():
    runs = {r.run: r for r in _script().archived_runs()}
    assert set(runs) == set(_artifacts())
    for run in runs.values():
        assert run.kind == "official artifact" and re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", run.date)


def test_the_seeded_warehouse_holds_the_same_points(con, catalogue):
    rows = con.execute(
        "SELECT throughput_id, tokens_per_second_per_chip, tokens_per_second_per_user, ttft_ms, "
        "tpot_ms, concurrency, input_tokens, output_tokens, source_date, source_url "
        "FROM throughput WHERE throughput_id LIKE 'inferencex-%'"
    ).fetchall()
    by_id = {f.throughput_id: f for f in catalogue}
    assert {r[0] for r in rows} == set(by_id)
    artifacts, matched = _artifacts(), _matched(catalogue)
    for ident, tps, per_user, ttft, tpot, conc, isl, osl, date, url in rows:
        run, index = matched[ident]
        point = artifacts[run][index]
        assert (conc, isl, osl) == (point["conc"], point["isl"], point["osl"])
        assert tps == pytest.approx(point["output_tput_per_gpu"], rel=1e-5)
        assert per_user == pytest.approx(point["median_intvty"], rel=1e-5)
        assert ttft == pytest.approx(point["median_ttft"] * 1000, rel=1e-5)
        assert tpot == pytest.approx(point["median_tpot"] * 1000, rel=1e-5)
        assert url.endswith(f"/run_{run}/agg_bmk.json") and date == by_id[ident].source_date


def _roof(figure, chips: dict, models: dict, gpus: int, *, read: str = "parameters"):
    """The physical roof (transform/measured.py) of the figure's GPUs; `read` is the weights
    one decoding step must read: all of them, or only the active ones."""
    chip, model = chips[figure.chip], models[figure.model]
    peak = float(chip.get("dense_fp4_tflops") or 0) if figure.precision == "fp4" else 0.0
    return physical_roof(
        total_parameters=float(model[read]),
        active_parameters=float(model["active_parameters"]),
        precision=figure.precision,
        peak_tflops=peak or float(chip["dense_fp8_tflops"]),
        bandwidth_tbps=float(chip["memory_bandwidth_tbps"]),
        chips=gpus,
        input_tokens=figure.input_tokens,
        output_tokens=figure.output_tokens,
    )


def test_no_point_is_above_the_chips_compute_roof(catalogue):
    """Per GPU, no point generates faster than the dense peak at its precision allows."""
    chips = {row["chip"]: row for row in chip_rows()}
    models = {str(m["model"]): m for m in model_rows()}
    for figure in catalogue:
        gpus = int(figure.system.split(" x ")[0])
        roof = _roof(figure, chips, models, gpus)
        assert figure.tokens_per_second_per_chip < roof.per_chip, figure.throughput_id


def test_no_user_is_served_faster_than_the_active_weights_can_be_read(catalogue):
    """Per user, no point beats one read of the active weights per token. The all-weights roof
    of `chipcost measure` does not hold for these mixture-of-experts models: at a few
    concurrent requests a step reads only the experts those tokens are routed to, and 54
    points (DeepSeek-R1 and gpt-oss-120b at concurrency 4 to 16) are above it, none above this."""
    chips = {row["chip"]: row for row in chip_rows()}
    models = {str(m["model"]): m for m in model_rows()}
    above_all_weights = 0
    for figure in catalogue:
        gpus = int(figure.system.split(" x ")[0])
        active = _roof(figure, chips, models, gpus, read="active_parameters")
        assert figure.tokens_per_second_per_user < active.per_user, figure.throughput_id
        above_all_weights += (
            figure.tokens_per_second_per_user > _roof(figure, chips, models, gpus).per_user
        )
    assert above_all_weights == 54
