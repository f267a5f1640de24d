"""What a load generator's report says about one operating point, and the roof it must stay under.

`chipcost measure` drives AIPerf (docs/measure.md) at one concurrency at a time; each run
writes a summary, profile_export_aiperf.json, whose metrics are objects such as
`{"unit": "tokens/sec", "avg": 98.2}`, and per-request records, profile_export.jsonl, whose
failed requests carry an `error` object. `point_of` reads the summary of a run that
succeeded, `failure_of` names why a run failed from its records; both are pure.

A measured figure above the chip's physical roofline is refused: no serving stack computes
faster than the chip's dense peak at the precision served (at 2 x active parameters FLOPs
per generated token, plus the prompt's tokens shared out over the answer's), and no user is
served faster than the chips can read the weights once per token (total parameters x bytes
per weight, over the chips' memory bandwidth; speculative decoding is the known exception).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from chipcost.core.errors import ChipcostError
from chipcost.transform.roofline import WEIGHT_BYTES

SUMMARY = "profile_export_aiperf.json"
RECORDS = "profile_export.jsonl"
# A run whose answers ended this far from the asked output length did not run at the point.
SHAPE_TOLERANCE = 0.10


@dataclass(frozen=True)
class MeasuredPoint:
    """One concurrency's result, as the load generator reported it."""

    concurrency: int
    requests: int
    output_tokens_per_second: float  # the whole endpoint's, every request's output tokens
    tokens_per_second_per_user: float  # each request's output tokens over its own duration
    ttft_ms: float | None
    tpot_ms: float | None
    input_tokens: float | None  # mean per request, as the generator sent them
    output_tokens: float  # mean per request, from the server's own `usage`
    tool_version: str = "?"  # AIPerf's, as its report says


def _metric(report: dict, name: str) -> float | None:
    value = report.get(name)
    if isinstance(value, dict) and isinstance(value.get("avg"), int | float):
        return float(value["avg"])
    return None


def point_of(data: bytes, concurrency: int, endpoint: str, output_tokens: int) -> MeasuredPoint:
    """The point in an AIPerf summary; a run without the server's usage or with failed
    requests is refused, naming it."""
    try:
        report = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ChipcostError(f"AIPerf's report of {endpoint} is not JSON ({exc})") from None
    if not isinstance(report, dict):
        raise ChipcostError(f"AIPerf's report of {endpoint} is not a JSON object")
    requests = _metric(report, "request_count") or 0
    failed = report.get("error_summary") or []
    if failed or (_metric(report, "request_error_rate") or 0) > 0:
        first = failed[0] if failed and isinstance(failed[0], dict) else {}
        detail = (first.get("error_details") or {}).get("message") or json.dumps(first)[:200]
        raise ChipcostError(
            f"{endpoint} failed requests at concurrency {concurrency} ({detail}): nothing "
            "recorded; a measurement with failed requests is no measurement of the point"
        )
    usage = _metric(report, "usage_completion_tokens")
    throughput = _metric(report, "output_token_throughput")
    per_user = _metric(report, "output_token_throughput_per_user")
    if usage is None or throughput is None or per_user is None:
        raise ChipcostError(
            f"{endpoint} returned no usage (token counts) in its streamed answers: nothing "
            "recorded; serve with usage reporting on (vLLM, SGLang and TensorRT-LLM send it "
            "when asked with stream_options.include_usage)"
        )
    if abs(usage - output_tokens) > SHAPE_TOLERANCE * output_tokens:
        raise ChipcostError(
            f"{endpoint} answered {usage:,.0f} output tokens on average where {output_tokens:,} "
            "were asked: the point cannot be matched; nothing recorded. Let the server ignore "
            "the end-of-sequence token (vLLM and SGLang take ignore_eos, which measure sends)"
        )
    return MeasuredPoint(
        concurrency=concurrency,
        requests=int(requests),
        output_tokens_per_second=throughput,
        tokens_per_second_per_user=per_user,
        ttft_ms=_metric(report, "time_to_first_token"),
        tpot_ms=_metric(report, "inter_token_latency"),
        input_tokens=_metric(report, "input_sequence_length"),
        output_tokens=usage,
        tool_version=str(report.get("aiperf_version") or "?"),
    )


# AIPerf's error types, in the words of the bad input they stand for.
_FAILURES = {
    "InvalidInferenceResultError": "sent a malformed stream (no chunk AIPerf could read as an "
    "OpenAI chat completion chunk)",
    "TimeoutError": "timed out (no whole answer within --request-timeout)",
    "ClientConnectorError": "refused the connection",
}


def failure_of(records: bytes | None, log_tail: str) -> str:
    """Why a run recorded no result, in a few words: the first failed request's error from
    the per-request records, else the last line AIPerf printed."""
    for line in (records or b"").splitlines():
        try:
            error = json.loads(line).get("error")
        except (json.JSONDecodeError, UnicodeDecodeError, AttributeError):
            continue
        if not isinstance(error, dict):
            continue
        kind, message = str(error.get("type") or ""), str(error.get("message") or "")
        if kind in _FAILURES:
            return f"{_FAILURES[kind]}: {kind}"
        if error.get("code") == 404:
            return f"answered 404: {_server_message(message)}"
        return f"failed requests: {kind} {message[:200]}".strip()
    return log_tail or "AIPerf ended without a report"


def _server_message(text: str) -> str:
    """An OpenAI-style error body's message (`{"message": ...}` or `{"error": {...}}`)."""
    try:
        body = json.loads(text)
    except json.JSONDecodeError:
        return text[:200]
    if isinstance(body, dict):
        inner = body.get("error") if isinstance(body.get("error"), dict) else body
        return str(inner.get("message") or text)[:200]
    return text[:200]


@dataclass(frozen=True)
class Roof:
    """The physical ceiling of a serving unit: tokens/s per chip and per user."""

    per_chip: float
    per_user: float
    peak_tflops: float
    bandwidth_tbps: float


def physical_roof(
    *,
    total_parameters: float,
    active_parameters: float,
    precision: str,
    peak_tflops: float,
    bandwidth_tbps: float,
    chips: float,
    input_tokens: int,
    output_tokens: int,
) -> Roof:
    """The roofline at 100% of the chip's dense peak and memory bandwidth (transform/roofline.py
    at full efficiency, without the KV cache, memory limits or communication: an upper bound)."""
    flops_per_token = 2 * active_parameters * (1 + input_tokens / output_tokens)
    weights = total_parameters * WEIGHT_BYTES.get(precision, 2.0)
    return Roof(
        per_chip=peak_tflops * 1e12 / flops_per_token,
        per_user=chips * bandwidth_tbps * 1e12 / weights,
        peak_tflops=peak_tflops,
        bandwidth_tbps=bandwidth_tbps,
    )


def above_roof(point: MeasuredPoint, chips: float, roof: Roof, chip: str, precision: str) -> str:
    """'' when the point is under the roof, else what it exceeds, in one line."""
    per_chip = point.output_tokens_per_second / chips
    if per_chip > roof.per_chip:
        return (
            f"{per_chip:,.0f} tokens/s per chip at concurrency {point.concurrency} is above "
            f"{chip}'s physical roofline, {roof.per_chip:,.0f} tokens/s per chip at its dense "
            f"{precision.upper()} peak ({roof.peak_tflops:,g} TFLOPS)"
        )
    if point.tokens_per_second_per_user > roof.per_user:
        return (
            f"{point.tokens_per_second_per_user:,.0f} tokens/s per user at concurrency "
            f"{point.concurrency} is above {chips:g} x {chip}'s physical roofline, "
            f"{roof.per_user:,.0f} tokens/s per user (the weights read once per token at "
            f"{roof.bandwidth_tbps:g} TB/s per chip)"
        )
    return ""
