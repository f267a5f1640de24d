"""`chipcost collect` ends with a summary before the detail: the runs with their total, then one
summary per source over every run, a note several runs said said once with how many; on a
stream that is no terminal, a few plain progress lines; --verbose prints every note as each run
said it. The bundled sample archive replayed for real (its eight runs, every source)."""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import pytest

from chipcost.cli.commands.collect import print_outcomes
from chipcost.cli.consoles import Screen
from chipcost.core.runs import FAILED, OK, LoadSummary, RunResult, SourceResult
from chipcost.pipeline.collection import RunOutcome
from tests import warehouses
from tests.helpers import day

SAMPLE = Path(__file__).resolve().parents[2] / "sample" / "archive"
RUNS = len(warehouses.sample_runs())


@pytest.fixture(scope="module")
def replayed(tmp_path_factory):
    """`chipcost collect --replay sample/archive` once, its output as a pipe gets it."""
    from tests.cli_runner import chipcost

    root = tmp_path_factory.mktemp("summary")
    done = chipcost(
        "collect", "--replay", str(SAMPLE), "--db", str(root / "w.duckdb"),
        "--data-dir", str(root / "data"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def test_a_replay_of_the_sample_prints_at_most_48_lines(replayed):
    # A plain progress line ('loaded run ... (4 of 8, 6 s)') is printed every few seconds the
    # replay takes: how many depends on the machine's load, so they are bounded apart. 40
    # before the rows refused were said: nine of the sample's sources refuse some in a run.
    progress = [line for line in replayed.stderr.splitlines() if line.startswith("loaded run ")]
    lines = [
        line
        for line in replayed.stdout.splitlines() + replayed.stderr.splitlines()
        if line not in progress
    ]
    assert len(lines) <= 48, "\n".join(lines)
    assert len(progress) <= RUNS


def test_the_runs_come_with_their_total(replayed):
    rows = [line for line in replayed.stdout.splitlines() if re.match(r"\d{4}-\d\d-\d\dT", line)]
    assert len(rows) == RUNS
    total = next(line for line in replayed.stdout.splitlines() if line.startswith("total"))
    records = sum(int(row.split()[3]) for row in rows)  # "stamp (sample) ok records ..."
    assert total.split()[:4] == ["total,", str(RUNS), "runs", f"{RUNS}"]
    assert str(records) in total.split()


def test_each_source_is_summarised_once_its_repeated_notes_counted(replayed):
    out = replayed.stdout
    assert f"sources over the {RUNS} runs: " in out
    summary = out.split(f"sources over the {RUNS} runs: ", 1)[1].split("SAMPLE DATA", 1)[0]
    # Vast.ai's unverified hosts were said in every run, a host id of their own each time:
    # once here, counted, in the latest run's words.
    vastai = " ".join(summary.split("  vastai ", 1)[1].split("\n  ", 1)[0].split())
    assert vastai.startswith("ok: 2 row(s) not loaded: a host not verified"), vastai
    assert f"({RUNS} runs, as the latest said it)" in vastai
    assert summary.count("a host not verified (deverified)") <= 1
    # Every source is named once: with its line, or in the list of those with nothing to note.
    quiet = summary.split("ok, nothing to note (", 1)[1]
    count, names = quiet.split("):", 1)
    named = [n.strip() for n in " ".join(names.split()).split(",")]
    assert len(named) == int(count)
    noted = re.findall(r"^  (\S+) ok", summary, re.MULTILINE)
    assert not set(named) & set(noted) and len(named) + len(noted) == len(set(named + noted))
    assert "ecb-rates" in named and "gcp" in noted


def test_a_pipe_gets_a_few_plain_progress_lines(replayed):
    said = replayed.stderr.splitlines()
    assert said[0] == f"replaying {RUNS} archive runs from {SAMPLE}"
    # One at each quarter of the runs at most (five seconds apart), never the last.
    assert all(re.fullmatch(r"loaded run \S+ \(\d of 8, \d+ s\)", line) for line in said[1:])
    assert len(said) <= 4 and f"({RUNS} of {RUNS}" not in replayed.stderr


def test_verbose_prints_every_note_as_each_run_said_it(run, tmp_path):
    archive = tmp_path / "archive"
    for source in warehouses.sample_runs()[:2]:
        shutil.copytree(source, archive / source.name)
    done = run("collect", "--replay", str(archive), "--verbose", "--db", str(tmp_path / "w.duckdb"))
    assert done.returncode == 0, done.stderr[-2000:]
    notes = [line for line in done.stdout.splitlines() if line.startswith("note vastai:")]
    # each run's own hosts: two notes a run, as each run said them
    assert len(notes) == 4 and len(set(notes)) == 4, notes
    assert "sources in 2026-11-15T060000Z" in done.stdout
    assert "nothing to note" not in done.stdout


def source(
    name: str, status: str = OK, notes: tuple[str, ...] = (), message: str = ""
) -> SourceResult:
    found = SourceResult(name, name, status, message=message)
    found.notes = list(notes)
    return found


def outcome(n: int, *sources: SourceResult) -> RunOutcome:
    run = RunResult(f"r{n}", day(n), day(n), "replay", f"2026-11-0{n + 1}T060000Z", False,
                    list(sources))  # fmt: skip
    return RunOutcome(run, LoadSummary(10, 1, 0, 2, 0))


def printed(outcomes: list[RunOutcome], width: int = 200) -> str:
    buffer = io.StringIO()
    print_outcomes(Screen(buffer, width), outcomes, Path("w.duckdb"))
    return buffer.getvalue()


def test_a_failure_comes_first_then_news_then_what_every_run_said():
    outcomes = [
        outcome(0, source("a", notes=("prices from the page (v1)",)), source("b")),
        outcome(
            1, source("a", notes=("prices from the page (v2)", "a price jumped")), source("b")
        ),  # fmt: skip
        outcome(
            2, source("a", FAILED, ("prices from the page (v3)",), "answered 500"), source("b")
        ),  # fmt: skip
    ]
    said = printed(outcomes)
    assert "total, 3 runs        2 ok, 1 partial        30         3     0         6" in said
    assert "sources over the 3 runs: 2, 1 ok in every run, 1 failed or skipped in some" in said
    assert (
        "\n  a ok 2, failed 1: failed: answered 500; a price jumped; prices from the page (v3) "
        "(3 runs, as the latest said it)\n"
    ) in said
    assert "\n  ok, nothing to note (1): b\n" in said


def test_one_run_says_its_status_once():
    said = printed([outcome(0, source("a", FAILED, ("x",), "answered 500"), source("b"))])
    assert "sources in this run: 2, 1 ok, 1 failed or skipped (--verbose: every note" in said
    assert "\n  a failed: answered 500; x\n" in said
    assert "total" not in said


def test_what_does_not_fit_the_width_is_counted():
    notes = tuple(f"note number {n} says something long enough to fill a line" for n in range(5))
    said = " ".join(printed([outcome(0, source("a", notes=notes))], width=80).split())
    assert "a ok: note number 0 says something long enough to fill a line; 4 more notes" in said
    assert "note number 1" not in said


def test_sources_absent_from_some_runs_are_ok_in_the_runs_that_held_them():
    """On 444acd6f eight old runs of 15 sources and eight of 48 printed '48, 48 ok in every
    run', though 33 of them were in eight runs only."""
    old = [outcome(n, source("a"), source("b")) for n in range(2)]
    new = [outcome(n, source("a"), source("b"), source("c"), source("d")) for n in range(2, 4)]
    said = printed([*old, *new])
    assert (
        "sources over the 4 runs: 4 (2 of them in only some runs), 4 ok in every run that held "
        "them ("
    ) in said
    assert "sources over the 2 runs: 2, 2 ok in every run (" in printed(old)


def test_a_replay_of_runs_holding_different_sources_says_so(run, tmp_path):
    archive = tmp_path / "archive"
    first, second = warehouses.sample_runs()[:2]
    shutil.copytree(first / "lambda", archive / first.name / "lambda")
    for name in ("lambda", "latitude", "modal"):
        shutil.copytree(second / name, archive / second.name / name)
    done = run("collect", "--replay", str(archive), "--db", str(tmp_path / "w.duckdb"))
    assert done.returncode == 0, done.stderr[-2000:]
    said = " ".join(done.stdout.split())
    assert "sources over the 2 runs: 3 (2 of them in only some runs), 3 ok in every run that " in (
        said
    )
