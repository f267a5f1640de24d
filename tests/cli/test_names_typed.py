"""Names and values typed on the command line that cannot crash or hang a read: a value that
is not UTF-8 is one line naming its option; a name far longer than any known one is refused
at once, cut in the message; the did-you-mean runs within the read's time limit. On the
golden warehouse, the command line through the in-process runner."""

from __future__ import annotations

import time

import pytest

from chipcost.core.errors import ChipcostError
from chipcost.core.names import close_matches
from chipcost.core.sql_limits import SqlLimits
from chipcost.warehouse.reader import open_reader
from tests.conftest import SAMPLE


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("--region", "\udce9u-west-1"), "--region"),  # byte 0xe9 as Python keeps it from argv
        (("--provider=aws\udcff",), "--provider"),
        (("--chip", "H100\udcc3"), "--chip"),
    ],
)
def test_a_value_that_is_not_utf8_is_one_line_naming_the_option(golden, run, args, option):
    done = run("prices", *args, "--db", str(golden))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert f"the value of {option} (" in done.stderr and "is not UTF-8 text" in done.stderr
    assert "\\x" in done.stderr  # the byte, escaped: the terminal gets no raw byte


@pytest.mark.parametrize("option", ["--instance", "--chip", "--region", "--provider"])
def test_a_name_longer_than_any_known_is_refused_at_once(golden, run, option):
    started = time.monotonic()
    done = run("prices", option, "x" * 120_000, "--db", str(golden))
    assert time.monotonic() - started < 20  # was 364 s for --instance
    assert done.returncode in (1, 2), done.stderr[-500:]  # 2: an unknown name, 1: a region
    assert "Traceback" not in done.stderr
    assert "(120,000 characters, longer than any known name)" in done.stderr
    assert len(done.stderr) < 2_000  # the name is cut, not echoed whole


@pytest.mark.parametrize(
    ("command", "said"),
    [
        (("cost", "--workload", "inference", "--model"), "longer than any known name"),
        (("collect", "--replay", str(SAMPLE), "--source"), "longer than any known name"),
        (("prices", "--currency"), "--currency xxxxxxxx"),  # the golden one holds no rates
    ],
    ids=["cost --model", "collect --source", "prices --currency"],
)
def test_other_names_longer_than_any_known_are_refused_at_once(golden, run, command, said):
    started = time.monotonic()
    done = run(*command, "x" * 120_000, "--db", str(golden))
    assert time.monotonic() - started < 20
    assert done.returncode in (1, 2) and "Traceback" not in done.stderr, done.stderr[-500:]
    assert said in done.stderr
    assert len(done.stderr) < 2_000  # the name is cut


def test_the_did_you_mean_runs_within_the_read_time_limit(golden):
    names = [f"p{n}.{n % 97}xlarge-{n}" for n in range(20_000)]
    con = open_reader(golden, limits=SqlLimits(timeout=0.2))
    try:
        time.sleep(0.3)
        with pytest.raises(ChipcostError, match=r"the read ran past 0.2 s \(CHIPCOST_SQL_TIMEOUT"):
            close_matches("p5.48xlarge-1", names)
    finally:
        con.close()
    # A read closed in time leaves no limit behind: the next did-you-mean runs whole.
    assert close_matches("p5.48xlarge-5", names[:200])
