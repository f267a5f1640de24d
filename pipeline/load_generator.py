"""Running AIPerf, the load generator `chipcost measure` drives, against a user's endpoint
(chipcost.pipeline.endpoint, asked first what it serves).

AIPerf's own command line runs once per concurrency (its `profile` command, in a child process
of its own session: it starts services of its own, ended with it by
chipcost.pipeline.aiperf_group), reaching no host but the endpoint's, the
endpoint's credentials given inside its process, never on a command line; the run's summary
and per-request records are returned, credentials replaced, as the fetch of a source returns
its payload; reading them is chipcost.transform.measured's. Why AIPerf: docs/measure.md.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, NotRequired, TypedDict, Unpack
from urllib.parse import urlsplit

from chipcost.core.clean import REDACTED, printable
from chipcost.core.errors import ChipcostError
from chipcost.core.settings import AIPERF_ENV, process_variable
from chipcost.pipeline.aiperf_group import (
    dies_with_chipcost,
    end_group,
    raise_pending,
    starting,
    stopped_on_signals,
)
from chipcost.pipeline.endpoint import Endpoint
from chipcost.transform.measured import MAX_REPORT_BYTES, RECORDS, SUMMARY

TOOL = "aiperf"
# AIPerf's own start-up and shut-down (its services, the tokenizer), on top of the requests'
# time: measured at 20-35 s a run on a 2-core machine (docs/measure.md).
STARTUP_SECONDS = 90.0
# What is kept of AIPerf's printed output: its first and its last this many bytes (_Printed).
PRINTED_KEPT = 256 << 10
# Hub-offline variables make AIPerf 0.13 look a local tokenizer path up in the hub's cache
# (and fail); a path needs no hub, so they are left out of its environment then.
OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
# AIPerf's HTTP client follows redirects (aiohttp's default, no option to refuse them): with
# AIPERF_HTTP_TRUST_ENV it takes its proxy from the environment, and this one is a port
# nothing listens on, used for every host but the endpoint's (NO_PROXY). Port 9 is the
# discard service's, closed on any machine that measures.
NOWHERE = "http://127.0.0.1:9"
PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")
# The hub hosts a tokenizer named by the hub is fetched from, reached directly.
HUB_HOSTS = ("huggingface.co", "hf.co")
# The environment variable LAUNCH takes the endpoint's Authorization header from.
AUTHORIZATION_VARIABLE = "CHIPCOST_AIPERF_AUTHORIZATION"


def tool_command() -> list[str]:
    """How to start AIPerf: $CHIPCOST_AIPERF, else the `aiperf` beside this Python (the
    `measure` extra, or the link scripts/setup.sh makes to an environment of its own), else
    this Python's module, else `aiperf` on the PATH; a ChipcostError saying how to install it."""
    given = process_variable(AIPERF_ENV)
    if given:
        if not os.access(given, os.X_OK):
            raise ChipcostError(f"{AIPERF_ENV}={given} is not a program: give AIPerf's command")
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


@dataclass(frozen=True)
class Run:
    """One AIPerf run at one concurrency: its summary (None when it wrote none), its records,
    the command line, and the last line it printed."""

    summary: bytes | None
    records: bytes | None
    command: list[str]
    last_line: str
    tokenizer_error: str = ""  # AIPerf could not load the tokenizer: its words


@dataclass(frozen=True)
class Client:
    """How the benchmark client sends its prompts: fixed lengths by default; a baseline's
    client (InferenceX) draws each length within a range below the point's."""

    range_ratio: float | None = None  # each length drawn from [ratio x length, length]
    named: str = ""  # whose client it is, for the plan shown ("InferenceX's benchmark client")

    def shortest(self, length: int) -> int:
        """The shortest length drawn for a point's `length`: AIPerf's SGLang-style window,
        [max(1, int(ratio x length)), length]; the length itself with fixed lengths."""
        if self.range_ratio is None:
            return length
        return max(1, int(length * self.range_ratio))


def aiperf_options(
    *,
    endpoint: Endpoint,
    served_model: str,
    tokenizer: str,
    input_tokens: int,
    output_tokens: int,
    concurrency: int,
    requests: int,
    seconds: float,
    request_timeout: float,
    out: Path,
    client: Client = Client(),
) -> list[str]:
    """AIPerf `profile`'s options for one concurrency. Every value the user or the server
    chose is joined to its option (`--model=-x`), so it can never be read as an option."""
    if client.range_ratio is None:
        lengths = ["--isl-stddev=0", "--osl-stddev=0", f"--extra-inputs=min_tokens:{output_tokens}"]
    else:  # SGLang's style: [ratio x mean, mean], as InferenceX's client draws them
        lengths = [f"--random-range-ratio={client.range_ratio:g}", "--random-corpus-style=sglang"]
    return [
        "profile",
        f"--model={served_model}", f"--url={endpoint.url}", "--endpoint-type=chat", "--streaming",
        f"--tokenizer={tokenizer}", f"--isl={input_tokens}", f"--osl={output_tokens}", *lengths,
        "--extra-inputs=ignore_eos:true",
        f"--concurrency={concurrency}", f"--request-count={requests}",
        f"--benchmark-duration={seconds:g}", f"--benchmark-grace-period={request_timeout:g}",
        f"--request-timeout-seconds={request_timeout:g}",
        f"--artifact-dir={out}", "--ui=none",
        "--no-server-metrics", "--no-gpu-telemetry", "--random-seed=0",
    ]  # fmt: skip


class Point(TypedDict):
    """What run_aiperf asks of the endpoint besides its load: aiperf_options' keywords."""

    served_model: str
    tokenizer: str
    input_tokens: int
    output_tokens: int
    requests: int
    client: NotRequired[Client]


def run_aiperf(*, endpoint: Endpoint, concurrency: int, seconds: float, request_timeout: float,
               out: Path, **point: Unpack[Point]) -> Run:  # fmt: skip
    """AIPerf's `profile` at one concurrency (aiperf_options): streamed chat completions asking
    for the point's tokens (the end-of-sequence token ignored), its token counts the streamed
    text's by the model's tokenizer, at most `seconds`. AIPerf's whole process group is ended
    on every way out, and it reaches no host but the endpoint's."""
    options = aiperf_options(
        endpoint=endpoint, concurrency=concurrency, seconds=seconds,
        request_timeout=request_timeout, out=out, **point,
    )  # fmt: skip
    command = launcher(tool_command(), bool(endpoint.authorization)) + options
    limit = seconds + request_timeout + STARTUP_SECONDS
    printed = _Printed()
    with stopped_on_signals():
        with starting() as started:  # a stop signal meanwhile is raised once it is known
            child = subprocess.Popen(
                command,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                # unbuffered: closing it does not wait for the reader, which a process that
                # left AIPerf's group and kept the pipe would hold in read() for as long as it
                # lives
                bufsize=0,
                env=aiperf_environment(endpoint, str(point.get("tokenizer", "")), out.parent),
                start_new_session=True,  # its services are its children: stopped as one group
                preexec_fn=dies_with_chipcost(),  # signalled when chipcost dies, SIGKILL too
            )
            started(child.pid)
        reader = threading.Thread(target=printed.drain, args=(child.stdout,), daemon=True)
        try:  # done, failed, timed out or stopped by a signal: no service of it lingers
            raise_pending()
            reader.start()
            child.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            raise ChipcostError(
                f"AIPerf did not finish against {endpoint.url} within {limit:g} s at "
                f"concurrency {concurrency}: the endpoint timed out; nothing recorded"
            ) from None
        finally:
            end_group(child)
            if reader.is_alive():
                reader.join(5)
            if child.stdout:
                child.stdout.close()
    secrets = _secrets(endpoint)
    text = _unsaid(printed.kept(), secrets).decode("utf-8", "replace")
    return Run(
        summary=_unsaid(_read(out / SUMMARY), secrets),
        records=_unsaid(_read(out / RECORDS), secrets),
        # an option may hold what the server said (a model id it lists): the key too
        command=[TOOL, *(_unsaid(o.encode(), secrets).decode() for o in options)],
        last_line=_last_line(text),
        tokenizer_error=_tokenizer_error(text),
    )


# Started in place of AIPerf's own entry point: it moves the endpoint's Authorization header
# from the environment (taken out of it, so AIPerf's services do not inherit it) to AIPerf's
# options inside the process. A secret on a command line is readable by every user of the
# machine (ps, /proc/PID/cmdline); sys.argv changed inside a process is not.
LAUNCH = (
    "import json, os, runpy, sys\n"
    "tool, *args = sys.argv[1:]\n"
    f"header = os.environ.pop({AUTHORIZATION_VARIABLE!r}, '')\n"
    "args += ['--header', json.dumps({'Authorization': header})] if header else []\n"
    "sys.argv = [tool, *args]\n"
    "if tool == '-m':\n"
    "    sys.argv[0] = 'aiperf'\n"
    "    runpy.run_module('aiperf', run_name='__main__', alter_sys=True)\n"
    "else:\n"
    "    runpy.run_path(tool, run_name='__main__')\n"
)


def launcher(tool: list[str], credentials: bool) -> list[str]:
    """The command that starts AIPerf: through LAUNCH when it is Python (its console script
    or its module), as found otherwise; credentials need LAUNCH."""
    if tool[1:] == ["-m", TOOL]:
        return [tool[0], "-c", LAUNCH, "-m"]
    python = _interpreter(tool[0])
    if python:
        return [python, "-c", LAUNCH, tool[0]]
    if credentials:
        raise ChipcostError(
            f"{tool[0]} is not AIPerf's Python entry point, and chipcost gives the endpoint's "
            "credentials to AIPerf only inside its Python process (never on a command line "
            "others can read): set CHIPCOST_AIPERF to AIPerf's own `aiperf`"
        )
    return tool


def _interpreter(script: str) -> str | None:
    """The Python a console script starts with (its #! line), None for anything else."""
    try:
        with open(script, "rb") as handle:
            first = handle.readline(512).decode("utf-8", "replace")
    except OSError:
        return None
    if not first.startswith("#!"):
        return None
    words = first[2:].split()
    python = words[0] if words else ""
    if Path(python).name == "env" and len(words) > 1:
        python = shutil.which(words[1]) or ""
    return python if "python" in Path(python).name and os.access(python, os.X_OK) else None


def aiperf_environment(endpoint: Endpoint, tokenizer: str, scratch: Path) -> dict[str, str]:
    """AIPerf's environment: its HTTP client sent through a proxy that does not exist for every
    host but the endpoint's, so a redirect to another host fails instead of being measured
    under the endpoint's name; its dataset files (a system temporary folder and a cache under
    the home folder otherwise) in `scratch`, removed with it; the credentials for LAUNCH; the
    hub's offline switches left out for a tokenizer path."""
    env = {k: v for k, v in os.environ.items() if k.lower() not in PROXY_VARIABLES}
    direct = [endpoint.host] + ([] if Path(tokenizer).exists() else _hub_hosts())
    env.update(
        AIPERF_HTTP_TRUST_ENV="true",
        HTTP_PROXY=NOWHERE, HTTPS_PROXY=NOWHERE, ALL_PROXY=NOWHERE,
        NO_PROXY=",".join(direct),
    )  # fmt: skip
    env.update(
        AIPERF_DATASET_MMAP_BASE_PATH=str(scratch / "mmap"),
        AIPERF_DATASET_MMAP_CACHE_DIR=str(scratch / "mmap-cache"),
    )
    if endpoint.authorization:
        env[AUTHORIZATION_VARIABLE] = endpoint.authorization
    if Path(tokenizer).exists():
        for name in OFFLINE_VARIABLES:
            env.pop(name, None)
    return env


def _hub_hosts() -> list[str]:
    """The hub's hosts, and a mirror's that HF_ENDPOINT names."""
    mirror = urlsplit(os.environ.get("HF_ENDPOINT", "")).hostname
    return [*HUB_HOSTS, *([mirror] if mirror else [])]


def _secrets(endpoint: Endpoint) -> list[bytes]:
    """The credentials as they may appear in AIPerf's output: AIPerf's report keeps the
    command line it ran as it saw it, the header LAUNCH added included."""
    if not endpoint.authorization:
        return []
    whole = endpoint.authorization
    forms = {whole, whole.partition(" ")[2]} - {""}
    for _ in range(2):  # the header's JSON inside the report's JSON: escaped twice
        forms |= {json.dumps(f, ensure_ascii=a)[1:-1] for f in forms for a in (True, False)}
    return [f.encode() for f in forms]


def _unsaid(data: bytes | None, secrets: list[bytes]) -> bytes | None:
    """The data with every secret replaced by REDACTED, longest first."""
    if data is None:
        return None
    for secret in sorted(set(secrets), key=len, reverse=True):
        data = data.replace(secret, REDACTED.encode())
    return data


def _read(path: Path) -> bytes | None:
    """A file AIPerf wrote, to one byte past what chipcost reads of it (MAX_REPORT_BYTES): a
    server's error bodies, repeated in every request's record, set its size."""
    if not path.is_file():
        return None
    with path.open("rb") as file:
        return file.read(MAX_REPORT_BYTES + 1)


class _Printed:
    """What AIPerf prints, its first and last PRINTED_KEPT bytes: the words chipcost reads of
    it (its last line, a tokenizer's error) without holding what a server's repeated error
    bodies make of it."""

    def __init__(self) -> None:
        self.head = bytearray()
        self.tail = bytearray()

    def drain(self, stream: IO[bytes]) -> None:
        for chunk in iter(lambda: stream.read(1 << 16), b""):
            room = PRINTED_KEPT - len(self.head)
            self.head += chunk[:room]
            self.tail = (self.tail + chunk[room:])[-PRINTED_KEPT:]

    def kept(self) -> bytes:
        return bytes(self.head + self.tail)


def _tokenizer_error(text: str) -> str:
    """AIPerf's own words when it could not load the tokenizer, else ''."""
    for line in text.splitlines():
        if "TokenizerError:" in line:
            return printable(line.partition("TokenizerError:")[2].strip())[:300]
    return ""


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
