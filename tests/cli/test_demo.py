"""`chipcost demo`: the shipped sample replayed and shown, as a new user first runs it."""

from __future__ import annotations

import duckdb


def test_demo_replays_the_shipped_sample_and_shows_it(run, tmp_path):
    db = tmp_path / "w.duckdb"
    done = run("demo", "--db", str(db), "--data-dir", str(tmp_path / "data"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "SAMPLE DATA" in done.stdout and "H100-SXM" in done.stdout
    con = duckdb.connect(str(db), read_only=True)
    try:
        runs, history = con.execute(
            "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM price_history)"
        ).fetchone()
    finally:
        con.close()
    assert runs == 8 and history > 0  # the eight archived days of the sample
