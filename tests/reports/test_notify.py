"""Price alerts through apprise to a real local webhook receiver, at most once a day each."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pytest

from chipcost.core.errors import UsageError
from chipcost.core.settings import load_settings, notify_urls
from chipcost.reports.notify import NotifyError, check_urls, send_alerts, target_label
from tests import report_warehouse, webhook_server
from tests.helpers import day
from tests.smtp_server import free_port

SINCE = datetime(2026, 11, 4, tzinfo=UTC)  # the golden week's moves: A -10% on the 4th, B +5%
UNTIL = day(6) + timedelta(seconds=1)
TITLE = "Price alert: 2 moves of 5% or more, H100-SXM on demand −10%; 1 new cheapest price"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    return report_warehouse.build(tmp_path_factory.mktemp("notify") / "w.duckdb")


@pytest.fixture
def golden(built, tmp_path) -> Path:
    """A copy per test: each records what it sent."""
    return Path(shutil.copy(built, tmp_path / "w.duckdb"))


@pytest.mark.parametrize("scheme", ["json", "form"])
def test_moves_and_a_new_cheapest_price_reach_the_webhook(golden, scheme):
    with webhook_server.serving() as (port, inbox):
        done = send_alerts(golden, [f"{scheme}://127.0.0.1:{port}/hook"], SINCE, UNTIL, 5.0)
    (hook,) = inbox.hooks
    assert hook.path == "/hook"
    posted = hook.fields()
    assert posted["title"] == TITLE
    lines = posted["message"].splitlines()
    assert lines == [
        "−10% H100-SXM aws · us-east-1 · p5.48xlarge · on demand: $10.0000 → $9.0000 per chip-hour",
        "+5% H100-SXM aws · us-west-2 · p5.48xlarge · on demand: $12.0000 → $12.6000 per chip-hour",
        "new cheapest H100-SXM on demand: $9.2500 per chip-hour at aws · us-east-1 · p5.48xlarge "
        "(was $10.0000 at aws · us-east-1)",
    ]
    assert done.alerts == 3 and list(done.sent.values()) == [3]


def test_a_same_day_rerun_sends_nothing_again(golden):
    with webhook_server.serving() as (port, inbox):
        url = f"json://127.0.0.1:{port}/hook"
        send_alerts(golden, [url], SINCE, UNTIL, 5.0)
        again = send_alerts(golden, [url], SINCE, UNTIL, 5.0)
    assert len(inbox.hooks) == 1
    assert again.sent == {} and list(again.already.values()) == [3]
    con = duckdb.connect(str(golden), read_only=True)
    try:
        kinds = con.execute("SELECT kind, count(*) FROM notifications GROUP BY ALL ORDER BY 1")
        assert kinds.fetchall() == [("cheapest", 1), ("move", 2)]
    finally:
        con.close()


def test_a_failing_target_gets_its_alerts_on_the_rerun_and_the_other_not_twice(golden):
    down_port = free_port()
    with webhook_server.serving() as (port, inbox):
        good, down = f"json://127.0.0.1:{port}/ok", f"json://127.0.0.1:{down_port}/later"
        with pytest.raises(NotifyError, match=f"json://127.0.0.1:{down_port}/later did not"):
            send_alerts(golden, [down, good], SINCE, UNTIL, 5.0)
        assert len(inbox.hooks) == 1
        with webhook_server.serving(down_port) as (_, late):
            done = send_alerts(golden, [down, good], SINCE, UNTIL, 5.0)
    assert len(inbox.hooks) == 1 and len(late.hooks) == 1
    assert list(done.sent.values()) == [3]


def test_a_server_error_is_reported_with_the_masked_target(golden):
    with webhook_server.serving(status=500) as (port, _):
        url = f"json://user:s3cret@127.0.0.1:{port}/hook"
        with pytest.raises(NotifyError) as caught:
            send_alerts(golden, [url], SINCE, UNTIL, 5.0)
    assert "s3cret" not in str(caught.value) and "did not accept the price alert" in str(
        caught.value
    )


def test_nothing_to_alert_posts_nothing(golden):
    with webhook_server.serving() as (port, inbox):
        later = datetime(2026, 11, 8, tzinfo=UTC)
        done = send_alerts(golden, [f"json://127.0.0.1:{port}/x"], later, later, 5.0)
    assert inbox.hooks == [] and done.alerts == 0


def test_a_wrong_url_is_named_before_anything_is_sent():
    with pytest.raises(NotifyError, match="target 2 .*not an apprise URL"):
        check_urls(["json://127.0.0.1/x", "nope://hook"])


def test_a_target_with_no_scheme_is_named_as_typed():
    """Not `bogus://…` (c96d2408): a scheme no one typed; given as an option, a usage error."""
    with pytest.raises(NotifyError) as caught:
        check_urls(["bogus"])
    assert "('bogus')" in str(caught.value) and "://…)" not in str(caught.value)
    assert not isinstance(caught.value, UsageError)  # $CHIPCOST_NOTIFY's: no option typed
    with pytest.raises(UsageError) as given:
        check_urls(["json://127.0.0.1/x", "bogus"], "--notify")
    assert "--notify 'bogus'" in str(given.value)


def test_secrets_are_masked_in_labels():
    label = target_label("slack://TA1234/BB22222/CC3333333333")
    assert "BB22222" not in label and label.startswith("slack://")


def test_chipcost_notify_is_read_as_comma_separated_urls(monkeypatch):
    assert notify_urls(" json://a/x , form://b/y,,json://a/x") == ("json://a/x", "form://b/y")
    monkeypatch.setenv("CHIPCOST_NOTIFY", "discord://1/abc")
    settings = load_settings()
    assert settings.notify == ("discord://1/abc",) and "discord" not in repr(settings)


HOSTILE = "<!channel> @everyone [docs](http://evil.test) <http://evil.test|Docs> <b>x</b>"


def test_provider_text_reaches_a_chat_as_plain_text(tmp_path):
    """On main at 368c4bd a provider string went into the alert as it came: a Slack
    `<!channel>`, a Discord `@everyone` or a disguised link would have reached the team."""
    from chipcost.pipeline.seed import open_warehouse
    from chipcost.warehouse.load import load_run
    from tests.helpers import record, run_of

    db = tmp_path / "w.duckdb"
    con = open_warehouse(db)
    try:
        for n, price in enumerate((10.0, 8.0)):
            load_run(con, run_of([record(instance_type=HOSTILE, price_per_hour=price)], day(n)))
    finally:
        con.close()
    with webhook_server.serving() as (port, inbox):
        done = send_alerts(db, [f"json://127.0.0.1:{port}/hook"], day(0), day(1), 5.0)
    assert done.alerts >= 1
    (hook,) = inbox.hooks
    text = hook.fields()["message"]
    for markup in ("<", ">", "[", "]", "@everyone", "<!channel>"):
        assert markup not in text, markup
    assert "‹!channel› @\u200beveryone (docs)(http://evil.test)" in text


@pytest.mark.parametrize(("offers", "more"), [(15, 0), (21, 7)])
def test_a_message_has_at_most_15_lines_the_last_counting_the_rest(tmp_path, offers, more):
    """docs/reports.md: at most 15 lines, the rest counted. Each offer moves 20% or less: an
    alert each (the chip's cheapest price is new in the history: no alert)."""
    from chipcost.pipeline.seed import open_warehouse
    from chipcost.warehouse.load import load_run
    from tests.helpers import record, run_of

    db = tmp_path / "w.duckdb"
    con = open_warehouse(db)
    try:
        for n, price in enumerate((10.0, 8.0)):
            moved = [record(instance_type=f"p5.{i}xlarge", price_per_hour=price + i)
                     for i in range(offers)]  # fmt: skip
            load_run(con, run_of(moved, day(n)))
    finally:
        con.close()
    with webhook_server.serving() as (port, inbox):
        done = send_alerts(db, [f"json://127.0.0.1:{port}/hook"], day(0), day(1), 5.0)
    assert done.alerts == offers
    (hook,) = inbox.hooks
    lines = hook.fields()["message"].splitlines()
    # on 8f824434: 16 lines, 15 alerts and "… and 6 more"; 15 lines were 15 alerts
    assert len(lines) == min(done.alerts, 15)
    if more:
        assert lines[-1] == f"… and {more} more: see the weekly report"
        assert done.alerts == 14 + more
    else:
        assert not any(line.startswith("… and") for line in lines)


def test_the_artifact_escapes_markdown_links_and_images():
    from chipcost.reports.text import _md

    assert _md("![x](http://evil.test/a.png) [y](http://evil.test)") == (
        "\\!\\[x\\]\\(http://evil.test/a.png\\) \\[y\\]\\(http://evil.test\\)"
    )
    assert _md("a|b <script>") == "a\\|b &lt;script&gt;"


def can_write(db: Path) -> bool:
    """Whether another process can open the warehouse for writing right now."""
    probe = "import duckdb, sys; duckdb.connect(sys.argv[1]).close()"
    done = subprocess.run([sys.executable, "-c", probe, str(db)], capture_output=True, timeout=60)
    return done.returncode == 0


def test_a_target_is_posted_to_with_the_warehouse_closed(golden):
    """On 368c4bd a slow webhook held the warehouse's write lock while it answered."""
    with webhook_server.serving(delay=1.0) as (port, inbox):
        writable = []
        inbox.on_hook = lambda hook: writable.append(can_write(golden))
        done = send_alerts(golden, [f"json://127.0.0.1:{port}/hook"], SINCE, UNTIL, 5.0)
    assert writable == [True], "the warehouse was held while the target answered"
    assert list(done.sent.values()) == [3]
    con = duckdb.connect(str(golden), read_only=True)
    try:  # recorded after the post, on a connection of its own
        assert con.execute("SELECT count(*) FROM notifications").fetchone() == (3,)
    finally:
        con.close()


def test_a_target_that_does_not_answer_fails_alone_at_its_deadline(golden):
    with (
        webhook_server.serving(delay=60) as (slow_port, _),
        webhook_server.serving() as (port, inbox),
    ):
        slow, good = f"json://127.0.0.1:{slow_port}/slow", f"json://127.0.0.1:{port}/ok"
        started = time.monotonic()
        with pytest.raises(NotifyError) as caught:
            send_alerts(golden, [slow, good], SINCE, UNTIL, 5.0, deadline=1.0)
        took = time.monotonic() - started
    assert f"{slow} did not answer the price alert within 1 s (CHIPCOST_NOTIFY_DEADLINE)" in str(
        caught.value
    )
    assert len(inbox.hooks) == 1 and took < 3.5
    con = duckdb.connect(str(golden), read_only=True)
    try:  # the slow target's alerts are not recorded: the next run sends them again
        targets = con.execute("SELECT DISTINCT target FROM notifications").fetchall()
        assert len(targets) == 1
    finally:
        con.close()


def test_the_notify_deadline_setting_is_checked():
    from chipcost.core.errors import ChipcostError
    from chipcost.core.settings import notify_deadline

    assert notify_deadline(None) == 30 and notify_deadline("5") == 5
    with pytest.raises(ChipcostError, match="CHIPCOST_NOTIFY_DEADLINE='never'"):
        notify_deadline("never")


def test_one_alert_reads_and_claims_in_one_session_and_records_in_one(golden, monkeypatch):
    """E-mail and a webhook on one collection: the warehouse is opened once to read both and
    claim the mail's recipient, closed while they are sent, and once to record both."""
    from chipcost.reports import collected, outbox
    from chipcost.warehouse.db import connect
    from tests import smtp_server
    from tests.helpers import run_of

    opened = []

    def counted(where, **options):
        opened.append(where)
        return connect(where, **options)

    for module in (collected, outbox):
        monkeypatch.setattr(module, "connect", counted)
    box = smtp_server.Inbox()
    controller = smtp_server.start(box)
    for key, value in {"HOST": "127.0.0.1", "PORT": str(controller.port), "TLS": "none"}.items():
        monkeypatch.setenv(f"CHIPCOST_SMTP_{key}", value)
    monkeypatch.setenv("CHIPCOST_SMTP_FROM", "alerts@example.com")
    settings = load_settings(db=golden)
    runs = [run_of([], SINCE), run_of([], UNTIL - timedelta(seconds=1))]
    try:
        with webhook_server.serving() as (port, inbox):
            hook = [f"json://127.0.0.1:{port}/hook"]
            failed = collected.alert_after_collect(settings, runs, 5.0, ["ops@example.com"], hook)
            again = collected.alert_after_collect(settings, runs, 5.0, ["ops@example.com"], hook)
    finally:
        controller.stop()
    assert failed is None and again is None
    assert len(box.messages) == 1 and len(inbox.hooks) == 1  # the second run: nothing new
    assert len(opened) == 3  # read and claim, record; the second run only reads
    con = duckdb.connect(str(golden), read_only=True)
    try:
        sent = con.execute("SELECT kind, status FROM deliveries").fetchall()
        notified = con.execute("SELECT count(*) FROM notifications").fetchall()
    finally:
        con.close()
    assert sent == [("alert", "sent")] and notified == [(3,)]
