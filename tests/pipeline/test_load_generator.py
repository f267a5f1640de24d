"""What `chipcost measure` reads from the user's endpoint and gives AIPerf: the endpoint's
credentials kept off every command line and message, the model list bounded, every value
the server or the user chose passed as one argument, a redirect to another host refused, and
each measurement's archive folder its own. The endpoint is tests.openai_server (a test double
of the user's serving stack on 127.0.0.1)."""

from __future__ import annotations

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chipcost.core.errors import ChipcostError, UsageError
from chipcost.pipeline.endpoint import (
    MAX_MODEL_NAME,
    MAX_MODELS,
    MAX_MODELS_BYTES,
    Endpoint,
    endpoint_of,
    model_list,
    served_models,
)
from chipcost.pipeline.load_generator import (
    AUTHORIZATION_VARIABLE,
    LAUNCH,
    NOWHERE,
    Client,
    aiperf_environment,
    aiperf_options,
    launcher,
)
from chipcost.pipeline.measure import claim_folder
from tests.openai_server import serving

SECRET = "pa:ss/w@rd"


def _options(**changed: object) -> list[str]:
    given_ = {
        "endpoint": Endpoint("http://127.0.0.1:8000"), "served_model": "m", "tokenizer": "t",
        "input_tokens": 32, "output_tokens": 8, "concurrency": 1, "requests": 1,
        "seconds": 60.0, "request_timeout": 20.0, "out": "/tmp/x",
    }  # fmt: skip
    return aiperf_options(**{**given_, **changed})  # type: ignore[arg-type]


def test_a_password_in_the_url_becomes_a_header_never_part_of_the_url():
    quoted = "pa%3Ass%2Fw%40rd"
    endpoint = endpoint_of(f"http://user:{quoted}@10.0.0.5:8000/v1/")
    assert endpoint.url == "http://10.0.0.5:8000"
    assert endpoint.authorization == "Basic " + base64.b64encode(f"user:{SECRET}".encode()).decode()
    assert SECRET not in repr(endpoint) and quoted not in repr(endpoint)
    assert endpoint_of("http://h:1", "k").authorization == "Bearer k"
    with pytest.raises(ChipcostError, match="give the credentials once") as both:
        endpoint_of(f"http://user:{quoted}@h:1", "k")
    assert quoted not in str(both.value)


def test_a_malformed_endpoint_is_refused_without_its_password():
    with pytest.raises(ChipcostError, match="give the server's URL") as refused:
        endpoint_of("ftp://user:hunter2@host/")
    assert "hunter2" not in str(refused.value)


@pytest.mark.parametrize(
    ("given", "said"),
    [
        # on 0cae6cf the first ended in a traceback (urlsplit's ValueError), the next three
        # passed the check and failed later, outside any message (a port past 65535, a space
        # or a control character in the host, a label longer than DNS allows)
        ("http://[::1", "'http://[::1': Invalid IPv6 URL; give the server's URL"),
        ("http://127.0.0.1:99999", "Port out of range 0-65535; give the server's URL"),
        ("http://exa mple.com:8000", "'exa mple.com' is no host name"),
        ("http://h\x00st:8000", "'h\\x00st' is no host name"),
        ("http://" + "a" * 300 + ":8000", "is no host name"),
    ],
)
def test_an_endpoint_no_client_could_reach_is_refused_saying_why(given, said):
    with pytest.raises(UsageError) as refused:
        endpoint_of(given)
    assert said in str(refused.value), str(refused.value)
    assert len(str(refused.value)) < 300


@pytest.mark.parametrize(
    "given",
    [
        "http://10.0.0.5:8000/v1/chat/completions",  # a request's URL, from a client's settings
        "http://10.0.0.5:8000/v1/completions",
        "http://10.0.0.5:8000/v1/models",
        "http://10.0.0.5:8000/v1/",
    ],
)
def test_an_endpoint_given_as_a_route_is_its_server(given):
    """On 0cae6cf '.../v1/chat/completions' was kept as the root: the model list was asked at
    '.../v1/chat/completions/v1/models'."""
    assert endpoint_of(given).url == "http://10.0.0.5:8000"
    assert endpoint_of("https://h/openai/v1/chat/completions").url == "https://h/openai"


def test_credentials_reach_aiperf_only_through_its_environment():
    endpoint = endpoint_of(f"http://user:{SECRET.replace('/', '%2F')}@127.0.0.1:8000")
    options = _options(endpoint=endpoint)
    env = aiperf_environment(endpoint, "t", __import__("pathlib").Path("/tmp/scratch"))
    assert not any("user" in o or "rd" in o.split("=")[-1] for o in options if "url" in o)
    assert env[AUTHORIZATION_VARIABLE] == endpoint.authorization
    # LAUNCH takes the header out of the environment, so AIPerf's services never inherit it
    assert f"os.environ.pop({AUTHORIZATION_VARIABLE!r}" in LAUNCH


def test_a_tool_that_is_not_python_cannot_be_given_credentials(tmp_path):
    script = tmp_path / "aiperf"
    script.write_text("#!/bin/sh\nexec true\n")
    assert launcher([str(script)], credentials=False) == [str(script)]
    with pytest.raises(ChipcostError, match="never on a command line others can read"):
        launcher([str(script)], credentials=True)


def test_every_host_but_the_endpoints_goes_to_a_proxy_that_does_not_exist(tmp_path):
    env = aiperf_environment(Endpoint("http://10.0.0.5:8000"), str(tmp_path), tmp_path)
    assert env["AIPERF_HTTP_TRUST_ENV"] == "true"
    assert env["HTTP_PROXY"] == env["HTTPS_PROXY"] == NOWHERE
    assert env["NO_PROXY"] == "10.0.0.5"  # a tokenizer path: no hub host
    assert AUTHORIZATION_VARIABLE not in env
    # AIPerf's dataset files (its temporary folder and its cache) go with the measurement's
    assert env["AIPERF_DATASET_MMAP_BASE_PATH"].startswith(str(tmp_path))
    assert env["AIPERF_DATASET_MMAP_CACHE_DIR"].startswith(str(tmp_path))


@given(
    name=st.text(
        alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40
    ).map(lambda t: "-" + t)
)
def test_a_model_name_starting_with_a_dash_is_one_argument(name):
    options = _options(served_model=name, tokenizer=f"-{name}")
    assert f"--model={name}" in options and f"--tokenizer=-{name}" in options
    # nothing but AIPerf's own options and chipcost's fixed switches starts with '-'
    assert all(o.startswith("--") and o[2:3].isalpha() for o in options[1:])


def test_an_inferencex_client_draws_lengths_as_its_client_does():
    options = _options(client=Client(range_ratio=0.8))
    assert "--random-range-ratio=0.8" in options and "--random-corpus-style=sglang" in options
    assert "--extra-inputs=ignore_eos:true" in options
    assert not any(o.startswith(("--isl-stddev", "--extra-inputs=min_tokens")) for o in options)


def _listing(ids: list) -> bytes:
    return json.dumps({"object": "list", "data": [{"id": i} for i in ids]}).encode()


@pytest.mark.parametrize(
    ("ids", "said"),
    [
        ([f"m{n}" for n in range(MAX_MODELS + 1)], "name the one to measure"),
        (["x" * (MAX_MODEL_NAME + 1)], "names are 1 to"),
        (["ok", "bad\x1b[31m"], "names are 1 to"),
        ([""], "names are 1 to"),
        ([3], "names are 1 to"),
        ([None], "names are 1 to"),
    ],
    ids=["too-many", "too-long", "escape", "empty", "a-number", "null"],
)
def test_a_model_list_out_of_bounds_is_refused(ids, said):
    with pytest.raises(ChipcostError, match=said):
        model_list(_listing(ids), 200, "http://h:1")


def test_a_model_list_nested_too_deep_is_refused():
    with pytest.raises(ChipcostError, match="no OpenAI model list"):
        model_list(b'{"data": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", 200, "http://h:1")


def test_a_model_list_larger_than_any_is_not_read_whole():
    with serving(50.0, models=["m" * 200] * 10_000) as double:  # about 2.3 MB of JSON
        with pytest.raises(ChipcostError, match=f"more than {MAX_MODELS_BYTES >> 10:,} KB"):
            served_models(Endpoint(double.url), 5)


def test_the_model_list_is_asked_with_the_credentials():
    endpoint = endpoint_of(f"http://u:{SECRET.replace('/', '%2F').replace('@', '%40')}@x:1")
    with serving(50.0) as double:
        served_models(Endpoint(double.url, endpoint.authorization), 5)
    assert double.authorizations == [endpoint.authorization]


def _redirecting(location: str) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            self.send_response(307)
            self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.mark.parametrize("location", ["http://10.9.9.9:8000/v1/models", "http://localhost:1/"])
def test_a_model_list_redirected_to_another_host_is_refused(location):
    server = _redirecting(location)
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        with pytest.raises(ChipcostError, match="redirects to another host"):
            served_models(Endpoint(url), 5)
    finally:
        server.shutdown()
        server.server_close()


def _answering(status: int, body: bytes) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


LISTED = json.dumps({"object": "list", "data": [{"id": "m"}]}).encode()


@pytest.mark.parametrize(
    ("status", "body", "said"),
    [
        (401, b"<html>Unauthorized</html>", "refused the credentials (HTTP 401 to GET "
         "/v1/models): give the server's key in CHIPCOST_API_KEY"),
        (403, LISTED, "refused the credentials (HTTP 403"),
        # a model list served with a failure is no list: before, it was taken and measured
        (500, LISTED, "answered GET /v1/models with HTTP 500: the server is failing"),
        (502, b"<html>Bad Gateway</html>", "with HTTP 502: the server is failing"),
    ],
)  # fmt: skip
def test_a_model_list_answered_with_a_failure_says_which(status, body, said):
    server = _answering(status, body)
    try:
        with pytest.raises(ChipcostError) as refused:
            served_models(Endpoint(f"http://127.0.0.1:{server.server_address[1]}"), 5)
        assert said in str(refused.value)
    finally:
        server.shutdown()
        server.server_close()


def test_two_measurements_in_one_second_get_folders_of_their_own(tmp_path):
    folder = str(tmp_path / "measurements")
    names = [claim_folder(folder, "2026-11-26T101010Z") for _ in range(3)]
    assert names == ["2026-11-26T101010Z", "2026-11-26T101010Z-2", "2026-11-26T101010Z-3"]
    assert all((tmp_path / "measurements" / n).is_dir() for n in names)


# A stand-in for AIPerf's console script that starts a service of its own and hangs: what the
# way out of a run must end, whole (the real AIPerf's services are its children too).
HANGING = """#!{python}
import os, pathlib, subprocess, sys, time
given = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
out = pathlib.Path(given["artifact-dir"])
out.mkdir(parents=True)
service = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
(out.parent / "pids").write_text(f"{{os.getpid()}} {{service.pid}}")
time.sleep(300)
"""


@pytest.fixture
def hanging(tmp_path, monkeypatch):
    """CHIPCOST_AIPERF set to HANGING; returns the folder its run's files go in."""
    return _stand_in(HANGING, tmp_path, monkeypatch)


def _stand_in(script: str, tmp_path, monkeypatch):
    """CHIPCOST_AIPERF set to a stand-in for AIPerf's console script (`script`, its Python
    filled in); returns the folder its run's files go in."""
    import sys

    tool = tmp_path / "aiperf"
    tool.write_text(script.format(python=sys.executable))
    tool.chmod(0o755)
    monkeypatch.setenv("CHIPCOST_AIPERF", str(tool))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    return scratch


def _run(scratch, **changed):
    from chipcost.pipeline.load_generator import run_aiperf

    given_ = {
        "endpoint": Endpoint("http://127.0.0.1:9"), "served_model": "m", "tokenizer": "t",
        "input_tokens": 32, "output_tokens": 8, "concurrency": 1, "requests": 1,
        "seconds": 0.5, "request_timeout": 0.5, "out": scratch / "concurrency_1",
    }  # fmt: skip
    return run_aiperf(**{**given_, **changed})


def _pids(scratch) -> list[int]:
    marker = scratch / "pids"
    return [int(p) for p in marker.read_text().split()] if marker.exists() else []


def test_a_run_past_its_time_ends_the_whole_group(hanging, monkeypatch):
    from chipcost.pipeline import load_generator
    from tests.procs import gone

    monkeypatch.setattr(load_generator, "STARTUP_SECONDS", 3.0)
    with pytest.raises(ChipcostError, match="did not finish against http://127.0.0.1:9"):
        _run(hanging)
    pids = _pids(hanging)
    assert len(pids) == 2 and gone(pids, 10) == []


def test_a_termination_ends_the_whole_group_and_is_raised_as_an_interrupt(hanging, monkeypatch):
    import os
    import signal
    import time

    from chipcost.pipeline import load_generator
    from tests.procs import gone

    monkeypatch.setattr(load_generator, "STARTUP_SECONDS", 60.0)
    before = signal.getsignal(signal.SIGTERM)

    def terminate_once_started() -> None:
        end = time.monotonic() + 30
        while not (hanging / "pids").exists() and time.monotonic() < end:
            time.sleep(0.1)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=terminate_once_started, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        _run(hanging)
    pids = _pids(hanging)
    assert len(pids) == 2 and gone(pids, 10) == []
    assert signal.getsignal(signal.SIGTERM) is before  # put back once AIPerf is gone


def test_a_sweep_leaves_no_file_and_no_process_behind(hanging, monkeypatch, tmp_path):
    import tempfile

    from chipcost.pipeline import load_generator
    from chipcost.pipeline.measure import Setup, run_sweep
    from chipcost.transform.measured import Roof

    monkeypatch.setattr(load_generator, "STARTUP_SECONDS", 3.0)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    seen: list[int] = []
    real = load_generator.run_aiperf

    def watched(**given):
        try:
            return real(**given)
        finally:
            seen.extend(_pids(given["out"].parent))

    monkeypatch.setattr("chipcost.pipeline.measure.run_aiperf", watched)
    setup = Setup(
        chip="H100-SXM", model="m", chips=1, instance=None, precision="fp8", software="x",
        endpoint=Endpoint("http://127.0.0.1:9"), served_model="m", tokenizer="t",
        input_tokens=32, output_tokens=8, concurrencies=[1], requests=1, seconds=2,
        request_timeout=0.5,
    )  # fmt: skip
    with pytest.raises(ChipcostError, match="did not finish"):
        run_sweep(setup, "m", Roof(1e9, 1e9, 1, 1))
    from tests.procs import gone

    assert len(seen) == 2 and gone(seen, 10) == []
    assert list(temporary.iterdir()) == []  # AIPerf's folder, its dataset files in it, removed


# (a key outside ASCII is refused before anything is sent: tests/pipeline/test_endpoint.py)
@pytest.mark.parametrize("key", ['k"ey\\with/quotes', "sk-plain-0123", "sk-+/=~!{}"])
def test_what_aiperf_writes_is_read_without_the_credentials(key):
    from chipcost.pipeline.load_generator import _secrets, _unsaid

    endpoint = endpoint_of("http://h:1", key)
    # AIPerf's report keeps its command line, the header LAUNCH added included, as JSON
    header = json.dumps({"Authorization": endpoint.authorization})
    report = json.dumps({"cli_command": f"aiperf profile --header '{header}'"}).encode()
    scrubbed = _unsaid(report, _secrets(endpoint))
    assert key.encode() not in scrubbed and json.dumps(key)[1:-1].encode() not in scrubbed
    assert b"<redacted>" in scrubbed and json.loads(scrubbed)  # still JSON


def test_a_hub_tokenizer_is_fetched_directly(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", "https://hf-mirror.example.org")
    monkeypatch.setenv("HTTPS_PROXY", "http://corporate:3128")  # the user's, not AIPerf's
    env = aiperf_environment(Endpoint("http://10.0.0.5:8000"), "meta-llama/Llama-3.3-70B", tmp_path)
    assert env["NO_PROXY"].split(",") == [
        "10.0.0.5", "huggingface.co", "hf.co", "hf-mirror.example.org"
    ]  # fmt: skip
    assert env["HTTPS_PROXY"] == NOWHERE and "https_proxy" not in env


LOUD = """#!{python}
import pathlib, sys
given = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
out = pathlib.Path(given["artifact-dir"])
out.mkdir(parents=True)
# a server's 50 KB error body in each of 400 requests' records, and AIPerf's console saying so
line = b'{{"error": {{"type": "HTTPError", "message": "' + b"x" * 50_000 + b'"}}}}\\n'
(out / "profile_export.jsonl").write_bytes(line * 400)
for _ in range(100):
    sys.stdout.buffer.write(b"<html>" + b"y" * 50_000 + b"</html>\\n")
print("Reason: All 400 inference request(s) failed")
"""


def test_what_a_run_writes_and_prints_is_read_within_bounds_and_without_the_key(
    tmp_path, monkeypatch
):
    """A server's error bodies set the size of AIPerf's records and output: chipcost reads one
    byte past what it uses of the records and keeps the first and last of the output, never
    the whole. A server listing the API key as its model: the archived command hides it."""
    from chipcost.transform.measured import MAX_REPORT_BYTES

    scratch = _stand_in(LOUD, tmp_path, monkeypatch)
    key = "sk-SUPERSECRETKEY123456"
    run = _run(scratch, endpoint=endpoint_of("http://127.0.0.1:9", key), served_model=key)
    written = scratch / "concurrency_1" / "profile_export.jsonl"
    assert written.stat().st_size > 2 * MAX_REPORT_BYTES
    assert len(run.records or b"") == MAX_REPORT_BYTES + 1
    assert run.last_line == "All 400 inference request(s) failed"
    assert key not in json.dumps(run.command) and "--model=<redacted>" in run.command


def test_aiperfs_output_is_kept_at_its_first_and_last_bytes():
    import io

    from chipcost.pipeline.load_generator import PRINTED_KEPT, _Printed

    printed = _Printed()
    printed.drain(io.BytesIO(b"first line\n" + b"z" * (3 * PRINTED_KEPT) + b"\nlast line\n"))
    kept = printed.kept()
    assert len(kept) == 2 * PRINTED_KEPT
    assert kept.startswith(b"first line\n") and kept.endswith(b"\nlast line\n")


LEFT_BEHIND = """#!{python}
import os, pathlib, subprocess, sys
given = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
pathlib.Path(given["artifact-dir"]).mkdir(parents=True)
# a process that leaves AIPerf's group and keeps its output pipe open
left = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                        start_new_session=True)
(pathlib.Path(given["artifact-dir"]).parent / "left").write_text(str(left.pid))
print("Reason: nothing measured")
"""


def test_a_process_left_holding_aiperfs_output_does_not_hold_the_run(tmp_path, monkeypatch):
    """A process outside AIPerf's group keeping its output pipe open: the run ends when AIPerf
    does, the process still alive (before, closing the pipe waited for the reader until that
    process ended)."""
    import os
    import signal

    from tests.procs import alive

    scratch = _stand_in(LEFT_BEHIND, tmp_path, monkeypatch)
    run = _run(scratch, seconds=5.0, request_timeout=5.0)
    left = int((scratch / "left").read_text())
    try:
        assert run.last_line == "nothing measured"
        assert alive(left)  # the run did not wait for it
    finally:
        os.kill(left, signal.SIGKILL)
