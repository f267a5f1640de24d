"""Emptiness said: a report period the warehouse holds nothing of says so, with what it holds,
instead of "No offer moved in price"; the bundled sample's prices are described as the sample
week they are, not as stale sources (right after `chipcost demo` every read called all of
them stale)."""

from __future__ import annotations

import pytest

from tests import warehouses


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    # the sample's two newest runs: 2026-11-20 and 2026-11-21
    return str(warehouses.sample(tmp_path_factory.mktemp("empty") / "w.duckdb", last=2))


def test_a_report_of_a_period_without_data_says_so(run, db, tmp_path):
    done = run(
        "report", "--since", "2026-10-01", "--until", "2026-10-31", "--dry-run",
        "--out", str(tmp_path), "--db", db,
    )  # fmt: skip
    # As grep with no match: exit 1, one line, no file (the flow's report says it instead).
    assert done.returncode == 1, done.stderr[-2000:]
    said = "no data from 2026-10-01 to 2026-10-31 (the warehouse holds 2026-11-20 to 2026-11-21)"
    assert done.stderr == f"error: {said}: no report written\n" and not done.stdout
    assert not list(tmp_path.iterdir())


def test_sample_prices_are_the_sample_week_not_stale_sources(run, db):
    prices = run("prices", "--chip", "H100-SXM", "--db", db)
    assert prices.returncode == 0, prices.stderr
    said = " ".join(prices.stdout.split())
    assert "SAMPLE DATA: the sample week, ending 2026-11-21." in said
    assert "stale" not in said
    sources = run("sources", "--db", db)
    table = " ".join(sources.stdout.split())
    assert "hold the sample week, ending 2026-11-21 (the bundled sample archive" in table
    rows = sources.stdout.split("───")[-1].split("\nsample:")[0]
    assert "sample" in rows


def sources_rows(run, db: str, *args: str, env: dict[str, str] | None = None) -> list[str]:
    """`chipcost sources`' rows of a source (no wrapped line), and its legend's line."""
    shown = run("sources", "--db", db, *args, env={**(env or {}), "COLUMNS": "200"})
    assert shown.returncode == 0, shown.stderr
    body = shown.stdout.split("───")[-1]
    return [line for line in body.splitlines() if line.startswith(("aws-", "stale:"))]


@pytest.mark.parametrize(
    ("args", "env", "days"),
    [((), None, 2), (("--stale-days", "3"), None, 3), ((), {"CHIPCOST_STALE_DAYS": "4"}, 4)],
)
def test_sources_stale_column_follows_the_threshold_its_legend_states(run, db, args, env, days):
    # The sample's newest run is 2026-11-21: days old by now, past each of these thresholds.
    *rows, legend = sources_rows(run, db, *args, env=env)
    assert legend.startswith(f"stale: no successful run in {days} days (--stale-days, else")
    assert rows and all(" stale " in row and "sample" in row for row in rows), rows


def test_sources_stale_column_is_blank_within_the_threshold(run, db):
    *rows, legend = sources_rows(run, db, "--stale-days", "99999")
    assert legend.startswith("stale: no successful run in 99999 days")
    assert rows and not any(" stale " in row for row in rows), rows


def test_a_live_source_past_its_days_is_still_stale(run, db, tmp_path):
    mine = tmp_path / "w.duckdb"
    mine.write_bytes(open(db, "rb").read())
    import duckdb

    with duckdb.connect(str(mine)) as con:
        con.execute("UPDATE runs SET sample = FALSE")
    prices = run("prices", "--chip", "H100-SXM", "--db", str(mine))
    said = " ".join(prices.stdout.split())
    assert "stale (no successful run in 2 days" in said and "SAMPLE DATA" not in said


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("prices", "--chip", "Trainium2", "--region", "us-east-1"),
         "Trainium2's current prices are in regions us-east-2, us-west-2"),
        (("history", "--chip", "Trainium2", "--region", "us-east-1"),
         "no prices of Trainium2 match these filters; Trainium2's prices are in regions "
         "us-east-2, us-west-2"),
        (("cost", "--model", "llama-3-70b", "--workload", "inference", "--chip", "Trainium2",
          "--region", "us-east-1"),
         "no current offer of Trainium2 matches for llama-3-70b inference; Trainium2's "
         "current prices are in regions us-east-2, us-west-2"),
        (("prices", "--chip", "Trainium2", "--provider", "lambda"),
         "Trainium2's current prices are from provider aws"),
        (("compare", "Trainium2", "B300", "--model", "llama-3-70b", "--workload", "inference",
          "--region", "us-east-2"),
         "the baseline B300 has no current price with a throughput for llama-3-70b inference "
         "under these filters; B300's current prices are in regions"),
        # no filter given: none is named; a chip no one rents says why (it said "under these
        # filters: widen the filters" here)
        (("cost", "--model", "llama-3-70b", "--workload", "inference", "--chip", "H200",
          "--baseline", "Trainium3"),
         "the baseline Trainium3 has no current price (Trainium3: price not published (AWS "),
        (("cost", "--model", "llama-3-70b", "--workload", "inference", "--baseline", "RTX-3060"),
         "the baseline RTX-3060 has no current price with a throughput for llama-3-70b "
         "inference: compare with another chip (--baseline)"),
        # in the pricing's words, list price first (on 0cae6cf: its codes, A to Z, and compare
        # named neither where B300's prices were nor the capacity blocks in words)
        (("prices", "--chip", "B300", "--pricing-model", "reserved"),
         "B300's current prices are as pricing models on demand, commitment, spot"),
        (("compare", "B300", "H100-SXM", "--model", "llama-3-70b", "--workload", "inference",
          "--pricing-model", "capacity block"),
         "share no pricing model under these filters (B300: none; H100-SXM: capacity block 1d, "
         "capacity block 7d, capacity block 14d); B300's current prices are as pricing models "
         "on demand, commitment, spot; widen"),
    ],
)  # fmt: skip
def test_a_chip_filtered_out_is_told_where_its_prices_are(run, db, args, said):
    """A chip asked where it has no price (Trainium2 in us-east-1) is answered with where its
    prices are; on 2b517ec history said "check the region ... with `chipcost prices`" and cost
    listed 34 other chips."""
    done = run(*args, "--db", db)
    assert done.returncode == 1, done.stderr
    assert said in " ".join(done.stderr.split()), done.stderr
    if not any(a.startswith(("--region", "--provider", "--pricing")) for a in args):
        assert "filters" not in done.stderr
