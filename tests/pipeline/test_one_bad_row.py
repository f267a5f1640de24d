"""One bad row is one reject, the source goes on: a lone surrogate in one Azure field, a null
VM size, a number where Shadeform lists availability, a count of 5,000 digits, a Spot
Advisor entry of the wrong type. A document nested past the JSON reader's depth fails its
source in one line, not as "a bug in chipcost" with a traceback. Replayed for real from copies
of the sample archive's payloads, so changed."""

from __future__ import annotations

import gzip
import json
import logging
from pathlib import Path

import duckdb
import pytest

from chipcost.archive import ArchiveWriter, parse_stamp, read_manifest
from chipcost.core.settings import Settings
from tests.conftest import SAMPLE
from tests.lake_support import replay

RUN = sorted(p for p in SAMPLE.iterdir() if p.is_dir())[-1]


def rewritten(root: Path, source: str, change) -> Path:
    """The sample's last run of `source`, its first payload's JSON passed through `change`."""
    manifest = read_manifest(RUN / source)
    [entry, *_] = manifest["payloads"]
    body = json.loads(gzip.decompress((RUN / source / entry["name"]).read_bytes()))
    writer = ArchiveWriter(root, RUN.name, source, sample=True)
    data = change(body)
    data = data if isinstance(data, bytes) else json.dumps(data).encode()
    when = parse_stamp(RUN.name)
    writer.write(data, entry["url"], fetched_at=when, request=entry.get("request"))
    return root / RUN.name


def _outcome(db: Path, source: str) -> tuple[str, str, int, list[str]]:
    with duckdb.connect(str(db), read_only=True) as con:
        status, message, records = con.execute(
            "SELECT status, message, records FROM source_runs WHERE source = ?", [source]
        ).fetchone()
        reasons = [r for (r,) in con.execute(
            "SELECT reason FROM rejects WHERE source = ?", [source]).fetchall()]  # fmt: skip
    return status, message, records, reasons


def test_a_lone_surrogate_in_one_azure_row_is_one_reject(tmp_path):
    def poison(body):
        body["Items"][0]["skuId"] = "DZH318Z005ND/\ud800"  # escaped in the JSON as \\ud800
        return body

    run = rewritten(tmp_path / "archive", "azure", poison)
    db = tmp_path / "w.duckdb"
    replay(Settings(data_dir=tmp_path, db_path=db), [run], ["azure"])
    status, message, records, reasons = _outcome(db, "azure")
    assert status == "ok", message
    assert records > 0
    # The row's prices (on demand and its savings plans), each a reject with the reason.
    refused = [r for r in reasons if "surrogate" in r]
    assert refused and set(refused) == {"text that cannot be stored (a lone surrogate) in sku"}


def _null_sku(body):
    body["Items"][0]["armSkuName"] = None
    return body


def _numeric_availability(body):
    body["instance_types"][0]["availability"] = 7
    return body


def _huge_count(body):
    body["instance_types"][0]["configuration"]["num_gpus"] = "HUGE"
    return json.dumps(body).replace('"HUGE"', "9" * 5000).encode()


@pytest.mark.parametrize(
    ("source", "change", "reason"),
    [
        ("azure", _null_sku, "armSkuName None is not a VM size name"),
        ("shadeform", _numeric_availability, "availability"),  # the kit's or the parser's words
        ("shadeform", _huge_count, "hyperstack/H100x8-NVLINK: GPU count inf is not a whole"),
    ],
    ids=["azure-null-sku", "shadeform-numeric-availability", "shadeform-huge-count"],
)
def test_one_field_of_the_wrong_type_is_one_reject(tmp_path, caplog, source, change, reason):
    run = rewritten(tmp_path / "archive", source, change)
    db = tmp_path / "w.duckdb"
    with caplog.at_level(logging.DEBUG):
        replay(Settings(data_dir=tmp_path, db_path=db), [run], [source])
    status, message, records, reasons = _outcome(db, source)
    assert status == "ok", message
    assert records > 0  # the other rows loaded
    assert [r for r in reasons if reason in r], reasons
    assert "bug in chipcost" not in caplog.text


def test_a_spot_advisor_entry_of_the_wrong_type_is_one_reject(tmp_path):
    def poison(body):
        body["spot_advisor"]["us-east-1"]["Windows"] = [1, 2, 3]
        return body

    run = rewritten(tmp_path / "archive", "aws-spot-advisor", poison)
    db = tmp_path / "w.duckdb"
    replay(Settings(data_dir=tmp_path, db_path=db), [run], ["aws-spot-advisor"])
    status, message, _, reasons = _outcome(db, "aws-spot-advisor")
    assert status == "ok", message
    assert "us-east-1 (Windows): not an object of instance types" in reasons
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.sql("SELECT count(*) FROM spot_interruptions").fetchone()[0]
    assert rows > 0  # the other regions and systems loaded


def test_a_document_nested_past_the_reader_fails_in_one_line(tmp_path, caplog):
    def deep(body):
        return b'{"spot_advisor": ' + b"[" * 200_000 + b"]" * 200_000 + b', "ranges": []}'

    run = rewritten(tmp_path / "archive", "aws-spot-advisor", deep)
    db = tmp_path / "w.duckdb"
    with caplog.at_level(logging.DEBUG):
        replay(Settings(data_dir=tmp_path, db_path=db), [run], ["aws-spot-advisor"])
    status, message, _, _ = _outcome(db, "aws-spot-advisor")
    assert status == "failed"
    assert "is nested deeper than Python's JSON reader goes" in message, message
    assert "bug in chipcost" not in message
    assert "Traceback" not in caplog.text


@pytest.mark.parametrize("asked", [False, True])
def test_an_unexpected_error_shows_its_traceback_only_when_asked(monkeypatch, caplog, asked):
    from chipcost.core.settings import TRACEBACK_ENV
    from chipcost.pipeline.refusals import unexpected

    if asked:
        monkeypatch.setenv(TRACEBACK_ENV, "1")
    else:
        monkeypatch.delenv(TRACEBACK_ENV, raising=False)
    try:
        {}["missing"]
    except KeyError as exc:
        with caplog.at_level(logging.DEBUG):
            said = unexpected("vastai", exc, ())
    assert said.startswith("unexpected KeyError in vastai: 'missing'. This is a bug in chipcost")
    assert f"{TRACEBACK_ENV}=1 shows the traceback" in said
    assert ("Traceback" in caplog.text) is asked
