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
import math
from dataclasses import dataclass

from chipcost.core.clean import printable
from chipcost.core.errors import ChipcostError
from chipcost.core.questions import COMMAND_LINE
from chipcost.transform.precision import weight_bytes

SUMMARY = "profile_export_aiperf.json"
RECORDS = "profile_export.jsonl"
# A run whose answers ended this far from the asked output length did not run at the point.
SHAPE_TOLERANCE = 0.10
# How far the server's `usage` may stand from the tokens it streamed (the streamed text counted
# with the model's tokenizer) before one of the two is taken as false: a re-tokenised answer
# differs from the server's count by a few tokens in a hundred; a server claiming ten times
# what it sent (or streaming far more text than it generated) is no measurement.
USAGE_TOLERANCE = 0.25
# AIPerf 0.13's summary is 10-60 KB; a file much larger is not its report.
MAX_REPORT_BYTES = 8 << 20
# More requests than one measurement sends (--requests is at most 100,000 per concurrency).
MAX_REQUESTS = 10_000_000


class ReportError(ChipcostError):
    """An AIPerf report that does not have the shape and ranges of one."""


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
    output_tokens: float  # mean per request: the server's usage and the streamed, the lower
    tool_version: str = "?"  # AIPerf's, as its report says


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def read_report(data: bytes, endpoint: str) -> dict:
    """AIPerf's summary as a JSON object, bounded in size and depth, with no NaN or Infinity
    (AIPerf writes null for those); anything else is refused in one line."""
    if len(data) > MAX_REPORT_BYTES:
        raise ReportError(
            f"AIPerf's report of {endpoint} is {len(data):,} bytes, more than any summary "
            f"AIPerf writes ({MAX_REPORT_BYTES >> 20} MB): nothing recorded"
        )
    try:
        report = json.loads(data, parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        reason = "nested too deep" if isinstance(exc, RecursionError) else str(exc)[:120]
        raise ReportError(
            f"AIPerf's report of {endpoint} is not JSON chipcost can read ({reason}): nothing "
            "recorded"
        ) from None
    if not isinstance(report, dict):
        raise ReportError(f"AIPerf's report of {endpoint} is not a JSON object: nothing recorded")
    return report


def _metric(
    report: dict, name: str, endpoint: str, low: float = 0.0, high: float = math.inf
) -> float | None:
    """A metric's mean (`{"unit": ..., "avg": N}`), None when AIPerf reported none; a value
    of another type or outside [low, high] is refused."""
    value = report.get(name)
    if value is None:
        return None
    mean = value.get("avg") if isinstance(value, dict) else value
    if mean is None and isinstance(value, dict):
        return None
    if isinstance(mean, bool) or not isinstance(mean, int | float) or not low <= mean <= high:
        raise ReportError(
            f"AIPerf's report of {endpoint} gives {name} as {str(mean)[:40]!r}, not a number "
            f"from {low:g} to {high:g}: nothing recorded"
        )
    return float(mean)


def _failures(report: dict, endpoint: str) -> list:
    failed = report.get("error_summary")
    if failed is None:
        return []
    if not isinstance(failed, list):
        raise ReportError(
            f"AIPerf's report of {endpoint} gives error_summary as {type(failed).__name__}, "
            "not a list: nothing recorded"
        )
    return failed


def point_of(
    data: bytes, concurrency: int, endpoint: str, output_tokens: int, drawn_from: float = 1.0
) -> MeasuredPoint:
    """The point in an AIPerf summary; a report out of shape, a run with failed requests, an
    answer not streamed, usage missing or far from what was streamed, or answers of another
    length than asked are refused, naming it. `drawn_from`: the share of `output_tokens` the
    client drew each answer's length down to (1: every answer that long)."""
    report = read_report(data, endpoint)
    requests = _metric(report, "request_count", endpoint, 1, MAX_REQUESTS)
    failed = _failures(report, endpoint)
    if failed or (_metric(report, "request_error_rate", endpoint, 0, 100) or 0) > 0:
        raise ChipcostError(
            f"{endpoint} failed requests at concurrency {concurrency} ({_detail(failed)}): "
            "nothing recorded; a measurement with failed requests is no measurement of the point"
        )
    if requests is None or requests != int(requests):
        raise ReportError(
            f"AIPerf's report of {endpoint} gives no whole request_count: nothing recorded"
        )
    streamed = _metric(report, "output_token_count", endpoint, 0, 1e9)
    usage = _metric(report, "usage_completion_tokens", endpoint, 0, 1e9)
    throughput = _metric(report, "output_token_throughput", endpoint, 0, 1e12)
    per_user = _metric(report, "output_token_throughput_per_user", endpoint, 0, 1e12)
    itl = _metric(report, "inter_token_latency", endpoint, 0, 1e9)
    if not streamed or not throughput:
        raise ChipcostError(
            f"{endpoint} answered with no output tokens AIPerf could count at concurrency "
            f"{concurrency}: nothing recorded; is {COMMAND_LINE.name('tokenizer')} the served "
            "model's?"
        )
    if per_user is None or (not itl and streamed > 1):
        raise ChipcostError(
            f"{endpoint} does not stream: it answered each streamed request in one piece, so "
            "no per-user speed or time to first token can be measured; nothing recorded. Serve "
            "with streaming (SSE) on"
        )
    if usage is None:
        raise ChipcostError(
            f"{endpoint} returned no usage (token counts) in its streamed answers: nothing "
            "recorded; serve with usage reporting on (vLLM, SGLang and TensorRT-LLM send it "
            "when asked with stream_options.include_usage)"
        )
    _usage_agrees(usage, streamed, endpoint, concurrency)
    # the lower of the two counts: neither side can raise the figure by what it claims
    counted = min(usage, streamed)
    _shape_agrees(counted, output_tokens, drawn_from, endpoint)
    scale = counted / streamed
    return MeasuredPoint(
        concurrency=concurrency,
        requests=int(requests),
        output_tokens_per_second=throughput * scale,
        tokens_per_second_per_user=per_user * scale,
        ttft_ms=_metric(report, "time_to_first_token", endpoint, 0, 1e9),
        tpot_ms=itl,
        input_tokens=_metric(report, "input_sequence_length", endpoint, 0, 1e9),
        output_tokens=counted,
        tool_version=str(report.get("aiperf_version") or "?")[:20],
    )


def _detail(failed: list) -> str:
    first = failed[0] if failed and isinstance(failed[0], dict) else {}
    details = first.get("error_details")
    message = details.get("message") if isinstance(details, dict) else None
    return printable(str(message or json.dumps(first)[:200])[:200])


def _usage_agrees(usage: float, streamed: float, endpoint: str, concurrency: int) -> None:
    if not 1 / (1 + USAGE_TOLERANCE) <= usage / streamed <= 1 + USAGE_TOLERANCE:
        raise ChipcostError(
            f"{endpoint} claims {usage:,.0f} output tokens per answer in its usage where it "
            f"streamed {streamed:,.0f} (counted with {COMMAND_LINE.name('tokenizer')}) at "
            f"concurrency {concurrency}: more than {USAGE_TOLERANCE:.0%} apart, so neither count "
            f"is taken; nothing recorded. Check {COMMAND_LINE.name('tokenizer')} is the served "
            "model's"
        )


def _shape_agrees(counted: float, output_tokens: int, drawn_from: float, endpoint: str) -> None:
    low, high = (1 - SHAPE_TOLERANCE) * drawn_from, 1 + SHAPE_TOLERANCE
    if not low * output_tokens <= counted <= high * output_tokens:
        raise ChipcostError(
            f"{endpoint} answered {counted:,.0f} output tokens on average where {output_tokens:,} "
            "were asked: the point cannot be matched; nothing recorded. Let the server ignore "
            "the end-of-sequence token (vLLM and SGLang take ignore_eos, which measure sends)"
        )


# AIPerf's error types, in the words of the bad input they stand for.
_FAILURES = {
    "InvalidInferenceResultError": "sent a malformed stream (no chunk AIPerf could read as an "
    "OpenAI chat completion chunk)",
    "TimeoutError": f"timed out (no whole answer within {COMMAND_LINE.name('request_timeout')})",
    "ClientConnectorError": "refused the connection",
    # only the proxy chipcost.pipeline.load_generator gives AIPerf for every other host
    "ClientProxyConnectionError": "redirected AIPerf's requests to another host, which "
    "chipcost does not measure under this endpoint's name (give "
    f"{COMMAND_LINE.name('endpoint')} the server's own URL)",
}


def failure_of(records: bytes | None, log_tail: str) -> str:
    """Why a run recorded no result, in a few words: the first failed request's error from
    the per-request records, else the last line AIPerf printed."""
    for line in (records or b"")[:MAX_REPORT_BYTES].splitlines():
        try:
            error = json.loads(line).get("error")
        except (ValueError, UnicodeDecodeError, AttributeError, RecursionError):
            continue
        if not isinstance(error, dict):
            continue
        kind, message = str(error.get("type") or ""), str(error.get("message") or "")
        if kind in _FAILURES:
            return f"{_FAILURES[kind]}: {kind}"
        if error.get("code") == 404:
            return f"answered 404: {_server_message(message)}"
        return printable(f"failed requests: {kind[:60]} {message[:200]}").strip()
    return printable(log_tail) or "AIPerf ended without a report"


def _server_message(text: str) -> str:
    """An OpenAI-style error body's message (`{"message": ...}` or `{"error": {...}}`)."""
    try:
        body = json.loads(text)
    except (ValueError, RecursionError):
        return printable(text[:200])
    if isinstance(body, dict):
        inner = body.get("error") if isinstance(body.get("error"), dict) else body
        return printable(str(inner.get("message") or text)[:200])
    return printable(text[:200])


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
    weights = total_parameters * weight_bytes(precision)
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
