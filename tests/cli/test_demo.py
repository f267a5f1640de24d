"""`chipcost demo`: the shipped sample replayed and shown, as a new user first runs it."""

from __future__ import annotations

import duckdb

from tests.helpers import pasted


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
    chosen = tmp_path / "the chosen one"  # a space: each command quotes it
    done = run("demo", "--data-dir", str(chosen), env={"COLUMNS": "80"})
    assert done.returncode == 0, done.stderr[-2000:]
    db = chosen / "chipcost.duckdb"
    assert "no warehouse" not in done.stdout + done.stderr
    assert "us-east-1" in done.stdout.split("prices --chip H100-SXM --region us-east-1")[-1]
    [tried] = pasted(done.stdout, "try: ")
    assert tried == ["chipcost", "prices", "--chip", "H100-SXM", "--db", str(db)]
    suggested = pasted(done.stdout.split("Next:")[-1], "  chipcost ")
    assert [command[0] for command in suggested] == ["cost", "report", "sql"]
    assert all(command[-2:] == ["--db", str(db)] for command in (suggested[0], suggested[2]))
    assert suggested[1][-2:] == ["--out", str(chosen / "reports")]
    assert not (tmp_path / "data").exists()
    # What it suggests runs as suggested, each line pasted whole at 80 columns.
    for command in [tried[1:], *suggested]:
        assert run(*command).returncode == 0, command
    assert sorted(p.name for p in chosen.iterdir() if p.is_dir()) == ["reports"]
    assert not [p for p in (*tmp_path.iterdir(), *chosen.iterdir()) if "," in p.name]


def test_the_default_data_directory_needs_nothing_said_again(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CHIPCOST_DATA_DIR", raising=False)
    done = run("demo")
    assert done.returncode == 0, done.stderr[-2000:]
    assert pasted(done.stdout, "try: ") == [["chipcost", "prices", "--chip", "H100-SXM"]]
    assert "--db" not in done.stdout.split("Next:")[-1]
