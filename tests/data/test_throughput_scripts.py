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


@pytest.mark.parametrize("name", ["mlperf_inference", "trtllm_perf_overview"])
def test_the_scripts_need_only_the_standard_library(name):
    text = (ROOT / "scripts" / "throughput" / f"{name}.py").read_text()
    assert "import chipcost" not in text and "from chipcost" not in text
