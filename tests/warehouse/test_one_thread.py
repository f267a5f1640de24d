"""Reads streamed on one DuckDB thread, as a one-core machine runs them (or
CHIPCOST_THREADS=1): on a year of history, `chipcost sql "FROM per_chip_prices"` streams its
rows, where the views' ASOF joins once left it waiting forever on the first batch (DuckDB 1.5;
warehouse/fx.py in_force)."""

from __future__ import annotations

import subprocess
import sys

from tests import warehouses

# About a year of 50,000 offers a day at the benchmark's change rates (docs/performance.md):
# the wait needed that much history under the open rows (1.0 million rows did not show it).
ROWS = 1_300_000
OPEN = 50_000

# The history, made in memory in the reading process (a temporary price_history, which the
# views read before the file's): a file of it costs twice the CPU to write.
_HISTORY = f"""
CREATE TEMP TABLE price_history AS FROM main.price_history LIMIT 0;
INSERT INTO temp.price_history
SELECT 'aws', 'aws-pricing-api', 'region-' || (i % 40), '', 'type-' || (i % {OPEN} // 40),
    'on_demand', 'none', 'none', 'default', 'H100-SXM', 8, 10 + (i % 997) / 100, NULL, 'USD',
    'sku-' || (i % {OPEN}), 'https://example.invalid/prices', start,
    CASE WHEN i >= {OPEN} THEN start + INTERVAL 1 DAY END,
    CASE WHEN i >= {OPEN} THEN 'changed' END, start, 'run-a', 'run-b', 'run-a/aws/0001.json.gz',
    NULL, NULL, NULL
FROM (SELECT i, TIMESTAMPTZ '2024-01-01 06:00:00+00' + to_days(CAST(i // {OPEN} AS INTEGER))
    AS start FROM range({ROWS}) r(i));
"""

# The first batch of the stream, on one thread, in a process of its own: a read that waits
# forever is then ended by the test's timeout, not the run's.
_STREAM = f"""
import sys
from chipcost.warehouse.db import connect
con = connect(sys.argv[1], read_only=True)
con.execute("SET threads = 1")
con.execute("SET enable_progress_bar = false")
con.execute('''{_HISTORY}''')
print(len(con.sql("FROM per_chip_prices").fetchmany(1000)))
"""


def test_every_current_price_streams_on_one_thread_over_a_year_of_history(tmp_path):
    path = warehouses.new(tmp_path / "year.duckdb")
    try:
        done = subprocess.run(
            [sys.executable, "-c", _STREAM, str(path)], capture_output=True, text=True, timeout=60
        )
    except subprocess.TimeoutExpired:
        raise AssertionError("per_chip_prices' first 1,000 rows did not come in 60 s") from None
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1:] == ["1000"]  # after any progress bar DuckDB drew
