"""What `throughput list --format csv` (or json) prints, `throughput import` takes back: your
measurements move between warehouses (a file to a lake, one person's to a team's) with every
field of their point, and chipcost's own figures are left out, said (tests.cli_runner, real
DuckDB files)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests import warehouses
from tests.cli_runner import Ran, chipcost
from tests.helpers import record

# A hand-written measurements CSV with each point's where and how: a load sweep of two
# concurrencies on one 8-chip instance, TTFT and request shape stated.
SWEEP = """chip,model,workload,tokens_per_second,per,chips,precision,source,source_date,\
operating_point,scenario,tokens_per_second_per_user,ttft_ms,tpot_ms,input_tokens,\
output_tokens,concurrency,software,system,notes
H200,llama-3-70b,inference,4800,instance,8,fp8,our vLLM sweep,2026-11-20,latency-bound,\
"ISL/OSL 1000/1000, concurrency 64",41.5,850,24.1,1000,1000,64,vLLM 0.11,8 x H200,one node
H200,llama-3-70b,inference,7200,instance,8,fp8,our vLLM sweep,2026-11-20,latency-bound,\
"ISL/OSL 1000/1000, concurrency 128",30.2,1400,33.1,1000,1000,128,vLLM 0.11,8 x H200,
"""
# Given anew on the way in, not carried: nothing (its id comes out the same in a warehouse with
# none of yours, given in the order the listing's were recorded; when it was recorded is kept).
RECORDED_ANEW: set[str] = set()


def run(*args: str) -> Ran:
    result = chipcost(*args)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result


@pytest.fixture
def mine(tmp_path) -> Path:
    """A warehouse with measurements of every kind `add`, `import` and a model named as
    InferenceX names it give."""
    db = warehouses.new(tmp_path / "mine.duckdb")
    sweep = tmp_path / "sweep.csv"
    sweep.write_text(SWEEP, encoding="utf-8")
    run("throughput", "import", str(sweep), "--db", str(db))
    run(
        "throughput", "add", "--chip", "H100 SXM5", "--model", "llama-3.3-70b", "--workload",
        "inference", "--tokens-per-second", "2700", "--figure-per", "instance", "--chip-count",
        "3", "--speed", "27.5", "--precision", "fp8", "--citation", "our TensorRT-LLM run",
        "--measured-on", "2026-11-18", "--notes", "speculative decoding off", "--db", str(db),
    )  # fmt: skip
    run(
        "throughput", "add", "--chip", "Trainium2", "--model", "llama-3-8b", "--workload",
        "training", "--tokens-per-second", "5100", "--batch-size", "1024", "--precision",
        "bf16", "--sequence-length", "8192", "--mfu", "0.39", "--db", str(db),
    )  # fmt: skip
    return db


def listed(db: Path, form: str = "json") -> str:
    """The user's measurements as `throughput list` writes them (none: an empty list, exit 1)."""
    done = chipcost("throughput", "list", "--origin", "user", "--format", form, "--db", str(db))
    assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
    return done.stdout


@pytest.mark.parametrize("form", ["csv", "json"])  # json: refused on 0cae6cf (its columns)
def test_a_listing_is_taken_back_whole(mine, tmp_path, form):
    printed = tmp_path / f"listed.{form}"
    printed.write_text(listed(mine, form), encoding="utf-8")
    other = warehouses.new(tmp_path / "other.duckdb")
    taken = run("throughput", "import", str(printed), "--db", str(other))
    assert "recorded 4 measurement(s)" in taken.stdout
    assert "left out" not in taken.stdout
    before, after = json.loads(listed(mine)), json.loads(listed(other))
    assert len(before) == len(after) == 4
    for old, new in zip(before, after, strict=True):
        per_chip = old.pop("tokens_per_second_per_chip"), new.pop("tokens_per_second_per_chip")
        assert per_chip[1] == pytest.approx(per_chip[0], rel=1e-12)
        assert old["implied_mfu"] == pytest.approx(new.pop("implied_mfu"), rel=1e-9)
        old.pop("implied_mfu")
        for name in RECORDED_ANEW:
            old.pop(name), new.pop(name)
        # the same figure, point, curve, choice and notes (the model's rule said once)
        assert new == old
    sweep = [row for row in after if row["chip"] == "H200"]
    assert {row["curve"][12] for row in sweep} == {"8"}  # its chips, part of its curve
    assert len({tuple(row["curve"]) for row in sweep}) == 1  # still one curve
    renamed = next(row for row in after if row["chip"] == "H100-SXM")
    assert (renamed["model"], renamed["published_model"]) == ("llama-3-70b", "llama-3.3-70b")
    assert renamed["notes"].count("Published for llama-3.3-70b") == 1


def test_chipcosts_own_figures_in_a_listing_are_left_out_and_said(mine, tmp_path):
    printed = tmp_path / "everything.csv"
    everything = run("throughput", "list", "--format", "csv", "--db", str(mine)).stdout
    printed.write_text(everything, encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(everything)))
    theirs = sum(row["origin"] != "user" for row in rows)
    assert theirs > 100
    other = warehouses.new(tmp_path / "other.duckdb")
    taken = run("throughput", "import", str(printed), "--db", str(other))
    assert "recorded 4 measurement(s)" in taken.stdout
    assert f"left out {theirs} reference and derived figure(s)" in taken.stdout
    # only chipcost's own: nothing of the user's to record, said, nothing recorded
    only = tmp_path / "references.csv"
    writer_rows = [row for row in rows if row["origin"] != "user"]
    with only.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(writer_rows)
    refused = chipcost("throughput", "import", str(only), "--db", str(other))
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    assert "lists no measurement of yours (origin user)" in refused.stderr
    assert len(json.loads(listed(other))) == 4


def test_a_bad_row_of_a_listing_is_named_by_line_and_nothing_is_recorded(mine, tmp_path):
    lines = listed(mine, "csv").splitlines()
    header = lines[0].split(",")
    cells = next(csv.reader([lines[1]]))
    cells[header.index("chips")] = "1.5"  # a fraction of a chip
    broken = io.StringIO()
    csv.writer(broken, lineterminator="\n").writerows([header, cells, *csv.reader(lines[2:])])
    path = tmp_path / "broken.csv"
    path.write_text(broken.getvalue(), encoding="utf-8")
    other = warehouses.new(tmp_path / "other.duckdb")
    refused = chipcost("throughput", "import", str(path), "--db", str(other))
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    said = " ".join(refused.stderr.split())
    assert "has bad rows (nothing was loaded)" in said and "line 2:" in said, said
    assert "1.5" in said
    assert json.loads(listed(other) or "[]") == []


def test_a_measurements_csv_carries_each_points_where_and_how(mine):
    """The point columns `add` takes as options (speed, operating point) and `measure` records
    (TTFT, TPOT, request shape, concurrency, software, system) are columns of the CSV too: the
    sweep is one curve (on 2b517ec the file was refused)."""
    rows = [row for row in json.loads(listed(mine)) if row["chip"] == "H200"]
    assert sorted(
        (r["concurrency"], r["tokens_per_second_per_chip"], r["tokens_per_second_per_user"],
         r["ttft_ms"], r["tpot_ms"], r["input_tokens"], r["software"], r["chips"])
        for r in rows
    ) == [(64, 600.0, 41.5, 850.0, 24.1, 1000, "vLLM 0.11", 8),
          (128, 900.0, 30.2, 1400.0, 33.1, 1000, "vLLM 0.11", 8)]  # fmt: skip
    at = run(
        "throughput", "list", "--origin", "user", "--chip", "H200", "--format", "json",
        "--db", str(mine),
    )  # fmt: skip
    assert len({tuple(r["curve"]) for r in json.loads(at.stdout)}) == 1


def test_a_file_taken_twice_records_nothing_twice(mine, tmp_path):
    """A listing imported into the warehouse it came from, or a file imported again, adds no
    second copy of a measurement (on 2b517ec each import recorded every row again)."""
    printed = tmp_path / "listed.csv"
    printed.write_text(listed(mine, "csv"), encoding="utf-8")
    again = run("throughput", "import", str(printed), "--db", str(mine))
    assert "recorded 0 measurement(s)" in again.stdout
    assert "already recorded, not recorded again: 4 row(s)" in again.stdout
    assert len(json.loads(listed(mine))) == 4
    add = (
        "throughput", "add", "--chip", "Trainium2", "--model", "llama-3-8b", "--workload",
        "training", "--tokens-per-second", "5100", "--batch-size", "1024", "--precision",
        "bf16", "--sequence-length", "8192", "--mfu", "0.39", "--db", str(mine),
    )  # fmt: skip
    assert "already recorded as user-" in run(*add).stdout
    assert len(json.loads(listed(mine))) == 4
    # one field different is another measurement
    assert "recorded user-5" in run(*add[:-2], "--notes", "second run", "--db", str(mine)).stdout


def test_a_sweeps_slower_point_is_said_to_be_read_at_its_speed(tmp_path):
    db = warehouses.new(tmp_path / "w.duckdb")
    sweep = tmp_path / "sweep.csv"
    sweep.write_text(SWEEP, encoding="utf-8")
    said = " ".join(run("throughput", "import", str(sweep), "--db", str(db)).stdout.split())
    assert (
        "each a point of its curve that `chipcost cost` and `compare` read at --speed up to "
        "its own: user-1 to 41.5"
    ) in said, said
    assert "not used by" not in said


@pytest.mark.parametrize(
    ("text", "said"),
    [
        # Excel's "CSV UTF-8": a byte-order mark before the first column's name
        ("\ufeffchip,model,workload,tokens_per_second\nH200,llama-3-70b,inference,900\n", None),
        ("chip,model,workload,tokens_per_second,chip\nH200,llama-3-70b,inference,900,B200\n",
         "column(s) named twice: chip"),
        ("chip,model,workload,tokens_per_second\nH200,llama-3-70b,inference,900,B200\n",
         "line 2: more values than columns"),
        # a file given by mistake: its first line is not echoed
        ("root:x:0:0:root:/root:/bin/bash\n", "unknown column(s) one that is no column name"),
        # a per-user speed as outputs print one
        ("chip,model,workload,tokens_per_second,tokens_per_second_per_user\n"
         "H200,llama-3-70b,inference,900,25 tok/s\n", None),
        ("chip,model,workload,tokens_per_second,tokens_per_second_per_user\n"
         "H200,llama-3-70b,inference,900,@7.2/u\n", None),
        # a citation as long as a page: every report and e-mail naming the figure would hold it
        ("chip,model,workload,tokens_per_second,source\nH200,llama-3-70b,inference,900,"
         + "N" * 100_000 + "\n",
         "line 2: source holds 100,000 characters, more than the 500 a figure shows with it"),
    ],
)  # fmt: skip
def test_a_measurements_csv_as_editors_and_mistakes_write_it(tmp_path, text, said):
    db = warehouses.new(tmp_path / "w.duckdb")
    path = tmp_path / "m.csv"
    path.write_text(text, encoding="utf-8")
    done = chipcost("throughput", "import", str(path), "--db", str(db))
    assert "Traceback" not in done.stderr
    if said is None:
        assert done.returncode == 0, done.stderr
        assert "recorded 1 measurement(s)" in done.stdout
        return
    assert done.returncode == 1
    assert said in " ".join(done.stderr.split()), done.stderr
    assert "root:x" not in done.stderr
    assert json.loads(listed(db) or "[]") == []


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[1, 2]", "line 1: int, not an object"),
        ('[\n{"chip": {"a": 1}, "model": "m", "workload": "inference", "tokens_per_second": 1}\n]',
         "line 2: chip holds a dict, not a value"),
        ("[" * 100_000, "cannot read"),
        ('[{"chip": "H200"} {"chip": "B200"}]', "',' or ']' expected after the object of line 1"),
        ('[{"password": "x", "chip": "H200"}]', "unknown column(s) password"),
        ("[]", "missing column(s) chip"),
    ],
)  # fmt: skip
def test_a_json_file_out_of_shape_is_one_line_naming_where(tmp_path, text, said):
    from chipcost.cli.commands.throughput_file import read_import
    from chipcost.core.errors import ChipcostError

    path = tmp_path / "m.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ChipcostError) as refused:
        read_import(path)
    assert said in str(refused.value), str(refused.value)
    assert len(str(refused.value)) < 600


def test_a_json_file_of_your_own_rows_reads_as_the_csv_would(tmp_path):
    """Rows of your own as JSON (the measurements CSV's columns as keys): each row's line is
    the line its object starts on, a null is a value not given, numbers read back exactly."""
    from chipcost.cli.commands.throughput_file import read_import

    path = tmp_path / "m.json"
    path.write_text(
        '\ufeff[\n  {"chip": "H200", "model": "llama-3-70b", "workload": "inference",\n'
        '   "tokens_per_second": 912.5, "precision": null, "concurrency": 8},\n'
        '  {"chip": "B200", "model": "llama-3-70b", "workload": "inference",\n'
        '   "tokens_per_second": 1e4}\n]\n',
        encoding="utf-8",
    )
    lines, rows, left_out = read_import(path)
    assert (lines, left_out) == ([2, 4], 0)
    assert rows[0] == {"chip": "H200", "model": "llama-3-70b", "workload": "inference",
                       "tokens_per_second": "912.5", "concurrency": "8"}  # fmt: skip
    assert rows[1]["tokens_per_second"] == "10000.0"


def test_text_the_csv_defused_comes_back_as_it_was(tmp_path):
    """A note or citation a spreadsheet would run ('-5% ...', '+ ...') is written with a
    leading ' in the listing's CSV, and read back without it: on 0cae6cf the ' was
    kept, so the measurement came back changed and a second import recorded it again."""
    db = warehouses.new(tmp_path / "mine.duckdb")
    run(
        "throughput", "add", "--chip", "H200", "--model", "llama-3-70b", "--workload",
        "inference", "--tokens-per-second", "950", "--notes", "-5% against last week's run",
        "--citation", "+ our own bench", "--db", str(db),
    )  # fmt: skip
    printed = tmp_path / "listed.csv"
    printed.write_text(listed(db, "csv"), encoding="utf-8")
    assert "'-5% against" in printed.read_text(encoding="utf-8")  # defused for a spreadsheet
    other = warehouses.new(tmp_path / "other.duckdb")
    run("throughput", "import", str(printed), "--db", str(other))
    (row,) = json.loads(listed(other))
    assert (row["notes"], row["source"]) == ("-5% against last week's run", "+ our own bench")
    again = run("throughput", "import", str(printed), "--db", str(db))
    assert "recorded 0 measurement(s)" in again.stdout and "already recorded" in again.stdout


@pytest.mark.parametrize("form", ["csv", "json"])
def test_a_listing_that_matches_nothing_exits_1_in_every_format(mine, form):
    # on e2f7b55 csv and json exited 0, the table 1, where every other read exits 1
    done = chipcost("throughput", "list", "--model", "zzz", "--format", form, "--db", str(mine))
    assert done.returncode == 1 and "no throughput figure matches" in done.stderr
    assert done.stdout.strip() in ("[\n]", "[]") or done.stdout.startswith("throughput_id,")


@pytest.mark.parametrize("form", ["csv", "json"])
def test_a_copy_keeps_which_of_two_measurements_alike_is_newer(tmp_path, form):
    """Two measurements of one chip at one point, the second recorded after the first: the
    choice rule takes the newer one. The listing prints the newest first; taken into another
    warehouse, the newer is still the newer one, and `cost` answers with the same figure."""
    mine = warehouses.of_records(tmp_path / "mine.duckdb", [record()])  # H100-SXM on AWS
    for tps in ("1600", "1500"):
        run(
            "throughput", "add", "--chip", "H100-SXM", "--model", "llama-3-70b", "--workload",
            "inference", "--tokens-per-second", tps, "--speed", "25", "--db", str(mine),
        )  # fmt: skip
    printed = tmp_path / f"listed.{form}"
    printed.write_text(listed(mine, form), encoding="utf-8")
    other = warehouses.of_records(tmp_path / "other.duckdb", [record()])
    run("throughput", "import", str(printed), "--db", str(other))
    answers = []
    for db in (mine, other):
        ranked = run("cost", "--model", "llama-3-70b", "--workload", "inference", "--chip",
                     "H100-SXM", "--speed", "25", "--format", "json", "--db", str(db))  # fmt: skip
        row = json.loads(ranked.stdout)[0]
        answers.append((row["throughput_id"], row["tokens_per_second_per_chip"]))
    assert answers == [("user-2", 1500.0), ("user-2", 1500.0)]


def test_a_recording_time_that_is_none_or_to_come_is_refused_naming_its_line(mine, tmp_path):
    text = listed(mine, "csv")
    for bad in ("yesterday", "2999-01-01T00:00:00+00:00"):
        rows = list(csv.DictReader(io.StringIO(text)))
        rows[1]["recorded_at"] = bad
        printed = tmp_path / "listed.csv"
        with printed.open("w", newline="", encoding="utf-8") as out:
            writer = csv.DictWriter(out, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        other = warehouses.new(tmp_path / f"other-{len(bad)}.duckdb")
        done = chipcost("throughput", "import", str(printed), "--db", str(other))
        assert done.returncode != 0 and "Traceback" not in done.stderr
        said = " ".join(done.stderr.split())
        assert f"line 3: recorded_at '{bad}' is not a time past with its offset" in said, said
        assert listed(other) == "[\n]\n"


def test_a_listings_csv_of_odd_text_taken_back_records_nothing_twice(tmp_path):
    """The CSV writes text as a spreadsheet should read it: a line break as a space, no
    control characters, a leading ' before what would run as a formula. Its own listing taken
    back is still the measurements it lists (on 2f65616 each came back as a new one)."""
    db = warehouses.new(tmp_path / "w.duckdb")
    add = ("throughput", "add", "--chip", "H100-SXM", "--model", "llama-3-70b", "--workload",
           "inference", "--tokens-per-second", "900", "--db", str(db))  # fmt: skip
    assert run(*add, "--notes", "line one\nline two\x07").returncode == 0
    assert run(*add, "--citation", "'=1+1 my bench").returncode == 0
    printed = tmp_path / "listed.csv"
    printed.write_text(listed(db, "csv"), encoding="utf-8")
    again = run("throughput", "import", str(printed), "--db", str(db))
    assert "recorded 0 measurement(s)" in again.stdout, again.stdout
    assert "already recorded, not recorded again: 2 row(s)" in again.stdout
    assert len(json.loads(listed(db))) == 2
