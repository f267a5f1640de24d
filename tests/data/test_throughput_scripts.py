"""The catalogue's builder scripts, on small trees and pages in their sources' real layout."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tests.paths import ROOT

SERVER_LOG = """================================================
MLPerf Results Summary
================================================
SUT name : llama2-70b-Server-SUT
Scenario : Server
Mode     : PerformanceOnly
Completed samples per second    : 100.35
Completed tokens per second: 29228.22
Result is : VALID
99.00 percentile first token latency (ns)   : 452744202
99.00 percentile time to output token (ns)   : 146040006
ttft_latency (ns): 2000000000
tpot_latency (ns): 200000000
"""


def script(name: str):
    path = ROOT / "scripts" / "throughput" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def test_mlperf_rows_from_a_results_tree(tmp_path: Path):
    mlperf = script("mlperf_inference")
    system = "H200-SXM-141GBx8_TRT"
    run = tmp_path / "closed/NVIDIA/results" / system / "llama2-70b-99/Server/performance/run_1"
    run.mkdir(parents=True)
    (run / "mlperf_log_summary.txt").write_text(SERVER_LOG)
    invalid = (
        tmp_path / "closed/NVIDIA/results" / system / "llama2-70b-99/Offline/performance/run_1"
    )
    invalid.mkdir(parents=True)
    (invalid / "mlperf_log_summary.txt").write_text("Tokens per second: 1\nResult is : INVALID\n")
    systems = tmp_path / "closed/NVIDIA/systems"
    systems.mkdir(parents=True)
    (systems / f"{system}.json").write_text(json.dumps({
        "accelerator_model_name": "NVIDIA H200-SXM-141GB", "accelerators_per_node": 8,
        "number_of_nodes": 1, "framework": "TensorRT 10.2.0, CUDA 12.4", "status": "available",
        "system_name": "NVIDIA H200 (8x H200-SXM-141GB, TensorRT)",
    }))  # fmt: skip
    measured = tmp_path / "closed/NVIDIA/measurements" / system / "llama2-70b-99/Server"
    measured.mkdir(parents=True)
    (measured / f"{system}_Server.json").write_text(json.dumps({"weight_data_types": "FP8"}))
    [row] = mlperf.rows(tmp_path, "v4.1", "2024-08-28", "abc", ["llama2-70b-99"])
    assert row["id"] == "mlperf-v4.1-nvidia-h200x8-llama2-70b-server"
    assert row["precision"] == "fp8" and "2,000 ms and 200 ms" in row["notes"]
    assert row["stated_as"].startswith("Completed tokens per second: 29228.22 (Server")
    assert (row["chip"], row["model"], row["chips"], row["tokens_per_second"]) == (
        "H200", "llama-2-70b", "8", "29228.22",
    )  # fmt: skip
    assert (row["operating_point"], row["ttft_ms"], row["tpot_ms"]) == (
        "latency-bound", "452.7", "146.0",
    )  # fmt: skip
    assert row["tokens_per_second_per_user"] == "6.8" and row["division"] == "closed, available"


def test_mlperf_open_division_rows_only_for_the_chips_named(tmp_path: Path):
    mlperf = script("mlperf_inference")
    offline = SERVER_LOG.replace("Scenario : Server", "Scenario : Offline").replace(
        "Completed tokens per second: 29228.22", "Tokens per second: 93045.8"
    )
    for system, chip in (("8xMI355X_2xEPYC_9575F", "AMD Instinct MI355X 288GB HBM3e"),
                         ("H200x8_TRT", "NVIDIA H200-SXM-141GB")):  # fmt: skip
        run = tmp_path / "open/AMD/results" / system / "llama2-70b-99/Offline/performance/run_1"
        run.mkdir(parents=True)
        (run / "mlperf_log_summary.txt").write_text(offline)
        (tmp_path / "open/AMD/systems").mkdir(parents=True, exist_ok=True)
        (tmp_path / f"open/AMD/systems/{system}.json").write_text(json.dumps({
            "accelerator_model_name": chip, "accelerators_per_node": 8, "number_of_nodes": 1,
            "framework": "vLLM 0.9.1", "status": "available", "system_name": system,
        }))  # fmt: skip
        measured = tmp_path / "open/AMD/measurements" / system / "llama2-70b-99/Offline"
        measured.mkdir(parents=True)
        (measured / f"{system}.json").write_text(json.dumps({"weight_data_types": "mxfp4"}))
    found = mlperf.rows(
        tmp_path, "v5.1", "2025-09-09", "abc", ["llama2-70b-99"], "open", frozenset({"MI355X"})
    )
    [row] = found
    assert (row["chip"], row["tokens_per_second"], row["precision"]) == ("MI355X", "93045.8", "fp4")
    assert row["division"] == "open, available" and "open division" in row["source"]
    assert "data type mxfp4" in row["notes"] and "not one to one" in row["notes"]


# The model section of Dell_MangoBoost's MLPerf Inference v6.0 README (closed division,
# results/8xMI355X_2xEPYC_9965/llama2-70b-99/Offline/README.md in inference_results_v6.0 at
# 4d3916ac), whose measurements.json states weight_data_types "fp8" for the MI355X system.
MANGOBOOST_README = """### 1.1 Model and Dataset Preparation

Please download the FP8 model and dataset according to AMD's guideline [link](https://rocm.blogs.amd.com/artificial-intelligence/reproducing-amd-mlperf-inference-submission/README.html). The FP8 model will be used by MI300X and MI325X.
Then, please download the FP4 model according also according to AMD's guideline at `closed/AMD/results/87xMI355X_22xEPYC_9575F/llama2-70b-99.9/Offline/README.md`.
"""  # noqa: E501


@pytest.mark.parametrize(
    ("text", "chip", "expected"),
    [
        (MANGOBOOST_README, "MI355X", "fp4"),  # FP8 is given to the other chips
        (MANGOBOOST_README, "MI325X", "fp8"),  # named with FP8
        ("bash setup/llama2-70b-99/download_model_fp4.sh $TOKEN\n", "MI355X", "fp4"),
        ("Weights MXFP4, KV cache KVFP8.\n", "MI355X", "fp4"),  # KVFP8 is not the weights'
        ("Run the FP8 model. Or the FP4 model.\n", "MI355X", ""),  # two, nothing says which
        ("Build the engines with make.\n", "B200", ""),
        (
            "### For H200 quantized FP8 checkpoint:\n### For B200 quantized FP4 checkpoint:\n",
            "RTX-PRO-6000",
            "",
        ),  # fmt: skip
    ],
)
def test_mlperf_precision_is_the_checkpoint_the_readme_gives_the_chip(text, chip, expected):
    mlperf = script("mlperf_inference")
    precision, words = mlperf._readme_precision(text, chip)
    assert precision == expected
    assert bool(words) == bool(expected)


def test_mlperf_readme_overrides_a_measurements_json_that_states_another_chips_checkpoint(
    tmp_path: Path,
):
    mlperf = script("mlperf_inference")
    system = "8xMI355X_2xEPYC_9965"
    scenario = tmp_path / "closed/Dell_MangoBoost/results" / system / "llama2-70b-99/Server"
    (scenario / "performance/run_1").mkdir(parents=True)
    (scenario / "performance/run_1/mlperf_log_summary.txt").write_text(SERVER_LOG)
    (scenario / "README.md").write_text(MANGOBOOST_README)
    (scenario / "measurements.json").write_text(json.dumps({"weight_data_types": "fp8"}))
    (tmp_path / "closed/Dell_MangoBoost/systems").mkdir(parents=True)
    (tmp_path / f"closed/Dell_MangoBoost/systems/{system}.json").write_text(json.dumps({
        "accelerator_model_name": "AMD Instinct MI355X 288GB HBM3e", "accelerators_per_node": 8,
        "number_of_nodes": 1, "framework": "ROCm", "status": "available",
        "system_name": "PowerEdge XE9785",
    }))  # fmt: skip
    [row] = mlperf.rows(tmp_path, "v6.0", "2026-03-26", "abc", ["llama2-70b-99"])
    assert row["precision"] == "fp4"
    assert row["precision_stated"] == "fp4 (README.md); fp8 (measurements JSON)"
    assert "'The FP8 model will be used by MI300X and MI325X.'" in row["notes"]
    assert "please download the FP4 model" in row["notes"]
    assert "fp8 (the submission's measurements JSON) is not the checkpoint" in row["notes"]


def test_trtllm_rows_from_the_pages_tables():
    trtllm = script("trtllm_perf_overview")
    page = (
        "#### Llama 3.3 70B\n\n"
        "| Sequence Length (ISL/OSL) | B200<br/>TP1 (FP4) | H100<br/>TP2 (FP8) |\n"
        "|---|---|---|\n| 128/2048 | 9,922 | 6,651 |\n| 20000/2000 | 665 | |\n\n"
        "#### Qwen3-30B-A3B\n\n| Sequence Length (ISL/OSL) | B200<br/>TP1 (FP4) |\n|---|---|\n"
        "| 128/128 | 39,827 |\n"
    )
    found = trtllm.rows(page, "abc")
    assert [(r["chip"], r["chips"], r["tokens_per_second"], r["precision"]) for r in found] == [
        ("B200", "1", "9922", "fp4"), ("H100-SXM", "2", "6651", "fp8"), ("B200", "1", "665", "fp4"),
    ]  # fmt: skip
    assert {r["model"] for r in found} == {"llama-3.3-70b"}


def _mllog(time_ms: int, key: str, value: object = None, **metadata: object) -> str:
    """One MLLOG line as MLPerf Training's result logs write it."""
    kind = "INTERVAL_START" if key == "run_start" else "POINT_IN_TIME"
    kind = "INTERVAL_END" if key == "run_stop" else kind
    event = {
        "namespace": "",
        "time_ms": time_ms,
        "event_type": kind,
        "key": key,
        "value": value,
        "metadata": {"file": "/workspace/code/src/callbacks.py", **metadata},
    }
    return ":::MLLOG " + json.dumps(event)  # fmt: skip


def _training_log(seconds: float, samples: int, status: str = "success") -> str:
    start = 1759966206549
    return "\n".join([
        _mllog(start - 5000, "init_start"),
        _mllog(start - 10, "global_batch_size", 32),
        _mllog(start - 10, "max_sequence_length", 8192),
        _mllog(start - 10, "submission_benchmark", "llama31_8b"),
        "[rank0] a line of the framework's own output",
        _mllog(start, "run_start"),
        _mllog(start + 1000, "eval_accuracy", 5.59, samples_count=samples // 2),
        _mllog(start + int(seconds * 1000) - 1, "eval_accuracy", 3.29, samples_count=samples),
        _mllog(start + int(seconds * 1000), "run_stop", status=status),
    ])  # fmt: skip


def test_mlperf_training_rows_convert_time_to_train_into_tokens_per_second(tmp_path: Path):
    training = script("mlperf_training")
    system = "MI355X_EPYC_9575F_pytorch"
    results = tmp_path / "AMD/results" / system / "llama31_8b"
    results.mkdir(parents=True)
    (results / "result_0.txt").write_text(_training_log(4000.0, 200_000))
    (results / "result_1.txt").write_text(_training_log(5000.0, 200_000))
    (results / "result_2.txt").write_text(_training_log(3000.0, 200_000))
    (results / "result_3.txt").write_text(_training_log(10.0, 200_000, status="aborted"))
    (tmp_path / "AMD/systems").mkdir(parents=True)
    (tmp_path / f"AMD/systems/{system}.json").write_text(json.dumps({
        "accelerator_model_name": "AMD Instinct MI355X", "accelerators_per_node": "8",
        "number_of_nodes": "1", "framework": "PyTorch 2.8.0, ROCm 7.0.0",
        "status": "Available on-premise", "system_name": "AMD Instinct MI355X platform",
    }))  # fmt: skip
    # AMD's launch config beside its results, in the folder named for the system
    folder = tmp_path / "AMD/benchmarks/llama31_8b/implementations" / f"{system}_llama3_8b"
    folder.mkdir(parents=True)
    (folder / "config_MI355X_1x8x1_8b.sh").write_text(
        "export WARMUP_STEPS=128\nexport FP8_PARAMS=1\n"
    )
    [row] = training.rows(tmp_path, ("v5.1", "2025-11-12", "abc"), ["llama31_8b"])
    # the median of the three successful runs: 200,000 samples x 8,192 tokens in 4,000 s
    assert row["tokens_per_second"] == f"{200_000 * 8192 / 4000:.1f}"
    assert (row["chip"], row["chips"], row["per"], row["model"]) == (
        "MI355X", "8", "system", "llama-3.1-8b",
    )  # fmt: skip
    assert (row["precision"], row["batch_size"], row["sequence_length"]) == ("fp8", "32", "8192")
    assert row["id"] == "mlperf-train-v5.1-amd-mi355x-epyc-9575f-pytorch-llama31_8b"
    assert row["stated_as"].startswith("run_start to run_stop 4,000.0 s (status success)")
    assert "median of 3 successful runs" in row["notes"]
    assert row["source_url"].endswith(f"/blob/abc/AMD/results/{system}/llama31_8b/result_0.txt")
    assert row["precision_stated"].startswith("FP8_PARAMS=1 (AMD/benchmarks/llama31_8b/")


def test_mlperf_training_precision_is_the_launch_config_the_system_ran(tmp_path: Path):
    """NVIDIA-style configs: a common file sets FP8, an FP4 file overrides it; the config named
    for the system decides, and configs of one shape that disagree leave the precision empty."""
    training = script("mlperf_training")
    folder = tmp_path / "Dell/benchmarks/llama31_8b/implementations/nemo"
    folder.mkdir(parents=True)
    (folder / "config_common.sh").write_text("export FP8=True\nexport FP8_RECIPE=tensorwise\n")
    (folder / "config_common_fp4.sh").write_text(
        'export FP4=True\nexport FP8=False\nexport FP4_RECIPE="nvfp4"\n'
    )
    common = "source $(dirname ${BASH_SOURCE[0]})/config_common.sh\n"
    fp4 = "source $(dirname ${BASH_SOURCE[0]})/config_common_fp4.sh\n"
    (folder / "config_1xSYSA.sh").write_text(common + fp4 + "export MINIBS=2\n")
    (folder / "config_DGXB200_2x8x2xtp1pp1cp1_8b.sh").write_text(common + "export MINIBS=2\n")
    (folder / "config_DGXB200_2x8x2xtp1pp1cp1_8b_fp4.sh").write_text(
        common + fp4 + "export MINIBS=2\n"
    )
    log = {"batch": 16.0, "lr": 0.0004, "warmup": 16.0}
    named = training.config_precision(tmp_path, "Dell", "1xSYSA", "llama31_8b", 8, log, "B200")
    assert named[:2] == ("fp4", "FP4=True, FP4_RECIPE=nvfp4")
    # a config in another folder whose README points to the folder of the common files
    other = tmp_path / "Dell/benchmarks/llama31_8b/implementations/sysc"
    other.mkdir()
    (other / "README.md").write_text("See the implementation directory [nemo](../nemo).")
    (other / "config_1xSYSC.sh").write_text(common + "export MINIBS=2\n")
    pointed = training.config_precision(tmp_path, "Dell", "1xSYSC", "llama31_8b", 8, log, "B200")
    assert pointed[:2] == ("fp8", "FP8=True, FP8_RECIPE=tensorwise")
    log = {"batch": 32.0, "lr": 0.0004, "warmup": 16.0}
    precision, words, why = training.config_precision(
        tmp_path, "Dell", "2xSYSB", "llama31_8b", 16, log, "B200"
    )
    assert (precision, words) == ("", "") and "disagree" in why


@pytest.mark.parametrize("name", ["mlperf_inference", "mlperf_training", "trtllm_perf_overview"])
def test_the_scripts_need_only_the_standard_library(name):
    text = (ROOT / "scripts" / "throughput" / f"{name}.py").read_text()
    assert "import chipcost" not in text and "from chipcost" not in text


def test_mlperf_rows_of_one_submitter_size_and_software_are_marked_matched():
    mlperf = script("mlperf_inference")
    base = {"submitter": "Cisco", "chips": "16", "software": "TensorRT 10.8, CUDA 12.8",
            "model": "llama-2-70b", "scenario": "Offline", "division": "closed, available",
            "source": "MLPerf Inference v5.1", "precision": "fp8", "notes": "Offline."}  # fmt: skip
    rows = [
        base | {"id": "h100", "chip": "H100-SXM"},
        base | {"id": "h200", "chip": "H200"},
        base | {"id": "h200-other", "chip": "H200", "software": "TensorRT 10.10, CUDA 12.9"},
        base | {"id": "h100-32", "chip": "H100-SXM", "chips": "32"},
    ]
    mlperf.matched(rows)
    notes = {r["id"]: r["notes"] for r in rows}
    assert "as h200 (H200, fp8)" in notes["h100"] and "as h100 (H100-SXM, fp8)" in notes["h200"]
    assert {r["id"]: r.get("matched_with") for r in rows[:2]} == {"h100": "h200", "h200": "h100"}
    # another software version or system size is not a matched pair
    assert notes["h200-other"] == notes["h100-32"] == "Offline."


NEMO_PAGE = """## 25.11 NeMo Container

### Pre-Training Performance

#### System: DGX-H100

| Model | #-GPUs | Precision | GBS | MBS | Sequence Length | FSDP | TP | PP | CP | VP | EP | GA | Tokens / sec / GPU | Model TFLOP / sec / GPU |
|-------|--------|-----------|-----|-----|-----------------|------|----|----|----|----|----|----|-----------------------|-------------------------|
| LLAMA3_8B | 8 | FP8-CS | 128 | 1 | 8192 | 8 | 1 | 1 | 1 | n/a | 1 | 16 | 14451 | 744 |
| GPT OSS 120B | 64 | BF16 | 512 | 4 | 4096 | 0 | 1 | 4 | 1 | 1 | 8 | 2 | 5630 | 153 |

## 26.04.01 NeMo Container

### Pre-Training Performance

#### Model: LLAMA3_70B

| System | #-GPUs | Precision | GBS | MBS | Sequence Length | FSDP | TP | PP | CP | VP | EP | Tokens / sec / GPU | Model TFLOP / sec / GPU |
|--------|--------|-----------|-----|-----|-----------------|------|----|----|----|----|----|-----------------------|-------------------------|
| DGX-GB300 | 64 | NVFP4 | 256 | 1 | 8192 | 0 | 1 | 4 | 1 | 5 | n/a | 7296 | 3253 |

### SFT Performance

#### Model: LLAMA3_70B

| System | #-GPUs | Precision | GBS | MBS | Sequence Length | TP | PP | CP | VP | EP | Tokens / sec / GPU | Model TFLOP / sec / GPU |
|--------|--------|-----------|-----|-----|-----------------|----|----|----|----|----|-----------------------|-------------------------|
| DGX-H100 | 32 | FP8 | 32 | 1 | 4096 | 4 | 4 | 1 | 5 | n/a | 1638 | 710 |
"""  # noqa: E501 (the page's own table rows, as Megatron-Bridge writes them)


def test_nemo_rows_are_the_llama_pre_training_rows_of_the_versions_asked():
    nemo = script("megatron_bridge_perf")
    found = nemo.rows(NEMO_PAGE, "abc", "performance-summary-archive.md",
                      {"25.11": "2025-12-04", "26.04.01": "2026-05-16"})  # fmt: skip
    # GPT OSS is not a Llama, and SFT is not pre-training
    assert [(r["chip"], r["model"], r["precision"]) for r in found] == [
        ("H100-SXM", "llama-3-8b", "fp8"), ("GB300", "llama-3-70b", "fp4"),
    ]  # fmt: skip
    h100, gb300 = found
    # per run: tokens/s per GPU x GPUs, the GPUs as the chips
    assert (h100["tokens_per_second"], h100["chips"], h100["batch_size"]) == ("115608", "8", "128")
    assert h100["precision_stated"] == "FP8-CS" and h100["source_date"] == "2025-12-04"
    # the page read, at its version's section: the archive at the commit, not a renamed copy
    assert h100["source_url"] == (
        "https://github.com/NVIDIA-NeMo/Megatron-Bridge/blob/abc/docs/"
        "performance-summary-archive.md#2511-nemo-container"
    )
    assert gb300["source_url"].endswith("performance-summary-archive.md#260401-nemo-container")
    assert gb300["precision_stated"] == "NVFP4" and gb300["tokens_per_second"] == str(7296 * 64)
    assert nemo.rows(NEMO_PAGE, "abc", "p.md", {"26.06": "2026-06-16"}) == []


def test_nemo_refuses_a_page_not_named_as_the_repositorys(tmp_path: Path):
    nemo = script("megatron_bridge_perf")
    copy = tmp_path / "mb.md"
    copy.write_text(NEMO_PAGE)
    with pytest.raises(SystemExit, match="performance-summary-archive.md"):
        nemo.main([str(copy), "abc", "25.11=2025-12-04"])
