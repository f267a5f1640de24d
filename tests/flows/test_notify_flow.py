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

# The 17th after the 16th: p4d.24xlarge in us-west-2 drops 8% and so becomes the cheapest
# A100-40GB on demand.
TITLE = (
    "[sample data] Price alert: 1 move of 5% or more, A100-40GB on demand −8%; 1 new cheapest price"
)
LINE = "−8% A100-40GB aws · us-west-2 · p4d.24xlarge · on demand: $2.7615 → $2.5406 per chip-hour"
CHEAPEST = (
    "new cheapest A100-40GB on demand: $2.5406 per chip-hour at aws · us-west-2 · "
    "p4d.24xlarge (was $2.7615 at aws · us-east-1)"
)


def sample_days(folder: Path, *stamps: str) -> Path:
    """The sample's aws-pricing-api runs of those days, as an archive of their own."""
    for stamp in stamps:
        shutil.copytree(SAMPLE / stamp / "aws-pricing-api", folder / stamp / "aws-pricing-api")
    return folder


@pytest.fixture(scope="module")
def first_day(prefect_server, tmp_path_factory) -> Path:
    """A warehouse holding the sample run of 2026-11-16, loaded once by the flow: each test
    replays the 17th (p4d.24xlarge in us-west-2 drops 8%) onto a copy of its own."""
    folder = tmp_path_factory.mktemp("first-day")
    db = folder / "w.duckdb"
    state = run(sample_days(folder / "archive", "2026-11-16T060000Z"), db)
    assert state.is_completed(), state.message
    return db


@pytest.fixture(scope="module")
def second_day(tmp_path_factory) -> Path:
    return sample_days(tmp_path_factory.mktemp("second-day"), "2026-11-17T060000Z")


def copy_of(first_day: Path, folder: Path) -> Path:
    folder.mkdir(exist_ok=True)
    return Path(shutil.copy(first_day, folder / "w.duckdb"))


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
def test_the_flow_posts_the_move_once(first_day, second_day, tmp_path):
    db = copy_of(first_day, tmp_path)
    with webhook_server.serving() as (port, inbox):
        state = run(second_day, db, notify=[f"json://127.0.0.1:{port}/hook"], alert_pct=5.0)
        assert state.is_completed(), state.message
        again = run(second_day, db, notify=[f"json://127.0.0.1:{port}/hook"], alert_pct=5.0)
        assert again.is_completed(), again.message
    (hook,) = inbox.hooks  # the re-run loaded nothing new and sent nothing
    assert hook.fields()["message"].splitlines() == [LINE, CHEAPEST]
    assert hook.fields()["title"] == TITLE
    assert [kind for kind, _ in sent_rows(db)] == ["move", "cheapest"]


@pytest.mark.usefixtures("prefect_server")
def test_targets_from_the_environment_and_a_secret_block(
    first_day, second_day, tmp_path, monkeypatch
):
    from prefect.blocks.system import Secret

    with webhook_server.serving() as (port, inbox):
        monkeypatch.setenv("CHIPCOST_NOTIFY", f"json://127.0.0.1:{port}/env")
        default = run(second_day, copy_of(first_day, tmp_path / "a"))  # 10% by default
        assert default.is_completed()
        assert run(second_day, copy_of(first_day, tmp_path / "b"), alert_pct=5.0).is_completed()
        Secret(value=[f"form://127.0.0.1:{port}/block"]).save("test-notify", overwrite=True)
        db = copy_of(first_day, tmp_path / "c")
        state = run(second_day, db, alert_pct=5.0, notify_block="test-notify")
        assert state.is_completed(), state.message
    # The block replaces the variable; at 10% by default the 8% move is not sent, the new
    # cheapest price is.
    assert [h.path for h in inbox.hooks] == ["/env", "/env", "/block"]
    assert inbox.hooks[0].fields()["message"].splitlines() == [CHEAPEST]
    assert inbox.hooks[1].fields()["title"] == TITLE


@pytest.mark.usefixtures("prefect_server")
def test_a_target_that_cannot_be_reached_fails_the_run_but_keeps_the_prices(
    first_day, second_day, tmp_path
):
    db = copy_of(first_day, tmp_path)
    url = f"json://127.0.0.1:{free_port()}/hook"
    state = run(second_day, db, notify=[url], alert_pct=5.0)
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
def test_cli_collect_notify(first_day, second_day, tmp_path):
    from prefect.settings import PREFECT_API_URL

    # This session's Prefect server: a temporary one per command is slow to start on a busy box.
    env = {**os.environ, "PREFECT_API_URL": PREFECT_API_URL.value()}
    with webhook_server.serving() as (port, inbox):
        result = chipcost(
            "collect", "--replay", str(second_day), "--source", "aws-pricing-api",
            "--db", str(copy_of(first_day, tmp_path)), "--data-dir", str(tmp_path),
            "--notify", f"json://127.0.0.1:{port}/cli", "--alert-pct", "5", env=env,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    (hook,) = inbox.hooks
    assert hook.path == "/cli" and hook.fields()["title"] == TITLE


def test_cli_refuses_a_wrong_url_before_collecting(tmp_path):
    archive = sample_days(tmp_path / "archive", "2026-11-16T060000Z", "2026-11-17T060000Z")
    result = chipcost(
        "collect", "--replay", str(archive), "--db", str(tmp_path / "w.duckdb"),
        "--notify", "hooks.example.com/x",
    )  # fmt: skip
    assert result.returncode == 2  # a value given on the command line: a usage error
    assert "--notify 'hooks.exampl…' is not an apprise URL" in result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "w.duckdb").exists()


@pytest.mark.parametrize("size", [-5.0, float("nan")])
def test_a_move_size_that_is_none_fails_the_flow_before_it_loads(first_day, second_day, tmp_path,
                                                                 size):  # fmt: skip
    """The flow checks alert_pct as the command does: -5 or NaN alerted on every move, or on
    none; nothing is loaded."""
    db = copy_of(first_day, tmp_path / "a")
    state = run(second_day, db, alert_pct=size)
    assert state.is_failed() and "give a percent above 0 and at most 1000" in state.message
    assert sent_rows(db) == []
    runs = duckdb.connect(str(db), read_only=True)
    try:
        assert runs.execute("SELECT count(*) FROM runs").fetchone() == (1,)
    finally:
        runs.close()
