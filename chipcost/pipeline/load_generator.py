"""Running AIPerf, the load generator `chipcost measure` drives, against a user's endpoint.

The endpoint is asked first what it serves (`GET /v1/models`, as vLLM, SGLang, TensorRT-LLM
and TGI answer it), so a refusal, a timeout or a model it does not serve is named in a second,
not after AIPerf's start-up. Then AIPerf's own command line runs once per concurrency (its
`profile` command, in a child process: it starts services of its own), and the run's summary
and per-request records are returned as the fetch of a source returns its payload; reading
them is chipcost.transform.measured's. Why AIPerf: docs/measure.md.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import httpx

from chipcost.core.clean import without_credentials
from chipcost.core.errors import ChipcostError, UsageError
from chipcost.transform.measured import RECORDS, SUMMARY

TOOL = "aiperf"
# How long the endpoint may take to say what it serves; a server under load still lists its
# models in well under a second.
MODELS_TIMEOUT = 10.0
# AIPerf's own start-up and shut-down (its services, the tokenizer), on top of the requests'
# time: measured at 20-35 s a run on a 2-core machine (docs/measure.md).
STARTUP_SECONDS = 90.0
# Hub-offline variables make AIPerf 0.13 look a local tokenizer path up in the hub's cache
# (and fail); a path needs no hub, so they are left out of its environment then.
OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")


def tool_command() -> list[str]:
    """How to start AIPerf: $CHIPCOST_AIPERF, else the `aiperf` beside this Python (the
    `measure` extra, or the link scripts/setup.sh makes to an environment of its own), else
    this Python's module, else `aiperf` on the PATH; a ChipcostError saying how to install it."""
    given = os.environ.get("CHIPCOST_AIPERF", "").strip()
    if given:
        if not os.access(given, os.X_OK):
            raise ChipcostError(f"CHIPCOST_AIPERF={given} is not a program: give AIPerf's command")
        return [given]
    for found in _candidates():
        if found:
            return found
    raise ChipcostError(
        "chipcost measure drives AIPerf, which is not installed: pip install "
        "'chipcost[measure]', or install aiperf==0.13.0 in an environment of its own and put "
        "its `aiperf` on the PATH or in CHIPCOST_AIPERF (docs/measure.md)"
    )


def _candidates() -> list[list[str]]:
    beside = Path(sys.executable).parent / TOOL  # not resolved: a venv's bin, not the base's
    found = shutil.which(TOOL)
    return [
        [str(beside)] if os.access(beside, os.X_OK) else [],
        [sys.executable, "-m", TOOL] if importlib.util.find_spec(TOOL) is not None else [],
        [found] if found else [],
    ]


def base_url(endpoint: str) -> str:
    """The server's root: what the user gave, without a trailing /v1 or slash."""
    url = endpoint.strip().rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise UsageError(f"--endpoint {endpoint!r}: give the server's URL, http://HOST:PORT")
    return url.removesuffix("/v1")


def served_models(endpoint: str, timeout: float) -> list[str] | None:
    """The models the endpoint lists; None when it has no model list (a 404 there)."""
    shown = without_credentials(endpoint)
    try:
        answer = httpx.get(f"{endpoint}/v1/models", timeout=min(timeout, MODELS_TIMEOUT))
    except httpx.ConnectError as exc:
        raise ChipcostError(
            f"endpoint {shown} refused the connection ({exc}): nothing recorded; is the server "
            "running and listening there?"
        ) from None
    except httpx.TimeoutException:
        raise ChipcostError(
            f"endpoint {shown} timed out: no answer to GET /v1/models within "
            f"{min(timeout, MODELS_TIMEOUT):g} s; nothing recorded"
        ) from None
    except httpx.HTTPError as exc:
        raise ChipcostError(f"endpoint {shown} failed: {exc}; nothing recorded") from None
    if answer.status_code == 404:
        return None
    try:
        listed = answer.json()["data"]
        return [str(m["id"]) for m in listed]
    except (ValueError, KeyError, TypeError):
        raise ChipcostError(
            f"endpoint {shown} answered GET /v1/models with HTTP {answer.status_code} and no "
            "OpenAI model list: is it an OpenAI-compatible server?"
        ) from None


@dataclass(frozen=True)
class Run:
    """One AIPerf run at one concurrency: its summary (None when it wrote none), its records,
    the command line, and the last line it printed."""

    summary: bytes | None
    records: bytes | None
    command: list[str]
    last_line: str


def run_aiperf(
    *,
    endpoint: str,
    served_model: str,
    tokenizer: str,
    input_tokens: int,
    output_tokens: int,
    concurrency: int,
    requests: int,
    seconds: float,
    request_timeout: float,
    out: Path,
) -> Run:
    """AIPerf's `profile` at one concurrency: streamed chat completions of synthetic prompts of
    exactly `input_tokens` tokens asking for `output_tokens` (the end-of-sequence token
    ignored), token counts from the server's usage, at most `requests` requests and `seconds`."""
    command = [
        *tool_command(), "profile",
        "--model", served_model, "--url", endpoint, "--endpoint-type", "chat", "--streaming",
        "--tokenizer", tokenizer, "--use-server-token-count",
        "--isl", str(input_tokens), "--isl-stddev", "0",
        "--osl", str(output_tokens), "--osl-stddev", "0",
        "--extra-inputs", f"min_tokens:{output_tokens}", "--extra-inputs", "ignore_eos:true",
        "--concurrency", str(concurrency), "--request-count", str(requests),
        "--benchmark-duration", f"{seconds:g}", "--benchmark-grace-period", f"{request_timeout:g}",
        "--request-timeout-seconds", f"{request_timeout:g}",
        "--artifact-dir", str(out), "--ui", "none",
        "--no-server-metrics", "--no-gpu-telemetry", "--random-seed", "0",
    ]  # fmt: skip
    env = dict(os.environ)
    if Path(tokenizer).exists():
        for name in OFFLINE_VARIABLES:
            env.pop(name, None)
    limit = seconds + request_timeout + STARTUP_SECONDS
    with subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env=env,
        start_new_session=True,  # its services are its children: stopped as one group
    ) as child:
        try:
            output, _ = child.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.communicate()
            raise ChipcostError(
                f"AIPerf did not finish against {without_credentials(endpoint)} within "
                f"{limit:g} s at concurrency {concurrency}: the endpoint timed out; nothing "
                "recorded"
            ) from None
        except BaseException:  # Ctrl-C: its services go with it
            os.killpg(child.pid, signal.SIGKILL)
            raise
    text = output.decode("utf-8", "replace")
    return Run(
        summary=_read(out / SUMMARY),
        records=_read(out / RECORDS),
        command=command,
        last_line=_last_line(text),
    )


def _read(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None


def _last_line(text: str) -> str:
    """AIPerf's last word on a failed run: the 'Reason:' of its exit box, else its last
    ERROR line."""
    lines = [line.strip(" │") for line in text.splitlines()]
    for n, line in enumerate(lines):
        if line.startswith("Reason:"):
            rest = [line.removeprefix("Reason:").strip()]
            for more in lines[n + 1 : n + 4]:
                if not more or ":" in more[:12]:
                    break
                rest.append(more.strip())
            return " ".join(rest)
    errors = [line for line in lines if " ERROR " in line]
    return errors[-1][:300] if errors else ""
