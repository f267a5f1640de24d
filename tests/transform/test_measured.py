"""Reading AIPerf's reports (recorded: tests/fixtures/aiperf/ORIGIN.md) and the roofline a
measured point must stay under."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chipcost.core.errors import ChipcostError
from chipcost.transform.measured import (
    MAX_REPORT_BYTES,
    USAGE_TOLERANCE,
    above_roof,
    failure_of,
    physical_roof,
    point_of,
)
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
        point_of(_fixture("run-no-usage/summary.json"), 1, URL, 8)


def test_a_server_that_does_not_stream_is_named():
    # the double answered each streamed request with one chat.completion
    with pytest.raises(ChipcostError, match="does not stream: it answered each streamed"):
        point_of(_fixture("run-no-stream/summary.json"), 1, URL, 8)


def test_usage_claiming_ten_times_what_was_streamed_is_refused():
    # the double streamed 8 tokens and claimed 80 in its usage
    with pytest.raises(ChipcostError, match="claims 80 output tokens .* where it streamed 8"):
        point_of(_fixture("run-inflated-usage/summary.json"), 1, URL, 8)


def _report(**metrics: object) -> bytes:
    """summary-ok.json (50 output tokens streamed and in usage) with metrics replaced; a value
    given as text is put in the JSON as it is (NaN, Infinity, nesting)."""
    report = json.loads(_fixture("summary-ok.json"))
    marks = {}
    for name, value in metrics.items():
        if isinstance(value, str):
            marks[name] = value
            value = f"@{name}@"
        report[name] = value
    text = json.dumps(report)
    for name, raw in marks.items():
        text = text.replace(f'"@{name}@"', raw)
    return text.encode()


@given(claimed=st.floats(min_value=1 + USAGE_TOLERANCE + 1e-6, max_value=1e4))
def test_usage_far_above_or_below_the_stream_is_refused(claimed):
    for factor in (claimed, 1 / claimed):
        usage = {"unit": "tokens", "avg": 50 * factor}
        with pytest.raises(ChipcostError, match="more than 25% apart, so neither count"):
            point_of(_report(usage_completion_tokens=usage), 2, URL, 50)


@given(share=st.floats(min_value=0.9, max_value=1.0))  # within the answer length's 10%
def test_the_lower_count_is_taken_when_usage_and_stream_agree(share):
    # a server counting fewer tokens than the tokenizer found in its text: the rate is scaled
    # down to its count, never up to the higher one
    ok = point_of(_fixture("summary-ok.json"), 2, URL, 50)
    usage = {"unit": "tokens", "avg": 50 * share}
    point = point_of(_report(usage_completion_tokens=usage), 2, URL, 50)
    assert point.output_tokens == pytest.approx(50 * share)
    assert point.output_tokens_per_second == pytest.approx(ok.output_tokens_per_second * share)
    assert point.tokens_per_second_per_user <= ok.tokens_per_second_per_user


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    "metrics",
    [
        {"request_count": "NaN"},
        {"request_count": "Infinity"},
        {"request_count": '{"unit": "requests", "avg": NaN}'},
        {"request_count": '{"unit": "requests", "avg": -Infinity}'},
        {"request_count": {"unit": "requests", "avg": 0}},
        {"request_count": {"unit": "requests", "avg": -3}},
        {"request_count": {"unit": "requests", "avg": 2.5}},
        {"request_count": {"unit": "requests", "avg": "4"}},
        {"request_count": {"unit": "requests", "avg": True}},
        {"request_count": {"unit": "requests", "avg": 1e300}},
        {"request_count": None},
        {"request_count": [4]},
        {"error_summary": 3},
        {"error_summary": "none"},
        {"error_summary": {"count": 0}},
        {"error_summary": DEEP},
        {"output_token_count": '{"unit": "tokens", "avg": NaN}'},
        {"output_token_count": {"unit": "tokens", "avg": -50}},
        {"usage_completion_tokens": '{"unit": "tokens", "avg": NaN}'},
        {"usage_completion_tokens": {"unit": "tokens", "avg": [50]}},
        {"request_error_rate": '{"unit": "%", "avg": NaN}'},
        {"request_error_rate": {"unit": "%", "avg": 250}},
        {"output_token_throughput": {"unit": "tokens/sec", "avg": 0}},
        {"output_token_throughput": '{"unit": "tokens/sec", "avg": Infinity}'},
        {"output_token_throughput_per_user": {"unit": "tokens/sec/user", "avg": -1}},
        {"time_to_first_token": {"unit": "ms", "avg": "fast"}},
    ],
    ids=lambda m: "-".join(f"{k}={str(v)[:24]}" for k, v in m.items()),
)
def test_a_report_out_of_shape_is_refused_in_one_line(metrics):
    with pytest.raises(ChipcostError) as refused:
        point_of(_report(**metrics), 2, URL, 50)
    assert "\n" not in str(refused.value) and "nothing recorded" in str(refused.value)


@given(count=st.one_of(st.integers(max_value=0), st.floats(allow_nan=True, allow_infinity=True)))
def test_no_request_count_but_a_whole_positive_one_is_taken(count):
    if isinstance(count, float) and math.isfinite(count) and count == int(count) and count >= 1:
        return  # a whole count written as a float is one
    text = json.dumps({"unit": "requests", "avg": count})
    with pytest.raises(ChipcostError):
        point_of(_report(request_count=text), 2, URL, 50)


@pytest.mark.parametrize(
    "data",
    [b"[" * 100_000 + b"]" * 100_000, b"{" + b'"a":{' * 50_000 + b"}" * 50_001, b"[]", b"3",
     b"null", b'"text"', b" " * (MAX_REPORT_BYTES + 1)],
    ids=["deep-list", "deep-object", "a-list", "a-number", "null", "a-string", "too-large"],
)  # fmt: skip
def test_a_report_that_is_no_summary_is_refused(data):
    with pytest.raises(ChipcostError, match="nothing recorded"):
        point_of(data, 1, URL, 10)


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
