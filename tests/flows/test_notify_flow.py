"""Price notifications from the daily flow and `chipcost collect --notify`, to a real local
webhook receiver (apprise json://), on a real Prefect server."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import duckdb
import pytest

from chipcost.flows.collect import collect
from tests import webhook_server
from tests.cli.test_cli import chipcost
from tests.conftest import SAMPLE
from tests.smtp_server import free_port

TITLE = "[sample data] Price alert: 1 move of 5% or more, A100-40GB on-demand −8%"
LINE = "−8% A100-40GB aws · us-west-2 · p4d.24xlarge · on-demand: $2.7450 → $2.5254 per chip-hour"


@pytest.fixture
def two_sample_days(tmp_path) -> Path:
    """The sample runs of 2026-11-16 and -17: p4d.24xlarge in us-west-2 drops 8% on the 17th."""
    archive = tmp_path / "archive"
    for stamp in ("2026-11-16T060000Z", "2026-11-17T060000Z"):
        shutil.copytree(SAMPLE / stamp / "aws-pricing-api", archive / stamp / "aws-pricing-api")
    return archive


@pytest.fixture(autouse=True)
def no_notify_env(monkeypatch):
    monkeypatch.delenv("CHIPCOST_NOTIFY", raising=False)


def run(archive: Path, db: Path, **alerts):
    return collect(
        replay=str(archive),
        db=str(db),
        data_dir=str(db.parent),
        sources=["aws-pricing-api"],
        return_state=True,
        **alerts,
    )


def sent_rows(db: Path) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT kind, alert_key FROM notifications").fetchall()
    finally:
        con.close()


@pytest.mark.usefixtures("prefect_server")
def test_the_flow_posts_the_move_once(two_sample_days, tmp_path):
    db = tmp_path / "w.duckdb"
    with webhook_server.serving() as (port, inbox):
        state = run(two_sample_days, db, notify=[f"json://127.0.0.1:{port}/hook"], alert_pct=5.0)
        assert state.is_completed(), state.message
        again = run(two_sample_days, db, notify=[f"json://127.0.0.1:{port}/hook"], alert_pct=5.0)
        assert again.is_completed(), again.message
    (hook,) = inbox.hooks  # the re-run loaded nothing new and sent nothing
    assert hook.fields()["title"] == TITLE
    assert hook.fields()["message"].splitlines() == [LINE]
    assert [kind for kind, _ in sent_rows(db)] == ["move"]


@pytest.mark.usefixtures("prefect_server")
def test_targets_from_the_environment_and_a_secret_block(two_sample_days, tmp_path, monkeypatch):
    from prefect.blocks.system import Secret

    with webhook_server.serving() as (port, inbox):
        monkeypatch.setenv("CHIPCOST_NOTIFY", f"json://127.0.0.1:{port}/env")
        assert run(two_sample_days, tmp_path / "a.duckdb").is_completed()  # 10% by default: none
        assert run(two_sample_days, tmp_path / "b.duckdb", alert_pct=5.0).is_completed()
        Secret(value=[f"form://127.0.0.1:{port}/block"]).save("test-notify", overwrite=True)
        db = tmp_path / "c.duckdb"
        state = run(two_sample_days, db, alert_pct=5.0, notify_block="test-notify")
        assert state.is_completed(), state.message
    assert [h.path for h in inbox.hooks] == ["/env", "/block"]  # the block replaces the variable
    assert inbox.hooks[1].fields()["title"] == TITLE


@pytest.mark.usefixtures("prefect_server")
def test_a_target_that_cannot_be_reached_fails_the_run_but_keeps_the_prices(
    two_sample_days, tmp_path
):
    db = tmp_path / "w.duckdb"
    url = f"json://127.0.0.1:{free_port()}/hook"
    state = run(two_sample_days, db, notify=[url], alert_pct=5.0)
    assert state.is_failed()
    assert state.message.startswith(
        f"prices loaded, but a price notification was not sent: {url} did not accept"
    )
    assert sent_rows(db) == []
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM runs").fetchall() == [(2,)]
    finally:
        con.close()


@pytest.mark.usefixtures("prefect_server")
def test_cli_collect_notify(two_sample_days, tmp_path):
    from prefect.settings import PREFECT_API_URL

    # This session's Prefect server: a temporary one per command is slow to start on a busy box.
    env = {**os.environ, "PREFECT_API_URL": PREFECT_API_URL.value()}
    with webhook_server.serving() as (port, inbox):
        result = chipcost(
            "collect", "--replay", str(two_sample_days), "--source", "aws-pricing-api",
            "--db", str(tmp_path / "w.duckdb"), "--data-dir", str(tmp_path),
            "--notify", f"json://127.0.0.1:{port}/cli", "--alert-pct", "5", env=env,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    (hook,) = inbox.hooks
    assert hook.path == "/cli" and hook.fields()["title"] == TITLE


def test_cli_refuses_a_wrong_url_before_collecting(two_sample_days, tmp_path):
    result = chipcost(
        "collect", "--replay", str(two_sample_days), "--db", str(tmp_path / "w.duckdb"),
        "--notify", "hooks.example.com/x",
    )  # fmt: skip
    assert result.returncode == 1
    assert "is not an apprise URL" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "w.duckdb").exists()
