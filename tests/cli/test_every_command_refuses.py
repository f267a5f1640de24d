"""Every command with values a careless or hostile user gives: a damaged warehouse, numbers
out of range, days no read can reach, wrong variables. Each must end with exit code 1 (a
message) or 2 (usage), never a traceback.

The command list comes from `chipcost --help`: a command added later without a case here
fails test_every_command_is_walked.
"""

from __future__ import annotations

import functools
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from chipcost.pipeline.seed import open_warehouse
from chipcost.warehouse.load import load_run
from tests import warehouses
from tests.cli_runner import chipcost
from tests.conftest import SAMPLE
from tests.helpers import day, record, run_of
from tests.refusals import assert_refused, refused

CHIPCOST = str(Path(sys.executable).with_name("chipcost"))
HUGE = "99999999999999999999"
DAMAGE_ADVICE = "restore from backup or rebuild from the archive"
FIRST_RUN = str(sorted(p for p in SAMPLE.iterdir() if p.is_dir())[0])


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> Path:
    """A warehouse with enough history that its data lies well past the file's header."""
    path = tmp_path_factory.mktemp("hostile") / "good.duckdb"
    con = open_warehouse(warehouses.new(path))
    for n in range(4):  # every third offer moves each day: history rows as well as offers
        offers = [
            record(region=f"region-{i:04d}", price_per_hour=10.0 + i + (n if i % 3 else 0))
            for i in range(3000)
        ]
        load_run(con, run_of(offers, day(n)))
    con.close()
    return path


def damaged(good: Path, folder: Path, how: str) -> Path:
    """A file of the test's own at `folder`, `good` damaged `how`."""
    path = folder / f"{how}.duckdb"
    path.write_bytes(_damaged_bytes(good, how))
    return path


@functools.cache
def _damaged_bytes(good: Path, how: str) -> bytes:
    """The bytes of `good` damaged `how`, worked out once for the module's tests."""
    if how == "not-duckdb":
        return b"this is not a database\n" * 500
    if how == "empty":
        return b""
    data = good.read_bytes()
    # DuckDB leaves free blocks at the end of a file: cut and scribble early enough to hit data.
    cut = len(data) // 3
    if how == "truncated":
        return data[:cut]
    if how == "overwritten":  # scribbled over from a third on, the header intact
        return data[:cut] + bytes(range(256)) * ((len(data) - cut) // 256)
    raise ValueError(how)


# Every command that opens the warehouse, as a user would type it (DB is replaced by --db).
WAREHOUSE_COMMANDS = {
    "prices": ["prices"],
    # Reads every row: a count alone comes from metadata, which the damage may spare.
    "sql": ["sql", "select sum(price_per_hour), max(payload_ref) from observations"],
    "cost": ["cost", "--model", "llama-3-70b", "--workload", "inference"],
    "compare": [
        "compare",
        "Trainium2",
        "H100-SXM",
        "--model",
        "llama-3-70b",
        "--workload",
        "inference",
    ],
    "report": ["report", "--dry-run"],
    "migrate": ["migrate"],
    "remove-run": ["remove-run", "2026-11-01T060000Z-test"],
    "collect": ["collect", "--replay", FIRST_RUN, "--source", "aws-pricing-api"],
    "backfill": ["backfill", "--since", "2025-01-01", "--region", "us-east-1"],
    "demo": ["demo"],
    "history": ["history", "--chip", "H100-SXM"],
    "index": ["index", "--chip", "H100-SXM"],
    "site": ["site", "--out", "OUT"],
    "export": ["export", "--out", "OUT"],
    "throughput list": ["throughput", "list"],
    "throughput add": [
        "throughput",
        "add",
        "--chip",
        "H100-SXM",
        "--model",
        "llama-3-70b",
        "--workload",
        "inference",
        "--tokens-per-second",
        "1500",
    ],
    "throughput remove": ["throughput", "remove", "user-1"],
    "throughput model": ["throughput", "model", "my-13b", "--parameters", "13e9"],
    "throughput import": ["throughput", "import", "/nonexistent.csv"],
    "measure": [
        "measure",
        "--endpoint",
        "http://127.0.0.1:9",
        "--model",
        "llama-3-70b",
        "--tokenizer",
        "tok",
        "--precision",
        "fp8",
        "--software",
        "vLLM",
        "--chip",
        "H100-SXM",
        "--chips",
        "8",
        "--input-tokens",
        "64",
        "--output-tokens",
        "16",
    ],
}


@pytest.mark.parametrize("how", ["truncated", "overwritten", "not-duckdb", "empty"])
@pytest.mark.parametrize("command", list(WAREHOUSE_COMMANDS))
def test_a_damaged_warehouse_is_refused_with_advice(good, tmp_path, run, how, command):
    path = damaged(good, tmp_path, how)
    args = [*WAREHOUSE_COMMANDS[command], "--db", str(path)]
    if command == "throughput import":
        measured = "chip,model,workload,tokens_per_second\nH100-SXM,llama-3-70b,inference,1500\n"
        (tmp_path / "m.csv").write_text(measured)
        args[2] = str(tmp_path / "m.csv")
    if command == "site":
        args[2] = str(tmp_path / "site")
    if command == "export":
        args[2] = str(tmp_path / "focus")
    done = run(*args)
    assert_refused(done)
    if command == "backfill" and how in ("truncated", "overwritten"):
        return  # it opens a file that opens only after fetching AWS's index (no network here)
    assert DAMAGE_ADVICE in done.stderr, done.stderr[-2000:]


def _checksum(block: bytes) -> int:
    """DuckDB's checksum of a block (storage/checksum.cpp): 5381, each 8 bytes multiplied by
    a constant, xored in."""
    total = 5381
    for (word,) in struct.iter_unpack("<Q", block):
        total ^= (word * 0xBF58476D1CE4E5B9) & 0xFFFF_FFFF_FFFF_FFFF
    return total


def other_storage(good: Path, path: Path, version: int) -> Path:
    """`good` with the storage version its main header says made `version`: DuckDB's file
    starts with a 4 KiB main header, its checksum (8 bytes), "DUCK", then the version as a
    little-endian uint64; the checksum, of the header's other bytes, made again to match."""
    data = bytearray(good.read_bytes())
    (stored,), (ours,) = struct.unpack_from("<Q", data, 0), struct.unpack_from("<Q", data, 12)
    assert data[8:12] == b"DUCK" and stored == _checksum(data[8:4096])  # the layout read right
    assert 64 <= ours <= 68  # DuckDB 1.5's own
    struct.pack_into("<Q", data, 12, version)
    struct.pack_into("<Q", data, 0, _checksum(data[8:4096]))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


OTHER_STORAGE = "was written by a DuckDB storage version this chipcost cannot read"


@pytest.mark.parametrize("command", list(WAREHOUSE_COMMANDS))
def test_a_warehouse_of_another_duckdb_storage_version_says_how_to_re_create_it(
    good, tmp_path, run, command
):
    """DuckDB's own words were passed on (`cannot open ... as a DuckDB file: IO Error: Trying
    to read a database file with version number 999 ...`), with no way forward."""
    path = other_storage(good, tmp_path / "w.duckdb", 999)
    args = [*WAREHOUSE_COMMANDS[command], "--db", str(path)]
    if command == "throughput import":
        measured = "chip,model,workload,tokens_per_second\nH100-SXM,llama-3-70b,inference,1500\n"
        (tmp_path / "m.csv").write_text(measured)
        args[2] = str(tmp_path / "m.csv")
    for option, name in (("site", "site"), ("export", "focus")):
        if command == option:
            args[2] = str(tmp_path / name)
    done = run(*args)
    assert_refused(done)
    said = " ".join(done.stderr.split())
    assert f"the warehouse {path} {OTHER_STORAGE} (its storage version 999;" in said, said
    rebuild = f"`chipcost collect --replay <data dir>/archive --db {tmp_path}/NEW.duckdb`"
    assert f"re-create it from its archive with {rebuild}" in said
    assert "do not upgrade DuckDB separately" in said
    assert "Trying to read" not in said


def test_the_default_warehouse_of_another_storage_version_names_its_archive(good, tmp_path, run):
    """The file in the data directory: the archive beside it is the one to replay; an archive
    set by CHIPCOST_ARCHIVE is named instead. A version from before DuckDB 1.0 too."""
    data = tmp_path / "data"  # the fixture's CHIPCOST_DATA_DIR
    other_storage(good, data / "chipcost.duckdb", 39)
    done = run("prices")
    assert_refused(done)
    said = " ".join(done.stderr.split())
    assert OTHER_STORAGE in said and "(its storage version 39, DuckDB v0.6.0 or v0.6.1's;" in said
    assert f"`chipcost collect --replay {data}/archive --db {data}/NEW.duckdb`" in said, said
    elsewhere = run("migrate", env={"CHIPCOST_ARCHIVE": "s3://prices/archive"})
    assert "`chipcost collect --replay s3://prices/archive --db" in elsewhere.stderr


# (case id, arguments, environment): numbers and variables a user can get wrong.
VALUES = [
    ("observations days huge", ["migrate"], {"CHIPCOST_OBSERVATIONS_DAYS": HUGE}),
    ("observations days negative", ["migrate"], {"CHIPCOST_OBSERVATIONS_DAYS": "-5"}),
    ("observations days superscript", ["migrate"], {"CHIPCOST_OBSERVATIONS_DAYS": "²"}),
    (
        "observations days on collect",
        ["collect", "--replay", FIRST_RUN],
        {"CHIPCOST_OBSERVATIONS_DAYS": HUGE},
    ),
    (
        "smtp port huge",
        ["report", "--email", "a@example.com"],
        {
            "CHIPCOST_SMTP_HOST": "127.0.0.1",
            "CHIPCOST_SMTP_PORT": HUGE,
            "CHIPCOST_SMTP_FROM": "r@example.com",
        },
    ),
    (
        "smtp port zero",
        ["report", "--email", "a@example.com"],
        {
            "CHIPCOST_SMTP_HOST": "127.0.0.1",
            "CHIPCOST_SMTP_PORT": "0",
            "CHIPCOST_SMTP_FROM": "r@example.com",
        },
    ),
    (
        "aws regions with spaces",
        ["collect", "--replay", FIRST_RUN],
        {"CHIPCOST_AWS_REGIONS": "us east 1"},
    ),
    (
        "price list url not a url",
        ["backfill", "--since", "2025-01-01"],
        {"CHIPCOST_AWS_PRICE_LIST_URL": "ftp://x"},
    ),
    ("discounts file missing", ["prices"], {"CHIPCOST_DISCOUNTS": "/nonexistent/d.toml"}),
    ("discounts file a directory", ["prices"], {"CHIPCOST_DISCOUNTS": "/"}),
    ("discounts file binary", ["prices"], {"CHIPCOST_DISCOUNTS": "/bin/sh"}),
    ("currency a symbol", ["prices", "--currency", "€"], {}),
    ("currency huge", ["history", "--chip", "H100-SXM"], {"CHIPCOST_CURRENCY": "X" * 5000}),
    ("currency in the index", ["index", "--currency", "ZZZ"], {}),
    (
        "max interruption huge",
        ["cost", "--model", "llama-3-70b", "--workload", "inference", "--max-interruption", HUGE],
        {},
    ),
    ("export into a file", ["export", "--out", "/dev/null"], {}),
    ("report stale days huge", ["report", "--stale-days", HUGE], {}),
    ("report stale days negative", ["report", "--stale-days", "-5"], {}),
    ("report disagree nan", ["report", "--disagree-pct", "nan"], {}),
    ("report disagree inf", ["report", "--disagree-pct", "inf"], {}),
    ("report since not a date", ["report", "--since", "2026-13-45"], {}),
    ("report since far future", ["report", "--since", "99999-01-01"], {}),
    ("report since last day of 9999", ["report", "--since", "9999-12-31"], {}),
    ("report until first day", ["report", "--until", "0001-01-01"], {}),
    ("report until before since", ["report", "--since", "2026-11-07", "--until", "2026-11-01"], {}),
    ("report bad address", ["report", "--email", "not an address"], {}),
    (
        "cost speed nan",
        ["cost", "--model", "llama-3-70b", "--workload", "inference", "--speed", "nan"],
        {},
    ),
    (
        "compare speed huge",
        [
            "compare",
            "Trainium2",
            "H100-SXM",
            "--model",
            "llama-3-70b",
            "--workload",
            "inference",
            "--speed",
            "9" * 400,
        ],
        {},
    ),
    (
        "cost tokens huge",
        ["cost", "--model", "llama-3-70b", "--workload", "inference", "--tokens", "9" * 400],
        {},
    ),
    (
        "cost tokens negative",
        ["cost", "--model", "llama-3-70b", "--workload", "inference", "--tokens", "-5"],
        {},
    ),
    (
        "cost tokens nan",
        ["cost", "--model", "llama-3-70b", "--workload", "inference", "--tokens", "nan"],
        {},
    ),
    (
        "cost overhead nan",
        ["cost", "--model", "llama-3-70b", "--workload", "inference", "--overhead", "nan"],
        {},
    ),
    (
        "cost limit huge",
        ["cost", "--model", "llama-3-70b", "--workload", "inference", "--limit", HUGE],
        {},
    ),
    (
        "cost limit negative",
        ["cost", "--model", "llama-3-70b", "--workload", "inference", "--limit", "-5"],
        {},
    ),
    (
        "cost migration inf",
        [
            "cost",
            "--model",
            "llama-3-70b",
            "--workload",
            "inference",
            "--migration-cost",
            "inf",
            "--daily-tokens",
            "1B",
        ],
        {},
    ),
    ("backfill since far future", ["backfill", "--since", "99999-01-01"], {}),
    ("backfill since not a date", ["backfill", "--since", "yesterday"], {}),
    (
        "backfill region not a code",
        ["backfill", "--since", "2025-01-01", "--region", "useast1"],
        {},
    ),
    ("collect unknown source", ["collect", "--source", "no-such-source"], {}),
    ("collect replay missing", ["collect", "--replay", "/nonexistent-archive"], {}),
    ("db is a directory", ["prices", "--db", "/"], {}),
    ("db path too long", ["prices", "--db", "/tmp/" + "x" * 5000], {}),
    ("db directory missing", ["migrate", "--db", "/nonexistent-dir/w.duckdb"], {}),
    (
        "throughput add nan",
        [
            "throughput",
            "add",
            "--chip",
            "H100-SXM",
            "--model",
            "llama-3-70b",
            "--workload",
            "inference",
            "--tokens-per-second",
            "nan",
        ],
        {},
    ),
    (
        "throughput add huge chips",
        [
            "throughput",
            "add",
            "--chip",
            "H100-SXM",
            "--model",
            "llama-3-70b",
            "--workload",
            "inference",
            "--tokens-per-second",
            "1500",
            "--figure-per",
            "instance",
            "--chip-count",
            "1e400",
        ],
        {},
    ),
    (
        "throughput add huge batch",
        [
            "throughput",
            "add",
            "--chip",
            "H100-SXM",
            "--model",
            "llama-3-70b",
            "--workload",
            "inference",
            "--tokens-per-second",
            "1500",
            "--batch-size",
            HUGE,
        ],
        {},
    ),
    ("throughput model huge", ["throughput", "model", "m", "--parameters", "9" * 400], {}),
    ("throughput model negative", ["throughput", "model", "m", "--parameters", "-13e9"], {}),
    ("throughput import missing", ["throughput", "import", "/nonexistent.csv"], {}),
    ("sources extra argument", ["sources", "extra"], {}),
    ("demo db directory", ["demo", "--db", "/"], {}),
    ("sql not a query", ["sql", "drop table price_history"], {}),
    ("sql unknown format", ["sql", "select 1", "--format", "xml"], {}),
    ("measure concurrency", [*WAREHOUSE_COMMANDS["measure"], "--concurrency", "0,x"], {}),
    ("measure precision", [*WAREHOUSE_COMMANDS["measure"], "--precision", "fp7"], {}),
    ("measure endpoint", [*WAREHOUSE_COMMANDS["measure"], "--endpoint", "ftp://x"], {}),
    ("measure no point", [*WAREHOUSE_COMMANDS["measure"][:-4]], {}),
]

# Output cases of the `ux` work: a query a user can type must print, not crash.
OUTPUT_CASES = [
    ("prices limit huge", ["prices", "--limit", HUGE], (1, 2)),
    ("prices limit negative", ["prices", "--limit", "-5"], (1, 2)),
    ("sql max rows huge", ["sql", "select 1", "--limit", HUGE], (1, 2)),
    ("sql interval", ["sql", "select now() - min(valid_from) from price_history"], (0,)),
    ("sql nested csv", ["sql", "select [1, 2] as l", "--format", "csv"], (0,)),
    ("sql blob json", ["sql", "select 'a'::blob as b", "--format", "json"], (0,)),
]
# Commands whose cases must reach the warehouse get one that exists.
NEEDS_DB = (
    "prices", "sql", "cost", "compare", "report", "throughput", "migrate", "history", "index",
    "export", "remove-run", "measure",
)  # fmt: skip


@pytest.mark.parametrize(("case", "args", "env"), VALUES)
def test_hostile_values_are_refused_plainly(good, tmp_path, run, case, args, env):
    db = tmp_path / "w.duckdb"
    shutil.copyfile(good, db)
    extra = ["--db", str(db)] if args[0] in NEEDS_DB and "--db" not in args else []
    assert_refused(run(*args, *extra, env=env))


@pytest.mark.parametrize(("case", "args", "codes"), OUTPUT_CASES)
def test_output_cases_do_not_crash(good, run, case, args, codes):
    done = run(*args, "--db", str(good))
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.returncode in codes, done.stderr[-2000:]


def listed(*command: str) -> set[str]:
    """The command names `chipcost ... --help` lists."""
    shown = chipcost(*command, "--help")
    assert shown.returncode == 0, shown.stderr
    # click lists each command indented by two spaces under "Commands:", up to a blank line.
    listing = shown.stdout.split("\nCommands:\n", 1)[1].split("\n\n", 1)[0]
    return set(re.findall(r"^  ([a-z][\w-]*) ", listing, re.MULTILINE))


def test_every_command_is_walked():
    cases = [*WAREHOUSE_COMMANDS.values(), *(c[1] for c in VALUES)]
    walked = {args[0] for args in cases}
    walked_sub = {args[1] for args in cases if args[0] == "throughput"}
    top, sub = listed(), listed("throughput")
    assert top and top <= walked, f"not walked: {top - walked}"
    assert sub and sub <= walked_sub, f"not walked: {sub - walked_sub}"


def test_the_installed_command_prints_one_line_for_a_damaged_file(good, tmp_path):
    """The same through the console script, as a user runs it: a process of its own."""
    done = subprocess.run(
        [CHIPCOST, "prices", "--db", str(damaged(good, tmp_path, "overwritten"))],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert DAMAGE_ADVICE in done.stderr


def test_a_backfill_region_that_is_no_code_is_refused_before_any_download(run, tmp_path):
    db = tmp_path / "w.duckdb"
    done = run(
        "backfill", "--since", "2025-01-01", "--region", "us-east-1,us-west-2", "--db", str(db)
    )
    assert done.returncode == 2
    assert "--region 'us-east-1,us-west-2' is not a region code" in done.stderr
    assert "one code per --region" in done.stderr
    assert not db.exists()


@pytest.mark.parametrize("args", [["--disagree-pct", "0"]], ids=lambda args: args[0])
def test_the_report_names_its_option_not_the_flow_parameter(good, run, args):
    done = run("report", *args, "--dry-run", "--db", str(good))
    refused(done, f"{args[0]} {args[1]}: give ")  # a usage error naming the option and value
    assert "_pct" not in done.stderr and "_days" not in done.stderr


@pytest.mark.parametrize(
    "command",
    [
        # on a81b4ee both ended in OverflowError (a day before the first, a week before it)
        ["report", "--out", "OUT", "--since", "0001-01-01"],
        ["index", "--chip", "H100-SXM", "--until", "0001-01-01"],
        ["history", "--chip", "H100-SXM", "--since", "0001-01-01"],
        ["export", "--out", "OUT", "--since", "0001-01-01"],
    ],
)
def test_a_day_no_read_can_reach_is_refused_naming_the_range(good, tmp_path, run, command):
    args = [str(tmp_path / "out") if a == "OUT" else a for a in command]
    refused(run(*args, "--db", str(good)), "give a day from 1900-01-01 to 9999-12-31")
