"""Reading AIPerf's reports (recorded: tests/fixtures/aiperf/ORIGIN.md) and the roofline a
measured point must stay under."""

from __future__ import annotations

import json

import pytest

from chipcost.core.errors import ChipcostError
from chipcost.transform.measured import above_roof, failure_of, physical_roof, point_of
from tests.paths import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "aiperf"
URL = "http://127.0.0.1:8000"


def _fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def test_a_run_reads_as_its_point():
    point = point_of(_fixture("summary-ok.json"), 2, URL, 50)
    # the double streamed 50 tokens/s to each of 2 users at a time
    assert point.tokens_per_second_per_user == pytest.approx(50, rel=0.05)
    assert point.output_tokens_per_second == pytest.approx(100, rel=0.05)
    assert point.output_tokens == 50 and point.input_tokens == 64 and point.requests == 4
    assert point.ttft_ms and point.tpot_ms == pytest.approx(20, rel=0.05)


def test_a_run_without_usage_is_refused():
    with pytest.raises(ChipcostError, match="returned no usage"):
        point_of(_fixture("summary-no-usage.json"), 1, URL, 10)


def test_answers_shorter_than_asked_cannot_be_matched():
    with pytest.raises(ChipcostError, match="50 output tokens on average where 500 were asked"):
        point_of(_fixture("summary-ok.json"), 2, URL, 500)


def test_failed_requests_are_named():
    report = json.loads(_fixture("summary-ok.json"))
    report["error_summary"] = [
        {"error_details": {"code": 500, "type": "Internal Server Error", "message": "boom"},
         "count": 1}
    ]  # fmt: skip
    with pytest.raises(ChipcostError, match=r"failed requests at concurrency 2 \(boom\)"):
        point_of(json.dumps(report).encode(), 2, URL, 50)


def test_a_report_that_is_not_json_is_named():
    with pytest.raises(ChipcostError, match="not JSON"):
        point_of(b"<html>", 1, URL, 10)


def test_why_a_run_failed_comes_from_its_records():
    assert failure_of(_fixture("records-malformed.jsonl"), "").startswith("sent a malformed")
    said = failure_of(_fixture("records-model-not-served.jsonl"), "")
    assert said == "answered 404: The model `other-model` does not exist."
    assert failure_of(None, "All 2 inference request(s) failed.") == (
        "All 2 inference request(s) failed."
    )
    assert failure_of(b"not json\n", "") == "AIPerf ended without a report"


H100 = {"peak_tflops": 989.5, "bandwidth_tbps": 3.35}


def test_the_roofline_of_70b_in_bf16_on_one_h100():
    roof = physical_roof(
        total_parameters=70.6e9, active_parameters=70.6e9, precision="bf16", chips=1,
        input_tokens=1000, output_tokens=1000, **H100,
    )  # fmt: skip
    # the weights, 141.2 GB, read once per token at 3.35 TB/s; 2 x 70.6 GFLOP per token and
    # as much again for the prompt's token, at 989.5 TFLOPS
    assert roof.per_user == pytest.approx(3.35e12 / 141.2e9)
    assert roof.per_chip == pytest.approx(989.5e12 / (2 * 70.6e9 * 2))


def test_a_point_above_the_roof_is_said_with_the_roof():
    point = point_of(_fixture("summary-ok.json"), 2, URL, 50)  # 50 tokens/s per user
    roof = physical_roof(
        total_parameters=70.6e9, active_parameters=70.6e9, precision="bf16", chips=1,
        input_tokens=64, output_tokens=50, **H100,
    )  # fmt: skip
    said = above_roof(point, 1, roof, "H100-SXM", "bf16")
    assert "above 1 x H100-SXM's physical roofline, 24 tokens/s per user" in said
    assert above_roof(point, 8, roof.__class__(roof.per_chip, 1e9, 1, 1), "H100-SXM", "bf16") == ""
