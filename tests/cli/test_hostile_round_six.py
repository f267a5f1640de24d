"""What a careless or hostile user gave that chipcost let through before this round: days no
calendar arithmetic can reach, passwords a URL carries in ways the mask did not see, an API key
no HTTP header can carry, a host name that does not resolve called a refusal."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chipcost.core.clean import masked
from chipcost.core.days import DayOutOfRange, utc_day
from chipcost.core.errors import UsageError
from chipcost.pipeline.endpoint import endpoint_of
from tests.helpers import loaded_warehouse, record

SECRET = "hunter2SECRET"


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    return loaded_warehouse(tmp_path_factory.mktemp("six") / "w.duckdb", [record()])


def refused(done, said: str) -> str:
    assert done.returncode == 2, (done.stdout[-500:], done.stderr[-1000:])
    assert "Traceback" not in done.stderr
    line = " ".join(done.stderr.split())
    assert said in line, line
    return line


@pytest.mark.parametrize("given", ["0001-01-01", "1899-12-31"])
def test_a_day_no_read_can_reach_is_refused(given):
    with pytest.raises(DayOutOfRange):
        utc_day(given)


@pytest.mark.parametrize(
    "text",
    [
        f"http://:{SECRET}@127.0.0.1:1",  # no user name
        f"http://user:Ab/cd{SECRET}@10.0.0.5:8000",  # a raw '/' in the password
        f"ducklake:postgres:postgresql://:{SECRET}@127.0.0.1:1/db",
        f"postgresql://u:pa/ss{SECRET}@h/db: connection refused",
    ],
)
def test_a_password_is_masked_however_the_url_carries_it(text):
    # on a81b4ee each was printed whole
    assert SECRET not in masked(text)


def test_a_user_name_alone_is_no_secret():
    assert masked("postgresql://chipcost@localhost/db") == "postgresql://chipcost@localhost/db"


@pytest.mark.parametrize(
    "given",
    [f"http://user:8000/{SECRET}@10.0.0.5:8000", f"http://user:Ab/cd{SECRET}@10.0.0.5:8000"],
)
def test_an_endpoint_whose_password_ended_its_host_is_refused(given):
    # the first was accepted on a81b4ee: host 'user', the password part of its path
    with pytest.raises(UsageError) as refusal:
        endpoint_of(given)
    assert SECRET not in str(refusal.value)


@pytest.mark.parametrize("key", [f"sk-{SECRET}\nsk-{SECRET}", f"sk-{SECRET}€", f"sk {SECRET}"])
def test_an_api_key_no_header_can_carry_is_refused_without_it(key):
    # on a81b4ee the first was printed whole in httpx's error, the second a traceback
    with pytest.raises(UsageError, match="a character an HTTP header cannot carry") as refusal:
        endpoint_of("http://127.0.0.1:9", key)
    assert SECRET not in str(refusal.value)


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
        ("vLLM\x1b[31m", "llama-3-70b", "--software: give the serving software and version on one"),
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


def test_an_empty_warehouse_or_directory_is_refused_not_taken_as_the_default(tmp_path, run):
    # on a81b4ee `--db ''` read data/chipcost.duckdb and `report --out ''` wrote into the
    # current directory
    done = run("prices", "--db", "")
    assert done.returncode == 1 and "--db is empty" in done.stderr
    refused(run("report", "--out", "", "--dry-run"), "--out is empty")


def test_every_csv_writes_a_whole_chip_count_as_an_integer():
    """The report's changes and the explorer's offers.csv wrote 8.0 on a81b4ee, where `prices
    --format csv` writes 8 (docs/cli.md: a whole count as an integer, a slice its fraction)."""
    import polars as pl

    from chipcost.core.frames import spreadsheet_safe

    frame = pl.DataFrame({"chip_count": [8.0, 0.125, None], "price": [1.0, 2.0, 3.0]})
    written = spreadsheet_safe(frame).write_csv().splitlines()
    assert written == ["chip_count,price", "8,1.0", "0.125,2.0", ",3.0"]


def test_the_reports_changes_and_the_explorers_offers_write_counts_as_prices_does(
    warehouse, tmp_path, run
):
    import csv

    done = run("report", "--dry-run", "--out", str(tmp_path / "r"), "--db", str(warehouse))
    assert done.returncode == 0, done.stderr
    site = run("site", "--out", str(tmp_path / "s"), "--db", str(warehouse))
    assert site.returncode == 0, site.stderr
    for path in [*(tmp_path / "r").glob("*.csv"), tmp_path / "s" / "offers.csv"]:
        with path.open(encoding="utf-8") as handle:
            counts = {row["chip_count"] for row in csv.DictReader(handle)}
        assert counts and not any(c.endswith(".0") for c in counts), (path.name, counts)


@pytest.mark.parametrize(
    ("endpoint", "said"),
    [
        # each was taken on e2f7b55: port 0 connected to, the query dropped without a word
        ("http://127.0.0.1:0", "port 0 is no server's"),
        (f"http://h:1/?api_key={SECRET}", "with a query or fragment (?... or #..., not shown)"),
    ],
)
def test_an_endpoint_no_request_would_reach_as_given_is_refused(endpoint, said):
    with pytest.raises(UsageError, match=re.escape(said)) as refusal:
        endpoint_of(endpoint)
    assert SECRET not in str(refusal.value)


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


def test_the_sender_is_checked_as_a_recipient_is(warehouse, tmp_path, run):
    smtp = {"CHIPCOST_SMTP_HOST": "127.0.0.1", "CHIPCOST_SMTP_PORT": "9",
            "CHIPCOST_SMTP_TLS": "none", "CHIPCOST_SMTP_FROM": "notanaddr"}  # fmt: skip
    done = run("report", "--out", str(tmp_path / "r"), "--email", "a@example.com", "--db",
               str(warehouse), env=smtp)  # fmt: skip
    # on e2f7b55 the message went out From: notanaddr
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "CHIPCOST_SMTP_FROM='notanaddr' is not one e-mail address" in done.stderr


def test_an_address_outside_ascii_is_sent_as_smtp_carries_it(warehouse, tmp_path, run):
    out = tmp_path / "r"
    done = run("report", "--dry-run", "--out", str(out), "--email", "jo@exämple.com", "--db",
               str(warehouse))  # fmt: skip
    assert done.returncode == 0, done.stderr
    (eml,) = out.glob("*.eml")
    # on e2f7b55: "To: jo@=?utf-8?q?ex=C3=A4mple?=.com", no address at all
    assert "To: jo@xn--exmple-cua.com" in eml.read_text(encoding="utf-8")
    refused_ = run("report", "--dry-run", "--out", str(out), "--email", "ü@example.com",
                   "--db", str(warehouse))  # fmt: skip
    assert refused_.returncode == 1 and "outside ASCII" in refused_.stderr
