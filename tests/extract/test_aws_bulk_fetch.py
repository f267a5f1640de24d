"""aws-bulk fetch() against a local HTTP server serving the recorded price list files.

The server (tests/price_files_server.py) serves tests/fixtures/aws-bulk/ under AWS's URL
paths, with Range/If-Range/ETag, and can cut a download off, ignore Range, or send a wrong
ETag: resume, verification and the error messages are exercised over real HTTP.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from pathlib import Path

import pytest

from chipcost.archive import read_manifest, read_payloads
from chipcost.core.errors import ParseError, SourceError, SourceSkipped
from chipcost.extract._http import MAX_ATTEMPTS
from chipcost.extract.aws import _public as _aws_public
from chipcost.extract.aws import bulk as aws_bulk
from chipcost.extract.aws._bulk_fetch import KEPT_BYTES
from tests.aws_bulk_csv import HEADER_2025, ec2_csv, product_rows, variant
from tests.paths import FIXTURES
from tests.price_files_server import Faults, serve
from tests.sources import STAMP, context

FIXTURES = FIXTURES / "aws-bulk"
EC2 = "/offers/v1.0/aws/AmazonEC2/20251201190623"
EAST_CSV = f"{EC2}/us-east-1/index.csv"
WEST_CSV = f"{EC2}/us-west-2/index.csv"
SP_EAST = "/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/20251127203214/us-east-1/index.csv"
SOURCE = aws_bulk.SOURCE_NAME


@pytest.fixture(autouse=True)
def no_credentials(monkeypatch):
    monkeypatch.setattr(_aws_public, "credentials_origin", lambda: "")


@pytest.fixture
def served_root(tmp_path) -> Path:
    """A writable copy of the fixture tree, so a test can swap a file for a bad one."""
    root = tmp_path / "aws"
    shutil.copytree(FIXTURES, root)
    return root


def sha256_of(relative: str) -> str:
    return hashlib.sha256((FIXTURES / relative.lstrip("/")).read_bytes()).hexdigest()


def test_fetch_archives_indexes_whole_and_regions_as_verified_extracts(tmp_path, served_root):
    with serve(served_root) as server:
        payloads = aws_bulk.fetch(
            context(tmp_path / "archive", SOURCE, aws_price_list_url=server.url)
        )
    kinds = [(p.request["kind"], p.request.get("region")) for p in payloads]
    assert kinds == [
        ("offer-index", None),
        ("region-index", None),
        ("savings-plan-region-index", None),
        ("ec2", "us-east-1"),
        ("savings-plan", "us-east-1"),
        ("ec2", "us-west-2"),
        ("savings-plan", "us-west-2"),
    ]  # the Local Zone us-west-2-lax-1 is not read
    east = payloads[3]
    original = east.request["original"]
    assert east.url == server.url + EAST_CSV
    assert original["sha256"] == sha256_of(EAST_CSV)
    assert original["bytes"] == (FIXTURES / EAST_CSV.lstrip("/")).stat().st_size
    assert original["verified"] == "size, md5 (ETag)"
    # Only the selected rows are kept: five accelerator products, 21 price rows each (the
    # on-demand rate and 12 reserved terms, two rows for each partial or all upfront one).
    assert east.data.count(b"\n") == 6 + 5 * 21 and len(east.data) < original["bytes"]
    manifest = read_manifest(tmp_path / "archive" / STAMP / "aws-bulk")
    assert [e["name"] for e in manifest["payloads"]][3] == "0004.csv.gz"
    assert manifest["payloads"][3]["request"]["original"]["sha256"] == original["sha256"]
    replayed = read_payloads(tmp_path / "archive" / STAMP, "aws-bulk")
    parsed = aws_bulk.parse(replayed)
    regions = {(r.region, r.pricing_model) for r in parsed.records}
    assert ("us-west-2", "savings_plan") in regions and ("us-east-1", "reserved") in regions
    assert not list((tmp_path / "downloads").rglob("index.csv"))  # the raw files are gone


def test_an_unchanged_version_is_not_downloaded_again(tmp_path, served_root):
    with serve(served_root) as server:
        first = aws_bulk.fetch(context(tmp_path / "archive", SOURCE, aws_price_list_url=server.url))
        server.requests.clear()
        second = aws_bulk.fetch(
            context(
                tmp_path / "archive",
                SOURCE,
                aws_price_list_url=server.url,
                stamp="2026-11-15T060000Z",
            )
        )
    assert not [path for path, _ in server.requests if path.endswith(".csv")]
    assert [p.data for p in second] == [p.data for p in first]
    assert second[3].request["original"] == first[3].request["original"]


def test_a_download_cut_off_midway_resumes_with_range(tmp_path, served_root):
    faults = Faults(cut_at={EAST_CSV: [40_000, 90_000]})
    with serve(served_root, faults) as server:
        payloads = aws_bulk.fetch(
            context(tmp_path / "archive", SOURCE, aws_price_list_url=server.url)
        )
    # Each cut counts bytes of that response: 40,000, then 90,000 more from there.
    assert server.hits(EAST_CSV) == ["", "bytes=40000-", "bytes=130000-"]
    assert payloads[3].request["original"]["sha256"] == sha256_of(EAST_CSV)


def test_a_server_that_ignores_range_sends_the_whole_file_again(tmp_path, served_root):
    faults = Faults(cut_at={EAST_CSV: [40_000]}, ignore_range={EAST_CSV})
    with serve(served_root, faults) as server:
        payloads = aws_bulk.fetch(
            context(tmp_path / "archive", SOURCE, aws_price_list_url=server.url)
        )
    assert server.hits(EAST_CSV) == ["", "bytes=40000-"]
    assert payloads[3].request["original"]["sha256"] == sha256_of(EAST_CSV)


def test_a_download_that_keeps_failing_says_where_and_resumes_next_run(tmp_path, served_root):
    # Every attempt of the first run is cut at 1,000 bytes and restarts from zero: after the
    # first, none makes progress, and MAX_ATTEMPTS of those end the run.
    tries = MAX_ATTEMPTS + 1
    faults = Faults(cut_at={EAST_CSV: [1000] * tries}, ignore_range={EAST_CSV})
    with serve(served_root, faults) as server:
        with pytest.raises(SourceError) as failed:
            aws_bulk.fetch(context(tmp_path / "archive", SOURCE, aws_price_list_url=server.url))
        message = str(failed.value)
        assert "1 of 2 region(s) failed" in message
        assert server.url + EAST_CSV in message and "run again" in message
        part = next((tmp_path / "downloads").rglob("index.csv.part"))
        assert part.stat().st_size == 1000
        # Everything fetched is archived: the other region's extracts are in the manifest.
        manifest = read_manifest(tmp_path / "archive" / STAMP / "aws-bulk")
        assert {e["request"].get("region") for e in manifest["payloads"]} >= {"us-west-2"}
        # That run is incomplete: a replay refuses it rather than withdraw us-east-1's offers.
        with pytest.raises(ParseError, match="incomplete: no ec2 file for us-east-1"):
            aws_bulk.parse(read_payloads(tmp_path / "archive" / STAMP, "aws-bulk"))
        faults.ignore_range.clear()
        payloads = aws_bulk.fetch(
            context(
                tmp_path / "archive",
                SOURCE,
                aws_price_list_url=server.url,
                stamp="2026-11-15T060000Z",
            )
        )
    assert len(server.hits(EAST_CSV)) == tries + 1
    assert server.hits(EAST_CSV)[-1] == "bytes=1000-"
    assert payloads[3].request["original"]["sha256"] == sha256_of(EAST_CSV)


def test_a_corrupted_download_is_deleted_and_named(tmp_path, served_root):
    with serve(served_root, Faults(wrong_etag={EAST_CSV})) as server:
        with pytest.raises(SourceError, match="does not match its ETag") as failed:
            aws_bulk.fetch(context(tmp_path / "archive", SOURCE, aws_price_list_url=server.url))
    assert EAST_CSV in str(failed.value)
    assert not list((tmp_path / "downloads").rglob("index.csv*"))


def test_a_multipart_etag_is_checked_by_size_only(tmp_path, served_root):
    with serve(served_root, Faults(multipart_etag={EAST_CSV})) as server:
        payloads = aws_bulk.fetch(
            context(tmp_path / "archive", SOURCE, aws_price_list_url=server.url)
        )
    assert payloads[3].request["original"]["verified"] == "size"


def test_a_header_without_a_needed_column_names_file_and_column(tmp_path, served_root):
    shutil.copy(served_root / "bad" / "ec2-missing-column.csv", served_root / EAST_CSV.lstrip("/"))
    with serve(served_root) as server:
        with pytest.raises(SourceError) as failed:
            aws_bulk.fetch(context(tmp_path / "archive", SOURCE, aws_price_list_url=server.url))
    message = str(failed.value)
    assert server.url + EAST_CSV in message and "'PricePerUnit'" in message
    assert "selects columns by name" in message


def test_a_file_cut_off_at_the_source_is_a_clear_error(tmp_path, served_root):
    cut = (served_root / "bad" / "ec2-cut-off.csv").read_bytes()
    assert not cut.endswith(b"\n")  # cut inside a row
    (served_root / EAST_CSV.lstrip("/")).write_bytes(cut)
    with serve(served_root) as server:
        with pytest.raises(SourceError, match="cut off or malformed") as failed:
            aws_bulk.fetch(context(tmp_path / "archive", SOURCE, aws_price_list_url=server.url))
    assert server.url + EAST_CSV in str(failed.value)


def test_a_missing_region_file_is_named(tmp_path, served_root):
    (served_root / WEST_CSV.lstrip("/")).unlink()
    with serve(served_root) as server:
        with pytest.raises(SourceError, match="AWS publishes no file at") as failed:
            aws_bulk.fetch(context(tmp_path / "archive", SOURCE, aws_price_list_url=server.url))
    assert "404" in str(failed.value) and WEST_CSV in str(failed.value)


def test_regions_can_be_chosen(tmp_path, served_root):
    with serve(served_root) as server:
        payloads = aws_bulk.fetch(
            context(
                tmp_path / "archive",
                SOURCE,
                aws_price_list_url=server.url,
                aws_regions=("us-west-2",),
            )
        )
    assert {p.request.get("region") for p in payloads} == {None, "us-west-2"}
    assert not server.hits(EAST_CSV) and not server.hits(SP_EAST)


def test_with_credentials_the_api_sources_run_instead(tmp_path, monkeypatch):
    origin = "AWS_ACCESS_KEY_ID in the environment"
    monkeypatch.setattr(_aws_public, "credentials_origin", lambda: origin)
    with pytest.raises(SourceSkipped) as skipped:
        aws_bulk.fetch(
            context(tmp_path / "archive", SOURCE, aws_price_list_url="http://127.0.0.1:9")
        )
    assert str(skipped.value).startswith(f"credentials found ({origin}): AWS prices come from")
    assert "aws-pricing-api" in str(skipped.value)
    # A store's keys left in AWS_* look like AWS's: the message says where they go.
    assert "CHIPCOST_S3_ACCESS_KEY_ID/CHIPCOST_S3_SECRET_ACCESS_KEY, not AWS_*" in str(
        skipped.value
    )


def test_an_unreachable_host_fails_with_the_url(tmp_path):
    # the discard port: nothing listens
    ctx = context(tmp_path / "archive", SOURCE, aws_price_list_url="http://127.0.0.1:9")
    with pytest.raises(SourceError, match="127.0.0.1:9/offers/v1.0/aws/index.json"):
        aws_bulk.fetch(ctx)


REGION_INDEX = "offers/v1.0/aws/AmazonEC2/current/region_index.json"


@pytest.mark.parametrize(
    "hostile",
    [
        # A path that climbs out of the downloads folder: on 2487f4c the download was written
        # at /tmp/.../victim/index.csv, over the file there, and then removed.
        f"{EC2}/us-east-1/../../../../../../../../../../victim/index.json",
        f"{EC2}/us-east-1/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/victim/index.json",
        # A URL on another host than the price list's was followed.
        "http://127.0.0.1:9/offers/v1.0/aws/AmazonEC2/x/us-east-1/index.json",
    ],
)
def test_an_index_naming_a_path_out_of_the_price_list_is_refused(tmp_path, served_root, hostile):
    victim = tmp_path / "victim" / "index.csv"
    victim.parent.mkdir()
    victim.write_text("kept")
    index = served_root / REGION_INDEX
    text = index.read_text()
    index.write_text(text.replace(f"{EC2}/us-east-1/index.json", hostile))
    with serve(served_root) as server:
        with pytest.raises(SourceError, match="refused") as failed:
            aws_bulk.fetch(
                context(tmp_path / "archive", SOURCE, aws_price_list_url=server.url),
            )
    assert victim.read_text() == "kept"
    assert "an index names" in str(failed.value)


def _utf16(text: bytes) -> bytes:
    return text.decode("utf-8").encode("utf-16")


def _one_latin1_byte(text: bytes) -> bytes:
    return text.replace(b'"v1.0"', b'"v1.0\xe9"', 1)  # in the first line


@pytest.mark.parametrize(
    ("served", "said"),
    [
        (gzip.compress, "is gzip-compressed"),  # a Content-Encoding: gzip left undone
        (_utf16, "is UTF-16 text"),
        (_one_latin1_byte, "is not UTF-8 text (line 1"),
        (lambda _: ACCESS_DENIED, "is an HTML page ('Access Denied') sent instead of the file"),
        (lambda _: S3_DENIED, "is an XML page ('AccessDenied') sent instead of the file"),
    ],
)
def test_a_region_file_that_is_no_utf8_csv_is_named_and_kept_in_the_archive(
    tmp_path, served_root, served, said
):
    recorded = served_root / EAST_CSV.lstrip("/")
    sent = served(recorded.read_bytes())
    recorded.write_bytes(sent)
    with serve(served_root) as server:
        with pytest.raises(SourceError) as failed:
            aws_bulk.fetch(context(tmp_path / "archive", SOURCE, aws_price_list_url=server.url))
    message = str(failed.value)
    assert said in message and server.url + EAST_CSV in message  # the version is in its path
    assert "run again" in message and "CHIPCOST_AWS_PRICE_LIST_URL" in message
    manifest = read_manifest(tmp_path / "archive" / STAMP / SOURCE)
    [kept] = [e for e in manifest["payloads"] if e["request"]["kind"] == "refused"]
    assert f"{STAMP}/{SOURCE}/{kept['name']}" in message
    archived = gzip.decompress((tmp_path / "archive" / STAMP / SOURCE / kept["name"]).read_bytes())
    assert archived == sent[:KEPT_BYTES] and kept["request"]["region"] == "us-east-1"
    assert kept["request"]["original"]["sha256"] == hashlib.sha256(sent).hexdigest()


ACCESS_DENIED = (
    b"<!DOCTYPE html>\n<html><head><title>Access Denied</title></head><body><h1>Access "
    b"Denied</h1><p>You don't have permission to access this file.</p></body></html>\n"
)
S3_DENIED = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Access '
    b"Denied</Message><RequestId>0000000000000000</RequestId></Error>"
)


def _head(data: bytes) -> bytes:
    """A price list file's six head lines (metadata and column header)."""
    return b"".join(data.splitlines(keepends=True)[:6])


def _kept_extracts(tmp_path, region: str) -> list[Path]:
    return sorted((tmp_path / "downloads").rglob(f"AmazonEC2/*/{region}/extract-*"))


def _fetch(tmp_path, server, stamp: str = STAMP):
    return aws_bulk.fetch(
        context(tmp_path / "archive", SOURCE, aws_price_list_url=server.url, stamp=stamp)
    )


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (lambda good: _head(good) + b"garbage line\n" * 1000, "line 7: 1 fields, the header 91"),
        (lambda good: _head(good), "has its header and no row after it"),
        # A field whose closing quote never comes: 2 MB of it, with and without a line break.
        (lambda good: _head(good) + b'"' + b"x" * (2 << 20), "a line of more than 1,048,576"),
        (lambda good: _head(good) + b'"' + b"x" * 5000 + b"\n", "line 7: unexpected end of data"),
        # The rows AWS sent, then a page a proxy added after them.
        (lambda good: good + b"<html><body>Blocked</body></html>\n", "line 218: 1 fields"),
    ],
    ids=["garbage", "header-only", "unterminated-field", "unterminated-line", "page-after"],
)
def test_a_region_file_that_is_not_rows_fails_its_region_and_keeps_no_extract(
    tmp_path, served_root, body, said
):
    """A header followed by no readable row yielded no row: the source was ok and the region's
    65 offers were withdrawn, and its extract was kept, so that the next run, with the right
    file, did not fetch it again and the region stayed withdrawn until AWS's next version."""
    recorded = served_root / EAST_CSV.lstrip("/")
    good = recorded.read_bytes()
    recorded.write_bytes(body(good))
    with serve(served_root) as server:
        with pytest.raises(SourceError) as failed:
            _fetch(tmp_path, server)
        message = str(failed.value)
        assert "1 of 2 region(s) failed" in message and said in message
        assert server.url + EAST_CSV in message
        manifest = read_manifest(tmp_path / "archive" / STAMP / SOURCE)
        [kept] = [e for e in manifest["payloads"] if e["request"]["kind"] == "refused"]
        assert kept["request"]["region"] == "us-east-1" and said in kept["request"]["why"]
        assert _kept_extracts(tmp_path, "us-east-1") == []
        # The run is not loaded: us-east-1's offers are not withdrawn.
        with pytest.raises(ParseError, match="incomplete: no ec2 file for us-east-1"):
            aws_bulk.parse(read_payloads(tmp_path / "archive" / STAMP, SOURCE))
        # The right file next time is fetched, not a kept extract of the wrong one reused.
        recorded.write_bytes(good)
        server.requests.clear()
        payloads = _fetch(tmp_path, server, stamp="2026-11-15T060000Z")
    assert server.hits(EAST_CSV) == [""]
    east = next(p for p in payloads if p.request.get("region") == "us-east-1")
    assert east.data.count(b"\n") == 6 + 5 * 21


def test_a_kept_extract_of_an_older_chipcost_or_changed_since_is_not_reused(tmp_path, served_root):
    """An extract the defective filter kept (its head and no row, its JSON the original's
    description alone) was reused by every later run of that version."""
    with serve(served_root) as server:
        first = _fetch(tmp_path, server)
        data, meta = _kept_extracts(tmp_path, "us-east-1")
        # As an older chipcost kept it: no sha256, no row count, and no row.
        data.write_bytes(_head(data.read_bytes()))
        meta.write_text(json.dumps(first[3].request["original"]))
        server.requests.clear()
        second = _fetch(tmp_path, server, stamp="2026-11-15T060000Z")
        assert server.hits(EAST_CSV) == [""] and second[3].data == first[3].data
        written = json.loads(meta.read_text())
        sha256 = hashlib.sha256(first[3].data).hexdigest()
        assert (written["rows"], written["sha256"]) == (5 * 21, sha256)
        # Changed since it was written: a row less than its JSON says.
        lines = data.read_bytes().splitlines(keepends=True)
        data.write_bytes(b"".join(lines[:-1]))
        server.requests.clear()
        third = _fetch(tmp_path, server, stamp="2026-11-16T060000Z")
        assert server.hits(EAST_CSV) == [""] and third[3].data == first[3].data
        # Sound, it is reused.
        server.requests.clear()
        _fetch(tmp_path, server, stamp="2026-11-17T060000Z")
        assert server.hits(EAST_CSV) == []


NEXT = "20260105120000"  # a version after the recorded one
EAST_EC2 = ("ec2", "us-east-1")


def test_a_new_version_without_an_accelerator_row_is_refused_where_the_last_had_some(
    tmp_path, served_root
):
    """Rows of the header's width, none of them an accelerator's, where the region's previous
    version had 105: refused rather than withdraw every offer of the region."""
    east = served_root / EAST_CSV.lstrip("/")
    with serve(served_root) as server:
        _fetch(tmp_path, server)
        [before, _] = _kept_extracts(tmp_path, "us-east-1")
        # AWS's next version of us-east-1, as a server sends it: general-purpose rows only.
        rows = product_rows("g5.xlarge", "us-east-1")
        general = {"Instance Type": "m5.large", "Instance Family": "General purpose", "GPU": ""}
        rows = variant(rows, 0.09, **general, usageType="BoxUsage:m5.large")
        nxt = served_root / EAST_CSV.lstrip("/").replace("20251201190623", NEXT)
        nxt.parent.mkdir(parents=True)
        nxt.write_bytes(ec2_csv(rows, HEADER_2025, NEXT, "2026-01-05T12:00:00Z"))
        index = served_root / REGION_INDEX
        path = f"{EC2}/us-east-1/index.json"
        index.write_text(index.read_text().replace(path, path.replace("20251201190623", NEXT)))
        with pytest.raises(SourceError) as failed:
            _fetch(tmp_path, server, stamp="2026-11-15T060000Z")
        message = str(failed.value)
        assert server.url + EAST_CSV.replace("20251201190623", NEXT) in message
        assert f"(version {NEXT}) has no row the aws-bulk ec2 filter keeps" in message
        assert "previous version 20251201190623 had 105" in message and str(before) in message
        assert _kept_extracts(tmp_path, "us-east-1")[0] == before  # the only one kept
        assert len(_kept_extracts(tmp_path, "us-east-1")) == 2
        # Told so by its operator (the kept extract deleted), the next run accepts the file.
        before.unlink()
        payloads = _fetch(tmp_path, server, stamp="2026-11-16T060000Z")
    [new] = [p for p in payloads if (p.request["kind"], p.request.get("region")) == EAST_EC2]
    assert new.data == _head(nxt.read_bytes()) and east.exists()
