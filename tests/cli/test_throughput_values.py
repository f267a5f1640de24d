"""What `throughput add` and `throughput import` take and refuse: a day that does not exist or
comes before 2000, a rate under 0.01 tokens/s per chip, more chips than a run can hold, a
precision no class holds, labels that are no line, a JSON file out of shape (two lists, text
after the list, a key twice, half a UTF-16 pair, one object, a value or a number too long), a
CSV cell past the reader's limit; a measured day given as the listings print times. Refused
in one line naming the field, nothing recorded; on a real warehouse, the command line through
the in-process runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import loaded_warehouse, record
from tests.refusals import refused


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    return loaded_warehouse(tmp_path_factory.mktemp("throughput") / "w.duckdb", [record()])


ROW = '{"chip": "H100-SXM", "model": "llama-3-70b", "workload": "inference", "tokens_per_second": '


def _added(run, warehouse: Path, tmp_path: Path, *options: str, chip: str = "H100-SXM"):
    """`throughput add` of 1,400 tokens/s on Llama 3 70B inference, on a copy of the warehouse."""
    copy = tmp_path / "w.duckdb"
    copy.write_bytes(warehouse.read_bytes())
    return run(
        "throughput", "add", "--chip", chip, "--model", "llama-3-70b", "--workload",
        "inference", "--tokens-per-second", "1400", *options, "--db", str(copy),
    )  # fmt: skip


def test_a_measurement_dated_before_any_chip_is_refused(warehouse, tmp_path, run):
    done = _added(run, warehouse, tmp_path, "--measured-on", "0001-01-01")
    refused(done, "--measured-on '0001-01-01' is before 2000")


@pytest.mark.parametrize(
    ("value", "said"),
    [
        # each was recorded on a81b4ee: a precision no figure can be classed by
        ("totally not a precision; DROP", "is none chipcost knows: give one of fp4"),
        ("fp3", "precision 'fp3' is none chipcost knows"),
    ],
)
def test_a_measurement_at_no_known_precision_is_refused(warehouse, tmp_path, run, value, said):
    refused(_added(run, warehouse, tmp_path, "--precision", value), said)


@pytest.mark.parametrize(
    ("option", "said"),
    [
        (["--measured-on", "2026-02-30"], "--measured-on '2026-02-30' is not a day that exists"),
        (["--measured-on", "2026-00"], "--measured-on '2026-00' is not a day that exists"),
        (["--tokens-per-second", "1e-30"], "1e-30 tokens/s per chip is below 0.01"),
        (["--figure-per", "instance", "--chip-count", "1e9"], "--chip-count 1e+09: give 1 to"),
    ],
)
def test_a_measurement_that_cannot_be_is_refused(warehouse, tmp_path, run, option, said):
    db = tmp_path / "w.duckdb"
    db.write_bytes(warehouse.read_bytes())
    args = ["throughput", "add", "--chip", "H100-SXM", "--model", "llama-3-70b"]
    args += ["--workload", "inference", "--tokens-per-second", "1500", *option]
    refused(run(*args, "--db", str(db)), said, code=2)


@pytest.mark.parametrize(
    ("given", "day"),
    [("2026-11-21 06:00 UTC", "2026-11-21"), ("2026-11-21T06:00:00+00:00", "2026-11-21"),
     ("2026-11-21T22:00:00-05:00", "2026-11-22"), ("2026-11-21", "2026-11-21")],
)  # fmt: skip
def test_a_measurement_day_is_taken_as_outputs_print_times(warehouse, tmp_path, run, given, day):
    """`sources --runs` and the listings print times; --measured-on takes one as its UTC day."""
    db = tmp_path / "w.duckdb"
    db.write_bytes(warehouse.read_bytes())
    args = ["throughput", "add", "--chip", "H100-SXM", "--model", "llama-3-70b", "--workload",
            "inference", "--tokens-per-second", "1500", "--measured-on", given]  # fmt: skip
    done = run(*args, "--db", str(db))
    assert done.returncode == 0, done.stderr
    listed = run("throughput", "list", "--origin", "user", "--format", "json", "--db", str(db))
    assert [row["source_date"] for row in json.loads(listed.stdout)] == [day]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        # on a81b4ee the H200 row of a second list was dropped without a word
        (f"[{ROW}1500}}]\n[{ROW.replace('H100-SXM', 'H200')}1500}}]",
         "line 2: more after the list's closing ']'"),
        (f"[{ROW}1500}}] {{garbage", "line 1: more after the list's closing ']'"),
        # ... the last of two rates was recorded
        (f'[{ROW}1500, "tokens_per_second": 9999}}]', "'tokens_per_second' given twice"),
        # ... a traceback (DuckDB cannot store half a UTF-16 pair)
        (f'[{ROW}1500, "notes": "a\\ud800"}}]', "notes holds an unpaired surrogate"),
        # ... read as a CSV: "unknown column(s)"
        (f"{ROW}1500}}", "is one JSON object, not a list of them"),
        # ... stored whole, where a CSV refuses a cell past 131,072 characters
        (f'[{ROW}1500, "notes": "{"x" * 200_000}"}}]', "notes holds 200,000 characters"),
        # ... "use sys.set_int_max_str_digits()"
        (f"[{ROW}{'1' * 5000}}}]", "a number of more than 4,300 digits"),
    ],
)  # fmt: skip
def test_a_json_import_out_of_shape_records_nothing(warehouse, tmp_path, run, text, said):
    copy, given = tmp_path / "w.duckdb", tmp_path / "rows.json"
    copy.write_bytes(warehouse.read_bytes())
    given.write_text(text, encoding="utf-8")
    done = run("throughput", "import", str(given), "--db", str(copy))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-500:]
    assert said in " ".join(done.stderr.split())
    listed = run("throughput", "list", "--origin", "user", "--format", "json", "--db", str(copy))
    # nothing recorded: the listing is empty, and says so by its exit status
    assert listed.returncode == 1 and json.loads(listed.stdout) == []


def test_a_csv_cell_past_the_limit_names_its_line(warehouse, tmp_path, run):
    given = tmp_path / "rows.csv"
    given.write_text(
        "chip,model,workload,tokens_per_second,notes\n"
        f"H100-SXM,llama-3-70b,inference,1500,{'x' * 200_000}\n"
    )
    done = run("throughput", "import", str(given), "--db", str(warehouse))
    assert done.returncode == 1
    assert "rows.csv, line 2: field larger than field limit" in done.stderr


@pytest.mark.parametrize(
    ("column", "value", "said"),
    [
        # each was recorded on a81b4ee: a name of a line break and an escape, of 20,000
        # characters
        ("software", "vLLM\\u001b[31m\\nx", "software holds a control character"),
        ("software", "v" * 20_000, "software holds 20,000 characters"),
        ("system", "8x H100\\n8x H100", "system holds a control character"),
    ],
)
def test_imported_labels_that_are_no_line_are_refused(
    warehouse, tmp_path, run, column, value, said
):
    copy, given = tmp_path / "w.duckdb", tmp_path / "rows.json"
    copy.write_bytes(warehouse.read_bytes())
    given.write_text(f'[{ROW}1400, "{column}": "{value}"}}]', encoding="utf-8")
    done = run("throughput", "import", str(given), "--db", str(copy))
    assert done.returncode == 1 and said in " ".join(done.stderr.split()), done.stderr[-800:]


@pytest.mark.parametrize(
    ("chip", "said"),
    [
        # as compare and cost say them (add said "unknown chip" for each on 8f824434)
        ("H100", "--chip 'H100' is a family (H100-SXM, H100-PCIe, H100-NVL): pick one chip"),
        ("trn2", "--chip 'trn2' is an AWS instance family, not a chip: its chip is Trainium2"),
        ("unknown", "--chip 'unknown' is no chip"),
        ("H100-SXX", "--chip 'H100-SXX': unknown chip (did you mean H100-SXM?)"),
    ],
)
def test_a_chip_add_cannot_record_is_said_as_compare_says_it(warehouse, tmp_path, run, chip, said):
    refused(_added(run, warehouse, tmp_path, chip=chip), said)


@pytest.mark.parametrize(
    ("figure", "said"),
    [
        ("user-3", "no throughput figure 'user-3'"),
        ("bitslovers-h100-bert-large", "bitslovers-h100-bert-large is a reference figure"),
    ],
)
def test_removing_a_figure_that_is_not_one_of_yours_is_a_usage_error(
    warehouse, tmp_path, run, figure, said
):
    """The id given names no measurement of yours: a usage error, exit 2, as `remove-run
    nope` (docs/cli.md); on c96d2408 `throughput remove user-3` exited 1."""
    copy = tmp_path / "w.duckdb"
    copy.write_bytes(warehouse.read_bytes())
    refused(run("throughput", "remove", figure, "--db", str(copy)), said)
