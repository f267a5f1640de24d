"""`prices --limit N` reads the N rows it shows, not every current price: the limit is in the
query the rows come from, and the rows it leaves out are counted in SQL (at ten years, every
current price fetched as rows took 1.25 s of a `--limit 3`: docs/performance.md). What it
shows is what it showed: the first N rows of the whole listing, the rest counted, the fields
every row shares said once above the table."""

from __future__ import annotations

import os

import duckdb
import pytest

from tests import warehouses
from tests.cli_runner import chipcost


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    return warehouses.sample(tmp_path_factory.mktemp("limit") / "w.duckdb")


def _logged(tmp_path, *args: str) -> tuple[str, list[str]]:
    """What `chipcost ARGS` printed, and every query it sent DuckDB (its QueryLog)."""
    real, logs = duckdb.connect, tmp_path / "logs"
    opened = iter(range(100))

    def logging(*given, **kwargs):
        con = real(*given, **kwargs)
        into = logs / str(next(opened))
        into.mkdir(parents=True)
        con.execute(
            "CALL enable_logging('QueryLog', storage = 'file', "
            f"storage_config = {{'path': '{into}'}})"
        )
        return con

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(duckdb, "connect", logging)
        ran = chipcost(*args, env={**os.environ, "COLUMNS": "120"})
    assert ran.returncode == 0, ran.stderr
    queries = []
    for entries in logs.glob("*/duckdb_log_entries.csv"):
        queries += [
            message
            for (message,) in real()
            .execute(
                f"SELECT message FROM read_csv('{entries}', header = true, quote = '\"', "
                "escape = '\"', strict_mode = false) WHERE type = 'QueryLog'"
            )
            .fetchall()
        ]
    return ran.stdout + ran.stderr, queries


def _whole_listings(queries: list[str]) -> list[str]:
    """The queries that return every matching price to Python: the listing's query
    (warehouse/prices.py: `... FROM priced q ...`) sent as it is, not kept in a table."""
    return [
        q for q in queries if "FROM priced q" in q and not q.lstrip().upper().startswith("CREATE")
    ]


def test_the_limit_is_in_the_query_and_the_rest_counted_in_sql(sample, tmp_path):
    said, queries = _logged(tmp_path, "prices", "--limit", "3", "--db", str(sample))
    assert not _whole_listings(queries)
    assert any(q.rstrip().endswith("LIMIT 3") for q in queries)
    with duckdb.connect(str(sample), read_only=True) as con:
        (count,) = con.execute("SELECT count(*) FROM per_chip_prices").fetchone()
    assert count > 3
    assert f"{count - 3:,} more rows: --by chip gives" in said


def test_a_csv_limit_is_the_first_rows_of_the_whole_listing(sample, tmp_path):
    said, queries = _logged(
        tmp_path, "prices", "--chip", "H100-SXM", "--limit", "4", "--format", "csv",
        "--db", str(sample),
    )  # fmt: skip
    assert not _whole_listings(queries)
    whole = chipcost("prices", "--chip", "H100-SXM", "--format", "csv", "--db", str(sample))
    lines = whole.stdout.splitlines()
    assert said.startswith("\n".join(lines[:5]) + "\n")
    assert f"{len(lines) - 5:,} more rows (--limit)" in said


def test_the_fields_every_row_shares_are_said_above_the_first_rows(sample):
    # Every matched row, not only those shown: aws's us-east-1 on-demand H100-SXM offers.
    asked = ["--chip", "H100-SXM", "--provider", "aws", "--region", "us-east-1"]
    ran = chipcost("prices", *asked, "--limit", "1", "--db", str(sample))
    whole = chipcost("prices", *asked, "--limit", "1000", "--db", str(sample))
    assert ran.returncode == whole.returncode == 0, ran.stderr
    header = ran.stdout.splitlines()[1]
    assert header == whole.stdout.splitlines()[1]
    assert "chip H100-SXM" in header and "provider aws" in header


def test_the_read_counts_the_fields_a_table_says_once():
    from chipcost.cli.price_cells import FIELDS
    from chipcost.reads.prices import OFFER_FIELDS

    assert set(FIELDS) == set(OFFER_FIELDS)
