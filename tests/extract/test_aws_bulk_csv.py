"""The aws-bulk filter: a scan of the raw bytes that keeps what parsing every line keeps."""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chipcost.core.errors import ParseError
from chipcost.extract.aws import _bulk_csv as _aws_bulk_csv
from chipcost.extract.aws._bulk_csv import Selection, filter_file, read_head
from chipcost.extract.aws._bulk_parse import ec2_selection, savings_plan_selection
from tests.aws_bulk_csv import HEADER_2025, ec2_csv, product_rows, variant
from tests.paths import ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "aws-bulk"
EC2 = "offers/v1.0/aws/AmazonEC2"
EC2_FILES = [
    f"{EC2}/20251201190623/us-east-1/index.csv",
    f"{EC2}/20251201190623/us-west-2/index.csv",
    f"{EC2}/20230825183306/us-east-1/index.csv",
]
SP_EAST = "savingsPlan/v1.0/aws/AWSComputeSavingsPlan/20251127203214/us-east-1/index.csv"


def extract(path: Path, selection: Selection) -> bytes:
    return filter_file(path, selection, read_head(path, "w"), "w")


def every_line(selection: Selection) -> Selection:
    """The same selection without marks: the filter then parses every line."""
    return dataclasses.replace(selection, marks=())


@pytest.fixture
def tricky(tmp_path) -> Path:
    """Rows only one part of the filter finds, or that hold a mark and are not kept."""
    p5 = product_rows("p5.48xlarge", "us-east-1")
    rows = [
        *variant(p5, Processor_Features='Intel AVX; "quoted" text'),  # kept, with a quote
        # A catalog family AWS files under another instance family: found by "trn1."
        *variant(product_rows("trn1.32xlarge", "us-east-1"), Instance_Family="Compute optimized"),
        # Not a type: no dot (its usage type still holds "p5.", so it is parsed and dropped).
        *variant(p5, Instance_Type="p5", Instance_Family="Compute optimized"),
        *variant(p5, 0.1, Instance_Type="m5.large", Instance_Family="General purpose", GPU=""),
        *variant(p5, Operating_System="Windows"),
    ]
    path = tmp_path / "index.csv"
    path.write_bytes(ec2_csv(rows, HEADER_2025, "20251201190623", "2025-12-01T19:06:23Z"))
    return path


@pytest.mark.parametrize("relative", EC2_FILES)
def test_the_scan_keeps_what_parsing_every_line_keeps(relative):
    path = FIXTURES / relative
    assert extract(path, ec2_selection()) == extract(path, every_line(ec2_selection()))


def test_rows_found_by_family_kept_and_dropped_as_the_parser_decides(tricky):
    found = extract(tricky, ec2_selection())
    assert found == extract(tricky, every_line(ec2_selection()))
    lines = found.decode().splitlines()[6:]
    assert len(lines) == 2 * 21  # p5 with its quoted value and trn1, on demand and reserved
    assert all(line in tricky.read_text().splitlines() for line in lines)  # AWS's own bytes
    assert sum('"Intel AVX; ""quoted"" text"' in line for line in lines) == 21
    assert sum('"Compute optimized"' in line for line in lines) == 21


def test_an_instance_type_without_a_dot_is_not_in_scope():
    row = {"Instance Type": "p5", "Instance Family": "Compute optimized"}
    assert not ec2_selection().scope(row)
    assert ec2_selection().scope({**row, "Instance Type": "p5.48xlarge"})


@pytest.mark.parametrize("block", [5, 64, 1000, 4096])
def test_lines_straddling_reads_are_found(monkeypatch, tricky, block):
    sp_skus = {"SOPKW98XELV8N14K"}
    cases = [(FIXTURES / EC2_FILES[0], ec2_selection()), (tricky, ec2_selection())]
    cases.append((FIXTURES / SP_EAST, savings_plan_selection(sp_skus)))
    expected = [extract(path, selection) for path, selection in cases]
    monkeypatch.setattr(_aws_bulk_csv, "BLOCK_SIZE", block)
    assert [extract(path, selection) for path, selection in cases] == expected


def test_a_last_line_without_its_newline_is_read(tmp_path, tricky):
    whole = extract(tricky, ec2_selection())
    path = tmp_path / "no-newline.csv"
    path.write_bytes(tricky.read_bytes().rstrip(b"\n"))
    assert extract(path, ec2_selection()) == whole


@pytest.mark.parametrize("cut", [-1, -40, -300])
def test_a_file_cut_off_inside_a_row_is_an_error(tmp_path, tricky, cut):
    data = tricky.read_bytes()
    path = tmp_path / "cut.csv"
    path.write_bytes(data[: len(data) - 1 + cut])  # the last row is Windows: not a candidate
    last = data.count(b"\n")
    with pytest.raises(ParseError, match=f"line {last}: .*cut off or malformed"):
        extract(path, ec2_selection())


def test_a_malformed_candidate_line_is_an_error_naming_it(tmp_path, tricky):
    lines = tricky.read_bytes().splitlines(keepends=True)
    lines[8] = lines[8].replace(b',"AmazonEC2",', b",", 1)
    path = tmp_path / "short.csv"
    path.write_bytes(b"".join(lines))
    width = len(HEADER_2025)
    with pytest.raises(ParseError, match=rf"line 9: {width - 1} fields, the header {width}\)"):
        extract(path, ec2_selection())


_MARK_TEXT = st.text(alphabet="ab1-.", min_size=1, max_size=5)


@pytest.fixture(scope="module", params=["native", "python"])
def native(request) -> bool:
    if request.param == "native":
        pytest.importorskip("hyperscan")
    return request.param == "native"


@settings(max_examples=300, deadline=None)
@given(
    marks=st.lists(_MARK_TEXT, min_size=1, max_size=6),
    lines=st.lists(st.text(alphabet='ab1-."GPU ', max_size=30), min_size=1, max_size=12),
)
def test_the_scan_finds_exactly_the_lines_holding_a_mark(native, marks, lines):
    # Marks with and without dots, short and long, sharing bytes with the rest of the line:
    # the byte-class screen and the lookbehinds (and Hyperscan's reports of where matches
    # end) must turn no line holding a mark away, and find no other.
    data = "".join(line + "\n" for line in lines).encode()
    starts, at = [], 0
    for line in lines:
        if any(mark in line for mark in marks):
            starts.append(at)
        at += len(line.encode()) + 1
    scan = _aws_bulk_csv.scanner(tuple(marks), native=native)
    assert scan.line_starts(data, 0, len(data)) == starts
    # A piece that starts inside the data: positions stay the data's own.
    first = len(lines[0].encode()) + 1
    assert scan.line_starts(data, first, len(data)) == [s for s in starts if s >= first]


def test_without_hyperscan_the_pure_python_scan_is_used(monkeypatch):
    monkeypatch.setitem(sys.modules, "hyperscan", None)  # as where no wheel installed
    found = _aws_bulk_csv.scanner(ec2_selection().marks)
    assert isinstance(found, _aws_bulk_csv._Scan)


def test_both_scans_keep_the_same_rows_of_a_region_file(monkeypatch, tricky):
    pytest.importorskip("hyperscan")
    native = extract(tricky, ec2_selection())
    monkeypatch.setitem(sys.modules, "hyperscan", None)
    assert extract(tricky, ec2_selection()) == native


@pytest.mark.parametrize("block", [4096, 1 << 20])
def test_a_body_that_is_not_rows_is_found_past_the_first_bytes(
    monkeypatch, tmp_path, tricky, block
):
    """Lines holding no mark were dropped unread: a file whose rows give way to a page, text
    or binary yielded fewer rows (none at all, where all of it was). Past the body's first
    EXACT_BYTES one line in every SAMPLE_BYTES is parsed, and each block's first and last."""
    monkeypatch.setattr(_aws_bulk_csv, "BLOCK_SIZE", block)
    monkeypatch.setattr(_aws_bulk_csv, "EXACT_BYTES", 8192)
    monkeypatch.setattr(_aws_bulk_csv, "SAMPLE_BYTES", 4096)
    data = tricky.read_bytes()
    rows = b"".join(data.splitlines(keepends=True)[6:])
    garbage = b"\x00\x01binary or a page, no row\n" * 400  # 10 KB: more than SAMPLE_BYTES
    path = tmp_path / "spliced.csv"
    path.write_bytes(data + garbage + rows)
    first = data.count(b"\n") + 1
    with pytest.raises(ParseError, match=r"line \d+: 2 fields, the header 91\)") as failed:
        extract(path, ec2_selection())
    line = int(re.search(r"line (\d+):", str(failed.value))[1])
    assert first <= line < first + 400
    path.write_bytes(data + rows)  # rows throughout: read as before
    assert extract(path, ec2_selection()) == extract(path, every_line(ec2_selection()))


def test_a_header_without_a_row_and_an_endless_line_are_errors(tmp_path, tricky):
    head = b"".join(tricky.read_bytes().splitlines(keepends=True)[:6])
    path = tmp_path / "head.csv"
    path.write_bytes(head)
    with pytest.raises(ParseError, match="has its header and no row after it"):
        extract(path, ec2_selection())
    path.write_bytes(head + b'"p5.48xlarge' + b"x" * (_aws_bulk_csv.MAX_LINE_BYTES + 1))
    with pytest.raises(ParseError, match=r"line 7: a line of more than 1,048,576 bytes"):
        extract(path, ec2_selection())
