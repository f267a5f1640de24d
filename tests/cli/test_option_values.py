"""One answer to a mistake: a value an option does not take exits 2, as click's own usage
errors do, naming the option, the value and the accepted values (or the closest of a long
list, cut, with the command that lists them all); options may come before the command; the
run `collect` printed is the run `remove-run` takes, and `sources --runs` lists the ids."""

from __future__ import annotations

import csv
import io

import duckdb
import pytest

from tests import warehouses


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    return str(warehouses.sample(tmp_path_factory.mktemp("usage") / "w.duckdb", last=2))


INFERENCE = ("cost", "--model", "llama-3-70b", "--workload", "inference")
# `measure` asked of a server that is never reached: each refusal comes before any request.
MEASURE = (
    "measure", "--endpoint", "http://127.0.0.1:9", "--model", "llama-3-70b", "--chip", "H100-SXM",
    "--chips", "8", "--tokenizer", ".", "--precision", "fp8", "--software", "vLLM 0.11.0",
)  # fmt: skip


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("prices", "--by", "zone"), "--by zone: give one of chip, provider, region, offer"),
        (("prices", "--per", "week"), "--per week: give one of hour, month, year"),
        (("prices", "--sort", "cost"), "--sort cost: sort by one of chip, price, provider, region"),
        (("prices", "--chip-count", "eight"), "--chip-count 'eight': give the chips per instance"),
        (
            ("cost", "--model", "llama-3-70b", "--workload", "infer"),
            "--workload 'infer': use training or inference",
        ),
        ((*INFERENCE, "--speed", "fast"), "--speed 'fast': give max, server"),
        (("prices", "--pricing-model", "spt"), "unknown pricing model 'spt' (did you mean spot?)"),
        # A region the current prices are not in is a value the option does not take, as an
        # unknown provider is: exit 2, the nearest regions named.
        (
            ("prices", "--region", "us-east-9"),
            "--region: no current price is in region 'us-east-9' (did you mean us-east-1",
        ),
        # A documented alias (amazon: aws) is searched for the nearest name too: on 131508c0
        # amazn got "(nearest: lambda, modal, azure)".
        (
            ("prices", "--provider", "amazn"),
            "--provider: unknown provider 'amazn' (did you mean aws?)",
        ),
        (("history", "--chip", "H100", "--provider", "gogle"), "'gogle' (did you mean gcp?)"),
        # A source's name, as `sources` lists it beside its provider, is named for what it is.
        (
            ("prices", "--provider", "aws-bulk"),
            "--provider: 'aws-bulk' is a source, not a provider: it collects provider aws's "
            "prices; give aws",
        ),
        (
            (*INFERENCE, "--provider", "AWS-Spot"),
            "'AWS-Spot' is a source, not a provider: it collects provider aws's prices",
        ),
        # Two switches asking for opposites are refused, not the last one taken.
        (("prices", "--spot", "--no-spot"), "--spot and --no-spot ask for opposites"),
        (("prices", "--no-spot", "--spot"), "--spot and --no-spot ask for opposites"),
        (("collect", "--pending", "--replay", "archive"), "it takes neither --replay nor --source"),
        (
            (*MEASURE, "--concurrency", "0", "--input-tokens", "10", "--output-tokens", "10"),
            "--concurrency '0': give concurrencies from 1 to 1024",
        ),
        (
            (
                *MEASURE[:4],
                "meta-llama/Llama-3.3-70B-Instruct",
                *MEASURE[5:],
                "--input-tokens",
                "10",
                "--output-tokens",
                "10",
            ),
            "--model 'meta-llama/Llama-3.3-70B-Instruct' is a Hugging Face id: give chipcost's "
            "name for it, llama-3.3-70b (the id the server serves goes in --served-model)",
        ),
        (
            (*MEASURE, "--speed", "5", "--input-tokens", "10", "--output-tokens", "10"),
            "--speed goes with --match",
        ),
        ((*MEASURE, "--chips", "0", "--match", "H100-SXM"), "--chips 0: give 1 to "),
    ],
)
def test_a_value_an_option_does_not_take_exits_2_naming_what_it_takes(run, db, args, said):
    done = run(*args, "--db", db)
    assert done.returncode == 2, done.stderr
    command = f"chipcost {args[0]}"
    assert done.stderr.startswith(f"{command}: error: "), done.stderr
    assert said in done.stderr and f"see `{command} --help`" in done.stderr
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr


def test_an_unknown_chip_is_answered_in_a_line_not_a_list_of_every_chip(run, db):
    done = run("prices", "--chip", "H100-SMX", "--db", db)
    assert done.returncode == 2
    assert "unknown chip 'H100-SMX' (did you mean H100-SXM" in done.stderr
    assert 'chipcost sql "SELECT chip, vendor, family FROM chips ORDER BY chip"' in done.stderr
    assert "MI300X" not in done.stderr and len(done.stderr) < 400, done.stderr


def test_an_instance_type_far_from_any_still_gets_the_nearest(run, db):
    done = run("prices", "--instance", "zz9.big", "--db", db)
    assert done.returncode == 2
    line = done.stderr
    assert "--instance: unknown instance type 'zz9.big' (nearest: " in line, line
    assert 'known: `chipcost sql "SELECT DISTINCT provider, instance_type' in line
    assert len(line) < 400, line


def test_options_may_come_before_the_command(run, db):
    after = run("prices", "--chip", "H100-SXM", "--format", "csv", "--db", db)
    before = run("--db", db, "--format=csv", "prices", "--chip", "H100-SXM")
    assert after.returncode == before.returncode == 0, before.stderr
    assert before.stdout == after.stdout
    flag = run("--wide", "prices", "--chip", "H100-SXM", "--db", db, "--limit", "1")
    assert flag.returncode == 0 and "GB/chip" in flag.stdout, flag.stderr
    grouped = run("--db", db, "throughput", "list", "--chip", "H100-SXM", "--format", "csv")
    assert grouped.returncode == 0 and grouped.stdout.startswith("throughput_id,")
    unknown = run("--db", db, "--nonsense", "prices")
    assert unknown.returncode == 2 and "No such option '--nonsense'" in unknown.stderr


def test_remove_run_takes_the_run_collect_printed_and_sources_lists_the_ids(run, db, tmp_path):
    mine = tmp_path / "w.duckdb"
    mine.write_bytes(open(db, "rb").read())
    listed = run("sources", "--runs", "--format", "csv", "--db", str(mine))
    assert listed.returncode == 0, listed.stderr
    runs = list(csv.DictReader(io.StringIO(listed.stdout)))
    assert len(runs) == 2 and runs[0]["observed_at"] > runs[1]["observed_at"]
    newest = runs[0]
    table = run("sources", "--runs", "--db", str(mine))
    assert newest["run_id"] in table.stdout and "remove-run RUN_ID" in table.stdout
    # `collect` prints the archive run (2026-11-21T060000Z); the id adds a suffix.
    done = run("remove-run", newest["archive_run"], "--db", str(mine))
    assert done.returncode == 0, done.stderr
    assert f"run {newest['run_id']} removed" in done.stdout
    with duckdb.connect(str(mine), read_only=True) as con:
        assert con.sql("SELECT run_id FROM runs").fetchall() == [(runs[1]["run_id"],)]
    stamp = runs[1]["run_id"].rsplit("-", 1)[0]  # the id without its suffix
    assert run("remove-run", stamp, "--db", str(mine)).returncode == 0
    gone = run("remove-run", stamp, "--db", str(mine))
    assert gone.returncode == 2 and "`chipcost sources --runs` lists its runs" in gone.stderr


def test_a_stamp_two_runs_share_is_refused_with_both_ids(run, db, tmp_path):
    mine = tmp_path / "w.duckdb"
    mine.write_bytes(open(db, "rb").read())
    with duckdb.connect(str(mine)) as con:
        con.execute("UPDATE runs SET archive_run = 'same'")
        ids = sorted(r[0] for r in con.sql("SELECT run_id FROM runs").fetchall())
    done = run("remove-run", "same", "--db", str(mine))
    assert done.returncode == 2 and "could be any of 2 runs" in done.stderr
    assert all(i in done.stderr for i in ids)
