"""`chipcost measure` refuses what cannot be measured before its sweep sends anything: an API
key no HTTP header can carry (never printed), empty labels, a blank tokenizer or served
model (with --dry-run as without) or a label that is no line, a
concurrency not in ASCII digits, an instance type chipcost does not know; a host name that does
not resolve is said as such, not called a refusal. On a real warehouse, the command line
through the in-process runner."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import loaded_warehouse, record
from tests.refusals import refused

SECRET = "hunter2SECRET"


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    return loaded_warehouse(tmp_path_factory.mktemp("measure") / "w.duckdb", [record()])


def test_an_api_key_in_a_bad_header_is_never_printed(warehouse, tmp_path, run):
    copy = tmp_path / "w.duckdb"
    copy.write_bytes(warehouse.read_bytes())
    done = run(
        "measure", "--endpoint", "http://127.0.0.1:9", "--model", "llama-3-70b", "--tokenizer",
        "gpt2", "--precision", "bf16", "--software", "vLLM 0.11.0", "--chip", "H100-SXM",
        "--chips", "8", "--input-tokens", "100", "--output-tokens", "10", "--db", str(copy),
        env={"CHIPCOST_API_KEY": f"sk-{SECRET}\nsk-{SECRET}"},
    )  # fmt: skip
    refused(done, "a character an HTTP header cannot carry")
    assert SECRET not in done.stdout + done.stderr


def test_a_host_that_does_not_resolve_is_not_called_a_refusal(warehouse, tmp_path, run):
    copy = tmp_path / "w.duckdb"
    copy.write_bytes(warehouse.read_bytes())
    done = run(
        "measure", "--endpoint", "http://no-such-host.invalid:8000", "--model", "llama-3-70b",
        "--tokenizer", "gpt2", "--precision", "bf16", "--software", "vLLM 0.11.0", "--chip",
        "H100-SXM", "--chips", "8", "--input-tokens", "100", "--output-tokens", "10",
        "--db", str(copy),
    )  # fmt: skip
    assert done.returncode == 1 and "Traceback" not in done.stderr
    line = " ".join(done.stderr.split())
    assert "no address for no-such-host.invalid" in line and "refused" not in line


@pytest.mark.parametrize(
    ("software", "model", "said"),
    [
        # on a81b4ee the first ran the sweep and recorded no software, the second pointed at
        # `chipcost throughput model  --parameters 70B`, the third was refused after the sweep
        ("", "llama-3-70b", "--software is empty"),
        ("vLLM 0.11.0", " ", "--model is empty"),
        ("vLLM\x1b[31m", "llama-3-70b", "--software: "),  # a usage error naming the option
    ],
)  # fmt: skip
def test_measure_refuses_empty_labels_before_it_runs(
    warehouse, tmp_path, run, software, model, said
):
    done = run(
        "measure", "--endpoint", "http://127.0.0.1:9", "--model", model, "--tokenizer", "gpt2",
        "--precision", "bf16", "--software", software, "--chip", "H100-SXM", "--chips", "8",
        "--input-tokens", "100", "--output-tokens", "10", "--db", str(warehouse),
    )  # fmt: skip
    refused(done, said)
    assert "measuring" not in done.stdout


@pytest.mark.parametrize("dry_run", [[], ["--dry-run"]])
@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        # on ad7e6775 the first was the working directory, the second read as not given
        ("--tokenizer", "", "--tokenizer is empty: give the model's tokenizer"),
        ("--served-model", " ", "--served-model is empty: give the name the server knows"),
        ("--precision", "fp9", "--precision 'fp9': give one of fp4"),
        ("--software", "", "--software is empty"),
    ],
)  # fmt: skip
def test_a_value_refused_is_refused_with_dry_run_too(warehouse, run, option, value, said, dry_run):
    values = {"--tokenizer": "gpt2", "--precision": "bf16", "--software": "vLLM 0.11.0"}
    values[option] = value
    done = run(
        "measure", "--endpoint", "http://127.0.0.1:9", "--model", "llama-3-70b",
        *(word for pair in values.items() for word in pair), "--chip", "H100-SXM", "--chips",
        "8", "--input-tokens", "100", "--output-tokens", "10", "--db", str(warehouse), *dry_run,
    )  # fmt: skip
    refused(done, said)
    assert "plan for" not in done.stdout and "measuring" not in done.stderr


@pytest.mark.parametrize("given", ["1_0", "+4", "١٠٢٤", "１６"])
def test_a_concurrency_is_written_in_ascii_digits(warehouse, run, given):
    # on e2f7b55 each was read as a number (Python's int() takes them)
    done = run(
        "measure", "--endpoint", "http://127.0.0.1:9", "--model", "llama-3-70b", "--tokenizer",
        "gpt2", "--precision", "bf16", "--software", "vLLM 0.11.0", "--chip", "H100-SXM",
        "--chips", "8", "--input-tokens", "100", "--output-tokens", "10", "--concurrency", given,
        "--db", str(warehouse),
    )  # fmt: skip
    refused(done, "give concurrencies from 1 to 1024 by comma")


def test_an_instance_chipcost_does_not_know_is_named(warehouse, run):
    # on e2f7b55: "--chip: name the chip measured"
    done = run(
        "measure", "--endpoint", "http://127.0.0.1:9", "--model", "llama-3-70b", "--tokenizer",
        "gpt2", "--precision", "bf16", "--software", "vLLM 0.11.0", "--instance", "nosuch.type",
        "--input-tokens", "100", "--output-tokens", "10", "--db", str(warehouse),
    )  # fmt: skip
    refused(done, "--instance 'nosuch.type': chipcost knows no such instance type")
