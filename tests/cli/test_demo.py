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


def test_a_data_directory_given_is_where_the_demo_reads_and_sends_you(run, tmp_path, monkeypatch):
    """`demo --data-dir DIR` loads DIR/chipcost.duckdb: its own table reads that file (not
    ./data's, which does not exist), and every command it suggests names it."""
    monkeypatch.chdir(tmp_path)  # no ./data here
    monkeypatch.delenv("CHIPCOST_DATA_DIR", raising=False)
    chosen = tmp_path / "chosen"
    done = run("demo", "--data-dir", str(chosen), env={"COLUMNS": "400"})
    assert done.returncode == 0, done.stderr[-2000:]
    db = chosen / "chipcost.duckdb"
    assert "no warehouse" not in done.stdout + done.stderr
    assert "us-east-1" in done.stdout.split("prices --chip H100-SXM --region us-east-1")[-1]
    assert f"(try: chipcost prices --chip H100-SXM --db {db})" in done.stdout
    suggested = done.stdout.split("Next: ")[-1]
    assert suggested.count(f"--db {db}") == 3 and f"--out {chosen / 'reports'}" in suggested
    assert not (tmp_path / "data").exists()
    # What it suggests runs as suggested.
    assert run("sql", "select count(*) from price_changes", "--db", str(db)).returncode == 0


def test_the_default_data_directory_needs_nothing_said_again(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CHIPCOST_DATA_DIR", raising=False)
    done = run("demo")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "(try: chipcost prices --chip H100-SXM)" in done.stdout
    assert "--db" not in done.stdout.split("Next: ")[-1]
